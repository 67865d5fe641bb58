//! The KV file's writer: each change is appended to `kvConfig.json.journal`, and
//! `kvConfig.json` is written whole (crash-safely, [`super::write_atomically`]) only when the
//! journal has outgrown it, at start after a journal was replayed, at a clean stop and after
//! a failed write; each whole write empties the journal (a clean stop removes it).
//!
//! The owner hands over changes without waiting and without serializing anything; a thread
//! of the blocking pool keeps its own copy of the table, applies all the changes that arrived
//! since its last write as one group, and writes: the whole file if one is due (serialized
//! there, from its copy), else the group's records in one `write` and one `fdatasync` (the
//! journal's header first, naming the file the records follow, when the journal is empty).
//! Generations and [`Progress`] work as for the other files, so a reply waits until its
//! change is on disk.
//!
//! A crash leaves `kvConfig.json` (the previous whole file or the new one) and the journal of
//! the changes since: the journal is replayed only onto the file its header names (a crash
//! between a whole write's rename and the truncate leaves a journal the new file already
//! holds; `load_kv` moves it aside). Only a whole file makes a journal whose last append
//! failed trustworthy again: after a failure nothing more is appended until a whole file is
//! written, so a torn record can only ever be the last one. Those whole writes are paced: one
//! attempt, then retries after 1 s, doubling up to 8 s (changes meanwhile are answered at
//! once as held in memory only), whether or not changes arrive, so a store heals by itself.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nameserver_core::KvConfig;
use nameserver_core::kv::KvChange;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::journal::{self, Base};
use super::{Progress, create_dir_synced, open_nofollow, parent, remove_stale_temporaries, sync_dir, write_atomically};

/// How the writer paces itself (tests shorten it).
#[derive(Clone, Copy, Debug)]
struct Tuning {
    /// The journal never waits for more than this before the whole file is written, however
    /// small the file: replaying it stays instant.
    min_journal: u64,
    /// After a failed write the next whole write waits this long, doubling per failure...
    retry: Duration,
    /// ...up to this.
    max_retry: Duration,
    /// A failpoint: the writer stops dead after a whole write's rename, before the journal's
    /// truncate, as a crash there would.
    #[cfg(test)]
    die_after_rename: bool,
}

const TUNING: Tuning = Tuning {
    min_journal: 64 * 1024,
    retry: Duration::from_secs(1),
    max_retry: Duration::from_secs(8),
    #[cfg(test)]
    die_after_rename: false,
};

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
    /// Whole writes of `kvConfig.json` (compactions, at start, at the stop, after failures).
    pub(crate) whole_writes: AtomicU64,
}

/// What the owner has handed over and the writer has not taken yet.
#[derive(Debug, Default)]
struct Pending {
    changes: Vec<KvChange>,
    generation: u64,
    /// The stop: leave a whole file and no journal.
    finish: bool,
    closed: bool,
}

#[derive(Debug, Default)]
struct Shared {
    pending: Mutex<Pending>,
    wake: Condvar,
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
}

impl KvJournal {
    /// Starts the writer for `path`, whose table (journal replayed) is `kv`. A journal on disk
    /// is folded into a whole file first.
    pub(crate) fn spawn(path: PathBuf, kv: &KvConfig) -> (Self, JoinHandle<()>) {
        Self::spawn_tuned(path, kv, TUNING)
    }

    fn spawn_tuned(path: PathBuf, kv: &KvConfig, tuning: Tuning) -> (Self, JoinHandle<()>) {
        remove_stale_temporaries(&path);
        let journal = journal_path(&path);
        let shared = Arc::new(Shared::default());
        let replayed = fs::symlink_metadata(&journal).is_ok_and(|m| m.len() > 0);
        let (done, written) = watch::channel(Progress::default());
        let failures = Arc::new(AtomicU64::new(0));
        let stats = Arc::new(JournalStats::default());
        let writer = Writer {
            path,
            journal,
            file: None,
            len: 0,
            base: None,
            table: kv.clone(),
            fold: replayed,
            broken: false,
            retry_at: None,
            backoff: Duration::ZERO,
            failed_attempts: 0,
            last_error: io::ErrorKind::Other,
            latest: 0,
            on_disk: 0,
            tuning,
            shared: Arc::clone(&shared),
            failures: Arc::clone(&failures),
            stats: Arc::clone(&stats),
        };
        let handle = tokio::task::spawn_blocking(move || writer.run(&done));
        let journal = Self { shared, stored: 0, written, failures, stats };
        (journal, handle)
    }

    /// Records `change`, already applied to the owner's table, and returns its generation.
    /// Never blocks on the disk, and costs no more than handing `change` over.
    pub(crate) fn change(&mut self, change: KvChange) -> u64 {
        self.stored += 1;
        let mut pending = self.shared.lock();
        pending.changes.push(change);
        pending.generation = self.stored;
        drop(pending);
        self.shared.wake.notify_one();
        self.stored
    }

    /// At a clean stop: the writer leaves a whole `kvConfig.json` and no journal (it writes
    /// the file if the journal holds anything or a write failed).
    pub(crate) fn finish(&mut self) {
        self.shared.lock().finish = true;
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
    /// The journal's length (header included): all on disk.
    len: u64,
    /// The `kvConfig.json` on disk, which the journal's records follow (`None`: not known yet).
    base: Option<Base>,
    /// The table with every change taken: what a whole write writes.
    table: KvConfig,
    /// A whole write is due before anything is appended (a journal was replayed at start).
    fold: bool,
    /// The last write failed: only a whole file may follow, not before `retry_at`.
    broken: bool,
    retry_at: Option<Instant>,
    backoff: Duration,
    /// Failed writes since the last success.
    failed_attempts: u64,
    last_error: io::ErrorKind,
    /// The last generation taken, and the last one on disk.
    latest: u64,
    on_disk: u64,
    tuning: Tuning,
    shared: Arc<Shared>,
    failures: Arc<AtomicU64>,
    stats: Arc<JournalStats>,
}

impl Writer {
    fn run(mut self, done: &watch::Sender<Progress>) {
        // A replayed journal is folded in before any change is taken.
        if self.fold
            && let Some(error) = self.write_whole()
        {
            done.send_modify(|progress| progress.error = Some(error));
        }
        loop {
            let (changes, generation, finish, closed) = {
                let mut pending = self.shared.lock();
                loop {
                    if !pending.changes.is_empty() || pending.finish || pending.closed || (self.fold && !self.broken) {
                        break;
                    }
                    match self.retry_at.filter(|_| self.broken).map(|at| at.checked_duration_since(Instant::now())) {
                        Some(None) => break,
                        Some(Some(wait)) => {
                            pending = self
                                .shared
                                .wake
                                .wait_timeout(pending, wait)
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .0;
                        }
                        None => {
                            pending = self.shared.wake.wait(pending).unwrap_or_else(std::sync::PoisonError::into_inner);
                        }
                    }
                }
                let changes = std::mem::take(&mut pending.changes);
                (changes, pending.generation, std::mem::take(&mut pending.finish), pending.closed)
            };
            for change in &changes {
                self.table.apply(change);
            }
            self.latest = self.latest.max(generation);
            let error = self.step(&changes, finish);
            let on_disk = self.on_disk;
            done.send_modify(|progress| {
                progress.done = generation.max(progress.done);
                progress.on_disk = progress.on_disk.max(on_disk);
                if error.is_some() {
                    progress.error = error;
                }
            });
            if closed {
                self.close();
                return;
            }
        }
    }

    /// Brings the disk up to `self.latest` as far as it may now: a whole file if one is due
    /// (or at the stop, if the journal holds anything), else `changes` appended. The error, if
    /// the disk is behind.
    fn step(&mut self, changes: &[KvChange], finish: bool) -> Option<io::ErrorKind> {
        let stop_whole = finish && (self.len > 0 || self.on_disk < self.latest || self.fold);
        if self.broken {
            // Paced, but never skipped at the stop.
            if !stop_whole && self.retry_at.is_some_and(|at| Instant::now() < at) {
                return Some(self.last_error);
            }
            return self.write_whole();
        }
        if stop_whole || self.fold {
            return self.write_whole();
        }
        if changes.is_empty() {
            return None;
        }
        let base = match self.base {
            Some(base) => base,
            None => match fs::read(&self.path) {
                Ok(bytes) => *self.base.insert(Base::of(&bytes)),
                Err(error) if error.kind() == io::ErrorKind::NotFound => *self.base.insert(Base::of(&[])),
                // Unknown: a whole file makes it known.
                Err(_) => return self.write_whole(),
            },
        };
        let mut records = Vec::new();
        if self.len == 0 {
            journal::encode_header(base, &mut records);
        }
        changes.iter().for_each(|change| journal::encode(change, &mut records));
        if self.len + records.len() as u64 > base.len.max(self.tuning.min_journal) {
            return self.write_whole();
        }
        let before = self.len;
        match self.append(&records) {
            Ok(()) => {
                self.len += records.len() as u64;
                self.stats.bytes.store(self.len, Ordering::Relaxed);
                self.on_disk = self.latest;
                None
            }
            Err(error) => {
                // Cut back what may have landed; the next whole file makes it right either way.
                if let Some(file) = &self.file {
                    let _ = file.set_len(before);
                }
                Some(self.failed("kvConfig journal", &self.journal.clone(), &error))
            }
        }
    }

    /// Writes the table whole (serialized here, off the owner) and empties the journal.
    fn write_whole(&mut self) -> Option<io::ErrorKind> {
        let bytes = self.table.to_json();
        let whole = write_atomically(&self.path, &bytes).map(|()| self.base = Some(Base::of(&bytes)));
        #[cfg(test)]
        assert!(!(whole.is_ok() && self.tuning.die_after_rename), "failpoint: the writer dies after the rename");
        if let Err(error) = whole.and_then(|()| self.empty_journal()) {
            return Some(self.failed("kvConfig", &self.path.clone(), &error));
        }
        self.stats.whole_writes.fetch_add(1, Ordering::Relaxed);
        if self.broken {
            tracing::info!(
                "persist kvConfig to {} OK again after {} failed writes: it holds every change",
                self.path.display(),
                self.failed_attempts
            );
        }
        (self.fold, self.broken, self.retry_at, self.failed_attempts) = (false, false, None, 0);
        self.on_disk = self.latest;
        tracing::debug!("persist kvConfig to {} OK ({} bytes)", self.path.display(), bytes.len());
        None
    }

    fn append(&mut self, records: &[u8]) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                create_dir_synced(parent(&self.journal))?;
                let created = fs::symlink_metadata(&self.journal).is_err();
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
        if self.file.is_none() && fs::symlink_metadata(&self.journal).is_ok() {
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

    /// Counts and paces a failed write; logs the first of a run of them.
    fn failed(&mut self, what: &str, path: &Path, error: &io::Error) -> io::ErrorKind {
        self.broken = true;
        self.last_error = error.kind();
        self.failures.fetch_add(1, Ordering::Relaxed);
        self.backoff =
            if self.failed_attempts == 0 { self.tuning.retry } else { (self.backoff * 2).min(self.tuning.max_retry) };
        self.retry_at = Instant::now().checked_add(self.backoff);
        if self.failed_attempts == 0 {
            tracing::error!(
                "persist {what} to {} failed: {error}; the change is in effect until the daemon stops and its reply \
                 says so; kvConfig.json is written whole again after {:?}, then at growing intervals up to {:?} \
                 (changes meanwhile are answered as held in memory only), until it succeeds",
                path.display(),
                self.tuning.retry,
                self.tuning.max_retry
            );
        } else {
            tracing::debug!("persist {what} to {} failed again: {error}", path.display());
        }
        self.failed_attempts += 1;
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
        let Ok(meta) = fs::symlink_metadata(&self.journal) else { return };
        if !meta.is_file() {
            return;
        }
        if meta.len() > 0 {
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

/// Opens the journal for appending, never through a symbolic link, creating it with the KV
/// file's mode (0600 without one).
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
    open_nofollow(&mut options, journal)
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
        let generation = journal.change(change);
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

        journal.finish();
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
        journal::encode_header(Base::of(&fs::read(&path).unwrap()), &mut bytes);
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

    /// A directory, not empty, where the journal goes: appends fail, even as root.
    fn block_the_journal(path: &Path) -> PathBuf {
        let blocker = journal_path(path);
        fs::create_dir(&blocker).unwrap();
        fs::write(blocker.join("in-the-way"), "").unwrap();
        blocker
    }

    #[tokio::test]
    async fn after_a_failed_write_only_a_whole_file_follows_and_the_store_heals_by_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        let blocker = block_the_journal(&path);
        let tuning = Tuning { retry: Duration::from_millis(10), max_retry: Duration::from_millis(20), ..TUNING };
        let (mut journal, writer) = KvJournal::spawn_tuned(path.clone(), &KvConfig::default(), tuning);
        let failures = journal.failures();
        let mut kv = KvConfig::default();
        let progress = change(&mut journal, &mut kv, put("a", "1")).await;
        assert_eq!((progress.on_disk, progress.error.is_some()), (0, true), "{progress:?}");
        assert!(failures.load(Ordering::Relaxed) >= 1);
        // The cause passes: a retry writes the whole file with no change to prompt it.
        fs::remove_dir_all(&blocker).unwrap();
        let healed = journal.subscribe().wait_for(|p| p.on_disk >= 1).await.map(|p| p.clone());
        assert_eq!(healed.unwrap().on_disk, 1);
        assert_eq!(fs::read(&path).unwrap(), br#"{"configTable":{"ns":{"a":"1"}}}"#);
        let progress = change(&mut journal, &mut kv, put("b", "2")).await;
        assert_eq!(progress.on_disk, 2, "{progress:?}");
        assert!(journal_path(&path).is_file(), "appending again");
        drop(journal);
        writer.await.unwrap();
        assert_eq!(load_kv(&path).unwrap(), kv);
    }

    #[tokio::test]
    async fn puts_while_broken_do_not_each_rewrite_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        let blocker = block_the_journal(&path);
        let hour = Duration::from_secs(3600);
        let tuning = Tuning { retry: hour, max_retry: hour, ..TUNING };
        let (mut journal, writer) = KvJournal::spawn_tuned(path.clone(), &KvConfig::default(), tuning);
        let (failures, stats) = (journal.failures(), journal.stats());
        let mut kv = KvConfig::default();
        for i in 0..50 {
            let progress = change(&mut journal, &mut kv, put(&format!("k{i}"), "v")).await;
            assert_eq!((progress.on_disk, progress.error.is_some()), (0, true), "{progress:?}");
        }
        assert_eq!(failures.load(Ordering::Relaxed), 1, "one attempt, then the retry waits");
        assert_eq!(stats.whole_writes.load(Ordering::Relaxed), 0);
        // The stop does not wait for the retry: it writes the whole table.
        fs::remove_dir_all(&blocker).unwrap();
        journal.finish();
        drop(journal);
        writer.await.unwrap();
        assert_eq!(KvConfig::from_json(&fs::read(&path).unwrap()).unwrap(), kv);
        assert!(!journal_path(&path).exists());
        assert_eq!(failures.load(Ordering::Relaxed), 1);
    }

    #[tokio::test]
    async fn a_journal_of_another_base_file_is_set_aside_not_replayed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        fs::write(&path, r#"{"configTable":{"ns":{"a":"0"}}}"#).unwrap();
        let mut kv = load_kv(&path).unwrap();
        let (mut journal, writer) = KvJournal::spawn(path.clone(), &kv);
        change(&mut journal, &mut kv, put("a", "1")).await;
        drop(journal);
        writer.await.unwrap();
        // The operator puts another file in place by hand; the journal is of the old one.
        let by_hand = r#"{"configTable":{"ns":{"a":"by hand"}}}"#;
        fs::write(&path, by_hand).unwrap();
        let journal_bytes = fs::read(journal_path(&path)).unwrap();
        let loaded = load_kv(&path).unwrap();
        assert_eq!(loaded.get("ns", "a"), Some("by hand"), "the hand-made file wins");
        assert!(!journal_path(&path).exists());
        let aside = dir.path().join("kvConfig.json.journal.stale-1");
        assert_eq!(fs::read(&aside).unwrap(), journal_bytes, "kept for the operator, whole");
    }

    #[tokio::test]
    async fn a_crash_between_the_whole_write_and_the_journal_truncate_loses_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        let tuning = Tuning { min_journal: 100, die_after_rename: true, ..TUNING };
        let (mut journal, writer) = KvJournal::spawn_tuned(path.clone(), &KvConfig::default(), tuning);
        let mut kv = KvConfig::default();
        change(&mut journal, &mut kv, put("a", "1")).await;
        assert!(!path.exists());
        // `a` again, outgrowing the journal: the writer writes the file whole and dies.
        let again = put("a", &"2".repeat(100));
        kv.apply(&again);
        let generation = journal.change(again);
        assert!(journal.subscribe().wait_for(|p| p.done >= generation).await.is_err(), "never answered");
        drop(journal);
        assert!(writer.await.unwrap_err().is_panic());
        assert_eq!(KvConfig::from_json(&fs::read(&path).unwrap()).unwrap(), kv, "renamed into place");
        assert!(fs::metadata(journal_path(&path)).unwrap().len() > 0, "not truncated");

        assert_eq!(load_kv(&path).unwrap(), kv, "the old record is not replayed over the newer file");
        assert!(!journal_path(&path).exists());
        assert!(dir.path().join("kvConfig.json.journal.stale-1").is_file(), "kept for the operator");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_symlinked_journal_is_refused_and_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, journal_path(&path)).unwrap();
        let error = load_kv(&path).unwrap_err().to_string();
        assert!(error.contains("is a symbolic link"), "{error}");
        // Planted after the start: appends fail rather than follow it.
        let (mut journal, writer) = KvJournal::spawn(path.clone(), &KvConfig::default());
        let mut kv = KvConfig::default();
        let progress = change(&mut journal, &mut kv, put("a", "1")).await;
        assert_eq!(progress.on_disk, 0, "{progress:?}");
        drop(journal);
        writer.await.unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn a_corrupt_record_in_the_middle_stops_the_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        let mut bytes = Vec::new();
        journal::encode_header(Base::of(&[]), &mut bytes);
        journal::encode(&put("a", "1"), &mut bytes);
        journal::encode(&put("b", "2"), &mut bytes);
        bytes[journal::FILE_HEADER + crate::persist::records::HEADER + 3] ^= 0x40;
        fs::write(journal_path(&path), &bytes).unwrap();
        let error = load_kv(&path).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "the KV journal {} is corrupt (record 1 at byte 24",
                journal_path(&path).display()
            )),
            "{error}"
        );
    }
}
