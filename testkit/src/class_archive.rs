//! Class-data-sharing archives for the short Java runs (mqadmin, our one-file Java programs).
//!
//! Each such run is a JVM that loads a few thousand classes and exits: on a 2-core machine the
//! loading is most of its CPU, and the Java peers test runs a hundred of them. The first run of
//! a kind writes a dynamic archive of the classes it loaded (`-XX:ArchiveClassesAtExit`); later
//! runs map it (`-XX:SharedArchiveFile`), which halves their CPU time. An archive the JVM cannot
//! use (another JDK, another class path) is ignored by the JVM, silently, as is its logging:
//! a run's output must not depend on whether an archive exists. `NAMESERVER_JAVA_CDS=0` turns
//! archives off.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// The JVM's own lines about archives, which would otherwise reach a run's output.
const QUIET: [&str; 2] = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"];

/// One kind of run's archive: used when it exists, else written by this run.
pub(crate) struct ClassArchive {
    path: PathBuf,
    /// Where this run writes the archive, when there is none yet: renamed into place on exit,
    /// so that a run started meanwhile never maps a half-written file.
    writing: Option<PathBuf>,
}

impl ClassArchive {
    /// The archive of runs named `kind` with the JDK whose `java -version` is `jdk`, in `dir`;
    /// `None` when archives are off, the JDK names no build or `dir` cannot be made.
    pub(crate) fn open(dir: &Path, kind: &str, jdk: &str) -> Option<Self> {
        let build = jdk_build(jdk)?;
        if std::env::var("NAMESERVER_JAVA_CDS").is_ok_and(|v| v == "0") || std::fs::create_dir_all(dir).is_err() {
            return None;
        }
        // scripts/java/class-archive.sh writes mqadmin's under the same name.
        let path = dir.join(format!("{kind}-{build}.jsa"));
        let writing = (!path.exists()).then(|| {
            static RUN: AtomicU32 = AtomicU32::new(0);
            let n = RUN.fetch_add(1, Ordering::Relaxed);
            path.with_extension(format!("{}.{n}.tmp", std::process::id()))
        });
        Some(Self { path, writing })
    }

    /// The JVM options that use or write the archive.
    pub(crate) fn jvm_options(&self) -> Vec<String> {
        let archive = match &self.writing {
            Some(tmp) => format!("-XX:ArchiveClassesAtExit={}", tmp.display()),
            None => format!("-XX:SharedArchiveFile={}", self.path.display()),
        };
        QUIET.iter().map(|s| (*s).to_string()).chain([archive]).collect()
    }

    /// After the run: an archive it wrote takes its place (a concurrent first run may have
    /// placed one already; either serves).
    pub(crate) fn finish(self) {
        if let Some(tmp) = self.writing {
            let written = std::fs::metadata(&tmp).is_ok_and(|m| m.len() > 0);
            if !written || std::fs::rename(&tmp, &self.path).is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }
}

/// The JDK's build in `java -version`'s text (`… (build 17.0.15+6-Debian-1deb12u1)`), each byte
/// outside `A-Za-z0-9.+_-` as `_`: an archive serves one JDK build only.
fn jdk_build(version_text: &str) -> Option<String> {
    let start = version_text.find("(build ")? + "(build ".len();
    let rest = &version_text[start..];
    let build = &rest[..rest.find(')')?];
    let keep = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '_' | '-');
    Some(build.chars().map(|c| if keep(c) { c } else { '_' }).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_build_is_read_as_class_archive_sh_reads_it() {
        let text = "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment (build \
                    17.0.15+6-Debian-1deb12u1)\nOpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, \
                    mixed mode, sharing)";
        assert_eq!(super::jdk_build(text).as_deref(), Some("17.0.15+6-Debian-1deb12u1"));
        assert_eq!(super::jdk_build("odd (build a b/c)").as_deref(), Some("a_b_c"));
        assert_eq!(super::jdk_build("no build here"), None);
    }
}
