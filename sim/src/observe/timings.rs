//! The periods and timeouts a scenario's model runs with, each read from where the model
//! keeps it, so the page never types one in.

use core::time::Duration;

use crate::actors::broker::REGISTER_PERIOD;
use crate::actors::producer::POLL_PERIOD;
use crate::scenario::Scenario;
use nameserver_core::route::DEFAULT_BROKER_TIMEOUT;

/// A scenario's periods and timeouts ([`Scenario::timings`]), for the page to show and teach from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timings {
    scan_interval: Duration,
    idle_close: Option<Duration>,
    broker_timeout: Duration,
    register_period: Duration,
    route_poll_period: Duration,
    isolation: Duration,
}

impl Timings {
    /// `scanNotActiveBrokerInterval`: the profile's, or the scenario's `namesrv` line.
    #[must_use]
    pub fn scan_interval(&self) -> Duration {
        self.scan_interval
    }

    /// The idle close of a silent NameServer connection (`None`: off).
    #[must_use]
    pub fn idle_close(&self) -> Option<Duration> {
        self.idle_close
    }

    /// How long a broker's registration stays valid (brokers send no `heartbeatTimeoutMillis`).
    #[must_use]
    pub fn broker_timeout(&self) -> Duration {
        self.broker_timeout
    }

    /// A broker's registration period.
    #[must_use]
    pub fn register_period(&self) -> Duration {
        self.register_period
    }

    /// A client's route poll period (`pollNameServerInterval`).
    #[must_use]
    pub fn route_poll_period(&self) -> Duration {
        self.route_poll_period
    }

    /// How long `sendLatencyFaultEnable` isolates a broker after a failure.
    #[must_use]
    pub fn isolation(&self) -> Duration {
        self.isolation
    }
}

impl Scenario {
    /// The model's periods and timeouts for this scenario.
    #[must_use]
    pub fn timings(&self) -> Timings {
        let config = self.namesrv_config();
        Timings {
            scan_interval: config.scan_not_active_broker_interval,
            idle_close: self.idle_close_after(&config),
            broker_timeout: DEFAULT_BROKER_TIMEOUT,
            register_period: REGISTER_PERIOD,
            route_poll_period: POLL_PERIOD,
            isolation: Duration::from_millis(self.profile.isolation_ms()),
        }
    }
}
