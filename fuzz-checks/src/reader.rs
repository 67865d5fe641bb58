//! How the sequence targets read their records from the fuzzer's bytes.

use nameserver_core::codec::{self, DecodeError, Limits};
use nameserver_core::protocol::RemotingCommand;

/// Records run per input. Longer sequences mostly repeat what shorter ones reach, at a cost
/// linear in their length (unbounded, the server target ran about 200 executions a second under
/// AddressSanitizer; with this and its body cache, about 1 000, and 6 000 without the cache).
pub(crate) const MAX_RECORDS: usize = 32;

/// Runs `step` on `harness` until the bytes run out or [`MAX_RECORDS`] have run.
pub(crate) fn run_records<H>(harness: &mut H, data: &[u8], step: fn(&mut H, &mut Reader<'_>) -> Option<()>) {
    let mut r = Reader(data);
    for _ in 0..MAX_RECORDS {
        if step(harness, &mut r).is_none() {
            break;
        }
    }
}

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

    /// A u8 length, then up to that many bytes.
    pub(crate) fn short_bytes(&mut self) -> Option<Vec<u8>> {
        let len = usize::from(self.u8()?);
        Some(self.bytes(len).to_vec())
    }

    /// A raw frame: a u16 length, then up to that many bytes, decoded (`Ok(None)`: incomplete).
    pub(crate) fn frame(&mut self) -> Option<Result<Option<RemotingCommand>, DecodeError>> {
        let len = usize::from(self.u16()?);
        Some(codec::decode(self.bytes(len), &Limits::DEFAULT).map(|o| o.map(|(cmd, _)| cmd)))
    }

    /// Up to seven fields, each a key and a value picked from these vocabularies.
    pub(crate) fn fields(
        &mut self,
        mut cmd: RemotingCommand,
        keys: &[&str],
        values: &[&str],
    ) -> Option<RemotingCommand> {
        for _ in 0..self.u8()? % 8 {
            let key = self.pick(keys)?;
            cmd = cmd.with_field(key, self.pick(values)?);
        }
        Some(cmd)
    }

    pub(crate) fn pick<T: Copy>(&mut self, from: &[T]) -> Option<T> {
        Some(from[usize::from(self.u8()?) % from.len()])
    }
}
