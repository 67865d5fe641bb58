//! Tests only: the bytes a value feeds its hasher, so a replacement type can be checked to
//! hash exactly like the type it replaced (the simulation's state hashes depend on it).

use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

/// A hasher that records what it is fed.
#[derive(Default)]
struct Recorder(Vec<u8>);

impl Hasher for Recorder {
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

/// What `value` feeds a hasher, byte for byte.
pub(crate) fn fed(value: &impl Hash) -> Vec<u8> {
    let mut recorder = Recorder::default();
    value.hash(&mut recorder);
    recorder.0
}
