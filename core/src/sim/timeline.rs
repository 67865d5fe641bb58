//! The time machine: checkpoints plus replay for fast seeking, and branches for forking from
//! any past moment without losing the original.
//!
//! A branch is fully described by its scenario (the script includes every action injected
//! into it), so any state of it can be recomputed; checkpoints only make that fast.

use alloc::string::String;
use alloc::vec::Vec;
use core::mem;
use core::time::Duration;

use super::Sim;
use super::history::{History, HistoryMark};

use super::scenario::{Action, Scenario};
use crate::time::Instant;

/// Simulated time between checkpoints.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(10);

/// A saved state without its history (only the history's lengths).
#[derive(Clone, Debug)]
struct Checkpoint {
    sim: Sim,
    mark: HistoryMark,
}

/// One line of events: the original run or a fork.
#[derive(Clone, Debug)]
pub struct Branch {
    /// Position in [`Timeline::branches`].
    pub id: usize,
    /// The branch it was forked from, and when.
    pub parent: Option<(usize, Instant)>,
    /// The furthest time simulated on this branch.
    pub head: Instant,
    sim: Sim,
    checkpoints: Vec<Checkpoint>,
    /// (from, to) of each [`Timeline::step`] since the last seek, so that
    /// [`Timeline::step_back`] returns exactly to where a step started.
    steps: Vec<(Instant, Instant)>,
}

impl Branch {
    /// The branch's current state.
    #[must_use]
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The branch's scenario, including its injected actions.
    #[must_use]
    pub fn scenario(&self) -> &Scenario {
        self.sim.scenario()
    }
}

/// Branches of one scenario, with one of them current.
#[derive(Clone, Debug)]
pub struct Timeline {
    branches: Vec<Branch>,
    current: usize,
}

impl Timeline {
    /// A timeline with one branch running `scenario` from time zero.
    #[must_use]
    pub fn new(scenario: &Scenario) -> Self {
        let sim = Sim::new(scenario);
        let first = Checkpoint { sim: sim.clone(), mark: HistoryMark::default() };
        Self {
            branches: alloc::vec![Branch {
                id: 0,
                parent: None,
                head: Instant::ZERO,
                sim,
                checkpoints: alloc::vec![first],
                steps: Vec::new(),
            }],
            current: 0,
        }
    }

    /// Every branch.
    #[must_use]
    pub fn branches(&self) -> &[Branch] {
        &self.branches
    }

    /// The current branch's id.
    #[must_use]
    pub fn current_branch(&self) -> usize {
        self.current
    }

    /// The current state.
    #[must_use]
    pub fn sim(&self) -> &Sim {
        &self.branches[self.current].sim
    }

    /// Runs the current branch forward to `t` (or back, by restoring a checkpoint and
    /// replaying). The result equals a fresh run of the branch's scenario to `t`.
    pub fn seek(&mut self, t: Instant) {
        let branch = &mut self.branches[self.current];
        branch.steps.clear();
        seek(branch, t);
    }

    /// Runs until the next trace line (finishing its millisecond), at most to `limit`.
    /// Returns how many lines were added.
    pub fn step(&mut self, limit: Instant) -> usize {
        let branch = &mut self.branches[self.current];
        let before = branch.sim.trace().len();
        let from = branch.sim.now();
        let target = branch.sim.clone_next_trace_time(limit);
        match target {
            Some(at) => advance(branch, at),
            None => advance(branch, limit.max(branch.sim.now())),
        }
        let to = branch.sim.now();
        if to > from {
            branch.steps.push((from, to));
        }
        branch.sim.trace().len() - before
    }

    /// The inverse of [`Self::step`]: back to where the last step started (the exact state
    /// before it). Without a step to undo, back to the latest trace line before now.
    pub fn step_back(&mut self) {
        let branch = &mut self.branches[self.current];
        let now = branch.sim.now();
        let target = match branch.steps.pop() {
            Some((from, to)) if to == now => from,
            _ => {
                branch.steps.clear();
                branch.sim.trace().iter().rev().map(|e| e.at).find(|at| *at < now).unwrap_or(Instant::ZERO)
            }
        };
        seek(branch, target);
    }

    /// Applies `action` now. At the head of the branch it is simply added; in the past, a new
    /// branch is forked here (the original keeps its future) and becomes current.
    pub fn inject(&mut self, action: Action) {
        let branch = &self.branches[self.current];
        let now = branch.sim.now();
        if now < branch.head {
            self.fork();
        }
        let branch = &mut self.branches[self.current];
        branch.steps.clear();
        branch.sim.inject(action.clone());
        // Checkpoints must replay the branch as it now reads, action included.
        for checkpoint in &mut branch.checkpoints {
            checkpoint.sim.add_scripted(now, action.clone());
        }
        branch.head = branch.head.max(branch.sim.now());
    }

    /// Forks the current branch at its current time; the fork becomes current. Returns its id.
    pub fn fork(&mut self) -> usize {
        let parent = &self.branches[self.current];
        let now = parent.sim.now();
        let id = self.branches.len();
        let checkpoints = parent.checkpoints.iter().filter(|c| c.sim.now() <= now).cloned().collect();
        let branch = Branch {
            id,
            parent: Some((self.current, now)),
            head: now,
            sim: parent.sim.clone(),
            checkpoints,
            steps: Vec::new(),
        };
        self.branches.push(branch);
        self.current = id;
        id
    }

    /// Makes `branch` current, at the same time as the branch being left if it reaches it.
    /// Returns false for an unknown branch.
    pub fn select(&mut self, branch: usize) -> bool {
        if branch >= self.branches.len() {
            return false;
        }
        let t = self.sim().now();
        self.current = branch;
        self.seek(t);
        true
    }

    /// A label for a branch: `main` or `fork 2 of 0 at 60.000s`.
    #[must_use]
    pub fn label(&self, branch: usize) -> String {
        match self.branches.get(branch).and_then(|b| b.parent) {
            None => String::from("main"),
            Some((parent, at)) => alloc::format!("fork {branch} of {parent} at {at}"),
        }
    }
}

impl Sim {
    /// When the next trace line will be written, found by running a copy (at most to `limit`).
    fn clone_next_trace_time(&self, limit: Instant) -> Option<Instant> {
        let mut probe = self.clone_parts();
        probe.step(limit);
        probe.history.trace.first().map(|e| e.at)
    }

    /// A copy of everything but the history, which can be large and which checkpoints keep
    /// only as lengths.
    fn clone_parts(&self) -> Self {
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
}

/// Moves the branch to `t`, back (restore and replay) or forward.
fn seek(branch: &mut Branch, t: Instant) {
    if t < branch.sim.now() {
        restore(branch, t);
    }
    advance(branch, t);
}

/// Runs the branch to `t`, saving a checkpoint at every multiple of [`CHECKPOINT_EVERY`].
fn advance(branch: &mut Branch, t: Instant) {
    loop {
        let last = branch.checkpoints.last().map_or(Instant::ZERO, |c| c.sim.now());
        let next = last + CHECKPOINT_EVERY;
        if next > t {
            break;
        }
        if branch.sim.now() < next {
            branch.sim.run_until(next);
        }
        if branch.checkpoints.iter().all(|c| c.sim.now() != next) {
            branch.checkpoints.push(Checkpoint { sim: branch.sim.clone_parts(), mark: branch.sim.history.mark() });
        }
    }
    branch.sim.run_until(t);
    branch.head = branch.head.max(branch.sim.now());
}

/// Puts the branch back at the latest checkpoint at or before `t`.
fn restore(branch: &mut Branch, t: Instant) {
    let Some(index) = branch.checkpoints.iter().rposition(|c| c.sim.now() <= t) else { return };
    let checkpoint = &branch.checkpoints[index];
    let mut history = mem::take(&mut branch.sim.history);
    history.truncate(checkpoint.mark);
    let mut sim = checkpoint.sim.clone_parts();
    sim.history = history;
    branch.sim = sim;
    // Checkpoints after this one stay valid: the branch's scenario did not change.
}
