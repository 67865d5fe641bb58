//! Frames travel between simulated actors as commands and become bytes only when read (the
//! message inspector, the state hash): every frame of an hour of S1, produced on demand, is
//! the bytes encoding it at send time gave before, and decodes to what its receiver got.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::hash::Hasher as _;

use nameserver_core::codec::{self, Limits};
use nameserver_core::time::Instant;
use nameserver_sim::{Fnv64, Payload, Sim, built_in};

/// Frames sent in the first simulated hour of S1, and an FNV-1a hash of their bytes in
/// sending order, as `codec::encode_to_vec` gave them at send time before frames were
/// produced on demand (computed at main becaa14).
const S1_HOUR_FRAMES: usize = 23_896;
const S1_HOUR_BYTES_HASH: u64 = 0xb2fd_0910_a529_d384;

#[test]
fn every_frame_of_an_hour_of_s1_is_the_bytes_encoded_at_send_time() {
    let mut sim = Sim::new(&built_in("S1").expect("S1 exists"));
    let end = Instant::from_millis(3_600_000);
    let mut seen = BTreeSet::new();
    let mut hash = Fnv64::default();
    let mut frames = 0usize;
    // A frame stays on the wire at least a millisecond, so each is seen after the event that
    // sent it; ids grow, so the new ones are read in sending order.
    while sim.step_event(end) {
        for (id, flight) in sim.net().flights() {
            if !seen.insert(*id) {
                continue;
            }
            let Payload::Frame(frame) = flight.payload() else { continue };
            let bytes = frame.bytes();
            hash.write(&bytes);
            frames += 1;
            let decoded = codec::decode(&bytes, &Limits::DEFAULT).ok().flatten().map(|(cmd, _)| cmd);
            assert_eq!(frame.command().map(Cow::into_owned), decoded, "frame {id}: its receiver reads its bytes");
        }
    }
    assert_eq!((frames, hash.finish()), (S1_HOUR_FRAMES, S1_HOUR_BYTES_HASH));
}
