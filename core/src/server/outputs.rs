//! The queue of outputs a step leaves for the driver.
//!
//! A registration of a million topics logs a million events. They stay in the [`EventRun`]
//! the route table logged them into (a name per topic line) and leave as one
//! [`Output::Events`], instead of being moved one by one: events logged one after another,
//! with nothing else between them, are one run.

use alloc::collections::VecDeque;

use super::Output;
use crate::event::Event;
use crate::event_run::EventRun;

/// Room kept between inputs once the queue is drained.
const KEPT: usize = 4096;

/// Outputs in order; no two [`Output::Events`] follow each other, and none is empty, so two
/// queues of the same outputs are equal (and hash alike) however their events were logged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct OutputQueue(VecDeque<Output>);

impl OutputQueue {
    pub(super) fn push(&mut self, output: Output) {
        match output {
            Output::Events(events) => self.push_events(events),
            output => self.0.push_back(output),
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
        if let Some(Output::Events(run)) = self.0.back_mut() {
            run.append(&mut events);
        } else {
            self.0.push_back(Output::Events(events));
        }
    }

    pub(super) fn pop(&mut self) -> Option<Output> {
        let output = self.0.pop_front();
        if self.0.is_empty() && self.0.capacity() > KEPT {
            self.0 = VecDeque::new();
        }
        output
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
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

    fn events(range: core::ops::Range<u64>) -> Output {
        Output::Events(range.map(event).collect())
    }

    #[test]
    fn events_logged_one_after_another_leave_as_one_run() {
        let close = Output::Close { conn: ConnId(1) };
        let send = Output::Send { conn: ConnId(1), cmd: RemotingCommand::default() };
        let mut runs = OutputQueue::default();
        runs.push(close.clone());
        runs.push_events((0..5).map(event).collect());
        runs.push_event(event(5));
        runs.push(events(6..7));
        runs.push(send.clone());
        runs.push_events([event(7)].into_iter().collect());
        runs.push_events(EventRun::new());
        runs.push(Output::Events(EventRun::new()));
        let mut one_by_one = OutputQueue::default();
        one_by_one.push(close.clone());
        (0..7).for_each(|i| one_by_one.push_event(event(i)));
        one_by_one.push(send.clone());
        one_by_one.push_event(event(7));
        assert_eq!(runs, one_by_one, "equal however the events were logged");
        assert_eq!(crate::hash_fed::fed(&runs), crate::hash_fed::fed(&one_by_one));
        let taken: Vec<Output> = core::iter::from_fn(|| runs.pop()).collect();
        assert_eq!(taken, [close, events(0..7), send, events(7..8)]);
        assert_eq!(runs, OutputQueue::default());
    }
}
