//! Why a connection ended, and what is logged and counted for it.

use std::io;

use nameserver_core::codec::DecodeError;

use crate::observe::{Deadline, Observer};
use crate::source::{Fairness, SourceKey};

/// Why a connection ended.
#[derive(Debug)]
pub(super) enum End {
    PeerClosed,
    ClosedByServer,
    Decode(DecodeError),
    Encode(String),
    Io(io::Error),
    /// The server is shutting down and everything owed to the peer was written.
    Finished,
    /// A frame announcing this many bytes was not complete within its deadline.
    FrameDeadline(Option<usize>),
    /// This many bytes of replies stayed unread for a whole idle period.
    SlowReader(usize),
}

impl End {
    /// Logs and counts the end of the connection from `remote` (`source`, for warnings said
    /// once a minute per source).
    pub(super) fn report(self, remote: &str, source: SourceKey, observe: &Observer, fairness: &Fairness) {
        match self {
            Self::Decode(error) => {
                observe.frame_error();
                tracing::warn!("decode exception, {remote}: {error}; closing the connection");
            }
            Self::Encode(error) => tracing::error!("encode exception, {remote}: {error}; closing the connection"),
            // A peer that resets its connection (a TCP probe, a killed client) closes it as
            // another closes it cleanly: at DEBUG, as the open and close lines are.
            Self::Io(error) if peer_closed(&error) => {
                tracing::debug!("NETTY SERVER PIPELINE: exceptionCaught {remote}: {error}");
            }
            Self::Io(error) => tracing::info!("NETTY SERVER PIPELINE: exceptionCaught {remote}: {error}"),
            Self::FrameDeadline(announced) => {
                observe.deadline_close(Deadline::Frame);
                if fairness.warned.allow(source, "frame-deadline") {
                    let base = fairness.deadline;
                    let announced = announced.map_or_else(|| String::from("no length yet"), |n| format!("{n} bytes"));
                    tracing::warn!(
                        "closing the connection from {remote}: a frame ({announced}) was not complete within \
                         {base:?} plus a second per 64 KiB it announces; said once a minute per source"
                    );
                }
            }
            Self::SlowReader(bytes) => {
                observe.deadline_close(Deadline::SlowReader);
                if fairness.warned.allow(source, "slow-reader") {
                    tracing::warn!(
                        "closeChannel: the channel[{remote}] left {bytes} bytes of replies unread for a whole \
                         idle period (serverChannelMaxIdleTimeSeconds), closing it; said once a minute per source"
                    );
                }
            }
            Self::PeerClosed | Self::ClosedByServer | Self::Finished => {}
        }
    }
}

/// An I/O error that only says the peer went away.
fn peer_closed(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
    )
}
