//! A Java process outlives nothing: when the process that started it dies, even by SIGKILL
//! (a cancelled `cargo test`), the JVM goes too.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use nameserver_testkit::java::{self, Version};
use nameserver_testkit::peer::wait_terminated;

/// Set in the child this test starts: the child starts a NameServer and waits to be killed.
const CHILD: &str = "JAVA_ORPHAN_CHILD";

#[test]
#[ignore = "needs Java 17 and Maven Central: scripts/test.sh runs it in its own step"]
fn a_jvm_dies_with_the_process_that_started_it() {
    if std::env::var_os(CHILD).is_some() {
        let jvm = java::start_namesrv(Version::V5_5_0, &[]).unwrap_or_else(|e| panic!("{e}"));
        println!("JVM {}", jvm.pid().expect("running"));
        // Blocks until killed: the parent never writes to this pipe.
        let _ = std::io::stdin().read_line(&mut String::new());
        return;
    }
    if java::skip_requested("the JVM watchdog test") {
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "orphan::a_jvm_dies_with_the_process_that_started_it", "--nocapture"])
        .env(CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(pid) = line.strip_prefix("JVM ").and_then(|p| p.trim().parse::<u32>().ok()) {
                let _ = tx.send(pid);
            }
        }
    });
    let jvm = rx.recv_timeout(java::START_GUARD * 2).expect("the child started a NameServer (hang guard)");
    child.kill().unwrap();
    child.wait().unwrap();
    let gone = wait_terminated(jvm, Duration::from_secs(60));
    if !gone {
        // Not to be left behind: stop it before failing.
        let _ = Command::new("kill").arg("-KILL").arg(jvm.to_string()).status();
    }
    assert!(gone, "JVM {jvm} still runs 60 s after the process that started it was killed");
}
