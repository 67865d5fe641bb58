//! The controller's event log on disk: one controller alone, its committed entries in
//! `controllerStorePath/controller-events.log`, replayed at start so that brokers keep their
//! ids and epochs across restarts.
//!
//! The file is the magic `NSCTLOG\x01`, then one record per log entry, framed as the KV
//! journal's records are (`persist::records`: length, CRC-32, payload); the payload is the
//! entry as `nameserver_controller::encode_entry` wrote it. Appends wait in memory until the
//! driver calls [`FileLog::flush`] after the controller's turn: the group is written and
//! fsynced once, and only then committed, so no reply answers for an entry a crash could lose.
//! At start a torn last record (an append a crash cut short, never answered) is dropped with a
//! warning and cut off the file; a bad record with more after it, or an entry that does not
//! decode, is a start-up error.

use std::collections::VecDeque;
use std::fs::{self, File};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use nameserver_controller::{Leadership, LogIndex, NotLeader, ReplicatedLog, Snapshot, decode_entry};

use crate::persist::records::{self, Corrupt};
use crate::persist::{is_symlink_refusal, open_nofollow, sync_parent};

const MAGIC: &[u8; 8] = b"NSCTLOG\x01";

/// Why the log could not be opened. The daemon refuses to start rather than start an empty
/// controller that would hand out ids brokers already hold.
#[derive(Debug)]
pub enum OpenError {
    /// The file or its directory could not be created, read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A bad record with more after it, or a record that is no entry of ours.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Which record, where, and what is wrong with it.
        reason: String,
    },
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io { path, source } => write!(f, "controllerStorePath: cannot use {}: {source}", path.display()),
            Self::Corrupt { path, reason } => write!(
                f,
                "controllerStorePath: the controller's event log {} is damaged ({reason}); it was not written this \
                 way by a crash. Restore it from a backup, or move it aside to start an empty controller (brokers \
                 then get new ids: clear their brokerIdentity files)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for OpenError {}

/// The one-node log in a file.
#[derive(Debug)]
pub struct FileLog {
    self_id: String,
    path: PathBuf,
    file: File,
    /// The bytes of the file that hold whole records.
    len: u64,
    last: LogIndex,
    /// Committed entries not yet taken (at start: every entry of the file).
    committed: VecDeque<(LogIndex, Vec<u8>)>,
    /// Appended, not yet written.
    pending: Vec<(LogIndex, Vec<u8>)>,
    snapshot: Option<Snapshot>,
}

/// What [`FileLog::open`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    /// Entries read.
    pub entries: usize,
    /// Bytes of a torn tail dropped.
    pub torn: usize,
}

impl FileLog {
    /// Opens (or creates) the log at `path` for the node `self_id`, with every entry in it
    /// ready to be replayed.
    ///
    /// # Errors
    /// See [`OpenError`].
    pub fn open(path: &Path, self_id: &str) -> Result<(Self, Replayed), OpenError> {
        let io_error = |source| OpenError::Io { path: path.to_path_buf(), source };
        if let Some(dir) = path.parent() {
            crate::persist::create_dir_synced(dir).map_err(io_error)?;
        }
        let mut options = fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        let mut file = open_nofollow(&mut options, path).map_err(|error| {
            if is_symlink_refusal(&error) {
                io_error(io::Error::other("it is a symbolic link, which the daemon never follows"))
            } else {
                io_error(error)
            }
        })?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io_error)?;
        let corrupt = |c: Corrupt| OpenError::Corrupt { path: path.to_path_buf(), reason: c.to_string() };
        let (entries, valid, torn) = if bytes.starts_with(MAGIC) {
            let scan =
                records::scan(&bytes, MAGIC.len(), |payload| decode_entry(payload).is_ok().then(|| payload.to_vec()))
                    .map_err(corrupt)?;
            (scan.items, scan.valid, scan.torn)
        } else if bytes.len() <= MAGIC.len() || bytes[MAGIC.len()..].iter().all(|b| *b == 0) {
            // Empty, or the first write cut short.
            (Vec::new(), 0, bytes.len())
        } else {
            return Err(corrupt(Corrupt { offset: 0, records: 0, reason: "not a controller event log" }));
        };
        let created = valid == 0;
        if created {
            file.set_len(0).map_err(io_error)?;
            file.seek(SeekFrom::Start(0)).map_err(io_error)?;
            file.write_all(MAGIC).map_err(io_error)?;
            file.sync_all().map_err(io_error)?;
            sync_parent(path).map_err(io_error)?;
        } else if torn > 0 {
            file.set_len(valid as u64).map_err(io_error)?;
            file.sync_all().map_err(io_error)?;
        }
        let len = file.seek(SeekFrom::End(0)).map_err(io_error)?;
        let replayed = Replayed { entries: entries.len(), torn };
        let committed: VecDeque<(LogIndex, Vec<u8>)> =
            entries.into_iter().zip(1..).map(|(entry, index)| (LogIndex(index), entry)).collect();
        let last = LogIndex(committed.len() as u64);
        let log = Self {
            self_id: self_id.to_string(),
            path: path.to_path_buf(),
            file,
            len,
            last,
            committed,
            pending: Vec::new(),
            snapshot: None,
        };
        Ok((log, replayed))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Entries committed (replayed ones included).
    pub fn committed_entries(&self) -> u64 {
        self.last.0 - self.pending.len() as u64
    }

    /// The appended entries waiting for [`Self::flush`], in order.
    pub fn pending(&self) -> impl Iterator<Item = &[u8]> {
        self.pending.iter().map(|(_, entry)| entry.as_slice())
    }

    /// Writes the appended entries as one group, fsyncs once, and commits them; returns how
    /// many. On an error nothing is committed, the file is cut back to its whole records, and
    /// the entries stay pending for the next call.
    ///
    /// # Errors
    /// The write or the fsync failed.
    pub fn flush(&mut self) -> io::Result<usize> {
        if self.pending.is_empty() {
            return Ok(0);
        }
        let mut group = Vec::new();
        for (_, entry) in &self.pending {
            records::frame(&mut group, |out| out.extend_from_slice(entry));
        }
        let written = self.file.write_all(&group).and_then(|()| self.file.sync_data());
        if let Err(error) = written {
            let _ = self.file.set_len(self.len).and_then(|()| self.file.seek(SeekFrom::Start(self.len)).map(drop));
            return Err(error);
        }
        self.len += group.len() as u64;
        let count = self.pending.len();
        self.committed.extend(self.pending.drain(..));
        Ok(count)
    }
}

impl ReplicatedLog for FileLog {
    fn leadership(&self) -> Leadership {
        Leadership { leader: Some(self.self_id.clone()), is_leader: true, serving: true }
    }

    fn append(&mut self, entry: Vec<u8>) -> Result<LogIndex, NotLeader> {
        self.last = LogIndex(self.last.0 + 1);
        self.pending.push((self.last, entry));
        Ok(self.last)
    }

    fn poll_committed(&mut self) -> Option<(LogIndex, Vec<u8>)> {
        self.committed.pop_front()
    }

    fn snapshot(&self) -> Option<Snapshot> {
        self.snapshot.clone()
    }

    /// Keeps the snapshot in memory only: the file keeps every entry and a restart replays
    /// them all (the daemon never compacts yet).
    fn compact(&mut self, snapshot: Snapshot) {
        self.snapshot = Some(snapshot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nameserver_controller::{Event, encode_entry};
    use nameserver_core::BrokerName;

    fn entry(name: &str) -> Vec<u8> {
        encode_entry(&[Event::ElectMaster { broker_name: BrokerName::from(name), new_master: None }])
    }

    fn taken(log: &mut FileLog) -> Vec<(u64, Vec<u8>)> {
        std::iter::from_fn(|| log.poll_committed()).map(|(i, e)| (i.0, e)).collect()
    }

    #[test]
    fn entries_commit_at_the_flush_and_come_back_after_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store").join(super::super::settings::LOG_FILE);
        let (mut log, replayed) = FileLog::open(&path, "n0").unwrap();
        assert_eq!(replayed, Replayed { entries: 0, torn: 0 });
        assert_eq!(fs::read(&path).unwrap(), MAGIC);
        assert_eq!(log.append(entry("a")), Ok(LogIndex(1)));
        assert_eq!(log.append(entry("b")), Ok(LogIndex(2)));
        assert!(log.poll_committed().is_none(), "nothing commits before the write");
        assert_eq!(log.flush().unwrap(), 2);
        assert_eq!(taken(&mut log), [(1, entry("a")), (2, entry("b"))]);
        log.append(entry("c")).unwrap();
        log.flush().unwrap();
        drop(log);
        let (mut log, replayed) = FileLog::open(&path, "n0").unwrap();
        assert_eq!(replayed, Replayed { entries: 3, torn: 0 });
        assert_eq!(taken(&mut log), [(1, entry("a")), (2, entry("b")), (3, entry("c"))]);
        assert_eq!(log.append(entry("d")), Ok(LogIndex(4)));
    }

    #[test]
    fn a_torn_tail_is_cut_off_and_damage_in_the_middle_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(super::super::settings::LOG_FILE);
        let (mut log, _) = FileLog::open(&path, "n0").unwrap();
        for name in ["a", "b"] {
            log.append(entry(name)).unwrap();
        }
        log.flush().unwrap();
        drop(log);
        let whole = fs::read(&path).unwrap();
        let one = MAGIC.len() + records::HEADER + entry("a").len();
        fs::write(&path, &whole[..whole.len() - 3]).unwrap();
        let (mut log, replayed) = FileLog::open(&path, "n0").unwrap();
        assert_eq!(replayed, Replayed { entries: 1, torn: whole.len() - 3 - one });
        assert_eq!(fs::read(&path).unwrap().len(), one, "the torn record is cut off");
        assert_eq!(taken(&mut log).len(), 1);
        drop(log);
        let mut damaged = whole.clone();
        damaged[MAGIC.len() + records::HEADER] ^= 0xFF;
        fs::write(&path, &damaged).unwrap();
        let error = FileLog::open(&path, "n0").unwrap_err().to_string();
        assert!(
            error.contains("record 1 at byte 8: checksum mismatch") && error.contains("controllerStorePath"),
            "{error}"
        );
        // Not our file at all.
        fs::write(&path, b"hello, this is some other file").unwrap();
        let error = FileLog::open(&path, "n0").unwrap_err().to_string();
        assert!(error.contains("not a controller event log"), "{error}");
    }
}
