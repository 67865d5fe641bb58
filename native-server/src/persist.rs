//! Files: `kvConfig.json` and its journal loaded at start, KV changes and configuration bytes
//! written crash-safely.
//!
//! The KV table is kept as `kvConfig.json` (Java's file) plus `kvConfig.json.journal`, the
//! changes since it was last written whole (`persist::kv` writes them, `persist::journal` is their format),
//! replayed only onto the file its header names and never opened through a symbolic link;
//! the configuration file is written whole on each change by a `PersistTarget`.
//!
//! Every whole write ([`write_atomically`]) goes to a new file of a random name in the same
//! directory, is fsynced, renamed over `<path>` and the directory is fsynced, so after a crash
//! the file holds either the previous or the new content, never a torn mix. Writes run on
//! tokio's blocking pool, one writer per file, in order. For the configuration the latest
//! content wins: bytes handed over while a write is running replace any older pending bytes (a
//! `watch` channel), so a burst of updates costs one or two writes. Each hand-over gets a
//! generation number and the writer reports the last generation it has written, so that the
//! owner can hold a reply until what it answers for is on disk.
//!
//! A failed write is logged at ERROR (and counted), the file keeps its previous content and
//! the change stays in effect in memory, as in Java; unlike Java, the reply waiting for the
//! write says so: SYSTEM_ERROR, "the change holds in memory only" (PROTOCOL.md §11: an
//! answered change is on disk). When the writer stops it tries the latest bytes once more if
//! they were never written (the KV writer: the whole table), and says at ERROR when they are
//! lost. A failed write never changes the daemon's exit status, which reports the shutdown.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read as _, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use nameserver_core::KvConfig;
use tokio::sync::watch;
use tokio::task::JoinHandle;

mod journal;
mod kv;
pub(crate) mod records;

pub use kv::journal_path;
pub(crate) use kv::{JournalStats, KvJournal};

/// Why the KV file could not be loaded at start-up. The server refuses to start rather than
/// start empty and overwrite the file at the first put.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadError {
    /// The file exists but could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file is not a `kvConfig.json`.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        reason: String,
    },
    /// The journal beside it has a bad record with more after it: not a crash's torn
    /// append, which is only ever the last record.
    CorruptJournal {
        /// The journal.
        path: PathBuf,
        /// Which record, where, and what is wrong with it.
        reason: String,
    },
    /// The journal is a symbolic link, which the daemon never follows.
    SymlinkJournal {
        /// The journal.
        path: PathBuf,
    },
    /// The journal follows another `kvConfig.json` and could not be moved aside.
    StaleJournal {
        /// The journal.
        path: PathBuf,
        /// Where it was to go.
        to: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { path, source } => write!(f, "cannot read the KV config file {}: {source}", path.display()),
            Self::Corrupt { path, reason } => write!(
                f,
                "the KV config file {} is corrupt ({reason}); refusing to start so that its entries are not lost: \
                 repair the file or move it away (kvConfigPath sets its location)",
                path.display()
            ),
            Self::CorruptJournal { path, reason } => write!(
                f,
                "the KV journal {} is corrupt ({reason}); refusing to start so that the changes it holds are not \
                 lost: a crash only ever tears its last record, so something else damaged it. Repair it, or move it \
                 away to start from the KV config file alone, without those changes",
                path.display()
            ),
            Self::SymlinkJournal { path } => write!(
                f,
                "the KV journal {} is a symbolic link; refusing to start: the daemon writes its journal itself and \
                 never follows a link there (it would append to whatever the link names). Remove the link \
                 (kvConfigPath sets the location)",
                path.display()
            ),
            Self::StaleJournal { path, to, source } => write!(
                f,
                "the KV journal {} follows another kvConfig.json and cannot be moved aside to {}: {source}; \
                 refusing to start rather than replay it onto the wrong file or lose it",
                path.display(),
                to.display()
            ),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { source, .. } | Self::StaleJournal { source, .. } => Some(source),
            Self::Corrupt { .. } | Self::CorruptJournal { .. } | Self::SymlinkJournal { .. } => None,
        }
    }
}

/// Loads `kvConfig.json` (Java's or ours), then replays the journal beside it
/// ([`journal_path`]). A missing or empty file is an empty table, as in Java; anything
/// unreadable or unparsable is an error. A torn last record of the journal (an append a crash
/// cut short, never answered) is dropped with a warning; a bad record before others is an
/// error. A journal whose header names another file than the one there (a crash between a
/// whole write and the journal's truncate, or a file replaced by hand) is not replayed: it is
/// moved aside to `<journal>.stale-<n>` with a warning.
///
/// # Errors
/// The file or the journal exists but cannot be read, or is corrupt; the journal is a symbolic
/// link, or is stale and cannot be moved aside.
pub fn load_kv(path: &Path) -> Result<KvConfig, LoadError> {
    let file = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(source) => return Err(LoadError::Read { path: path.to_path_buf(), source }),
    };
    let mut kv = parse_kv_file(path, &file)?;
    let journal = journal_path(path);
    let Some(bytes) = read_journal(&journal)? else { return Ok(kv) };
    let read = journal::decode(&bytes)
        .map_err(|corrupt| LoadError::CorruptJournal { path: journal.clone(), reason: corrupt.to_string() })?;
    let base = journal::Base::of(&file);
    if let Some(follows) = read.base.filter(|follows| *follows != base) {
        let to = set_aside(&journal).map_err(|(to, source)| LoadError::StaleJournal {
            path: journal.clone(),
            to,
            source,
        })?;
        tracing::warn!(
            "the KV journal {} follows another {} ({follows}; the file is {base}: a crash between a whole write and \
             the journal's truncate, or a file replaced by hand): its {} changes are not replayed, and it is moved \
             to {} for the operator to look at",
            journal.display(),
            path.display(),
            read.changes.len(),
            to.display()
        );
        return Ok(kv);
    }
    for change in &read.changes {
        kv.apply(change);
    }
    if read.torn > 0 {
        tracing::warn!(
            "the KV journal {} ends in a torn record ({} bytes after {} whole ones: an append cut short by a crash, \
             never answered); dropped",
            journal.display(),
            read.torn,
            read.changes.len()
        );
    }
    if !read.changes.is_empty() {
        tracing::info!("replayed {} KV changes from {}", read.changes.len(), journal.display());
    }
    Ok(kv)
}

fn parse_kv_file(path: &Path, bytes: &[u8]) -> Result<KvConfig, LoadError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(KvConfig::default());
    }
    KvConfig::from_json(bytes)
        .map_err(|error| LoadError::Corrupt { path: path.to_path_buf(), reason: error.to_string() })
}

/// The journal's bytes (`None`: there is none), refusing a symbolic link.
fn read_journal(journal: &Path) -> Result<Option<Vec<u8>>, LoadError> {
    let read = |journal: &Path| -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        open_nofollow(fs::OpenOptions::new().read(true), journal)?.read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    match fs::symlink_metadata(journal) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(LoadError::SymlinkJournal { path: journal.to_path_buf() });
        }
        _ => {}
    }
    match read(journal) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) if is_symlink_refusal(&error) => Err(LoadError::SymlinkJournal { path: journal.to_path_buf() }),
        Err(source) => Err(LoadError::Read { path: journal.to_path_buf(), source }),
    }
}

/// Renames a stale journal to the first free `<journal>.stale-<n>`.
fn set_aside(journal: &Path) -> Result<PathBuf, (PathBuf, io::Error)> {
    let mut n = 1u32;
    let to = loop {
        let mut name = journal.as_os_str().to_owned();
        name.push(format!(".stale-{n}"));
        let to = PathBuf::from(name);
        if fs::symlink_metadata(&to).is_err_and(|error| error.kind() == io::ErrorKind::NotFound) {
            break to;
        }
        n += 1;
    };
    fs::rename(journal, &to).and_then(|()| sync_dir(parent(journal))).map_err(|error| (to.clone(), error))?;
    Ok(to)
}

/// Opens `path` with `options`, never through a symbolic link at `path` (the open fails:
/// [`is_symlink_refusal`]). For the files only the daemon writes, such as the KV journal.
pub(crate) fn open_nofollow(options: &mut fs::OpenOptions, path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// Whether `error` is [`open_nofollow`] refusing a symbolic link.
pub(crate) fn is_symlink_refusal(error: &io::Error) -> bool {
    #[cfg(unix)]
    return error.raw_os_error() == Some(libc::ELOOP);
    #[cfg(not(unix))]
    return false;
}

/// The directory `path` is in (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Creates `dir` and its missing ancestors, fsyncing the parent of each one created: a file
/// fsynced inside a new directory is only safe from a power loss once the directory's own
/// entry is.
pub(crate) fn create_dir_synced(dir: &Path) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut at = dir;
    while fs::symlink_metadata(at).is_err_and(|error| error.kind() == io::ErrorKind::NotFound) {
        missing.push(at);
        match at.parent() {
            Some(up) if !up.as_os_str().is_empty() => at = up,
            _ => break,
        }
    }
    fs::create_dir_all(dir)?;
    missing.iter().rev().try_for_each(|created| sync_dir(parent(created)))
}

/// Replaces `path` with `bytes` so that a crash at any point leaves the old or the new file.
///
/// The bytes go to a new file of a random name beside `path` (`.<name>.XXXXXX.tmp`, created
/// with O_EXCL: nothing already there, a symlink included, is opened or followed) with the
/// mode of the file it replaces (0600 for a new one), so a configuration kept private stays
/// private.
///
/// # Errors
/// Any I/O error; `path` is then unchanged.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent(path);
    let Some(name) = path.file_name() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} names no file", path.display())));
    };
    create_dir_synced(dir)?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut tmp = tempfile::Builder::new().prefix(&prefix).suffix(".tmp").tempfile_in(dir)?;
    if let Ok(old) = fs::metadata(path) {
        tmp.as_file().set_permissions(old.permissions())?;
    }
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|error| error.error)?;
    sync_dir(dir)
}

/// Removes the temporary files a process killed in the middle of [`write_atomically`] left
/// beside `path` (regular files only: anything else of that name is not ours).
fn remove_stale_temporaries(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let ours = file.starts_with(&prefix) && file.ends_with(".tmp");
        if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Fsyncs the directory `path` is in, so that a file created there survives a power loss.
pub(crate) fn sync_parent(path: &Path) -> io::Result<()> {
    sync_dir(parent(path))
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// How far a writer has got.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    /// The generation of the last bytes the writer is done with (written or failed).
    pub(crate) done: u64,
    /// The last generation the file holds: every generation up to it is on disk.
    pub(crate) on_disk: u64,
    /// Why the last failed write failed, for the replies it fails.
    pub(crate) error: Option<io::ErrorKind>,
}

/// The writer of one file: hand it bytes with [`Self::store`]; drop it to flush and stop.
#[derive(Debug)]
pub(crate) struct PersistTarget {
    latest: watch::Sender<Option<(u64, Vec<u8>)>>,
    /// The generation of the last bytes handed over.
    stored: u64,
    written: watch::Receiver<Progress>,
    /// Writes that failed (the file kept its previous content).
    failures: Arc<AtomicU64>,
}

impl PersistTarget {
    /// Starts the writer task for `path`. Its handle resolves once the target is dropped and
    /// the last bytes are written (or their loss is logged).
    pub(crate) fn spawn(path: PathBuf, what: &'static str) -> (Self, JoinHandle<()>) {
        remove_stale_temporaries(&path);
        let (latest, pending) = watch::channel(None);
        let (done, written) = watch::channel(Progress::default());
        let failures = Arc::new(AtomicU64::new(0));
        let writer = tokio::spawn(write_latest(path, what, pending, done, Arc::clone(&failures)));
        (Self { latest, stored: 0, written, failures }, writer)
    }

    /// Schedules `bytes` to be written, replacing any bytes not yet written, and returns their
    /// generation. Never blocks.
    pub(crate) fn store(&mut self, bytes: Vec<u8>) -> u64 {
        self.stored += 1;
        self.latest.send_replace(Some((self.stored, bytes)));
        self.stored
    }

    /// How far the writer has got: every generation up to `done` needs nothing more from it,
    /// and those up to `on_disk` are in the file.
    pub(crate) fn progress(&self) -> Progress {
        self.written.borrow().clone()
    }

    /// The count of failed writes, shared with whoever reports it.
    pub(crate) fn failures(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.failures)
    }

    /// A receiver that changes whenever [`Self::progress`] does.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Progress> {
        self.written.clone()
    }
}

async fn write_latest(
    path: PathBuf,
    what: &'static str,
    mut pending: watch::Receiver<Option<(u64, Vec<u8>)>>,
    done: watch::Sender<Progress>,
    failures: Arc<AtomicU64>,
) {
    // Whether the file lacks the latest bytes (which stay in the channel).
    let mut stale = false;
    // `changed` reports a value not yet seen even after the sender is gone, so the last
    // bytes are written before the loop ends.
    while pending.changed().await.is_ok() {
        let Some((generation, bytes)) = pending.borrow_and_update().clone() else { continue };
        let outcome = write(&path, what, bytes, &failures).await;
        stale = outcome.is_err();
        done.send_modify(|progress| {
            progress.done = generation;
            match outcome {
                Ok(()) => progress.on_disk = generation,
                Err(kind) => progress.error = Some(kind),
            }
        });
    }
    // One more try at the stop: the cause may have passed (a full disk, a remount).
    if !stale {
        return;
    }
    let latest = pending.borrow().clone();
    let Some((_, bytes)) = latest else { return };
    if write(&path, what, bytes, &failures).await.is_err() {
        tracing::error!(
            "persist {what}: the daemon stops and {} does not hold the latest {what}: \
             the changes since its last successful write are lost",
            path.display()
        );
    }
}

/// Writes `bytes` to `path` on the blocking pool; a failure is logged and counted. `Ok` when
/// the file holds `bytes`.
async fn write(path: &Path, what: &str, bytes: Vec<u8>, failures: &AtomicU64) -> Result<(), io::ErrorKind> {
    let target = path.to_path_buf();
    let outcome = tokio::task::spawn_blocking(move || write_atomically(&target, &bytes))
        .await
        .unwrap_or_else(|join| Err(io::Error::other(join)));
    match outcome {
        Ok(()) => {
            tracing::debug!("persist {what} to {} OK", path.display());
            Ok(())
        }
        Err(error) => {
            failures.fetch_add(1, Ordering::Relaxed);
            tracing::error!(
                "persist {what} to {} failed: {error}; the file keeps its previous content, \
                 the change is in effect until the daemon stops, and its reply says so",
                path.display()
            );
            Err(error.kind())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("kvConfig.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path().join("sub")).unwrap().count(), 1, "no temporary file is left");
    }

    /// Only the creation can be seen here; the parents' fsyncs matter at a power loss.
    #[test]
    fn missing_directories_are_created_and_an_obstacle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a").join("b").join("c");
        create_dir_synced(&deep).unwrap();
        assert!(deep.is_dir());
        create_dir_synced(&deep).unwrap();
        fs::write(dir.path().join("file"), "").unwrap();
        assert!(create_dir_synced(&dir.path().join("file").join("x")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_write_keeps_the_files_mode_never_follows_a_link_and_stale_temporaries_go() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("namesrv.properties");
        fs::write(&path, "a=1\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        // A link planted where a fixed temporary name would be, pointing at a file to protect.
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("namesrv.properties.tmp")).unwrap();
        write_atomically(&path, b"a=2\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"a=2\n");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600, "a 0600 file stays 0600");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep", "the link's target is untouched");
        assert!(fs::symlink_metadata(dir.path().join("namesrv.properties.tmp")).unwrap().file_type().is_symlink());
        // What a killed writer left is removed at the next start; a link of that name is not ours.
        fs::write(dir.path().join(".namesrv.properties.a1B2c3.tmp"), "torn").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join(".namesrv.properties.link.tmp")).unwrap();
        remove_stale_temporaries(&path);
        assert!(!dir.path().join(".namesrv.properties.a1B2c3.tmp").exists());
        assert!(fs::symlink_metadata(dir.path().join(".namesrv.properties.link.tmp")).is_ok());
        let fresh = dir.path().join("new.json");
        write_atomically(&fresh, b"{}").unwrap();
        assert_eq!(fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o600, "a new file is private");
    }

    #[tokio::test]
    async fn a_failed_write_is_counted_and_tried_again_at_the_stop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("namesrv.properties");
        // A directory, not empty, where the file goes: every rename fails, even as root.
        let blocker = path.clone();
        fs::create_dir(&blocker).unwrap();
        fs::write(blocker.join("in-the-way"), "").unwrap();
        let (mut target, writer) = PersistTarget::spawn(path.clone(), "config");
        let mut written = target.subscribe();
        let generation = target.store(b"a=1\n".to_vec());
        let progress = written.wait_for(|progress| progress.done >= generation).await.unwrap().clone();
        assert_eq!(target.failures().load(Ordering::Relaxed), 1);
        assert!(path.is_dir());
        assert_eq!((progress.on_disk, progress.error.is_some()), (0, true), "{progress:?}");

        // The cause passes before the stop: the latest bytes are written then.
        fs::remove_dir_all(&blocker).unwrap();
        let failures = target.failures();
        drop(target);
        writer.await.unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"a=1\n");
        assert_eq!(failures.load(Ordering::Relaxed), 1, "the retry succeeded");
    }

    #[tokio::test]
    async fn a_file_that_was_written_is_not_written_again_at_the_stop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        let (mut target, writer) = PersistTarget::spawn(path.clone(), "kvConfig");
        let mut written = target.subscribe();
        let generation = target.store(b"{}".to_vec());
        let progress = written.wait_for(|progress| progress.done >= generation).await.unwrap().clone();
        assert_eq!(progress.on_disk, generation);
        // Were it written again, the write would fail and count.
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        fs::write(path.join("in-the-way"), "").unwrap();
        let failures = target.failures();
        drop(target);
        writer.await.unwrap();
        assert_eq!(failures.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn load_distinguishes_missing_empty_and_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kvConfig.json");
        assert!(load_kv(&path).unwrap().is_empty());
        fs::write(&path, "\n").unwrap();
        assert!(load_kv(&path).unwrap().is_empty());
        fs::write(&path, r#"{"configTable":{"ns":{"k":"v"}}}"#).unwrap();
        assert_eq!(load_kv(&path).unwrap().get("ns", "k"), Some("v"));
        fs::write(&path, r#"{"configTable":{"ns":{"k":"v""#).unwrap();
        let error = load_kv(&path).unwrap_err().to_string();
        assert!(error.contains("is corrupt"), "{error}");
    }
}
