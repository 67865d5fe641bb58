//! UPDATE_CONTROLLER_CONFIG (1009) against the daemon's controller follows the NameServer's
//! `--remote-config`: by default (`runtime`) only the keys the controller reads as it runs,
//! each with a value of its type, so no one who reaches the controller's port can persist a
//! peer list, a store path or `listenPort` that takes effect at the next start. `all` is
//! Java's behaviour.

use crate::support;

use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::Stdio;

use nameserver_core::protocol::{RemotingCommand, RequestCode};
use support::{ControllerDaemon, call_blocking, decode, encode};

const UPDATE_CONFIG: i32 = 1009;

/// Dropped in this order: the daemon is killed before its home is removed.
struct Started {
    daemon: ControllerDaemon,
    file: PathBuf,
    _home: tempfile::TempDir,
}

fn start(args: &[&str]) -> Started {
    let home = tempfile::tempdir().unwrap();
    let daemon = ControllerDaemon::start(home.path(), args, Stdio::null());
    // Where 1009 persists the controller's keys: Java's `~/controller/controller.properties`.
    let file = home.path().join("controller").join("controller.properties");
    Started { daemon, file, _home: home }
}

fn update(controller: SocketAddr, body: &str) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(RequestCode::from(UPDATE_CONFIG));
    cmd.opaque = 7;
    cmd.body = body.as_bytes().to_vec();
    let mut stream = TcpStream::connect(controller).unwrap();
    decode(&call_blocking(&mut stream, &encode(&cmd)))
}

#[test]
fn by_default_only_the_keys_read_as_it_runs_are_updated_remotely() {
    let started = start(&[]);
    assert!(!started.file.exists());
    for body in
        ["listenPort=1\n", "controllerDLegerPeers=n0-10.0.0.9:9878\n", "controllerStorePath=/tmp/x\n", "noSuchKey=1\n"]
    {
        let reply = update(started.daemon.controller, body);
        assert_eq!(reply.code, 16, "{body}: {reply:?}");
        assert_eq!(reply.remark.as_deref(), Some("Can not update config in black list."), "{body}");
    }
    // A runtime key with a value and one it refuses in the same update: nothing applied.
    let reply = update(started.daemon.controller, "enableElectUncleanMaster=true\nlistenPort=1\n");
    assert_eq!(reply.code, 16, "{reply:?}");
    let reply = update(started.daemon.controller, "electMasterMaxRetryCount=many\n");
    assert_eq!(reply.code, 29, "INVALID_PARAMETER: {reply:?}");
    assert!(reply.remark.as_deref().unwrap_or("").contains("electMasterMaxRetryCount"), "{reply:?}");
    assert!(!started.file.exists(), "nothing refused was written");

    let reply = update(started.daemon.controller, "enableElectUncleanMaster=true\n");
    assert_eq!(reply.code, 0, "{reply:?}");
    let after = std::fs::read_to_string(&started.file).unwrap();
    assert!(after.contains("enableElectUncleanMaster=true"), "{after}");
    assert!(!after.contains("listenPort=1"), "{after}");
}

#[test]
fn with_remote_config_all_it_takes_what_java_takes() {
    let started = start(&["--remote-config", "all"]);
    let reply = update(started.daemon.controller, "noSuchKey=1\n");
    assert_eq!(reply.code, 0, "as Java: {reply:?}");
    let reply = update(started.daemon.controller, "configStorePath=/tmp/x\n");
    assert_eq!(reply.code, 16, "black-listed whatever the setting: {reply:?}");
}
