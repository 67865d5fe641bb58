//! `--log-dir`: Java's three log files beside stderr (namesrv.log, namesrv_traffic.log,
//! namesrv_default.log) in Java's pattern and time zone, the traffic of requests actually sent,
//! the WATERMARK line, and an unwritable directory that only costs the files.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;
use support::{Daemon, call_blocking, decode, encode, eventually_blocking, register_broker_frame, route_query};

/// Java's `%d{yyy-MM-dd HH:mm:ss,GMT+8} %p %t - %m%n`, one line.
const JAVA_LINE: &str = r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) (TRACE|DEBUG|INFO|WARN|ERROR) \S+ - (.*)$";

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

/// The counts of a `… Distribution: {code:count, …}` kind summed over the file's lines.
fn distribution_sums(traffic: &str, kind: &str) -> BTreeMap<i32, u64> {
    let line = Regex::new(&format!(r"- Port: \d+, {kind} Distribution: \{{(.*)\}}$")).unwrap();
    let mut sums = BTreeMap::new();
    for captures in traffic.lines().filter_map(|l| line.captures(l)) {
        for pair in captures[1].split(", ") {
            let (code, count) = pair.split_once(':').unwrap();
            *sums.entry(code.parse().unwrap()).or_default() += count.parse::<u64>().unwrap();
        }
    }
    sums
}

/// `2026-01-02T03:04:05.123456Z` (tracing's stderr time) as Java writes it in GMT+8, and the
/// second after: each output reads the clock for itself, stderr first.
fn in_gmt_plus_8(utc: &str) -> [String; 2] {
    let number = |range: std::ops::Range<usize>| utc[range].parse::<u8>().unwrap();
    let month = time::Month::try_from(number(5..7)).unwrap();
    let date = time::Date::from_calendar_date(utc[0..4].parse().unwrap(), month, number(8..10)).unwrap();
    let at = time::PrimitiveDateTime::new(
        date,
        time::Time::from_hms(number(11..13), number(14..16), number(17..19)).unwrap(),
    ) + time::Duration::hours(8);
    [at, at + time::Duration::seconds(1)].map(|at| {
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second()
        )
    })
}

#[test]
fn the_three_files_hold_javas_lines_and_the_traffic_sent() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("logs").join("rocketmqlogs");
    let daemon = Daemon::start(home.path(), &["--no-http", "--log-dir", dir.to_str().unwrap()]);
    let mut stream = daemon.connect();
    assert_eq!(decode(&call_blocking(&mut stream, &register_broker_frame())).code, 0);
    for opaque in 1..=3 {
        assert_eq!(decode(&call_blocking(&mut stream, &encode(&route_query("NoSuchTopic", opaque)))).code, 17);
    }

    // The four may straddle seconds: the lines are summed.
    let traffic = eventually_blocking("the traffic of the four requests in namesrv_traffic.log", || {
        let traffic = read(&dir, "namesrv_traffic.log");
        let requests = distribution_sums(&traffic, "RequestCode");
        (requests.get(&105) >= Some(&3) && requests.get(&103) >= Some(&1)).then_some(traffic)
    });
    assert_eq!(distribution_sums(&traffic, "RequestCode"), BTreeMap::from([(103, 1), (105, 3)]), "{traffic}");
    let responses = eventually_blocking("the four responses in namesrv_traffic.log", || {
        let responses = distribution_sums(&read(&dir, "namesrv_traffic.log"), "ResponseCode");
        (responses.values().sum::<u64>() >= 4).then_some(responses)
    });
    assert_eq!(responses, BTreeMap::from([(0, 1), (17, 3)]));

    let watermark = Regex::new(
        r"^\[WATERMARK\] ClientQueueSize:0 ClientQueueSlowTime:0 DefaultQueueSize:\d+ DefaultQueueSlowTime:0$",
    )
    .unwrap();
    let java_line = Regex::new(JAVA_LINE).unwrap();
    let default = eventually_blocking("a WATERMARK line in namesrv_default.log", || {
        let default = read(&dir, "namesrv_default.log");
        default.contains("[WATERMARK]").then_some(default)
    });
    for line in default.lines() {
        let captures = java_line.captures(line).unwrap_or_else(|| panic!("not Java's pattern: {line:?}"));
        assert!(watermark.is_match(&captures[3]), "{line:?}");
    }
    for line in traffic.lines() {
        assert!(java_line.is_match(line), "not Java's pattern: {line:?}");
    }

    // namesrv.log gets what stderr gets, the time in GMT+8; the other two files' lines only there.
    let namesrv = eventually_blocking("the registration in namesrv.log", || {
        let namesrv = read(&dir, "namesrv.log");
        namesrv.contains("new broker registered").then_some(namesrv)
    });
    let stderr = daemon.log();
    for words in ["The Name Server boot success", "new broker registered"] {
        let in_file = namesrv.lines().find(|l| l.contains(words)).unwrap_or_else(|| panic!("{words:?}:\n{namesrv}"));
        let captures = java_line.captures(in_file).unwrap_or_else(|| panic!("not Java's pattern: {in_file:?}"));
        assert_eq!(&captures[2], "INFO");
        let on_stderr = stderr.lines().find(|l| l.contains(words)).unwrap();
        assert!(in_gmt_plus_8(on_stderr).contains(&captures[1].to_string()), "{in_file:?} beside {on_stderr:?}");
    }
    for line in namesrv.lines() {
        assert!(java_line.is_match(line), "not Java's pattern: {line:?}");
    }
    for words in ["Distribution", "WATERMARK"] {
        assert!(!stderr.contains(words) && !namesrv.contains(words), "{words} outside its file:\n{stderr}");
    }
}

#[test]
fn without_a_directory_the_files_go_under_user_home_as_javas() {
    let home = tempfile::tempdir().unwrap();
    let user_home = format!("-Duser.home={}", home.path().display());
    let _daemon = Daemon::start(home.path(), &["--no-http", &user_home, "--log-dir"]);
    let dir = home.path().join("logs").join("rocketmqlogs");
    eventually_blocking("a WATERMARK line in $user.home/logs/rocketmqlogs/namesrv_default.log", || {
        read(&dir, "namesrv_default.log").contains("[WATERMARK]").then_some(())
    });
    // namesrv.log has a writer thread of its own, which may lag the other file's.
    eventually_blocking("the boot line in $user.home/logs/rocketmqlogs/namesrv.log", || {
        read(&dir, "namesrv.log").contains("The Name Server boot success").then_some(())
    });
}

#[test]
fn an_unwritable_directory_is_one_warning_and_the_daemon_serves() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let dir = file.join("logs");
    let daemon = Daemon::start(home.path(), &["--no-http", "--log-dir", dir.to_str().unwrap()]);
    let mut stream = daemon.connect();
    assert_eq!(decode(&call_blocking(&mut stream, &encode(&route_query("NoSuchTopic", 1)))).code, 17);
    let stderr = daemon.log();
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("log files")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains(" WARN ") && warnings[0].contains(&dir.display().to_string()), "{stderr}");
    assert!(!dir.exists());
}

/// A registration's "new topic registered" lines, and the next one's "topic changed" lines,
/// on stderr and in namesrv.log, without their times: one per topic, in the topics' order,
/// client text escaped. The text operators grep.
#[test]
fn a_registrations_topic_lines_keep_their_text() {
    use nameserver_core::protocol::body::{RegisterBrokerBody, TopicConfig};
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("logs");
    let mut daemon = Daemon::start(home.path(), &["--no-http", "--log-dir", dir.to_str().unwrap()]);
    let mut stream = daemon.connect();
    for (opaque, queues) in [(1_i32, 4), (2, 8)] {
        let mut body = RegisterBrokerBody::default();
        // A new data version: every topic's queues are looked at again.
        body.topic_config_wrapper.data_version.counter = i64::from(opaque);
        for topic in ["TopicA", "Topic\\B", "Topic\nC\u{202e}", "TopicÄ"] {
            body.topic_config_wrapper.topic_config_table.insert(topic.into(), TopicConfig::new(topic, queues));
        }
        let register = support::big_broker_register(opaque, body.encode_compressed(479));
        assert_eq!(decode(&call_blocking(&mut stream, &encode(&register))).code, 0);
    }
    // Every line is written by the time the daemon has exited on SIGTERM.
    assert!(daemon.terminate().success());
    let queue =
        |n| format!("QueueData [brokerName=big, readQueueNums={n}, writeQueueNums={n}, perm=6, topicSysFlag=0]");
    // In the table's order: by bytes.
    let topics = ["Topic\\nC\\u{202e}", "TopicA", "Topic\\\\B", "TopicÄ"];
    let registered = topics.iter().map(|topic| format!("new topic registered, {topic} {}", queue(4)));
    let changed = topics.iter().map(|topic| format!("topic changed, {topic} OLD: {} NEW: {}", queue(4), queue(8)));
    let expected: Vec<String> = registered.chain(changed).collect();
    let ours = |line: &str| line.contains("new topic registered") || line.contains("topic changed");
    let stderr = daemon.log();
    let on_stderr: Vec<&str> = stderr.lines().filter(|l| ours(l)).map(|l| l.split_once('Z').unwrap().1).collect();
    let stderr_expected: Vec<String> = expected.iter().map(|l| format!("  INFO nameserver::owner: {l}")).collect();
    assert_eq!(on_stderr, stderr_expected, "{stderr}");
    let namesrv = read(&dir, "namesrv.log");
    let in_file: Vec<&str> = namesrv.lines().filter(|l| ours(l)).map(|l| &l[19..]).collect();
    let file_expected: Vec<String> = expected.iter().map(|l| format!(" INFO tokio-rt-worker - {l}")).collect();
    assert_eq!(in_file, file_expected, "{namesrv}");
}
