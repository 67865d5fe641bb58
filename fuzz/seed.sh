#!/usr/bin/env bash
# Writes seed corpora for the fuzz targets from the golden vectors (PROTOCOL.md examples and the
# real client frames in core/tests/testdata): the seeds are fuzz-checks/src/seeds.rs, which the
# smoke test (fuzz-checks/tests/smoke.rs) runs too. The corpora are not committed (see
# .gitignore): run this once before `cargo +nightly fuzz run <target>`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --locked -p nameserver-fuzz-checks --bin seed -- fuzz/corpus
