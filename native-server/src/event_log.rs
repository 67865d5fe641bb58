//! The lines of the core's event runs, written off the owner thread.
//!
//! A registration of 10,000 topics logs 10,000 "new topic registered" lines, as Java does.
//! Through `tracing` each is one formatted event, escaped character by character and written
//! with a `write(2)` of its own, on the owner: more than half of its time in a registration
//! storm. Here the owner hands the runs over whole (topics kept as names), and a thread of
//! their own formats them in the same text as `tracing` would (stderr's format, and Java's
//! pattern in `namesrv.log`), each destination getting one write per batch of at most
//! [`BATCH_BYTES`]. What topics' lines share (the queues after the name, the time and level
//! before it) is formatted once per run, not once per line. Started only where that text is known (stderr not a terminal: no colours);
//! elsewhere, and when INFO is off for the owner, the runs go through `tracing` as before.

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use nameserver_core::event::Severity;
use nameserver_core::event_run::{EventRun, Logged};
use nameserver_core::excerpt::Excerpt;
use tracing_appender::non_blocking::NonBlocking;

/// Most bytes of one write.
pub(crate) const BATCH_BYTES: usize = 64 * 1024;
/// Runs handed over and not yet written before the owner waits: bounded, and no line lost.
const QUEUED_STEPS: usize = 64;
/// The target `tracing` gives the owner's lines.
const OWNER_TARGET: &str = "nameserver::owner";

enum Message {
    Runs { runs: Vec<EventRun>, thread: String },
    Stop,
}

static SENDER: OnceLock<SyncSender<Message>> = OnceLock::new();

/// The writing thread; dropping it writes every line handed over, then ends the thread.
#[derive(Debug)]
pub(crate) struct EventLog {
    thread: Option<JoinHandle<()>>,
}

impl EventLog {
    /// Starts the thread writing to stderr and, if given, `namesrv.log` (`None` if one was
    /// started already).
    pub(crate) fn start(file: Option<NonBlocking>) -> Option<Self> {
        let (sender, receiver) = sync_channel(QUEUED_STEPS);
        SENDER.set(sender).ok()?;
        let thread = std::thread::Builder::new().name("event-log".into()).spawn(move || write_runs(&receiver, file));
        Some(Self { thread: thread.ok() })
    }
}

impl Drop for EventLog {
    fn drop(&mut self) {
        if let (Some(sender), Some(thread)) = (SENDER.get(), self.thread.take()) {
            let _ = sender.send(Message::Stop);
            let _ = thread.join();
        }
    }
}

/// Whether the writing thread runs (the daemon's, not a test's in-process server).
pub(crate) fn started() -> bool {
    SENDER.get().is_some()
}

/// Hands `runs` to the writing thread, or gives them back when it has stopped.
pub(crate) fn hand_over(runs: Vec<EventRun>) -> Result<(), Vec<EventRun>> {
    let Some(sender) = SENDER.get() else { return Err(runs) };
    // Java's pattern names the thread that logged the line.
    let thread = std::thread::current().name().unwrap_or("unnamed").to_string();
    sender.send(Message::Runs { runs, thread }).map_err(|error| match error.0 {
        Message::Runs { runs, .. } => runs,
        Message::Stop => Vec::new(),
    })
}

fn write_runs(receiver: &Receiver<Message>, mut file: Option<NonBlocking>) {
    let mut stderr = Vec::with_capacity(BATCH_BYTES);
    let mut java = Vec::with_capacity(BATCH_BYTES);
    let (mut message, mut tail) = (String::new(), String::new());
    let mut clock = Second::default();
    while let Ok(Message::Runs { runs, thread }) = receiver.recv() {
        for run in &runs {
            // A run's lines are stamped with the time it is taken up: its events came of one
            // step. Their heads, one per level, are made once.
            let heads = Heads::at(&mut clock, &thread);
            let longest_head = heads.longest();
            run.each_logged(|logged| {
                message.clear();
                let severity = match logged {
                    Logged::Event(event) => {
                        let _ = writeln!(message, "{event}");
                        event.kind().severity()
                    }
                    // The rest of a topic's line, after its name, is the previous topic's
                    // more often than not: formatted once.
                    Logged::Topic { topic, line, same } => {
                        if !same {
                            tail.clear();
                            line.push_to(&mut tail);
                            tail.push('\n');
                        }
                        message.push_str(line.head());
                        let _ = Excerpt::of(topic).write_to(&mut message);
                        message.push_str(&tail);
                        line.severity()
                    }
                };
                let (head, java_head) = heads.of(severity);
                if stderr.len().max(java.len()) + longest_head + message.len() > BATCH_BYTES {
                    write_batch(&mut stderr, &mut java, file.as_mut());
                }
                stderr.extend_from_slice(head.as_bytes());
                stderr.extend_from_slice(message.as_bytes());
                if file.is_some() {
                    java.extend_from_slice(java_head.as_bytes());
                    java.extend_from_slice(message.as_bytes());
                }
            });
        }
        // Nothing waits in the buffers while the thread does.
        write_batch(&mut stderr, &mut java, file.as_mut());
    }
}

/// The text before a line's message, at one time: stderr's (tracing's full format: the time in
/// UTC to the microsecond, the level, the target) and namesrv.log's (Java's pattern: the time,
/// the level, the thread), for each level.
struct Heads {
    info: (String, String),
    warn: (String, String),
}

impl Heads {
    fn at(clock: &mut Second, thread: &str) -> Self {
        let now = time::OffsetDateTime::now_utc();
        clock.at(now);
        let head = |level: &str| {
            let stderr = format!("{}{:06}Z {level:>5} {OWNER_TARGET}: ", clock.utc, now.microsecond());
            (stderr, format!("{} {level} {thread} - ", clock.java))
        };
        Self { info: head("INFO"), warn: head("WARN") }
    }

    fn of(&self, severity: Severity) -> (&str, &str) {
        let (stderr, java) = match severity {
            Severity::Warn => &self.warn,
            Severity::Info => &self.info,
        };
        (stderr, java)
    }

    fn longest(&self) -> usize {
        [&self.info, &self.warn].iter().map(|(stderr, java)| stderr.len().max(java.len())).max().unwrap_or(0)
    }
}

/// The times of the lines' second, written once a second: tracing's up to the fraction,
/// Java's whole.
#[derive(Default)]
struct Second {
    second: Option<i64>,
    utc: String,
    java: String,
}

impl Second {
    fn at(&mut self, now: time::OffsetDateTime) {
        if self.second == Some(now.unix_timestamp()) {
            return;
        }
        self.second = Some(now.unix_timestamp());
        self.utc = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.",
            now.year(),
            u8::from(now.month()),
            now.day(),
            now.hour(),
            now.minute(),
            now.second()
        );
        self.java = java_time(now);
    }
}

/// One write to each destination; a failed write costs its lines, as `tracing`'s would.
fn write_batch(stderr: &mut Vec<u8>, java: &mut Vec<u8>, file: Option<&mut NonBlocking>) {
    if !stderr.is_empty() {
        let _ = std::io::stderr().lock().write_all(stderr);
        stderr.clear();
    }
    if let Some(file) = file
        && !java.is_empty()
    {
        let _ = file.write_all(java);
    }
    java.clear();
}

/// Java's log time zone.
const GMT_PLUS_8: time::UtcOffset = match time::UtcOffset::from_hms(8, 0, 0) {
    Ok(offset) => offset,
    Err(_) => panic!("+8 hours is a valid offset"),
};

/// `now` as Java's pattern writes it: `yyy-MM-dd HH:mm:ss` in GMT+8.
pub(crate) fn java_time(now: time::OffsetDateTime) -> String {
    let now = now.to_offset(GMT_PLUS_8);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    )
}
