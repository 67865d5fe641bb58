//! [`RollingFile`]: a log file rolled by size into a fixed window of gzip archives, as
//! logback's `RollingFileAppender` with a `SizeBasedTriggeringPolicy` and a
//! `FixedWindowRollingPolicy` does for Java's `namesrv*.log`.
//!
//! Before a write, a file that has reached its size limit is rolled: `otherdays/<stem>.<max>.log.gz`
//! is deleted, each `<stem>.<i>.log.gz` becomes `<stem>.<i+1>.log.gz`, the file itself is
//! compressed into `<stem>.1.log.gz`, and writing goes on in a new empty file. A file may
//! therefore exceed the limit by one line, as logback's may. The rolling runs on the thread
//! that writes (the log files' own threads, `logging.rs`), never on a tokio worker.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Where the rolled files go, beside the live ones (Java's `otherdays`).
pub(crate) const ARCHIVE_DIR: &str = "otherdays";

/// A log file `<dir>/<stem>.log`, appended to, rolled by size (see the module docs).
#[derive(Debug)]
pub(crate) struct RollingFile {
    dir: PathBuf,
    stem: &'static str,
    /// Archives kept: `<stem>.1.log.gz` (the newest) to `<stem>.<window>.log.gz`.
    window: u32,
    max_bytes: u64,
    file: File,
    len: u64,
    /// The last roll or write failed and was reported; reported again only after a success.
    failing: bool,
}

impl RollingFile {
    /// Opens (creating it if needed) `<dir>/<stem>.log` for appending.
    ///
    /// # Errors
    /// The file cannot be opened or created, or its length read.
    pub(crate) fn open(dir: &Path, stem: &'static str, window: u32, max_bytes: u64) -> io::Result<Self> {
        let file = Self::open_live(dir, stem)?;
        let len = file.metadata()?.len();
        Ok(Self { dir: dir.to_path_buf(), stem, window, max_bytes, file, len, failing: false })
    }

    /// The live file's path.
    #[must_use]
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.join(format!("{}.log", self.stem))
    }

    /// The path of archive `index` (1 is the newest).
    #[must_use]
    pub(crate) fn archive(&self, index: u32) -> PathBuf {
        self.dir.join(ARCHIVE_DIR).join(format!("{}.{index}.log.gz", self.stem))
    }

    fn open_live(dir: &Path, stem: &str) -> io::Result<File> {
        OpenOptions::new().create(true).append(true).open(dir.join(format!("{stem}.log")))
    }

    /// Shifts the archives, compresses the live file into the first and starts a new one.
    fn roll(&mut self) -> io::Result<()> {
        fs::create_dir_all(self.dir.join(ARCHIVE_DIR))?;
        remove_if_present(&self.archive(self.window))?;
        for index in (1..self.window).rev() {
            match fs::rename(self.archive(index), self.archive(index + 1)) {
                Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
                _ => {}
            }
        }
        // Renamed first and removed last: a failed compression leaves the lines in
        // `otherdays/<stem>.log.rolling` (until the next roll).
        let rolled = self.dir.join(ARCHIVE_DIR).join(format!("{}.log.rolling", self.stem));
        fs::rename(self.path(), &rolled)?;
        self.file = Self::open_live(&self.dir, self.stem)?;
        self.len = 0;
        let mut encoder = flate2::write::GzEncoder::new(File::create(self.archive(1))?, flate2::Compression::default());
        io::copy(&mut File::open(&rolled)?, &mut encoder)?;
        encoder.finish()?.sync_all()?;
        fs::remove_file(rolled)
    }

    /// Says on stderr that `what` failed, once until something succeeds again: the thread
    /// that writes a log file drops write errors.
    fn failed(&mut self, what: &str, error: &io::Error) {
        if !self.failing {
            self.failing = true;
            eprintln!("nameserver: log file {}: cannot {what} ({error})", self.path().display());
        }
    }
}

impl Write for RollingFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.len >= self.max_bytes {
            if let Err(error) = self.roll() {
                self.failed("roll it", &error);
                // Written on in the same file; tried again once it has grown by another limit.
                self.len = 0;
            }
        }
        let written = self.file.write(bytes);
        match &written {
            Ok(n) => {
                self.len += *n as u64;
                self.failing = false;
            }
            Err(error) => self.failed("write it", error),
        }
        written
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    fn gunzip(path: &Path) -> String {
        let mut text = String::new();
        flate2::read::GzDecoder::new(File::open(path).unwrap()).read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn rolls_by_size_into_a_window_of_gzip_archives_dropping_the_oldest() {
        let dir = tempfile::tempdir().unwrap();
        // 10-byte lines, a 30-byte limit: every fourth line starts a new file.
        let mut file = RollingFile::open(dir.path(), "namesrv", 2, 30).unwrap();
        for line in 0..9 {
            file.write_all(format!("line {line:04}\n").as_bytes()).unwrap();
        }
        file.flush().unwrap();
        assert_eq!(fs::read_to_string(file.path()).unwrap(), "line 0006\nline 0007\nline 0008\n");
        assert_eq!(gunzip(&file.archive(1)), "line 0003\nline 0004\nline 0005\n");
        assert_eq!(gunzip(&file.archive(2)), "line 0000\nline 0001\nline 0002\n");
        // A third archive is beyond the window of 2: lines 0 to 2 are dropped.
        file.write_all(b"line 0009\n").unwrap();
        assert_eq!(gunzip(&file.archive(1)), "line 0006\nline 0007\nline 0008\n");
        assert_eq!(gunzip(&file.archive(2)), "line 0003\nline 0004\nline 0005\n");
        assert!(!file.archive(3).exists());
        let mut names: Vec<String> = fs::read_dir(dir.path().join(ARCHIVE_DIR))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["namesrv.1.log.gz", "namesrv.2.log.gz"]);
        assert_eq!(fs::read_to_string(file.path()).unwrap(), "line 0009\n");
    }

    #[test]
    fn appends_to_an_existing_file_and_counts_its_length() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("namesrv_traffic.log"), "from before, 25 bytes....\n").unwrap();
        let mut file = RollingFile::open(dir.path(), "namesrv_traffic", 10, 20).unwrap();
        file.write_all(b"next\n").unwrap();
        assert_eq!(gunzip(&file.archive(1)), "from before, 25 bytes....\n");
        assert_eq!(fs::read_to_string(file.path()).unwrap(), "next\n");
    }
}
