//! The replies waiting to be written to one connection: frames encoded into one buffer, and
//! large route bodies shared with the route cache rather than copied into it.
//!
//! A route on 100 brokers is about 25 KB; copying it into the buffer for every query took a
//! sixth of the daemon's time answering them. A body from [`SHARED_FROM`] bytes up is kept by
//! reference and written with the bytes around it in one vectored write; smaller ones are
//! copied, where one more slice would cost more than the copy.

use std::collections::VecDeque;
use std::io::IoSlice;
use std::ops::Deref;
use std::sync::Arc;

/// The smallest body kept by reference.
pub const SHARED_FROM: usize = 4096;

/// A written prefix this long is dropped from the buffer even while more waits behind it.
const COMPACT_FROM: usize = 256 * 1024;

/// Replies not yet written, in order: `bytes[written..]` with the shared bodies (`B`, the
/// route cache's `RouteBody`) between them.
#[derive(Debug)]
pub struct Outbox<B> {
    bytes: Vec<u8>,
    written: usize,
    /// Each body goes out after `bytes[..at]` and before `bytes[at..]`, in order.
    shared: VecDeque<Shared<B>>,
    /// How much of the first shared body is written.
    front_written: usize,
    /// The unwritten bytes of the shared bodies.
    shared_len: usize,
}

#[derive(Debug)]
struct Shared<B> {
    at: usize,
    body: Arc<B>,
}

impl<B> Default for Outbox<B> {
    fn default() -> Self {
        Self { bytes: Vec::new(), written: 0, shared: VecDeque::new(), front_written: 0, shared_len: 0 }
    }
}

impl<B: Deref<Target = [u8]>> Outbox<B> {
    /// The buffer encoders append whole frames, or a frame's head, to. They only append, or
    /// take back what they appended: a shared body goes out after the bytes before it.
    pub fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Appends `body` after what the buffer holds: shared if large, else copied.
    pub fn push_body(&mut self, body: &Arc<B>) {
        if body.len() < SHARED_FROM {
            self.bytes.extend_from_slice(body);
        } else {
            self.shared_len += body.len();
            self.shared.push_back(Shared { at: self.bytes.len(), body: Arc::clone(body) });
        }
    }

    /// Bytes not yet written.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len() - self.written + self.shared_len
    }

    /// Whether everything is written.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `slices` with the unwritten bytes from the first, as far as they go; returns how
    /// many it filled.
    pub fn slices<'a>(&'a self, slices: &mut [IoSlice<'a>]) -> usize {
        // Nearly always nothing is shared: one piece, without walking the general case.
        if self.shared.is_empty() {
            let rest = &self.bytes[self.written..];
            let Some(free) = slices.first_mut().filter(|_| !rest.is_empty()) else { return 0 };
            *free = IoSlice::new(rest);
            return 1;
        }
        let mut filled = 0;
        for (free, piece) in slices.iter_mut().zip(self.pieces()) {
            *free = IoSlice::new(piece);
            filled += 1;
        }
        // A write offered nothing would read as the peer refusing bytes (`WriteZero`).
        debug_assert!(filled > 0 || self.is_empty() || slices.is_empty(), "unwritten bytes and no piece");
        filled
    }

    /// The unwritten bytes in order, in pieces none of them empty.
    fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        let ats = || self.shared.iter().map(|shared| shared.at);
        let starts = std::iter::once(self.written).chain(ats());
        let ends = ats().chain(std::iter::once(self.bytes.len()));
        let copied = starts.zip(ends).map(|(from, to)| &self.bytes[from..to]);
        let bodies = self.shared.iter().enumerate().map(|(i, shared)| {
            let from = if i == 0 { self.front_written } else { 0 };
            Some(&shared.body[from..])
        });
        copied
            .zip(bodies.chain(std::iter::once(None)))
            .flat_map(|(copied, body)| std::iter::once(copied).chain(body))
            .filter(|piece| !piece.is_empty())
    }

    /// Takes the first `n` unwritten bytes as written.
    pub fn advance(&mut self, mut n: usize) {
        debug_assert!(n <= self.len(), "{n} written of {}", self.len());
        while n > 0 {
            let Some(front) = self.shared.front() else {
                self.written += n;
                break;
            };
            let before = front.at - self.written;
            if n <= before {
                self.written += n;
                break;
            }
            self.written = front.at;
            n -= before;
            let rest = front.body.len() - self.front_written;
            let taken = n.min(rest);
            self.front_written += taken;
            self.shared_len -= taken;
            n -= taken;
            if taken == rest {
                self.shared.pop_front();
                self.front_written = 0;
            }
        }
        self.compact();
    }

    /// Empties the buffer once everything is written, and drops a long written prefix.
    fn compact(&mut self) {
        if self.shared.is_empty() && self.written == self.bytes.len() {
            self.bytes.clear();
            self.written = 0;
        } else if self.written >= COMPACT_FROM {
            self.bytes.drain(..self.written);
            for shared in &mut self.shared {
                shared.at -= self.written;
            }
            self.written = 0;
        }
    }

    /// Everything unwritten, in one buffer (tests and tools).
    #[must_use]
    pub fn to_vec(&self) -> Vec<u8> {
        self.pieces().collect::<Vec<_>>().concat()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What happens to an outbox: bytes encoded into it, a body pushed, some bytes written.
    #[derive(Clone, Debug)]
    enum Step {
        Encode(Vec<u8>),
        Body(usize),
        Write(usize),
    }

    fn steps() -> impl Strategy<Value = Vec<Step>> {
        let step = prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..300).prop_map(Step::Encode),
            // Enough to have a written prefix dropped while bodies wait behind it.
            (0..3u8).prop_map(|b| Step::Encode(vec![b; COMPACT_FROM / 2])),
            prop_oneof![0..SHARED_FROM, SHARED_FROM - 1..3 * SHARED_FROM].prop_map(Step::Body),
            prop_oneof![0..40_000usize, 0..COMPACT_FROM].prop_map(Step::Write),
        ];
        proptest::collection::vec(step, 0..60)
    }

    proptest! {
        // Each case moves megabytes through the outbox and checks all of it after each step.
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Against a plain byte queue: whatever is encoded, pushed and written, the outbox
        /// holds the same unwritten bytes, and its slices are their beginning.
        #[test]
        fn an_outbox_holds_what_a_byte_queue_holds(steps in steps(), width in 1..6usize) {
            let mut outbox = Outbox::default();
            let mut model: VecDeque<u8> = VecDeque::new();
            for (i, step) in steps.into_iter().enumerate() {
                match step {
                    Step::Encode(bytes) => {
                        outbox.bytes_mut().extend_from_slice(&bytes);
                        model.extend(&bytes);
                    }
                    Step::Body(len) => {
                        let bytes: Vec<u8> = (0..len).map(|b| (b + i) as u8).collect();
                        model.extend(&bytes);
                        outbox.push_body(&Arc::new(bytes));
                    }
                    Step::Write(n) => {
                        let mut slices = vec![IoSlice::new(&[]); width];
                        let filled = outbox.slices(&mut slices);
                        let offered: Vec<u8> = slices[..filled].iter().flat_map(|s| s.iter().copied()).collect();
                        prop_assert!(slices[..filled].iter().all(|s| !s.is_empty()));
                        prop_assert_eq!(&offered[..], &model.iter().copied().take(offered.len()).collect::<Vec<_>>()[..]);
                        prop_assert_eq!(filled == 0, model.is_empty());
                        // A write takes at most what it was offered.
                        let n = n.min(offered.len());
                        outbox.advance(n);
                        model.drain(..n);
                    }
                }
                prop_assert_eq!(outbox.len(), model.len());
            }
            prop_assert_eq!(outbox.to_vec(), model.iter().copied().collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_large_body_is_shared_and_a_small_one_copied() {
        let large = Arc::new(vec![1; SHARED_FROM]);
        let small = Arc::new(vec![2; SHARED_FROM - 1]);
        let mut outbox = Outbox::default();
        outbox.push_body(&large);
        outbox.push_body(&small);
        assert_eq!(Arc::strong_count(&large), 2);
        assert_eq!(Arc::strong_count(&small), 1);
        assert_eq!(outbox.len(), 2 * SHARED_FROM - 1);
        // Written in full, the outbox lets go of it.
        outbox.advance(SHARED_FROM + 10);
        assert_eq!(Arc::strong_count(&large), 1);
        outbox.advance(SHARED_FROM - 11);
        assert!(outbox.is_empty());
    }
}
