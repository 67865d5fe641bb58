//! The golden hashes native and WebAssembly builds must both produce (same seed and script ⇒
//! same trace, byte for byte). `tests/golden-hashes.txt` holds `id millis traceHash stateHash`.
//! After an intended change of the model, regenerate with `UPDATE_GOLDEN=1 cargo test -p nameserver-wasm`.

/// The golden lines.
pub(crate) fn lines() -> Vec<(String, u64, String, String)> {
    include_str!("../golden-hashes.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].to_owned(), w[1].parse().expect("millis"), w[2].to_owned(), w[3].to_owned())
        })
        .collect()
}
