//! What the connection and owner tasks publish for the console to read: request metrics
//! (`metrics.rs`), the event bus (`events.rs`), the view of the small tables (`view.rs`,
//! built by the owner's [`OwnerHooks`] in `hooks.rs`) and each connection's last read or
//! write (`activity.rs`), all reached through one [`Observer`] (`observer.rs`).
//!
//! Writers never wait: atomics, a lossy broadcast and `ArcSwap`s. This module sits below the
//! connection tasks, the owner and the console, and imports none of them.

mod activity;
mod events;
mod hooks;
pub(crate) mod metrics;
mod observer;
mod view;

pub(crate) use activity::LastIo;
pub(crate) use events::LiveEvent;
pub(crate) use hooks::OwnerHooks;
pub(crate) use metrics::{Deadline, Refused};
pub(crate) use observer::Observer;
#[cfg(test)]
pub(crate) use view::DataVersion;
pub(crate) use view::{BrokerGroup, BrokerRow, LiveBroker, View, wall_ms};
