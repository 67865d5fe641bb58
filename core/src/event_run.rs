//! [`EventRun`]: the events one change of the route tables logged, in order, with the
//! per-topic lines kept compact.
//!
//! A registration of a million topics logs a million "new topic registered" lines, nearly
//! all with the same queues. As [`Event`]s they would take 88 bytes each; here each is its
//! topic's name, and the queues are kept once per stretch of topics that share them. Each
//! [`Event`] is made when it is taken, so a driver that logs them after the reply holds the
//! names only.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::event::{Event, Severity, TopicText};
use crate::names::TopicName;
use crate::protocol::body::QueueData;

/// What a topic's line says: [`Event::TopicRegistered`] or [`Event::TopicChanged`], without
/// the topic. As small as one [`QueueData`]: with every route different each topic of a
/// registration has a line of its own, and a change is rare beside a new group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TopicLine {
    /// "new topic registered".
    Registered(QueueData),
    /// "topic changed": before, after.
    Changed(Box<[QueueData; 2]>),
}

impl TopicLine {
    fn text(&self) -> TopicText<'_> {
        match self {
            Self::Registered(queue_data) => TopicText::Registered(queue_data),
            Self::Changed(change) => TopicText::Changed { old: &change[0], new: &change[1] },
        }
    }

    fn event(&self, topic: TopicName) -> Event {
        match self {
            Self::Registered(queue_data) => Event::TopicRegistered { topic, queue_data: queue_data.clone() },
            Self::Changed(change) => {
                let [old, new] = &**change;
                Event::TopicChanged { topic, old: old.clone(), new: new.clone() }
            }
        }
    }
}

/// One event of a run as [`EventRun::each_logged`] gives it.
#[derive(Clone, Copy, Debug)]
pub enum Logged<'a> {
    /// Any event but a topic's line.
    Event(&'a Event),
    /// A topic's line ("new topic registered", "topic changed"): [`LineText::head`], the topic
    /// as an [`Excerpt`](crate::excerpt::Excerpt), then `line` itself — the text of its
    /// [`Event`]. `same`: all but the topic is the previous topic's line.
    Topic {
        /// The topic.
        topic: &'a TopicName,
        /// The rest of the line.
        line: LineText<'a>,
        /// The rest is the previous topic's.
        same: bool,
    },
}

/// A topic's line but for its topic: its words before the name ([`Self::head`]), and after
/// it (`Display`).
#[derive(Clone, Copy, Debug)]
pub struct LineText<'a>(TopicText<'a>);

impl LineText<'_> {
    /// The words before the topic.
    #[must_use]
    pub fn head(self) -> &'static str {
        self.0.head()
    }

    /// The level Java logs the line at.
    #[must_use]
    pub fn severity(self) -> Severity {
        self.0.severity()
    }

    /// The words after the topic (its `Display`), appended to `out`.
    pub fn push_to(self, out: &mut String) {
        // Writing to a `String` cannot fail.
        let _ = self.0.write_tail(out);
    }
}

/// The words after the topic.
impl fmt::Display for LineText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Clone)]
enum Part {
    Event(Event),
    /// Lines of `topics[taken..]`, in order: topic `i` gets the line of the last entry of
    /// `lines` that starts at or before `i` (a part holds at most `u32::MAX` topics).
    Topics {
        topics: Vec<TopicName>,
        lines: Vec<(u32, TopicLine)>,
        taken: usize,
        line: usize,
    },
}

/// Events in the order they were logged.
#[derive(Clone, Default)]
pub struct EventRun {
    parts: VecDeque<Part>,
    len: usize,
}

impl EventRun {
    /// No events.
    #[must_use]
    pub const fn new() -> Self {
        Self { parts: VecDeque::new(), len: 0 }
    }

    /// Logs `event`.
    pub fn push(&mut self, event: Event) {
        match event {
            Event::TopicRegistered { topic, queue_data } => self.push_topic(topic, TopicLine::Registered(queue_data)),
            Event::TopicChanged { topic, old, new } => self.push_topic(topic, TopicLine::Changed(Box::new([old, new]))),
            event => {
                self.len += 1;
                self.parts.push_back(Part::Event(event));
            }
        }
    }

    /// Logs `line` about `topic`, keeping only the name when the line is the previous topic's.
    pub(crate) fn push_topic(&mut self, topic: TopicName, line: TopicLine) {
        self.len += 1;
        if let Some(Part::Topics { topics, lines, .. }) = self.parts.back_mut()
            && let Ok(at) = u32::try_from(topics.len())
        {
            if lines.last().is_none_or(|(_, last)| *last != line) {
                lines.push((at, line));
            }
            topics.push(topic);
            return;
        }
        let lines = alloc::vec![(0, line)];
        self.parts.push_back(Part::Topics { topics: alloc::vec![topic], lines, taken: 0, line: 0 });
    }

    /// Appends `other`'s events after these.
    pub fn append(&mut self, other: &mut Self) {
        self.len += core::mem::take(&mut other.len);
        self.parts.append(&mut other.parts);
    }

    /// How many events are left.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether none are left.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Each event left, in order, made on the way (the run itself stays as it is).
    pub fn each(&self, mut f: impl FnMut(&Event)) {
        for part in &self.parts {
            match part {
                Part::Event(event) => f(event),
                Part::Topics { topics, lines, taken, line } => {
                    let mut line = *line;
                    for (i, topic) in topics.iter().enumerate().skip(*taken) {
                        while lines.get(line + 1).is_some_and(|(from, _)| *from as usize <= i) {
                            line += 1;
                        }
                        f(&lines[line].1.event(topic.clone()));
                    }
                }
            }
        }
    }
}

impl EventRun {
    /// [`Self::each`] for a writer of the lines: a topic's line comes as its topic and the
    /// rest, which many topics share (the events are not made).
    pub fn each_logged(&self, mut f: impl FnMut(Logged<'_>)) {
        for part in &self.parts {
            match part {
                Part::Event(event) => f(Logged::Event(event)),
                Part::Topics { topics, lines, taken, line } => {
                    let mut line = *line;
                    for (i, topic) in topics.iter().enumerate().skip(*taken) {
                        let mut same = i > *taken;
                        while lines.get(line + 1).is_some_and(|(from, _)| *from as usize <= i) {
                            line += 1;
                            same = false;
                        }
                        f(Logged::Topic { topic, line: LineText(lines[line].1.text()), same });
                    }
                }
            }
        }
    }

    /// Takes the first event left.
    pub fn pop_front(&mut self) -> Option<Event> {
        let (event, done) = match self.parts.front_mut()? {
            Part::Event(_) => match self.parts.pop_front() {
                Some(Part::Event(event)) => (event, false),
                _ => return None,
            },
            Part::Topics { topics, lines, taken, line } => {
                let i = *taken;
                while lines.get(*line + 1).is_some_and(|(from, _)| *from as usize <= i) {
                    *line += 1;
                }
                // The name is moved out; the names' room goes with the last of them.
                let topic = core::mem::take(&mut topics[i]);
                *taken += 1;
                (lines[*line].1.event(topic), *taken == topics.len())
            }
        };
        if done {
            self.parts.pop_front();
        }
        self.len -= 1;
        Some(event)
    }
}

/// The events of an [`EventRun`], taken in order.
#[derive(Clone, Debug)]
pub struct IntoIter(EventRun);

impl Iterator for IntoIter {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.0.pop_front()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.0.len, Some(self.0.len))
    }
}

impl ExactSizeIterator for IntoIter {}

impl IntoIterator for EventRun {
    type Item = Event;
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        IntoIter(self)
    }
}

impl FromIterator<Event> for EventRun {
    fn from_iter<I: IntoIterator<Item = Event>>(events: I) -> Self {
        let mut run = Self::new();
        events.into_iter().for_each(|event| run.push(event));
        run
    }
}

/// Equal when the same events are left, however they are kept.
impl PartialEq for EventRun {
    fn eq(&self, other: &Self) -> bool {
        if self.len != other.len {
            return false;
        }
        let mut mine = Vec::with_capacity(self.len);
        self.each(|event| mine.push(event.clone()));
        let mut at = 0;
        let mut equal = true;
        other.each(|event| {
            equal &= mine.get(at) == Some(event);
            at += 1;
        });
        equal
    }
}

impl Eq for EventRun {}

/// Hashes the events left (their count, then each), as equality compares them.
impl core::hash::Hash for EventRun {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.len);
        self.each(|event| event.hash(state));
    }
}

/// Lists the events left.
impl fmt::Debug for EventRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        self.each(|event| {
            list.entry(event);
        });
        list.finish()
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;

    use super::*;
    use crate::names::{BrokerAddr, BrokerName, ClusterName};

    fn queues(broker: &str, n: i32) -> QueueData {
        QueueData {
            broker_name: BrokerName::from(broker),
            read_queue_nums: n,
            write_queue_nums: n,
            perm: 6,
            topic_sys_flag: 0,
        }
    }

    fn registered(topic: &str, n: i32) -> Event {
        Event::TopicRegistered { topic: TopicName::from(topic), queue_data: queues("b", n) }
    }

    fn events() -> Vec<Event> {
        let other = Event::ClusterRemoved { cluster: ClusterName::from("c") };
        let changed = Event::TopicChanged { topic: TopicName::from("t9"), old: queues("b", 1), new: queues("b", 2) };
        let broker =
            Event::RegistrationConflict { broker_addr: BrokerAddr::from("a:1"), holder: BrokerAddr::from("a:2") };
        let mut events = alloc::vec![other.clone(), registered("t1", 4), registered("t2", 4), registered("t3", 8)];
        events.extend([changed.clone(), registered("t4", 4), broker, registered("t5", 4), changed, other]);
        events
    }

    /// Each line as [`EventRun::each_logged`] gives it, and the topics whose line is the one
    /// before's but for the name.
    fn logged(run: &EventRun) -> (Vec<alloc::string::String>, Vec<alloc::string::String>) {
        let (mut lines, mut sames, mut tail) = (Vec::new(), Vec::new(), alloc::string::String::new());
        run.each_logged(|logged| match logged {
            Logged::Event(event) => lines.push(format!("{event} {:?}", event.kind().severity())),
            Logged::Topic { topic, line, same } => {
                if same {
                    sames.push(alloc::string::String::from(topic.as_str()));
                } else {
                    tail = format!("{line}");
                }
                let topic = crate::excerpt::Excerpt::of(topic);
                lines.push(format!("{}{topic}{tail} {:?}", line.head(), line.severity()));
            }
        });
        (lines, sames)
    }

    #[test]
    fn logged_lines_read_as_their_events() {
        let mut run: EventRun = events().into_iter().collect();
        let each = |run: &EventRun| {
            let mut events = Vec::new();
            run.each(|event| events.push(format!("{event} {:?}", event.kind().severity())));
            events
        };
        let (lines, sames) = logged(&run);
        assert_eq!(lines, each(&run));
        assert_eq!(sames, ["t2"]);
        // Taken from the front: t1 is gone, so t2's line is written whole.
        run.pop_front();
        run.pop_front();
        let (lines, sames) = logged(&run);
        assert_eq!(lines, each(&run));
        assert!(sames.is_empty(), "{sames:?}");
    }

    #[test]
    fn gives_back_the_events_in_the_order_they_were_logged() {
        let run: EventRun = events().into_iter().collect();
        assert_eq!(run.len(), 10);
        assert_eq!(format!("{run:?}"), format!("{:?}", events()));
        let mut each = Vec::new();
        run.each(|event| each.push(event.clone()));
        assert_eq!(each, events());
        assert_eq!(run.clone().into_iter().collect::<Vec<_>>(), events());
        let mut taken = run.clone();
        for (left, event) in events().into_iter().enumerate() {
            assert_eq!(taken.len(), 10 - left);
            assert_eq!(taken, events()[left..].iter().cloned().collect(), "equal to what is left");
            assert_eq!(taken.pop_front(), Some(event));
        }
        assert_eq!((taken.pop_front(), taken.len()), (None, 0));
    }

    #[test]
    fn topics_with_the_same_line_keep_only_their_names() {
        let mut run = EventRun::new();
        for i in 0..1000 {
            run.push(registered(&format!("t{i}"), 4));
        }
        let Some(Part::Topics { topics, lines, .. }) = run.parts.front() else { panic!("one run of topics") };
        assert_eq!((run.parts.len(), topics.len(), lines.len()), (1, 1000, 1));
        let mut more: EventRun = [registered("u", 5), registered("v", 4)].into_iter().collect();
        run.append(&mut more);
        assert!(more.is_empty());
        assert_eq!(run.len(), 1002);
        assert_eq!(run.into_iter().nth(1001), Some(registered("v", 4)));
    }

    #[test]
    fn a_topics_own_line_is_one_queue_entry_and_where_it_starts() {
        // With every route different a registration keeps a line per topic: a thousand of
        // them per registration of a hundred brokers' routes (issue 35).
        assert_eq!(size_of::<TopicLine>(), size_of::<QueueData>());
        assert_eq!(size_of::<(u32, TopicLine)>(), 32);
    }
}
