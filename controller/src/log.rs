//! Replication behind a trait: the controller appends encoded entries, takes committed ones
//! back in order, and asks who leads. [`MemoryLog`] is one node whose appends commit at once
//! (the simulation's and the tests'); the daemon's file-backed log and a Raft group implement
//! the same trait.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// A position in the log, from 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LogIndex(pub u64);

/// Who leads the controller group, as this node sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Leadership {
    /// The leader's peer id (`controllerDLegerSelfId` of that node), if one is known.
    pub leader: Option<String>,
    /// Whether this node is the leader.
    pub is_leader: bool,
    /// Whether it serves as leader: every older entry is committed and applied. Java's leader
    /// serves only once its own empty entry has committed.
    pub serving: bool,
}

/// The replica tables at a log index, as [`crate::ReplicasInfo::to_snapshot`] wrote them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The last entry the snapshot includes.
    pub index: LogIndex,
    /// The encoded tables.
    pub bytes: Vec<u8>,
}

/// An append refused: this node does not lead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotLeader;

impl fmt::Display for NotLeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("The controller is not in leader state")
    }
}

impl core::error::Error for NotLeader {}

/// A replicated log of controller entries.
pub trait ReplicatedLog {
    /// Who leads.
    fn leadership(&self) -> Leadership;

    /// Queues one entry (the leader only); it comes back from [`Self::poll_committed`] once
    /// committed.
    ///
    /// # Errors
    /// [`NotLeader`] on a node that does not lead.
    fn append(&mut self, entry: Vec<u8>) -> Result<LogIndex, NotLeader>;

    /// The next committed entry not yet taken, in log order.
    fn poll_committed(&mut self) -> Option<(LogIndex, Vec<u8>)>;

    /// The latest snapshot, which a restarted controller starts from before the entries
    /// after it.
    fn snapshot(&self) -> Option<Snapshot>;

    /// Keeps `snapshot` and lets the entries it includes go.
    fn compact(&mut self, snapshot: Snapshot);
}

/// One controller alone: leader from the start, every append committed at once, kept in
/// memory.
#[derive(Clone, Debug)]
pub struct MemoryLog {
    self_id: String,
    leading: bool,
    last: LogIndex,
    /// Committed entries not yet taken.
    committed: VecDeque<(LogIndex, Vec<u8>)>,
    /// Every entry after the snapshot, taken or not, for a restart.
    entries: Vec<(LogIndex, Vec<u8>)>,
    snapshot: Option<Snapshot>,
}

impl MemoryLog {
    /// An empty log of the node `self_id`, which leads.
    #[must_use]
    pub fn new(self_id: impl Into<String>) -> Self {
        Self {
            self_id: self_id.into(),
            leading: true,
            last: LogIndex(0),
            committed: VecDeque::new(),
            entries: Vec::new(),
            snapshot: None,
        }
    }

    /// This log as a restarted node finds it: the snapshot, then every entry after it again
    /// to be taken.
    #[must_use]
    pub fn restarted(&self) -> Self {
        let mut log = self.clone();
        log.committed = self.entries.iter().cloned().collect();
        log
    }

    /// Makes this node lead or follow (a test's stand-in for an election among peers).
    pub fn set_leading(&mut self, leading: bool) {
        self.leading = leading;
    }

    /// Every entry after the snapshot.
    #[must_use]
    pub fn entries(&self) -> &[(LogIndex, Vec<u8>)] {
        &self.entries
    }
}

impl ReplicatedLog for MemoryLog {
    fn leadership(&self) -> Leadership {
        Leadership {
            leader: self.leading.then(|| self.self_id.clone()),
            is_leader: self.leading,
            serving: self.leading,
        }
    }

    fn append(&mut self, entry: Vec<u8>) -> Result<LogIndex, NotLeader> {
        if !self.leading {
            return Err(NotLeader);
        }
        self.last = LogIndex(self.last.0 + 1);
        self.entries.push((self.last, entry.clone()));
        self.committed.push_back((self.last, entry));
        Ok(self.last)
    }

    fn poll_committed(&mut self) -> Option<(LogIndex, Vec<u8>)> {
        self.committed.pop_front()
    }

    fn snapshot(&self) -> Option<Snapshot> {
        self.snapshot.clone()
    }

    fn compact(&mut self, snapshot: Snapshot) {
        self.entries.retain(|(index, _)| *index > snapshot.index);
        self.snapshot = Some(snapshot);
    }
}
