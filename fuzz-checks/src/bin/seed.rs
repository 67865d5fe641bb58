//! Writes every target's seeds ([`nameserver_fuzz_checks::seeds`]) as libFuzzer's starting
//! corpora: `seed DIR` writes `DIR/<target>/<name>` (`fuzz/seed.sh` runs it for `fuzz/corpus`).

use std::path::PathBuf;

use nameserver_fuzz_checks::{TARGETS, seeds::seeds};

fn main() -> std::io::Result<()> {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: seed DIR (writes DIR/<target>/<name> for every fuzz target)");
        std::process::exit(2);
    };
    let mut counts = Vec::new();
    for target in TARGETS {
        let into = dir.join(target.name);
        std::fs::create_dir_all(&into)?;
        let seeds = seeds(target.name);
        for (name, bytes) in &seeds {
            std::fs::write(into.join(name), bytes)?;
        }
        counts.push(format!("{} {}", seeds.len(), target.name));
    }
    println!("seeded: {}", counts.join(", "));
    Ok(())
}
