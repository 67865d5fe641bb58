//! Where the daemon's log lines go: standard error always, and with `--log-dir` also Java's
//! three files, as its `rmq.namesrv.logback.xml` lays them out (MIGRATING.md, "Logs"):
//!
//! - `namesrv.log`: every line standard error gets, in Java's pattern;
//! - `namesrv_traffic.log`: the request and response codes of each second with traffic
//!   (`traffic_log.rs`, logger `RocketmqTraffic`), on no other output;
//! - `namesrv_default.log`: the `[WATERMARK]` line of each second (logger
//!   `RocketmqNamesrvWaterMark`), on no other output.
//!
//! Each is rolled at 100 MiB into `otherdays/<name>.<i>.log.gz` (`rolling_file.rs`; 5 archives,
//! 10 for the traffic) and written on a thread of its own, as logback's `AsyncAppender` does:
//! `namesrv.log` loses no line (a writer waits when 128 Ki lines are queued), the other two drop
//! lines rather than wait. Java's pattern is `%d{yyy-MM-dd HH:mm:ss,GMT+8} %p %t - %m%n`:
//! the time in GMT+8 to the second, the level, the thread, the message.

use std::fmt;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use tracing::{Event, Subscriber};
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::filter::{EnvFilter, FilterExt as _, filter_fn};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{Layer, Registry};

use crate::event_log::{EventLog, java_time};
use crate::rolling_file::RollingFile;
use crate::traffic_log::{TRAFFIC_TARGET, WATERMARK_TARGET};

/// Where `--log-dir` without a directory puts the files, under `user.home` (Java's
/// `${user.home}/logs/rocketmqlogs`).
pub const JAVA_LOG_DIR: [&str; 2] = ["logs", "rocketmqlogs"];
/// logback's `maxFileSize` of 100MB (its MB is 1024 × 1024 bytes).
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;

/// The logging [`init`] installed; keep it until the process ends, so that the files are
/// flushed.
#[derive(Debug)]
pub struct Logging {
    /// Dropped first: its last lines go through the file's writer below.
    #[expect(dead_code, reason = "held for its drop, which writes the lines handed over")]
    events: Option<EventLog>,
    guards: Vec<WorkerGuard>,
}

impl Logging {
    /// Whether Java's log files are written (`--log-dir` given and the directory writable).
    #[must_use]
    pub fn files(&self) -> bool {
        !self.guards.is_empty()
    }
}

/// `--log-dir` as given: a directory, or Java's under `user_home` when given without one.
#[must_use]
pub fn log_dir(option: Option<&Option<PathBuf>>, user_home: &str) -> Option<PathBuf> {
    match option? {
        Some(dir) => Some(dir.clone()),
        None => Some(JAVA_LOG_DIR.iter().fold(PathBuf::from(user_home), |path, part| path.join(part))),
    }
}

/// Installs the process's logging: standard error, filtered by `level` (`--log-level`, else
/// `RUST_LOG`, else info), and Java's files in `dir` if given. A directory that cannot be
/// created or written is one warning, and the daemon logs to standard error only.
///
/// # Errors
/// `level` is not a valid filter.
pub fn init(level: Option<&str>, dir: Option<&Path>) -> anyhow::Result<Logging> {
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter(level)?.and(filter_fn(|meta| !file_only(meta.target()))));
    let mut layers: Vec<Box<dyn Layer<Registry> + Send + Sync>> = vec![stderr.boxed()];
    let mut guards = Vec::new();
    let mut namesrv_file = None;
    let refused = match dir.map(open) {
        None => None,
        Some(Err(error)) => Some(error),
        Some(Ok([namesrv, traffic, default])) => {
            let (namesrv, guard) =
                NonBlockingBuilder::default().lossy(false).thread_name("namesrv.log").finish(namesrv);
            guards.push(guard);
            namesrv_file = Some(namesrv.clone());
            layers.push(
                java_layer(namesrv)
                    .with_filter(filter(level)?.and(filter_fn(|meta| !file_only(meta.target()))))
                    .boxed(),
            );
            for (file, target, thread) in
                [(traffic, TRAFFIC_TARGET, "namesrv_traffic.log"), (default, WATERMARK_TARGET, "namesrv_default.log")]
            {
                let (writer, guard) = NonBlockingBuilder::default().thread_name(thread).finish(file);
                guards.push(guard);
                layers.push(java_layer(writer).with_filter(filter_fn(move |meta| meta.target() == target)).boxed());
            }
            None
        }
    };
    tracing_subscriber::registry().with(layers).init();
    if let (Some(dir), Some(error)) = (dir, refused) {
        tracing::warn!("log files: cannot write in {} ({error:#}); logging to standard error only", dir.display());
    }
    // The event runs' lines in tracing's text; with colours that text is tracing's to make.
    let events = if std::io::stderr().is_terminal() { None } else { EventLog::start(namesrv_file) };
    Ok(Logging { events, guards })
}

fn filter(level: Option<&str>) -> anyhow::Result<EnvFilter> {
    Ok(match level {
        Some(directives) => {
            EnvFilter::try_new(directives).with_context(|| format!("invalid --log-level `{directives}`"))?
        }
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
    })
}

/// Lines only their own file gets.
fn file_only(target: &str) -> bool {
    target == TRAFFIC_TARGET || target == WATERMARK_TARGET
}

/// The directory and its three files, or why not.
fn open(dir: &Path) -> anyhow::Result<[RollingFile; 3]> {
    std::fs::create_dir_all(dir).context("cannot create it")?;
    Ok([
        RollingFile::open(dir, "namesrv", 5, MAX_FILE_BYTES).context("namesrv.log")?,
        RollingFile::open(dir, "namesrv_traffic", 10, MAX_FILE_BYTES).context("namesrv_traffic.log")?,
        RollingFile::open(dir, "namesrv_default", 5, MAX_FILE_BYTES).context("namesrv_default.log")?,
    ])
}

fn java_layer<S, W>(
    writer: W,
) -> tracing_subscriber::fmt::Layer<S, tracing_subscriber::fmt::format::DefaultFields, JavaPattern, W>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + 'static,
{
    tracing_subscriber::fmt::layer().event_format(JavaPattern).with_writer(writer).with_ansi(false)
}

/// Java's `%d{yyy-MM-dd HH:mm:ss,GMT+8} %p %t - %m%n`.
#[derive(Clone, Copy, Debug)]
pub struct JavaPattern;

impl<S, N> FormatEvent<S, N> for JavaPattern
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        write!(
            writer,
            "{} {} {} - ",
            java_time(time::OffsetDateTime::now_utc()),
            event.metadata().level(),
            std::thread::current().name().unwrap_or("unnamed"),
        )?;
        ctx.format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}
