//! The daemon with its controller keeps serving when nobody reads its standard output: a
//! reader that stops after the boot line (the test kit's, `nameserver | head -1`) or a closed
//! stdout. Its controller line panicked on the broken pipe and the daemon died just after
//! start (found by the Java failover test: the brokers never reached the controller).

use crate::support;

use std::net::{SocketAddr, TcpStream};
use std::process::Stdio;

use nameserver_core::protocol::{RemotingCommand, RequestCode};
use nameserver_testkit::peer::free_port;
use support::{call_blocking, decode, encode, eventually_blocking, nameserver_command, route_query};

/// CONTROLLER_GET_METADATA_INFO: any controller answers it.
const GET_METADATA_INFO: i32 = 1005;

#[test]
fn a_closed_stdout_stops_neither_the_nameserver_nor_the_controller() {
    let home = tempfile::tempdir().unwrap();
    let (port, controller_port) = (free_port().unwrap(), free_port().unwrap());
    let config = nameserver_testkit::daemon::Config::write(
        home.path(),
        &[
            ("enableControllerInNamesrv", "true"),
            ("controllerDLegerGroup", "group1"),
            ("controllerDLegerPeers", &format!("n0-127.0.0.1:{controller_port}")),
            ("controllerDLegerSelfId", "n0"),
            ("controllerStorePath", &home.path().join("DLedgerController").display().to_string()),
        ],
    );
    // Its reading end closed before the daemon writes a line: every write to stdout fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = nameserver_command(home.path())
        .arg("-c")
        .arg(&config.properties)
        .args(["--no-http", "--bind-address", "127.0.0.1", "--listen-port", &port.to_string()])
        .stdout(writer)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let controller = SocketAddr::from(([127, 0, 0, 1], controller_port));
    // The controller serves after its line is written: an answer means the line is behind it.
    let metadata = RemotingCommand::request(RequestCode::from(GET_METADATA_INFO));
    let reply = eventually_blocking("the controller answers", || {
        let mut stream = TcpStream::connect(controller).ok()?;
        Some(decode(&call_blocking(&mut stream, &encode(&metadata))))
    });
    assert_eq!(reply.code, 0, "{reply:?}");
    let mut stream = TcpStream::connect(SocketAddr::from(([127, 0, 0, 1], port))).unwrap();
    let route = decode(&call_blocking(&mut stream, &encode(&route_query("NoSuchTopic", 1))));
    assert_eq!(route.code, 17, "TOPIC_NOT_EXIST from a NameServer still serving");
    assert!(child.try_wait().unwrap().is_none(), "the daemon exited");
    child.kill().unwrap();
    child.wait().unwrap();
}
