//! The time machine: checkpoints plus replay for fast seeking, and branches for forking from
//! any past moment without losing the original.
//!
//! A branch is fully described by its scenario (the script as loaded plus the actions
//! injected into it), so any state of it can be recomputed; checkpoints only make that fast.
//! A fork keeps the loaded script but, unless asked otherwise, not the actions injected on
//! the parent after the fork point: the new branch is what would have happened had the
//! learner acted differently *then*, not the parent's later interventions replayed.

use alloc::string::String;
use alloc::vec::Vec;
use core::time::Duration;

use crate::Sim;
use crate::engine::history::HistoryMark;

use crate::scenario::remove_last;
use crate::scenario::{Action, Scenario, ScriptEvent};
use nameserver_core::time::Instant;

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
    pub(crate) id: usize,
    /// The branch it was forked from, and when.
    pub(crate) parent: Option<(usize, Instant)>,
    /// The furthest time simulated on this branch.
    pub(crate) head: Instant,
    /// Actions injected on the parent after the fork point that this branch dropped.
    pub(crate) dropped: usize,
    /// Actions injected on the parent after the fork point that this branch kept.
    pub(crate) kept: usize,
    /// The scenario as loaded plus the injected actions this branch keeps (not changed by
    /// running it, unlike the running copy in [`Sim::scenario`]).
    scenario: Scenario,
    /// The actions of [`Self::scenario`]'s script that were injected, in script order.
    injected: Vec<ScriptEvent>,
    sim: Sim,
    checkpoints: Vec<Checkpoint>,
    /// (from, to) of each [`Timeline::step`] since the last seek, so that
    /// [`Timeline::step_back`] returns exactly to where a step started.
    steps: Vec<(Instant, Instant)>,
}

impl Branch {
    /// Position in [`Timeline::branches`].
    #[must_use]
    pub fn id(&self) -> usize {
        self.id
    }

    /// The branch it was forked from, and when.
    #[must_use]
    pub fn parent(&self) -> Option<(usize, Instant)> {
        self.parent
    }

    /// The furthest time simulated on this branch.
    #[must_use]
    pub fn head(&self) -> Instant {
        self.head
    }

    /// Actions injected on the parent after the fork point that this branch dropped.
    #[must_use]
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Actions injected on the parent after the fork point that this branch kept.
    #[must_use]
    pub fn kept(&self) -> usize {
        self.kept
    }
}

impl Branch {
    /// The branch's current state.
    #[must_use]
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The branch's scenario: as loaded, plus the injected actions it keeps. A fresh run of
    /// it equals the branch.
    #[must_use]
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The actions injected into this branch (or inherited from its parent), in time order.
    #[must_use]
    pub fn injected(&self) -> &[ScriptEvent] {
        &self.injected
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
                dropped: 0,
                kept: 0,
                scenario: scenario.clone(),
                injected: Vec::new(),
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
    /// branch is forked here (the original keeps its future) and becomes current; the fork
    /// drops the actions injected on the original after now (see [`Self::fork`]).
    pub fn inject(&mut self, action: Action) {
        let branch = &self.branches[self.current];
        let now = branch.sim.now();
        if now < branch.head {
            self.fork(false);
        }
        let branch = &mut self.branches[self.current];
        branch.steps.clear();
        branch.sim.inject(action.clone());
        // Checkpoints must replay the branch as it now reads, action included.
        for checkpoint in &mut branch.checkpoints {
            checkpoint.sim.add_scripted(now, action.clone());
        }
        branch.scenario.push_action(now, action.clone());
        let index = branch.injected.partition_point(|e| e.at <= now);
        branch.injected.insert(index, ScriptEvent { at: now, action });
        branch.head = branch.head.max(branch.sim.now());
    }

    /// The actions injected on the current branch after its current time: what a fork here
    /// drops unless asked to keep them.
    #[must_use]
    pub fn later_injected(&self) -> Vec<ScriptEvent> {
        let branch = &self.branches[self.current];
        let now = branch.sim.now();
        branch.injected.iter().filter(|e| e.at > now).cloned().collect()
    }

    /// Forks the current branch at its current time; the fork becomes current. Returns its id.
    ///
    /// The fork keeps the scenario's own script and the actions injected up to now. Actions
    /// injected on the current branch after now are dropped (from its script, its event
    /// queue and its checkpoints, so it equals a fresh run of its own scenario), unless
    /// `keep_later_injected`.
    pub fn fork(&mut self, keep_later_injected: bool) -> usize {
        let parent = &self.branches[self.current];
        let now = parent.sim.now();
        let id = self.branches.len();
        let (later, earlier): (Vec<ScriptEvent>, Vec<ScriptEvent>) =
            parent.injected.iter().cloned().partition(|e| e.at > now);
        let mut branch = Branch {
            id,
            parent: Some((self.current, now)),
            head: now,
            dropped: 0,
            kept: 0,
            scenario: parent.scenario.clone(),
            injected: parent.injected.clone(),
            sim: parent.sim.clone(),
            checkpoints: parent.checkpoints.iter().filter(|c| c.sim.now() <= now).cloned().collect(),
            steps: Vec::new(),
        };
        if keep_later_injected {
            branch.kept = later.len();
        } else {
            branch.dropped = later.len();
            branch.injected = earlier;
            // Latest first, so each removes the occurrence that was added last.
            for event in later.iter().rev() {
                remove_last(&mut branch.scenario.script, event);
                branch.sim.unschedule_script(event);
                for checkpoint in &mut branch.checkpoints {
                    checkpoint.sim.unschedule_script(event);
                }
            }
        }
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
            branch.checkpoints.push(Checkpoint { sim: branch.sim.clone_parts(), mark: branch.sim.history().mark() });
        }
    }
    branch.sim.run_until(t);
    branch.head = branch.head.max(branch.sim.now());
}

/// Puts the branch back at the latest checkpoint at or before `t`.
fn restore(branch: &mut Branch, t: Instant) {
    let Some(index) = branch.checkpoints.iter().rposition(|c| c.sim.now() <= t) else { return };
    let checkpoint = &branch.checkpoints[index];
    branch.sim.restore(&checkpoint.sim, checkpoint.mark);
    // Checkpoints after this one stay valid: the branch's scenario did not change.
}
