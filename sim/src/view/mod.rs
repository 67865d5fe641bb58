//! What a page shows of a simulation, in one serialisable value per frame.
//!
//! [`ClusterView`] is the whole cluster at the current time (nodes, messages in flight, each
//! NameServer's tables as the core's [`NsTables`](nameserver_core::view::NsTables), routes,
//! clients, consumers, faults, measurements, branches) plus the [`Delta`] of the logs since
//! a [`Cursor`] the caller kept from the previous view. Names stand for nodes, times are
//! milliseconds of virtual time and keys are camelCase, so a binding only converts.
//! [`ClusterView::live`] builds the same view from running daemons' console answers (wall-clock
//! milliseconds), and [`Lacks`] says which NameServer lacks what another one lists.

mod cluster;
mod cursor;
mod flights;
mod history;
mod lacks;
mod live;
mod nodes;
mod routes;

pub use cluster::ClusterView;
pub use cursor::{Cursor, Delta};
pub use flights::{FlightInfo, WireEvent};
pub use history::{
    BranchInfo, FaultInfo, Measurement, RuleOperands, SendAttemptInfo, SendInfo, StaleWindow, TraceEvent,
};
pub use lacks::{BrokerLack, CLOCK_GAP_MS, ClockGap, Lacks, MissingBroker, TopicLack};
pub use live::{DaemonAnswer, DaemonView, LiveRequest, LogLine, ViewStep};
pub use nodes::{ConsumerInfo, ConsumerQueue, IDLE_CLOSE, IsolationInfo, LinkInfo, NodeInfo, TimerInfo};
pub use routes::{BrokerInfo, ClientRoute, QueueInfo, TopicRoute};
