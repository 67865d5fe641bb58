//! The daemon with its controller keeps serving when nobody reads its standard output: a
//! reader that stops after the boot line (the test kit's, `nameserver | head -1`) or a closed
//! stdout. Its controller line panicked on the broken pipe and the daemon died just after
//! start (found by the Java failover test: the brokers never reached the controller).

use crate::support;

use std::net::TcpStream;

use support::{ControllerDaemon, call_blocking, decode, encode, route_query};

#[test]
fn a_closed_stdout_stops_neither_the_nameserver_nor_the_controller() {
    let home = tempfile::tempdir().unwrap();
    // Its reading end closed before the daemon writes a line: every write to stdout fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    // The controller serves after its line is written: an answer means the line is behind it.
    let mut daemon = ControllerDaemon::start(home.path(), &[], writer);
    assert_eq!(daemon.metadata.code, 0, "{:?}", daemon.metadata);
    let mut stream = TcpStream::connect(daemon.namesrv).unwrap();
    let route = decode(&call_blocking(&mut stream, &encode(&route_query("NoSuchTopic", 1))));
    assert_eq!(route.code, 17, "TOPIC_NOT_EXIST from a NameServer still serving");
    assert!(daemon.child.try_wait().unwrap().is_none(), "the daemon exited");
}
