//! The KV file's writer: each change is appended to `kvConfig.json.journal`, and
//! `kvConfig.json` is written whole (crash-safely, [`super::write_atomically`]) only when the
//! journal has outgrown it, at start after a journal was replayed, at a clean stop and after
//! a failed write; each whole write empties the journal (a clean stop removes it).
//!
//! The owner hands over changes without waiting; a thread of the blocking pool takes all that
//! arrived since its last write as one group: the whole file first if one is due, then the
//! group's records in one `write` and one `fdatasync`. Generations and [`Progress`] work as
//! for the other files, so a reply waits until its change is on disk.
//!
//! A crash leaves `kvConfig.json` (the previous whole file or the new one) and the journal of
//! the changes since; replaying them is harmless even when the new file already holds them
//! (each record sets its key to what it says). Only a whole file makes a journal whose last
//! append failed trustworthy again: after a failure nothing more is appended until a whole
//! file is written, so a torn record can only ever be the last one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use nameserver_core::KvConfig;
use nameserver_core::kv::KvChange;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::journal::{self, HEADER};
use super::{Progress, remove_stale_temporaries, sync_dir, write_atomically};

/// The journal never waits for more than this before the whole file is written, however
/// small the file: replaying it stays instant.
const MIN_JOURNAL: u64 = 64 * 1024;

/// The journal beside `kv_path`: `<kvConfig.json>.journal`.
#[must_use]
pub fn journal_path(kv_path: &Path) -> PathBuf {
    let mut name = kv_path.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

/// What the console reports about the journal.
#[derive(Debug, Default)]
pub(crate) struct JournalStats {
    /// The journal's length on disk.
    pub(crate) bytes: AtomicU64,
    /// Whole writes of `kvConfig.json` (compactions, at start, at the stop).
    pub(crate) whole_writes: AtomicU64,
}

/// What the owner has handed over and the writer has not taken yet.
#[derive(Debug, Default)]
struct Pending {
    /// The whole file and its generation, to write before `records`.
    file: Option<(u64, Vec<u8>)>,
    records: Vec<u8>,
    generation: u64,
    closed: bool,
}

#[derive(Debug, Default)]
struct Shared {
    pending: Mutex<Pending>,
    wake: Condvar,
    /// Set by the writer when an append or a whole write failed: only a whole file helps.
    broken: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // A writer that panicked holding the lock left whole values: go on with them.
        self.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The KV file's writer, owned by the owner task; drop it (after [`Self::finish`]) to stop.
#[derive(Debug)]
pub(crate) struct KvJournal {
    shared: Arc<Shared>,
    stored: u64,
    written: watch::Receiver<Progress>,
    failures: Arc<AtomicU64>,
    stats: Arc<JournalStats>,
    /// Record bytes handed over since the last whole file, and that file's size.
    journal_bytes: u64,
    file_bytes: u64,
}

impl KvJournal {
    /// Starts the writer for `path`, whose table (journal replayed) is `kv`. A journal on disk
    /// is folded into a whole file first.
    pub(crate) fn spawn(path: PathBuf, kv: &KvConfig) -> (Self, JoinHandle<()>) {
        remove_stale_temporaries(&path);
        let journal = journal_path(&path);
        let shared = Arc::new(Shared::default());
        let replayed = fs::metadata(&journal).is_ok_and(|m| m.len() > 0);
        let file_bytes = if replayed {
            let bytes = kv.to_json();
            let len = bytes.len() as u64;
            shared.lock().file = Some((0, bytes));
            len
        } else {
            fs::metadata(&path).map_or(0, |m| m.len())
        };
        let (done, written) = watch::channel(Progress::default());
        let failures = Arc::new(AtomicU64::new(0));
        let stats = Arc::new(JournalStats::default());
        let writer = Writer {
            path,
            journal,
            file: None,
            len: 0,
            clean: !replayed,
            last_error: io::ErrorKind::Other,
            latest: 0,
            on_disk: 0,
            shared: Arc::clone(&shared),
            failures: Arc::clone(&failures),
            stats: Arc::clone(&stats),
        };
        let handle = tokio::task::spawn_blocking(move || writer.run(&done));
        let journal = Self { shared, stored: 0, written, failures, stats, journal_bytes: 0, file_bytes };
        (journal, handle)
    }

    /// Records `change`, already applied to `kv`, and returns its generation. Never blocks on
    /// the disk. `kv` is handed over whole instead when the journal would outgrow the file
    /// (the pending records go with it: the file holds them) or the last write failed.
    pub(crate) fn change(&mut self, change: &KvChange, kv: &KvConfig) -> u64 {
        let (KvChange::Put { namespace, key, .. } | KvChange::Delete { namespace, key }) = change;
        let value = match change {
            KvChange::Put { value, .. } => 4 + value.len(),
            KvChange::Delete { .. } => 0,
        };
        self.journal_bytes += (HEADER + 1 + 8 + namespace.len() + key.len() + value) as u64;
        let broken = self.shared.broken.load(Ordering::Acquire);
        let whole = (broken || self.journal_bytes > self.file_bytes.max(MIN_JOURNAL)).then(|| kv.to_json());
        self.stored += 1;
        let mut pending = self.shared.lock();
        pending.generation = self.stored;
        match whole {
            Some(bytes) => {
                (self.file_bytes, self.journal_bytes) = (bytes.len() as u64, 0);
                pending.records.clear();
                pending.file = Some((self.stored, bytes));
            }
            None => journal::encode(change, &mut pending.records),
        }
        drop(pending);
        self.shared.wake.notify_one();
        self.stored
    }

    /// At a clean stop: hands over `kv` whole if the journal holds anything or a write failed,
    /// so that the stop leaves a whole `kvConfig.json` and no journal.
    pub(crate) fn finish(&mut self, kv: &KvConfig) {
        if self.journal_bytes == 0 && !self.shared.broken.load(Ordering::Acquire) {
            return;
        }
        let bytes = kv.to_json();
        (self.file_bytes, self.journal_bytes) = (bytes.len() as u64, 0);
        self.stored += 1;
        let mut pending = self.shared.lock();
        pending.generation = self.stored;
        pending.records.clear();
        pending.file = Some((self.stored, bytes));
        drop(pending);
        self.shared.wake.notify_one();
    }

    /// How far the writer has got (see [`Progress`]).
    pub(crate) fn progress(&self) -> Progress {
        self.written.borrow().clone()
    }

    /// A receiver that changes whenever [`Self::progress`] does.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Progress> {
        self.written.clone()
    }

    /// The count of failed writes, shared with whoever reports it.
    pub(crate) fn failures(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.failures)
    }

    /// The journal's figures, shared with whoever reports them.
    pub(crate) fn stats(&self) -> Arc<JournalStats> {
        Arc::clone(&self.stats)
    }
}

impl Drop for KvJournal {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_one();
    }
}

/// The writer's side, on a thread of the blocking pool.
#[derive(Debug)]
struct Writer {
    path: PathBuf,
    journal: PathBuf,
    /// The journal, open for appending, once it is.
    file: Option<File>,
    /// The journal's length: whole records, all on disk.
    len: u64,
    /// Whether the journal ends at a record of ours that is on disk (else only a whole file
    /// may follow).
    clean: bool,
    last_error: io::ErrorKind,
    /// The last generation taken, and the last one on disk.
    latest: u64,
    on_disk: u64,
    shared: Arc<Shared>,
    failures: Arc<AtomicU64>,
    stats: Arc<JournalStats>,
}

impl Writer {
    fn run(mut self, done: &watch::Sender<Progress>) {
        loop {
            let (file, records, generation, closed) = {
                let mut pending = self.shared.lock();
                while pending.file.is_none() && pending.records.is_empty() && !pending.closed {
                    pending = self.shared.wake.wait(pending).unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                let records = std::mem::take(&mut pending.records);
                (pending.file.take(), records, pending.generation, pending.closed)
            };
            if file.is_some() || !records.is_empty() {
                let (reached, error) = self.write(file, &records, generation);
                self.latest = generation;
                self.on_disk = self.on_disk.max(reached);
                done.send_modify(|progress| {
                    progress.done = generation;
                    progress.on_disk = progress.on_disk.max(reached);
                    if error.is_some() {
                        progress.error = error;
                    }
                });
            }
            if closed {
                self.close();
                return;
            }
        }
    }

    /// The whole file if given (emptying the journal), then the records (of generations up to
    /// `generation`). Returns the last generation now on disk (0: none of these) and the
    /// error, if any.
    fn write(&mut self, file: Option<(u64, Vec<u8>)>, records: &[u8], generation: u64) -> (u64, Option<io::ErrorKind>) {
        let mut reached = 0;
        if let Some((whole_generation, bytes)) = file {
            let whole = write_atomically(&self.path, &bytes).and_then(|()| self.empty_journal());
            if let Err(error) = whole {
                return (0, Some(self.failed("kvConfig", &self.path.clone(), &error)));
            }
            self.stats.whole_writes.fetch_add(1, Ordering::Relaxed);
            self.clean = true;
            self.shared.broken.store(false, Ordering::Release);
            reached = whole_generation;
            tracing::debug!("persist kvConfig to {} OK ({} bytes)", self.path.display(), bytes.len());
        }
        if records.is_empty() {
            return (reached, None);
        }
        if !self.clean {
            // Records that came while the owner had not yet seen a failure: not written.
            return (reached, Some(self.last_error));
        }
        let before = self.len;
        match self.append(records) {
            Ok(()) => {
                self.len += records.len() as u64;
                self.stats.bytes.store(self.len, Ordering::Relaxed);
                (generation, None)
            }
            Err(error) => {
                // Cut back what may have landed; the next whole file makes it right either way.
                if let Some(file) = &self.file {
                    let _ = file.set_len(before);
                }
                (reached, Some(self.failed("kvConfig journal", &self.journal.clone(), &error)))
            }
        }
    }

    fn append(&mut self, records: &[u8]) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                let created = !self.journal.exists();
                if created {
                    fs::create_dir_all(parent(&self.journal))?;
                }
                let file = open_journal(&self.journal, &self.path)?;
                if created {
                    sync_dir(parent(&self.journal))?;
                }
                self.file.insert(file)
            }
        };
        file.write_all(records)?;
        file.sync_data()
    }

    /// Empties the journal once the whole file holds its records.
    fn empty_journal(&mut self) -> io::Result<()> {
        if self.file.is_none() && self.journal.exists() {
            self.file = Some(open_journal(&self.journal, &self.path)?);
        }
        if let Some(file) = &self.file {
            file.set_len(0)?;
            file.sync_all()?;
        }
        self.len = 0;
        self.stats.bytes.store(0, Ordering::Relaxed);
        Ok(())
    }

    fn failed(&mut self, what: &str, path: &Path, error: &io::Error) -> io::ErrorKind {
        self.clean = false;
        self.last_error = error.kind();
        self.shared.broken.store(true, Ordering::Release);
        self.failures.fetch_add(1, Ordering::Relaxed);
        tracing::error!(
            "persist {what} to {} failed: {error}; the change is in effect until the daemon stops, its reply \
             says so, and the next change writes the whole kvConfig.json",
            path.display()
        );
        self.last_error
    }

    /// The stop: with every change in `kvConfig.json`, the journal goes.
    fn close(mut self) {
        self.file = None;
        if self.latest > self.on_disk {
            tracing::error!(
                "persist kvConfig: the daemon stops and neither {} nor {} holds the latest KV table: the changes \
                 since the last successful write are lost",
                self.path.display(),
                self.journal.display()
            );
            return;
        }
        if fs::metadata(&self.journal).is_ok_and(|m| m.len() > 0) {
            tracing::warn!(
                "the daemon stops and {} holds changes that {} does not: the next start replays them (Java's \
                 NameServer would not read them)",
                self.journal.display(),
                self.path.display()
            );
            return;
        }
        match fs::remove_file(&self.journal) {
            Ok(()) => {
                let _ = sync_dir(parent(&self.journal));
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => tracing::warn!("cannot remove the empty {}: {error}", self.journal.display()),
        }
    }
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Opens the journal for appending, creating it with the KV file's mode (0600 without one).
fn open_journal(journal: &Path, kv_path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
        options.mode(fs::metadata(kv_path).map_or(0o600, |m| m.permissions().mode() & 0o777));
    }
    #[cfg(not(unix))]
    let _ = kv_path;
    options.open(journal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::load_kv;

    fn put(key: &str, value: &str) -> KvChange {
        KvChange::Put { namespace: "ns".into(), key: key.into(), value: value.into() }
    }

    /// Applies `change` to `kv` and hands it to `journal`, as the owner does; waits until
    /// the writer is done with it.
    async fn change(journal: &mut KvJournal, kv: &mut KvConfig, change: KvChange) -> Progress {
        kv.apply(&change);
        let generation = journal.change(&change, kv);
        journal.subscribe().wait_for(|p| p.done >= generation).await.unwrap().clone()
    }

    #[tokio::test]
    async fn changes_go_to_the_journal_and_a_clean_stop_leaves_the_whole_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store").join("kvConfig.json");
        let (mut journal, writer) = KvJournal::spawn(path.clone(), &KvConfig::default());
        let mut kv = KvConfig::default();
        let progress = change(&mut journal, &mut kv, put("a", "1")).await;
        assert_eq!((progress.on_disk, progress.error), (1, None));
        change(&mut journal, &mut kv, put("b", "2")).await;
        change(&mut journal, &mut kv, KvChange::Delete { namespace: "ns".into(), key: "a".into() }).await;
        assert!(!path.exists(), "small changes only go to the journal");
        assert_eq!(load_kv(&path).unwrap(), kv, "the journal replays to the table");
        let stats = journal.stats();
        assert_eq!(stats.bytes.load(Ordering::Relaxed), fs::metadata(journal_path(&path)).unwrap().len());

        journal.finish(&kv);
        drop(journal);
        writer.await.unwrap();
        assert_eq!(fs::read(&path).unwrap(), br#"{"configTable":{"ns":{"b":"2"}}}"#);
        assert!(!journal_path(&path).exists(), "no journal after a clean stop");
        assert_eq!(stats.whole_writes.load(Ordering::Relaxed), 1);
    }

    #[tokio::test]
    async fn the_whole_file_is_written_when_the_journal_outgrows_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        let (mut journal, writer) = KvJournal::spawn(path.clone(), &KvConfig::default());
        let stats = journal.stats();
        let mut kv = KvConfig::default();
        let value = "v".repeat(10_000);
        // 64 KiB of records (10 KB each) before the first whole write; then the file's size.
        for i in 0..6 {
            change(&mut journal, &mut kv, put(&format!("k{i}"), &value)).await;
        }
        assert!(!path.exists());
        change(&mut journal, &mut kv, put("k6", &value)).await;
        assert_eq!(stats.whole_writes.load(Ordering::Relaxed), 1);
        assert_eq!(KvConfig::from_json(&fs::read(&path).unwrap()).unwrap(), kv);
        assert_eq!(fs::metadata(journal_path(&path)).map_or(0, |m| m.len()), 0, "emptied");
        for i in 0..9 {
            change(&mut journal, &mut kv, put(&format!("k{i}"), &format!("{i}{value}"))).await;
        }
        assert_eq!(stats.whole_writes.load(Ordering::Relaxed), 2, "90 KB of records outgrew a 70 KB file once");
        assert_eq!(load_kv(&path).unwrap(), kv);
        drop(journal);
        writer.await.unwrap();
    }

    #[tokio::test]
    async fn a_journal_found_at_start_is_folded_into_the_file_before_anything_is_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        fs::write(&path, r#"{"configTable":{"ns":{"a":"0"}}}"#).unwrap();
        // A crash left two records and a torn third.
        let mut bytes = Vec::new();
        journal::encode(&put("a", "1"), &mut bytes);
        journal::encode(&put("b", "2"), &mut bytes);
        let whole = bytes.len();
        journal::encode(&put("c", "3"), &mut bytes);
        fs::write(journal_path(&path), &bytes[..whole + 5]).unwrap();
        let mut kv = load_kv(&path).unwrap();
        assert_eq!(kv.to_json(), br#"{"configTable":{"ns":{"a":"1","b":"2"}}}"#);

        let (mut journal, writer) = KvJournal::spawn(path.clone(), &kv);
        change(&mut journal, &mut kv, put("d", "4")).await;
        assert_eq!(fs::read(&path).unwrap(), br#"{"configTable":{"ns":{"a":"1","b":"2"}}}"#, "folded in at start");
        let read = journal::decode(&fs::read(journal_path(&path)).unwrap()).unwrap();
        assert_eq!((read.changes, read.torn), (vec![put("d", "4")], 0), "the torn tail went with the fold");
        drop(journal);
        writer.await.unwrap();
        assert_eq!(load_kv(&path).unwrap(), kv, "stopped without finish: the journal keeps the change");
    }

    #[tokio::test]
    async fn after_a_failed_write_only_a_whole_file_follows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        // A directory, not empty, where the journal goes: appends fail, even as root.
        let blocker = journal_path(&path);
        fs::create_dir(&blocker).unwrap();
        fs::write(blocker.join("in-the-way"), "").unwrap();
        let (mut journal, writer) = KvJournal::spawn(path.clone(), &KvConfig::default());
        let failures = journal.failures();
        let mut kv = KvConfig::default();
        let progress = change(&mut journal, &mut kv, put("a", "1")).await;
        assert_eq!((progress.on_disk, progress.error.is_some()), (0, true), "{progress:?}");
        assert_eq!(failures.load(Ordering::Relaxed), 1);
        // The next change writes kvConfig.json whole, which holds both; the journal still fails.
        let progress = change(&mut journal, &mut kv, put("b", "2")).await;
        assert_eq!(failures.load(Ordering::Relaxed), 2, "{progress:?}");
        fs::remove_dir_all(&blocker).unwrap();
        let progress = change(&mut journal, &mut kv, put("c", "3")).await;
        assert_eq!(progress.on_disk, 3, "{progress:?}");
        assert_eq!(fs::read(&path).unwrap(), br#"{"configTable":{"ns":{"a":"1","b":"2","c":"3"}}}"#);
        let progress = change(&mut journal, &mut kv, put("d", "4")).await;
        assert_eq!(progress.on_disk, 4);
        assert!(journal_path(&path).is_file(), "appending again");
        drop(journal);
        writer.await.unwrap();
        assert_eq!(load_kv(&path).unwrap(), kv);
    }

    #[test]
    fn a_corrupt_record_in_the_middle_stops_the_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        let mut bytes = Vec::new();
        journal::encode(&put("a", "1"), &mut bytes);
        journal::encode(&put("b", "2"), &mut bytes);
        bytes[HEADER + 3] ^= 0x40;
        fs::write(journal_path(&path), &bytes).unwrap();
        let error = load_kv(&path).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "the KV journal {} is corrupt (record 1 at byte 0",
                journal_path(&path).display()
            )),
            "{error}"
        );
    }
}
