//! Every fuzz target on stable, as the test command runs it (the `fuzz` step): each seed, then
//! a fixed number of inputs drawn from a seeded generator: random bytes, and seeds mutated the
//! ways libFuzzer mutates (a bit flipped, a byte set, bytes inserted, removed, repeated or
//! spliced in from another seed, the input cut short). The same seed draws the same inputs on
//! every machine. An input that breaks a property is written to `fuzz/artifacts/<target>/`
//! (where `cargo +nightly fuzz run <target> <file>` repeats it) and fails the test.
//!
//! `FUZZ_SMOKE_RUNS=N` draws N inputs per target instead of the defaults below,
//! `FUZZ_SMOKE_SEED=S` seeds the generator with S (default 1), and `FUZZ_SMOKE_CORPUS=DIR`
//! also runs, and mutates, every file of `DIR/<target>/` (a libFuzzer corpus, e.g.
//! `fuzz/corpus`).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::{Path, PathBuf};

use nameserver_fuzz_checks::{TARGETS, Target, seeds::seeds};
use nameserver_sim::Rng;

/// The longest random input: past it the sequence targets stop at their record limit anyway.
const MAX_RANDOM_LEN: u64 = 300;

/// Bytes at the edges of what the readers take apart (lengths, flags, signs).
const EDGES: [u8; 8] = [0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF, b'"'];

fn env_u64(key: &str) -> Option<u64> {
    let value = std::env::var(key).ok()?;
    Some(value.parse().unwrap_or_else(|_| panic!("{key}={value} is not a number")))
}

fn below(rng: &mut Rng, n: usize) -> usize {
    usize::try_from(rng.below(n as u64)).expect("below n")
}

fn byte(rng: &mut Rng) -> u8 {
    if rng.below(2) == 0 { EDGES[below(rng, EDGES.len())] } else { rng.next_u64().to_le_bytes()[0] }
}

/// One mutation of `data`, another input of the pool lending bytes to a splice.
fn mutate(rng: &mut Rng, data: &mut Vec<u8>, pool: &[Vec<u8>]) {
    let len = data.len();
    let at = below(rng, len + 1);
    match rng.below(7) {
        0 if len > 0 => data[at.min(len - 1)] ^= 1 << rng.below(8),
        1 if len > 0 => data[at.min(len - 1)] = byte(rng),
        2 => {
            let bytes: Vec<u8> = (0..1 + below(rng, 8)).map(|_| byte(rng)).collect();
            data.splice(at..at, bytes);
        }
        3 => drop(data.drain(at..(at + 1 + below(rng, 16)).min(len))),
        4 => {
            let end = (at + 1 + below(rng, 32)).min(len);
            let chunk = data[at..end].to_vec();
            let to = below(rng, len + 1);
            data.splice(to..to, chunk);
        }
        5 => {
            let other = &pool[below(rng, pool.len())];
            let from = below(rng, other.len() + 1);
            let end = (from + 1 + below(rng, 64)).min(other.len());
            data.splice(at..at, other[from..end].iter().copied());
        }
        _ => data.truncate(at),
    }
}

/// A drawn input: random bytes (one in four), or an input of the pool mutated one to eight times.
fn draw(rng: &mut Rng, pool: &[Vec<u8>]) -> Vec<u8> {
    if pool.is_empty() || rng.below(4) == 0 {
        let len = rng.below(MAX_RANDOM_LEN);
        return (0..len).map(|_| byte(rng)).collect();
    }
    let mut data = pool[below(rng, pool.len())].clone();
    for _ in 0..1 + rng.below(8) {
        mutate(rng, &mut data, pool);
    }
    data
}

/// Runs `input`; if it breaks a property, writes it to `fuzz/artifacts/<target>/` and fails.
fn run_one(target: Target, label: &str, input: &[u8]) {
    let Err(panic) = catch_unwind(AssertUnwindSafe(|| (target.run)(input))) else { return };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/artifacts").join(target.name);
    let file = dir.join(format!("smoke-{label}"));
    let written = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, input));
    // The first 256 bytes in hex; the file has them all.
    let hex: String = input.iter().take(256).map(|b| format!("{b:02x}")).collect();
    eprintln!("fuzz smoke: {} broke a property on input {label} ({} bytes): {hex}", target.name, input.len());
    match written {
        Ok(()) => eprintln!("written to {} (in fuzz/: cargo +nightly fuzz run {} FILE)", file.display(), target.name),
        Err(e) => eprintln!("could not write it to {}: {e}", file.display()),
    }
    resume_unwind(panic);
}

/// The files of a libFuzzer corpus directory, by name.
fn corpus(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.expect("a readable corpus entry").path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).expect("readable")))
        .collect();
    files.sort();
    files
}

fn smoke(name: &str, default_runs: u64) {
    let (index, target) = TARGETS.iter().enumerate().find(|(_, t)| t.name == name).expect("a target");
    let mut inputs = seeds(name);
    assert!(!inputs.is_empty(), "{name} has seeds");
    if let Some(dir) = std::env::var_os("FUZZ_SMOKE_CORPUS") {
        inputs.extend(corpus(&PathBuf::from(dir).join(name)));
    }
    for (file, input) in &inputs {
        run_one(*target, file, input);
    }
    let pool: Vec<Vec<u8>> = inputs.into_iter().map(|(_, input)| input).collect();
    let seed = env_u64("FUZZ_SMOKE_SEED").unwrap_or(1);
    let mut rng = Rng::new(seed.wrapping_add(index as u64));
    let runs = env_u64("FUZZ_SMOKE_RUNS").unwrap_or(default_runs);
    for i in 0..runs {
        let input = draw(&mut rng, &pool);
        run_one(*target, &format!("seed-{seed}-run-{i}"), &input);
    }
}

#[test]
fn decode() {
    smoke("decode", 50_000);
}

#[test]
fn bodies() {
    smoke("bodies", 25_000);
}

#[test]
fn server() {
    smoke("server", 10_000);
}

#[test]
fn controller() {
    smoke("controller", 10_000);
}
