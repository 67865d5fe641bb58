//! The open-files limit. Every connection is a file descriptor; under a soft limit of 1024
//! (systemd's and most shells' default) accepts start failing with "Too many open files" long
//! before `--max-connections`. At start the daemon raises its soft limit as the JVM does,
//! but only as far as it needs: `max_connections` plus [`MARGIN`], capped by the hard limit.

use std::io;

/// Descriptors besides RocketMQ connections: listeners, the epoll instance, files being
/// written, the HTTP console's connections, standard streams.
pub const MARGIN: u64 = 256;

/// What [`raise_for`] found and did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The soft limit at start.
    pub old_soft: u64,
    /// The soft limit now.
    pub soft: u64,
    /// The hard limit (only root may raise it).
    pub hard: u64,
}

impl Limits {
    /// Connections that can be served without accepts failing for want of descriptors.
    #[must_use]
    pub fn usable_connections(&self) -> u64 {
        self.soft.saturating_sub(MARGIN).max(1)
    }
}

/// Raises the soft `RLIMIT_NOFILE` to `min(hard, max_connections + MARGIN)`; never lowers it.
///
/// # Errors
/// The limit cannot be read or set.
#[cfg(unix)]
pub fn raise_for(max_connections: usize) -> io::Result<Limits> {
    use rlimit::Resource;
    let (old_soft, hard) = Resource::NOFILE.get()?;
    let want = u64::try_from(max_connections).unwrap_or(u64::MAX).saturating_add(MARGIN);
    let soft = if old_soft < want { rlimit::increase_nofile_limit(want)? } else { old_soft };
    Ok(Limits { old_soft, soft, hard })
}

/// Elsewhere there is no such limit to raise.
///
/// # Errors
/// Not on this platform: nothing to raise.
#[cfg(not(unix))]
pub fn raise_for(_max_connections: usize) -> io::Result<Limits> {
    Ok(Limits { old_soft: u64::MAX, soft: u64::MAX, hard: u64::MAX })
}
