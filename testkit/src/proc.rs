//! A process seen from `/proc` (Linux): the only place the tests and tools read it.

use std::io;

/// Resident memory, threads and open descriptors of one process at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcSample {
    /// `VmRSS`: resident memory in KiB.
    pub rss_kib: u64,
    /// `VmHWM`: the peak resident memory so far, in KiB.
    pub hwm_kib: u64,
    /// `Threads`.
    pub threads: u64,
    /// Entries of `/proc/PID/fd`.
    pub fds: usize,
    /// Those of them that are sockets: a leak check's measure, since files a process keeps
    /// open by design (the daemon's KV journal, once written) are not leaks.
    pub sockets: usize,
}

impl ProcSample {
    /// Reads `/proc/PID/status` and counts `/proc/PID/fd`.
    ///
    /// # Errors
    /// The process does not exist (or is not ours), or a field is missing (not Linux).
    pub fn of(pid: u32) -> io::Result<Self> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
                .ok_or_else(|| io::Error::other(format!("no {name} in /proc/{pid}/status")))
        };
        let (mut fds, mut sockets) = (0, 0);
        for entry in std::fs::read_dir(format!("/proc/{pid}/fd"))? {
            fds += 1;
            // A descriptor closed since the listing has no link: it is counted, not a socket.
            let target = entry.and_then(|e| std::fs::read_link(e.path())).unwrap_or_default();
            sockets += usize::from(target.to_string_lossy().starts_with("socket:"));
        }
        Ok(Self { rss_kib: field("VmRSS:")?, hwm_kib: field("VmHWM:")?, threads: field("Threads:")?, fds, sockets })
    }

    /// Resident memory in MiB.
    #[must_use]
    pub fn rss_mib(&self) -> f64 {
        self.rss_kib as f64 / 1024.0
    }
}

/// The bytes process `pid` has written so far (`wchar` of `/proc/PID/io`: files, sockets
/// and its log).
///
/// # Errors
/// The process does not exist (or is not ours), or the line is missing.
pub fn written_bytes(pid: u32) -> io::Result<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io"))?;
    io.lines()
        .find_map(|line| line.strip_prefix("wchar:"))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| io::Error::other(format!("no wchar in /proc/{pid}/io")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process() {
        let me = ProcSample::of(std::process::id()).unwrap();
        assert!(me.rss_kib > 0 && me.hwm_kib >= me.rss_kib, "{me:?}");
        assert!(me.threads >= 1 && me.fds >= 3, "{me:?}");
        assert!(written_bytes(std::process::id()).is_ok());
        assert!(ProcSample::of(u32::MAX).is_err());
    }
}
