//! How the sequence targets read their records from the fuzzer's bytes.

/// The bytes not read yet; every read past the end is `None` (the input is over).
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl Reader<'_> {
    pub(crate) fn u8(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    /// Big-endian.
    pub(crate) fn u16(&mut self) -> Option<u16> {
        Some(u16::from(self.u8()?) << 8 | u16::from(self.u8()?))
    }

    /// Up to `n` bytes: fewer if the input ends first.
    pub(crate) fn bytes(&mut self, n: usize) -> &[u8] {
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        head
    }

    pub(crate) fn pick<T: Copy>(&mut self, from: &[T]) -> Option<T> {
        Some(from[usize::from(self.u8()?) % from.len()])
    }
}
