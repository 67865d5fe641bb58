//! One shape per view: the rows the page reads (`view/`) and a scenario as data (`scenario/`)
//! are the crate's only public fields; everything else is read through methods, so no second,
//! internal shape of a view grows beside `view/` again.

use std::path::{Path, PathBuf};

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether `line` declares a public field (`pub name: Type`, not `pub(crate)`).
fn public_field(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("pub ") else { return false };
    let name_len = rest.bytes().take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_').count();
    name_len > 0 && rest[name_len..].starts_with(':') && !rest[name_len..].starts_with("::")
}

#[test]
fn only_view_and_scenario_have_public_fields() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src").to_string_lossy().replace('\\', "/");
        if rel.starts_with("view/") || rel.starts_with("scenario/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable");
        for (i, line) in text.lines().enumerate() {
            if public_field(line) {
                found.push(format!("sim/src/{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "public fields outside view/ and scenario/:\n{}", found.join("\n"));
    assert!(public_field("    pub id: u64,") && !public_field("    pub(crate) id: u64,"));
    assert!(!public_field("pub use crate::x;") && !public_field("pub fn id(&self) -> u64 {"));
}
