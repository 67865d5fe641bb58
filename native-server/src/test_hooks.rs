//! Ways for the integration tests to make the daemon misbehave, compiled only with the
//! `test-hooks` feature (the tests turn it on; release builds never carry it, and
//! `scripts/check-archive.sh` checks the archive's binary for [`MARKER`]).

/// A request with this code makes its connection task panic, as an overflow or a bug would.
pub const PANIC_REQUEST_CODE: i32 = -25_001;

/// Text that is in a binary built with these hooks and in no other.
pub const MARKER: &str = "nameserver-test-hooks-compiled-in";
