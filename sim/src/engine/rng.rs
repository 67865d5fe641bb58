//! A small seeded PRNG kept in the crate (SplitMix64), so a seed replays byte for byte across
//! dependency upgrades and platforms.

/// SplitMix64 (Steele, Lea, Flood 2014): 64 bits of state, one add and three mixes per draw.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n` is 0), without modulo bias worth worrying about here.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64 }
    }

    /// A value in `lo..=hi`.
    pub fn between(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = hi.abs_diff(lo).saturating_add(1);
        lo.saturating_add_unsigned(self.below(span))
    }

    /// A generator derived from this one for a sub-stream (e.g. one node), leaving this one
    /// untouched apart from one draw.
    pub fn fork(&mut self) -> Self {
        Self(self.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sequence() {
        // SplitMix64 reference values for seed 0.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn ranges_hold() {
        let mut r = Rng::new(42);
        for _ in 0..1000 {
            let v = r.between(-1, 1);
            assert!((-1..=1).contains(&v));
            assert!(r.below(7) < 7);
        }
        assert_eq!(r.below(0), 0);
    }
}
