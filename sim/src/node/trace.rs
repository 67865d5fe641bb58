//! The trace: every event of a run, with time, node, kind and a log line in RocketMQ's words.

use alloc::string::String;
use core::hash::Hasher;

use nameserver_core::event::EventCategory;
use nameserver_core::time::Instant;

use super::operands::Operands;

/// Index of a node in the simulation (NameServers, brokers, producers, consumers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u16);

/// What kind of thing happened; the page filters and colours by it. A NameServer's line has
/// its event's [`EventCategory`] as kind; the other kinds are the model's clients and brokers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum TraceKind {
    /// A node started, stopped or restarted.
    Lifecycle,
    /// A fault was injected (or healed).
    Fault,
    /// A NameServer saw a new broker instance.
    Registered,
    /// A broker's registration round-trip succeeded (broker side).
    RegisterOk,
    /// A broker's registration failed (refused, timed out).
    RegisterFailed,
    /// A NameServer removed a broker instance (any path).
    Unregistered,
    /// A NameServer's scan found an expired broker.
    Expired,
    /// A NameServer saw a broker's connection close.
    ChannelClosed,
    /// A NameServer closed an idle connection.
    ChannelIdle,
    /// A NameServer's topic table changed.
    TopicChanged,
    /// A NameServer's KV entry was set or deleted.
    Kv,
    /// A NameServer's configuration was updated, or an update refused.
    Config,
    /// A NameServer did not apply a request as sent.
    Request,
    /// A NameServer notified brokers of a group's new lowest id.
    Notified,
    /// A NameServer ran its expiry scan.
    Scan,
    /// A client's cached route changed.
    RouteUpdated,
    /// A NameServer had no route for a client's query.
    RouteNotFound,
    /// A client's route query failed (connection, timeout); it may switch NameServer.
    RouteQueryFailed,
    /// A send succeeded.
    SendOk,
    /// A send attempt failed and was retried in the same call.
    SendRetry,
    /// A send failed for good.
    SendFailed,
    /// A consumer pulled messages.
    Pull,
    /// A consumer rebalanced its queues.
    Rebalance,
    /// A consumer committed offsets, or consumed messages a second time.
    Offset,
    /// Anything else worth a line (heartbeats, topic creation, config).
    Info,
}

impl TraceKind {
    /// Every kind.
    pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;

    /// A stable lowercase name, used by the page and the golden files.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl From<EventCategory> for TraceKind {
    fn from(category: EventCategory) -> Self {
        match category {
            EventCategory::Registered => Self::Registered,
            EventCategory::RegisterFailed => Self::RegisterFailed,
            EventCategory::Unregistered => Self::Unregistered,
            EventCategory::Expired => Self::Expired,
            EventCategory::ChannelClosed => Self::ChannelClosed,
            EventCategory::ChannelIdle => Self::ChannelIdle,
            EventCategory::TopicChanged => Self::TopicChanged,
            EventCategory::Kv => Self::Kv,
            EventCategory::Config => Self::Config,
            EventCategory::Request => Self::Request,
            EventCategory::Notified => Self::Notified,
            EventCategory::Info => Self::Info,
        }
    }
}

/// One line of the trace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TraceEntry {
    /// Position in the trace (0-based).
    pub(crate) seq: u64,
    /// The simulated time it happened at.
    pub(crate) at: Instant,
    /// The node it happened on.
    pub(crate) node: NodeId,
    /// What kind.
    pub(crate) kind: TraceKind,
    /// The log line.
    pub(crate) text: String,
    /// The numbers of the rule that decided it, if one did.
    pub(crate) operands: Option<Operands>,
}

impl TraceEntry {
    /// Position in the trace (0-based).
    #[must_use]
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The simulated time it happened at.
    #[must_use]
    pub fn at(&self) -> Instant {
        self.at
    }

    /// The node it happened on.
    #[must_use]
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// What kind.
    #[must_use]
    pub fn kind(&self) -> TraceKind {
        self.kind
    }

    /// The log line.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The numbers of the rule that decided it, if one did.
    #[must_use]
    pub fn operands(&self) -> Option<Operands> {
        self.operands
    }
}

/// FNV-1a, 64 bit: a tiny, stable hash for state and trace fingerprints.
#[derive(Clone, Debug)]
pub struct Fnv64(pub(crate) u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Self(0xCBF2_9CE4_8422_2325)
    }
}

impl Hasher for Fnv64 {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01B3);
        }
    }

    // Sizes and lengths hash as 64-bit little-endian, so 32-bit (wasm) and 64-bit builds agree.
    fn write_usize(&mut self, i: usize) {
        self.write(&(i as u64).to_le_bytes());
    }

    fn write_isize(&mut self, i: isize) {
        self.write(&(i as i64).to_le_bytes());
    }

    fn write_u16(&mut self, i: u16) {
        self.write(&i.to_le_bytes());
    }

    fn write_u32(&mut self, i: u32) {
        self.write(&i.to_le_bytes());
    }

    fn write_u64(&mut self, i: u64) {
        self.write(&i.to_le_bytes());
    }

    fn write_i32(&mut self, i: i32) {
        self.write(&i.to_le_bytes());
    }

    fn write_i64(&mut self, i: i64) {
        self.write(&i.to_le_bytes());
    }
}

/// Folds one entry into a running trace hash.
pub(crate) fn hash_entry(hasher: &mut Fnv64, entry: &TraceEntry) {
    hasher.write(&entry.at.as_millis().to_le_bytes());
    hasher.write(&entry.node.0.to_le_bytes());
    hasher.write(entry.kind.name().as_bytes());
    hasher.write(entry.text.as_bytes());
    hasher.write(&[0xFF]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NameServer's line is traced under its category's own name.
    #[test]
    fn every_event_category_is_a_trace_kind_of_the_same_name() {
        for category in EventCategory::ALL {
            assert_eq!(TraceKind::from(*category).name(), category.name());
        }
    }
}
