//! The election policy (Java's `DefaultElectPolicy`), in Java's order: the sync-state set
//! first, then, with `enableElectUncleanMaster`, every registered replica; among the alive
//! ones the old master if it may stay, else the designated one, else the best by heartbeat
//! (epoch, then max offset, then priority).

use alloc::collections::BTreeSet;

use nameserver_core::BrokerId;

use crate::liveness::LiveInfo;

/// What an election chooses from.
#[derive(Debug)]
pub struct Ballot<'a> {
    /// The sync-state set.
    pub sync_set: &'a BTreeSet<BrokerId>,
    /// Every registered replica when unclean elections are enabled, else `None`.
    pub unclean: Option<&'a BTreeSet<BrokerId>>,
    /// The current master.
    pub old_master: Option<BrokerId>,
    /// The id an admin designated.
    pub preferred: Option<BrokerId>,
}

/// The new master, if any: `live(id)` is the heartbeat entry of an alive broker, `None`
/// for a dead or unknown one.
pub fn elect<'i>(ballot: &Ballot<'_>, live: impl Fn(BrokerId) -> Option<&'i LiveInfo>) -> Option<BrokerId> {
    try_elect(ballot.sync_set, ballot, &live).or_else(|| ballot.unclean.and_then(|all| try_elect(all, ballot, &live)))
}

fn try_elect<'i>(
    from: &BTreeSet<BrokerId>,
    ballot: &Ballot<'_>,
    live: &impl Fn(BrokerId) -> Option<&'i LiveInfo>,
) -> Option<BrokerId> {
    let alive = || from.iter().filter_map(|id| live(*id).map(|info| (*id, info)));
    alive().next()?;
    let old_may_stay = |old: BrokerId| from.contains(&old) && live(old).is_some();
    if let Some(old) = ballot.old_master.filter(|old| old_may_stay(*old) && ballot.preferred.is_none_or(|p| p == *old))
    {
        return Some(old);
    }
    if let Some(preferred) = ballot.preferred {
        return (from.contains(&preferred) && live(preferred).is_some()).then_some(preferred);
    }
    // Java keeps the candidates in a TreeSet under `java_compare`: the first is the least,
    // and of candidates comparing equal only the first inserted (the lowest id) is kept.
    let mut best: Option<(BrokerId, &LiveInfo)> = None;
    for (id, info) in alive() {
        if best.is_none_or(|(_, b)| java_compare(info, b) < 0) {
            best = Some((id, info));
        }
    }
    best.map(|(id, _)| id)
}

/// Java's comparator, int arithmetic included: the offset difference is cut to 32 bits
/// and the priority difference may overflow (quirk Q9).
#[must_use]
pub fn java_compare(x: &LiveInfo, y: &LiveInfo) -> i32 {
    if x.epoch != y.epoch {
        y.epoch.wrapping_sub(x.epoch)
    } else if x.max_offset != y.max_offset {
        // Java's `(int) (long)`: the low 32 bits.
        y.max_offset.wrapping_sub(x.max_offset) as i32
    } else {
        x.election_priority.wrapping_sub(y.election_priority)
    }
}
