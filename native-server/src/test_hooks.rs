//! Ways for the integration tests to make the daemon misbehave or to watch it, compiled only
//! with the `test-hooks` feature (the tests turn it on; release builds never carry it, and
//! `scripts/check-archive.sh` checks the archive's binary for [`MARKER`] and the console's
//! hook paths).

use std::fmt::Write as _;
use std::sync::Mutex;

use nameserver_core::ConnId;
use nameserver_core::protocol::RemotingCommand;
use tokio::sync::watch;

/// A request with this code makes its connection task panic, as an overflow or a bug would.
pub const PANIC_REQUEST_CODE: i32 = -25_001;

/// Text that is in a binary built with these hooks and in no other.
pub const MARKER: &str = "nameserver-test-hooks-compiled-in";

/// The owner's intake, paused and resumed by the console (`POST /test-hooks/owner/pause`,
/// `/resume`), and the record of requests entering it and taken by the owner
/// (`GET /test-hooks/owner/record`: one line per request, `arrived|handled <connection>
/// <code> <opaque>`, in the order the intake saw them).
#[derive(Debug)]
pub(crate) struct OwnerControl {
    paused: watch::Sender<bool>,
    record: Mutex<Vec<(bool, ConnId, i32, i32)>>,
}

impl Default for OwnerControl {
    fn default() -> Self {
        Self { paused: watch::Sender::new(false), record: Mutex::default() }
    }
}

impl OwnerControl {
    pub(crate) fn pause(&self, paused: bool) {
        self.paused.send_replace(paused);
    }

    pub(crate) fn paused(&self) -> bool {
        *self.paused.borrow()
    }

    /// Sees each pause and resume from now on.
    pub(crate) fn subscribe(&self) -> watch::Receiver<bool> {
        self.paused.subscribe()
    }

    pub(crate) fn arrived(&self, conn: ConnId, cmd: &RemotingCommand) {
        self.note(true, conn, cmd);
    }

    pub(crate) fn handled(&self, conn: ConnId, cmd: &RemotingCommand) {
        self.note(false, conn, cmd);
    }

    fn note(&self, arrived: bool, conn: ConnId, cmd: &RemotingCommand) {
        let mut record = self.record.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        record.push((arrived, conn, cmd.code, cmd.opaque));
    }

    /// The record as text.
    pub(crate) fn record(&self) -> String {
        let record = self.record.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut text = String::with_capacity(record.len() * 24);
        for (arrived, conn, code, opaque) in record.iter() {
            let event = if *arrived { "arrived" } else { "handled" };
            let _ = writeln!(text, "{event} {} {code} {opaque}", conn.0);
        }
        text
    }
}
