//! RocketMQ 5's controller (RIP-44) as a sans-IO state machine, on `nameserver-core`'s codec.
//!
//! Brokers in controller mode get their ids here, heartbeat every controller, and are told
//! who their master is; when a master dies, the controller elects a replica from the in-sync
//! set and tells the group (NOTIFY_BROKER_ROLE_CHANGED, 1008). This crate is that controller:
//! the replica tables, every request code a Java controller serves, the heartbeat table and
//! its scans, and the election policy, answering as Java 5's `DLedgerController` does.
//!
//! It is **not** a server and not a consensus engine: it has no networking code, reads no
//! clock, and replicates through a [`ReplicatedLog`] its driver provides ([`MemoryLog`] is
//! one node in memory). It is `#![no_std]` (with `alloc`) and deterministic.
//!
//! # Run loop
//!
//! Like the NameServer's: make **one** call to [`Controller::handle`] with the current time
//! and an [`Input`] (a decoded command, a closed connection, log progress or the timer), drain
//! [`Controller::poll_output`] until `None` (replies, 1008 notifications to brokers'
//! addresses, connections to close, the configuration file to write), then arm one timer at
//! [`Controller::poll_timeout`].
//!
//! # Validate, commit, apply
//!
//! A leader-only request is validated against the tables and the heartbeats
//! ([`handlers`]); its events ([`Event`]) are appended to the log as one entry
//! ([`encode_entry`]); once committed they are applied ([`ReplicasInfo::apply`], which reads
//! only the event and the tables) and only then is the reply sent. One write is in flight at a
//! time, so request N+1 is validated against the state N left. Heartbeats are local and never
//! in the log; time enters only through `handle(now, …)`, so replaying a log gives the same
//! tables on any machine.
//!
//! ```
//! use nameserver_controller::{Controller, ControllerConfig, Input, MemoryLog, Output};
//! use nameserver_core::protocol::RemotingCommand;
//! use nameserver_core::{ConnId, Instant};
//!
//! let mut controller = Controller::new(ControllerConfig::default(), MemoryLog::new("n0"), Instant::ZERO);
//! let next_id = RemotingCommand { code: 1012, ..RemotingCommand::default() }
//!     .with_field("clusterName", "DefaultCluster")
//!     .with_field("brokerName", "broker-a");
//! controller.handle(Instant::from_millis(1), Input::Received { conn: ConnId(1), cmd: next_id });
//! match controller.poll_output() {
//!     Some(Output::Send { cmd, .. }) => assert_eq!(cmd.field("nextBrokerId"), Some("1")),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! # Java's quirks
//!
//! Java 5's controller has behaviour a faithful port must keep and some it need not; they
//! are numbered Q1–Q16 here, and each kept one has its test in `tests/it/quirks.rs`.
//!
//! | # | Java's behaviour | here |
//! |---|---|---|
//! | Q1 | `nextAssignBrokerId` is 1 + the number of ids added; an out-of-order id makes 1012 offer an id 1013 refuses | kept |
//! | Q2 | the first election (master epoch 0) takes the requester with no liveness or membership check | kept |
//! | Q3 | a failed controller-triggered election still commits an election; 3 attempts raise the master epoch by 3 | kept |
//! | Q4 | 1001 checks "same set" before "is master" | kept |
//! | Q5 | 1004 names a dead master, 1003 only a live one | kept |
//! | Q6 | 1003 does not check `registerCheckCode` | kept |
//! | Q7 | 1011: `isCleanLivingBroker` ignores the ids; no epoch moves; the master stays; no cluster makes every id look dead | kept |
//! | Q8 | heartbeat epoch and offsets only rise; address and connection are the first heartbeat's | kept |
//! | Q9 | the comparator's 32-bit offset difference and tie dropping (lowest id wins) | kept for two candidates; with three or more whose offsets differ by 2³¹ or more, Java's answer depends on its tree's shape, ours is the least under a left-to-right scan |
//! | Q10 | missing or garbled header fields are never refused; a later null dereference is SYSTEM_ERROR | kept (code; the remark is Java-like, not Java's) |
//! | Q11 | 1006 with no names answers SYSTEM_ERROR "not set any response code" | kept |
//! | Q12 | 1005 says `isLeader` before the leader serves | kept ([`Leadership::is_leader`] beside `serving`) |
//! | Q13 | requests queued at a step-down time out as SYSTEM_ERROR after 5 s | differs: answered CONTROLLER_NOT_LEADER at once |
//! | Q14 | 1010 lists field names (`isProcessReadEvent`) and `JraftConfig@<hash>` | field names kept; no `jraftConfig` line (no JRaft here), nor NettyServerConfig's keys |
//! | Q15 | a heartbeat expiry seen while not leader is dropped; only the master scan recovers | kept |
//! | Q16 | a new master epoch is always the group's + 1, even below the epoch live replicas report (after a move from another controller), whose HA then refuses the role | differs: above the highest a live replica reports ([`Event::RaiseMasterEpoch`]), and a heartbeat reporting more than its group's epoch elects the master again above it; only an epoch a registered replica reports from its registered address, once per registration ([`followed`]; docs/PROTOCOL.md §20.4) |
//!
//! Also different: 1013 without `appliedBrokerId` is SYSTEM_ERROR for a known group too (Java
//! stores a null id there); a leader-only request without `brokerName` is SYSTEM_ERROR (Java's
//! concurrent maps refuse the null key: so Java 5.5.0 answers in the controller oracle); log
//! entries are our binary encoding, not Java's fastjson per event. The dead-master scan's
//! elections notify the group (1008) as the other successful elections do.

#![no_std]
extern crate alloc;

mod binary;
pub mod body;
mod broker_ids;
pub mod code;
pub mod config;
pub mod controller;
mod dispatch;
pub mod elect;
pub mod event;
pub mod followed;
pub mod handlers;
pub mod liveness;
pub mod log;
mod notify;
pub mod replicas;
pub mod request;
mod snapshot;

pub use binary::DecodeError;
pub use code::{ControllerRequestCode, ControllerResponseCode};
pub use config::ControllerConfig;
pub use controller::{Controller, Input, Output};
pub use event::{Event, decode_entry, encode_entry};
pub use log::{Leadership, LogIndex, MemoryLog, NotLeader, ReplicatedLog, Snapshot};
pub use replicas::ReplicasInfo;
