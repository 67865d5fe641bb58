//! kill -9 in the middle of KV writes leaves a `kvConfig.json` and a journal that load,
//! holding a whole table as it was after some put, and every put that was answered: changes
//! are appended to the journal and fsynced, the whole file is written as temp file, fsync,
//! rename, fsync directory, and replies wait for them.

use crate::support;

use std::fs;
use std::io::Write as _;

use nameserver::load_kv;
use nameserver_core::protocol::RequestCode;
use support::{Daemon, encode, read_frame_blocking, request};

/// The value put for key number `i`: long enough that each write takes a while (a writer
/// that truncates and rewrites in place fails this test about every other run).
fn value(i: usize) -> String {
    format!("{i}:{}", "v".repeat(2000 + i % 300))
}

#[test]
fn kill_9_during_kv_writes_leaves_a_file_that_loads() {
    // 300 puts of growing tables each time; killed after this many replies.
    for (round, (puts, wait_for)) in
        [(300, 1), (300, 30), (300, 100), (300, 150), (300, 220), (300, 290)].into_iter().enumerate()
    {
        let home = tempfile::tempdir().unwrap();
        let kv_path = home.path().join("store").join("kvConfig.json");
        let properties = home.path().join("namesrv.properties");
        fs::write(&properties, format!("kvConfigPath={}\n", kv_path.display())).unwrap();
        let mut daemon = Daemon::start(home.path(), &["-c", &properties.display().to_string()]);

        let mut stream = daemon.connect();
        let mut burst = Vec::new();
        for i in 0..puts {
            let key = format!("k{i:04}");
            let put = request(
                RequestCode::PutKvConfig,
                i32::try_from(i).unwrap(),
                &[("namespace", "crash"), ("key", &key), ("value", &value(i))],
            );
            burst.extend_from_slice(&encode(&put));
        }
        stream.write_all(&burst).unwrap();
        // Kill it while it is still busy: with replies still to come, writes are in flight.
        for _ in 0..wait_for {
            let reply = support::decode(&read_frame_blocking(&mut stream));
            assert_eq!(reply.code, 0, "round {round}: {reply:?}");
        }
        daemon.child.kill().unwrap();
        daemon.child.wait().unwrap();

        if let Ok(metadata) = fs::metadata(&kv_path) {
            assert!(metadata.len() > 0, "round {round}: an empty (truncated) file");
        }
        let kv = load_kv(&kv_path).unwrap_or_else(|error| panic!("round {round}: {error}"));
        // A whole table as of some put: keys 0..n, each with its value.
        let n = kv.len();
        assert!(n <= puts, "round {round}");
        // A put is answered only once it is on disk.
        assert!(n >= wait_for, "round {round}: {wait_for} puts were answered but the file holds {n}");
        for i in 0..n {
            assert_eq!(kv.get("crash", &format!("k{i:04}")), Some(value(i).as_str()), "round {round}, key {i} of {n}");
        }
    }
}
