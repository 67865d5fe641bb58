//! A controller on a one-node log, driven as a daemon would drive it.

use nameserver_controller::{Controller, ControllerConfig, Input, MemoryLog, Output};
use nameserver_core::protocol::{FLAG_ONEWAY, RemotingCommand};
use nameserver_core::{BrokerName, ConnId, Instant};

pub(crate) const CLUSTER: &str = "DefaultCluster";

/// A controller and its clock.
pub(crate) struct Rig {
    pub(crate) controller: Controller<MemoryLog>,
    pub(crate) now: u64,
    /// Outputs other than the replies `call` returned, in order.
    pub(crate) others: Vec<Output>,
}

pub(crate) fn request(code: i32, fields: &[(&str, &str)]) -> RemotingCommand {
    let mut cmd = RemotingCommand { code, opaque: 7, ..RemotingCommand::default() };
    for (k, v) in fields {
        cmd = cmd.with_field(k, *v);
    }
    cmd
}

pub(crate) fn name(n: &str) -> BrokerName {
    BrokerName::new(n)
}

impl Rig {
    pub(crate) fn new() -> Self {
        Self::with(ControllerConfig::default())
    }

    pub(crate) fn with(config: ControllerConfig) -> Self {
        Self { controller: Controller::new(config, MemoryLog::new("n0"), Instant::ZERO), now: 0, others: Vec::new() }
    }

    pub(crate) fn handle(&mut self, input: Input) -> Vec<Output> {
        self.controller.handle(Instant::from_millis(self.now), input);
        std::iter::from_fn(|| self.controller.poll_output()).collect()
    }

    /// Sends `cmd` on `conn` and returns the one reply to it.
    pub(crate) fn call(&mut self, conn: u64, cmd: RemotingCommand) -> RemotingCommand {
        let mut reply = None;
        for output in self.handle(Input::Received { conn: ConnId(conn), cmd }) {
            match output {
                Output::Send { conn: c, cmd } if c == ConnId(conn) && reply.is_none() => reply = Some(cmd),
                other => self.others.push(other),
            }
        }
        reply.expect("a reply")
    }

    pub(crate) fn call_code(&mut self, conn: u64, code: i32, fields: &[(&str, &str)]) -> RemotingCommand {
        self.call(conn, request(code, fields))
    }

    /// Advances the clock to `ms` and delivers the timer.
    pub(crate) fn at(&mut self, ms: u64) -> Vec<Output> {
        self.now = ms;
        self.handle(Input::Timeout)
    }

    /// A oneway 904 from `conn` for `broker`'s replica `id`, with an epoch and offset.
    pub(crate) fn heartbeat(&mut self, conn: u64, broker: &str, id: i64, epoch: i32, max_offset: i64) {
        let (id, epoch, max_offset) = (id.to_string(), epoch.to_string(), max_offset.to_string());
        let mut cmd = request(
            904,
            &[
                ("clusterName", CLUSTER),
                ("brokerName", broker),
                ("brokerAddr", &format!("10.0.0.{conn}:30911")),
                ("brokerId", &id),
                ("epoch", &epoch),
                ("maxOffset", &max_offset),
            ],
        );
        cmd.flag = FLAG_ONEWAY;
        let outputs = self.handle(Input::Received { conn: ConnId(conn), cmd });
        assert!(
            !outputs.iter().any(|o| matches!(o, Output::Send { .. })),
            "a oneway heartbeat gets no reply: {outputs:?}"
        );
        // What the scans due by now did.
        self.others.extend(outputs);
    }

    /// A broker's start: 1012, 1013 with the id offered, 1003; returns the id.
    pub(crate) fn join(&mut self, conn: u64, broker: &str) -> i64 {
        let next = self.call_code(conn, 1012, &[("clusterName", CLUSTER), ("brokerName", broker)]);
        let id = next.field("nextBrokerId").unwrap().to_string();
        let addr = format!("10.0.0.{conn}:30911");
        let code = format!("{addr};1733090000000");
        let applied = self.call_code(
            conn,
            1013,
            &[("clusterName", CLUSTER), ("brokerName", broker), ("appliedBrokerId", &id), ("registerCheckCode", &code)],
        );
        assert_eq!(applied.code, 0, "{applied:?}");
        let registered = self.call_code(
            conn,
            1003,
            &[("clusterName", CLUSTER), ("brokerName", broker), ("brokerId", &id), ("brokerAddress", &addr)],
        );
        assert_eq!(registered.code, 0, "{registered:?}");
        id.parse().unwrap()
    }

    /// A broker's 1002 for itself.
    pub(crate) fn elect(&mut self, conn: u64, broker: &str, id: i64) -> RemotingCommand {
        let id = id.to_string();
        self.call_code(conn, 1002, &[("clusterName", CLUSTER), ("brokerName", broker), ("brokerId", &id)])
    }

    /// The group's (master, master epoch, set epoch, set).
    pub(crate) fn group(&self, broker: &str) -> (Option<i64>, i32, i32, Vec<i64>) {
        let sync = &self.controller.tables().sync[&name(broker)];
        (sync.master.map(|m| m.0), sync.master_epoch, sync.set_epoch, sync.set.iter().map(|id| id.0).collect())
    }

    /// The 1008s sent so far, as (address, masterBrokerId, masterEpoch), and forgets them.
    pub(crate) fn notified(&mut self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        self.others.retain(|o| match o {
            Output::Notify { addr, cmd } => {
                assert_eq!(cmd.code, 1008);
                assert!(cmd.is_oneway());
                out.push((
                    addr.as_str().to_string(),
                    cmd.field("masterBrokerId").unwrap().to_string(),
                    cmd.field("masterEpoch").unwrap().to_string(),
                ));
                false
            }
            _ => true,
        });
        out
    }
}

/// Two replicas of `broker-a` registered and heartbeating, replica 1 elected master with the
/// set {1, 2}: master epoch 1, set epoch 2.
pub(crate) fn two_replicas(config: ControllerConfig) -> Rig {
    let mut rig = Rig::with(config);
    assert_eq!(rig.join(1, "broker-a"), 1);
    assert_eq!(rig.join(2, "broker-a"), 2);
    rig.heartbeat(1, "broker-a", 1, 0, 100);
    rig.heartbeat(2, "broker-a", 2, 0, 100);
    assert_eq!(rig.elect(1, "broker-a", 1).code, 0);
    let grown = rig.call(
        1,
        request(1001, &[("brokerName", "broker-a"), ("masterBrokerId", "1"), ("masterEpoch", "1")])
            .with_body(br#"{"syncStateSet":[1,2],"syncStateSetEpoch":1}"#.to_vec()),
    );
    assert_eq!(grown.code, 0, "{grown:?}");
    rig.notified();
    assert_eq!(rig.group("broker-a"), (Some(1), 1, 2, vec![1, 2]));
    rig
}
