//! What the connection and owner tasks publish for the console and the log files to read:
//! request metrics (`metrics.rs`), the codes read and written for `namesrv_traffic.log`
//! (`traffic.rs`), the event bus (`events.rs`), the view of the small tables (`view.rs`: the
//! core's `NsTables` and what only the daemon knows, built by the owner's [`OwnerHooks`] in
//! `hooks.rs`) and each connection's last read or write (`activity.rs`), all reached through
//! one [`Observer`] (`observer.rs`).
//!
//! Writers never wait: atomics, a lossy broadcast and `ArcSwap`s. This module sits below the
//! connection tasks, the owner and the console, and imports none of them.

mod activity;
mod controller;
mod events;
mod hooks;
pub(crate) mod metrics;
mod observer;
mod traffic;
mod view;

pub(crate) use activity::LastIo;
pub(crate) use controller::{BrokerGroupView, ControllerView, Elections, ReplicaView};
pub(crate) use events::LiveEvent;
pub(crate) use hooks::{OwnerHooks, RouteSample};
pub(crate) use metrics::{Deadline, Refused};
pub(crate) use observer::Observer;
pub(crate) use traffic::Traffic;
pub(crate) use view::{View, wall_ms};
