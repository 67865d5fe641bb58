//! What this binary is: its version and the commit it was built from (`build.rs`).

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git commit the binary was built from, or "unknown" (built without git).
pub const COMMIT: &str = env!("NAMESERVER_COMMIT");
/// `--version`'s text after the program name.
pub const LONG: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("NAMESERVER_COMMIT"), ")");
