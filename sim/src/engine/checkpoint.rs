//! What the time machine needs of a `Sim`: a copy without its history, a look ahead on a copy,
//! and taking a scripted action back out of the queue.

use crate::Sim;
use crate::engine::history::History;
use crate::engine::history::HistoryMark;
use crate::scenario::{ScriptEvent, remove_last};
use nameserver_core::time::Instant;

impl Sim {
    /// Takes a scripted action that has not run yet out of the scenario and the event queue
    /// (the one added last, if the same action is scheduled twice at that time).
    pub(crate) fn unschedule_script(&mut self, event: &ScriptEvent) {
        if !remove_last(&mut self.scenario.script, event) {
            return;
        }
        self.queue.remove_last_script(event.at, &event.action);
    }

    /// When the next trace line will be written, found by running a copy (at most to `limit`).
    pub(crate) fn clone_next_trace_time(&self, limit: Instant) -> Option<Instant> {
        let mut probe = self.clone_parts();
        probe.step(limit);
        probe.history.trace.first().map(|e| e.at)
    }

    /// A copy of everything but the history, which can be large and which checkpoints keep
    /// only as lengths.
    pub(crate) fn clone_parts(&self) -> Self {
        Self {
            scenario: self.scenario.clone(),
            dir: self.dir.clone(),
            now: self.now,
            queue: self.queue.clone(),
            next_seq: self.next_seq,
            rng: self.rng.clone(),
            nodes: self.nodes.clone(),
            net: self.net.clone(),
            history: History::default(),
            trace_hash: self.trace_hash,
            stale_now: self.stale_now.clone(),
            stale_keys: self.stale_keys.clone(),
            stale_dirty: self.stale_dirty,
            said: self.said.clone(),
            said_bodies: self.said_bodies.clone(),
            events: self.events,
            asked: self.asked.clone(),
            asked_limit: self.asked_limit,
        }
    }

    /// Goes back to `checkpoint` (a copy made by [`Self::clone_parts`]), keeping this run's
    /// history up to `mark`, the checkpoint's point in it.
    pub(crate) fn restore(&mut self, checkpoint: &Self, mark: HistoryMark) {
        let mut history = core::mem::take(&mut self.history);
        history.truncate(mark);
        *self = checkpoint.clone_parts();
        self.history = history;
    }
}
