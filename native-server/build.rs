//! Build-time facts for the daemon: the git commit it was built from (`--version`,
//! `nameserver_build_info`), and, with the `embed-page` feature, a check that the page it
//! embeds has been built.

use std::path::Path;
use std::process::Command;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| String::from("."));
    let root = Path::new(&manifest).parent().unwrap_or(Path::new(".")).to_path_buf();
    println!("cargo::rerun-if-env-changed=NAMESERVER_COMMIT");
    println!("cargo::rustc-env=NAMESERVER_COMMIT={}", commit(&root));
    if std::env::var_os("CARGO_FEATURE_EMBED_PAGE").is_some() {
        check_page(&root);
    }
}

/// `NAMESERVER_COMMIT` when set (a container build has no `.git`), else `git rev-parse`,
/// else "unknown": a build never fails for want of git.
fn commit(root: &Path) -> String {
    if let Ok(commit) = std::env::var("NAMESERVER_COMMIT") {
        if !commit.trim().is_empty() {
            return commit.trim().to_string();
        }
    }
    let git = |args: &[&str]| {
        let output = Command::new("git").arg("-C").arg(root).args(args).output().ok()?;
        output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else { return String::from("unknown") };
    // Rebuild when HEAD moves (a worktree's HEAD lives in its own git dir).
    for file in ["HEAD", "logs/HEAD"] {
        if let Some(path) = git(&["rev-parse", "--git-path", file]) {
            let path = if Path::new(&path).is_absolute() { path.into() } else { root.join(path) };
            println!("cargo::rerun-if-changed={}", path.display());
        }
    }
    commit
}

/// The embedded page is `www/` and the wasm bindings `pkg/` (scripts/build-wasm.sh).
fn check_page(root: &Path) {
    for dir in ["www", "pkg"] {
        println!("cargo::rerun-if-changed={}", root.join(dir).display());
    }
    let wasm = root.join("pkg").join("nameserver_wasm_bg.wasm");
    assert!(root.join("www").join("index.html").is_file(), "embed-page: no www/index.html under {}", root.display());
    assert!(
        wasm.is_file(),
        "embed-page: {} is missing; build the wasm bindings first with scripts/build-wasm.sh (scripts/dist.sh does both)",
        wasm.display()
    );
}
