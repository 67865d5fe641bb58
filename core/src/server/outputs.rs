//! The queue of outputs a step leaves for the driver.
//!
//! A registration of a million topics logs a million events. They stay in the [`EventRun`]
//! the route table logged them into (a name per topic line), instead of being moved one by
//! one into the queue, and a driver that wants them together takes the run whole
//! ([`Batch::Events`]). Everything else about the queue is as if each event were its own
//! [`Output::Event`]: the same order, equality, hash and debug form.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::fmt;
use core::hash::{Hash, Hasher};

use super::Output;
use crate::event::Event;
use crate::event_run::EventRun;

/// Room kept between inputs once the queue is drained.
const KEPT: usize = 4096;

/// What [`super::NameServer::poll_batch`] hands over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Batch {
    /// One output (never [`Output::Event`]: events come in runs).
    Output(Output),
    /// Events logged one after another, in order, as [`Output::Event`]s would have come.
    Events(EventRun),
}

#[derive(Clone)]
enum Queued {
    Output(Output),
    /// Never empty.
    Events(EventRun),
}

/// Outputs in order; runs of events are kept as they were logged.
#[derive(Clone, Default)]
pub(super) struct OutputQueue {
    queue: VecDeque<Queued>,
    /// Outputs in all, each event counted.
    len: usize,
}

impl OutputQueue {
    pub(super) fn push(&mut self, output: Output) {
        match output {
            Output::Event(event) => self.push_event(event),
            output => {
                self.len += 1;
                self.queue.push_back(Queued::Output(output));
            }
        }
    }

    pub(super) fn push_event(&mut self, event: Event) {
        let mut run = EventRun::new();
        run.push(event);
        self.push_events(run);
    }

    /// Appends `events` as they are (to the last run, if the queue ends with one).
    pub(super) fn push_events(&mut self, mut events: EventRun) {
        if events.is_empty() {
            return;
        }
        self.len += events.len();
        if let Some(Queued::Events(run)) = self.queue.back_mut() {
            run.append(&mut events);
        } else {
            self.queue.push_back(Queued::Events(events));
        }
    }

    pub(super) fn pop(&mut self) -> Option<Output> {
        let output = match self.queue.front_mut()? {
            Queued::Events(run) => {
                let event = run.pop_front().map(Output::Event);
                if run.is_empty() {
                    self.queue.pop_front();
                }
                event
            }
            Queued::Output(_) => match self.queue.pop_front() {
                Some(Queued::Output(output)) => Some(output),
                _ => None,
            },
        };
        self.len -= 1;
        self.shrink_if_drained();
        output
    }

    pub(super) fn pop_batch(&mut self) -> Option<Batch> {
        let batch = match self.queue.pop_front()? {
            Queued::Output(output) => {
                self.len -= 1;
                Batch::Output(output)
            }
            Queued::Events(run) => {
                self.len -= run.len();
                Batch::Events(run)
            }
        };
        self.shrink_if_drained();
        Some(batch)
    }

    fn shrink_if_drained(&mut self) {
        if self.queue.is_empty() && self.queue.capacity() > KEPT {
            self.queue = VecDeque::new();
        }
    }

    /// Every output in order, each event as the [`Output::Event`] it stands for.
    fn each(&self, mut f: impl FnMut(&Output)) {
        for queued in &self.queue {
            match queued {
                Queued::Output(output) => f(output),
                Queued::Events(run) => run.each(|event| f(&Output::Event(event.clone()))),
            }
        }
    }

    fn to_vec(&self) -> Vec<Output> {
        let mut outputs = Vec::with_capacity(self.len);
        self.each(|output| outputs.push(output.clone()));
        outputs
    }
}

impl PartialEq for OutputQueue {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.to_vec() == other.to_vec()
    }
}

impl Eq for OutputQueue {}

/// Shows the outputs as the `VecDeque<Output>` it replaced did.
impl fmt::Debug for OutputQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.to_vec()).finish()
    }
}

/// Hashes as the `VecDeque<Output>` it replaced (length, then each output), so that the
/// simulation's state hashes did not change with the representation.
impl Hash for OutputQueue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len);
        self.each(|output| output.hash(state));
    }
}

#[cfg(test)]
mod tests {
    use alloc::collections::VecDeque;
    use alloc::vec;

    use super::*;
    use crate::hash_fed::fed as hash;
    use crate::names::{BrokerName, ConnId, TopicName};
    use crate::protocol::RemotingCommand;
    use crate::protocol::body::QueueData;

    /// Topic lines, most of them sharing their queues, and other events.
    fn event(i: u64) -> Event {
        let topic = TopicName::new(alloc::format!("T{i}"));
        if i % 3 == 2 {
            return Event::TopicDeleted { topic, cluster: None };
        }
        let queue_data = QueueData {
            broker_name: BrokerName::from("b"),
            read_queue_nums: i32::from(i > 4),
            write_queue_nums: 1,
            perm: 6,
            topic_sys_flag: 0,
        };
        Event::TopicRegistered { topic, queue_data }
    }

    /// The same outputs pushed one way or another, and the plain queue they stand for.
    fn queues() -> (OutputQueue, OutputQueue, VecDeque<Output>) {
        let close = |conn| Output::Close { conn: ConnId(conn) };
        let send = Output::Send { conn: ConnId(1), cmd: RemotingCommand::default() };
        let mut runs = OutputQueue::default();
        runs.push(close(1));
        runs.push_events((0..5).map(event).collect());
        runs.push_event(event(5));
        runs.push(Output::Event(event(6)));
        runs.push(send.clone());
        runs.push_events([event(7)].into_iter().collect());
        runs.push_events(EventRun::new());
        let mut plain = VecDeque::from([close(1)]);
        plain.extend((0..7).map(|i| Output::Event(event(i))));
        plain.extend([send, Output::Event(event(7))]);
        let mut one_by_one = OutputQueue::default();
        plain.iter().cloned().for_each(|output| one_by_one.push(output));
        (runs, one_by_one, plain)
    }

    #[test]
    fn runs_of_events_pop_and_compare_as_the_outputs_they_stand_for() {
        let (mut runs, one_by_one, mut plain) = queues();
        assert_eq!(runs, one_by_one);
        assert_eq!(hash(&runs), hash(&plain));
        assert_eq!(hash(&one_by_one), hash(&plain));
        assert_eq!(alloc::format!("{runs:?}"), alloc::format!("{plain:?}"));
        runs.pop();
        assert_ne!(runs, one_by_one);
        plain.pop_front();
        while let Some(output) = runs.pop() {
            assert_eq!(Some(output), plain.pop_front());
            assert_eq!(hash(&runs), hash(&plain), "after each pop");
        }
        assert!(plain.is_empty());
        assert_eq!(runs, OutputQueue::default());
    }

    #[test]
    fn batches_hand_over_each_run_whole() {
        let (mut runs, _, plain) = queues();
        let mut batches: Vec<Batch> = Vec::new();
        while let Some(batch) = runs.pop_batch() {
            batches.push(batch);
        }
        let events = |range: core::ops::Range<u64>| Batch::Events(range.map(event).collect());
        assert_eq!(batches.len(), 4);
        assert_eq!(batches[1], events(0..7));
        assert_eq!(batches[3], events(7..8));
        let flat: Vec<Output> = batches
            .into_iter()
            .flat_map(|batch| match batch {
                Batch::Output(output) => vec![output],
                Batch::Events(run) => run.into_iter().map(Output::Event).collect(),
            })
            .collect();
        assert_eq!(flat, Vec::from(plain));
        assert_eq!(runs.len, 0);
    }

    #[test]
    fn a_partly_taken_run_is_handed_over_from_where_it_was() {
        let (mut runs, ..) = queues();
        runs.pop();
        runs.pop();
        assert_eq!(runs.pop_batch(), Some(Batch::Events((1..7).map(event).collect())));
    }
}
