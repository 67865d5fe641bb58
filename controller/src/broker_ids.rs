//! Validation of the requests that hand out and take back controller ids: 1012, 1013 and
//! the admin's 1011.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::ToString;

use nameserver_core::protocol::ResponseCode;
use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName};

use crate::code::ControllerResponseCode as Code;
use crate::event::Event;
use crate::handlers::{Context, Outcome, cluster_text, header, name_text, show};

impl Context<'_> {
    /// CONTROLLER_GET_NEXT_BROKER_ID (1012): 1 for a new group; never fails.
    #[must_use]
    pub fn next_broker_id(&self, cluster: Option<&ClusterName>, broker_name: Option<&BrokerName>) -> Outcome {
        let Some(name) = broker_name else { return Outcome::null_pointer("ReplicasInfoManager.getNextBrokerId") };
        let next = self.tables.replicas.get(name).map_or(1, |group| group.next_id);
        Outcome::new(
            ResponseCode::Success,
            header([
                ("clusterName", cluster_text(cluster)),
                ("brokerName", name_text(broker_name)),
                ("nextBrokerId", Some(next.to_string())),
            ]),
        )
    }

    /// CONTROLLER_APPLY_BROKER_ID (1013): any unused id is granted, not only the next one
    /// (quirk Q1), and a retry with the same check code is granted again.
    #[must_use]
    pub fn apply_broker_id(
        &self,
        cluster: Option<&ClusterName>,
        broker_name: Option<&BrokerName>,
        applied: Option<BrokerId>,
        check_code: Option<&str>,
    ) -> Outcome {
        let echo = header([("clusterName", cluster_text(cluster)), ("brokerName", name_text(broker_name))]);
        let (Some(name), Some(code), Some(id)) = (broker_name, check_code, applied) else {
            return Outcome::null_pointer("ReplicasInfoManager.applyBrokerId");
        };
        let granted = if self.tables.contains(name) {
            let group = &self.tables.replicas[name];
            match group.brokers.get(&id) {
                None => true,
                Some(replica) => replica.check_code == code,
            }
        } else {
            if id != BrokerId(1) {
                return Outcome::new(Code::BrokerIdInvalid, echo).remark(format!(
                    "Broker-set: {name} hasn't been registered in controller, but broker try to apply brokerId: {id}"
                ));
            }
            true
        };
        if !granted {
            return Outcome::new(Code::BrokerIdInvalid, echo)
                .remark(format!("Fail to apply brokerId: {id} in broker-set: {name}"));
        }
        let address = code.split(';').next().unwrap_or_default();
        Outcome::new(ResponseCode::Success, echo).events(alloc::vec![Event::ApplyBrokerId {
            cluster: cluster.cloned(),
            broker_name: name.clone(),
            broker_address: BrokerAddr::new(address),
            new_broker_id: id,
            register_check_code: code.to_string(),
        }])
    }

    /// CLEAN_BROKER_DATA (1011), with quirk Q7: `isCleanLivingBroker` wipes the whole group
    /// whatever ids were named, a blank id list is refused only while a master is recorded,
    /// and liveness is looked up under the request's cluster (none: every id looks dead).
    #[must_use]
    pub fn clean_broker_data(
        &self,
        cluster: Option<&ClusterName>,
        broker_name: Option<&BrokerName>,
        ids_text: Option<&str>,
        clean_living: bool,
    ) -> Outcome {
        let refused =
            |remark: alloc::string::String| Outcome::new(Code::InvalidCleanBrokerMetadata, None).remark(remark);
        let Some(name) = broker_name else { return Outcome::null_pointer("ReplicasInfoManager.cleanBrokerData") };
        let blank = ids_text.is_none_or(|t| t.trim().is_empty());
        let mut ids: Option<BTreeSet<BrokerId>> = None;
        if !clean_living {
            if blank && self.tables.sync.get(name).is_some_and(|s| s.master.is_some()) {
                return refused(format!("Broker {name} is still alive, clean up failure"));
            }
            if let Some(text) = ids_text.filter(|_| !blank) {
                let mut parsed = BTreeSet::new();
                for part in text.split(';') {
                    match part.parse::<i64>() {
                        Ok(id) => {
                            parsed.insert(BrokerId(id));
                        }
                        Err(e) => {
                            return refused(format!(
                                "Please set the option <brokerControllerIdsToClean> according to the format, exception: {e}"
                            ));
                        }
                    }
                }
                if let Some(alive) = parsed.iter().find(|id| self.alive(cluster, name, **id)) {
                    return refused(format!(
                        "Broker [{name},  {}] is still alive, clean up failure",
                        show(Some(*alive))
                    ));
                }
                ids = Some(parsed);
            }
        }
        if !self.tables.contains(name) {
            return refused(format!("Broker {name} is not existed,clean broker data failure."));
        }
        Outcome::new(ResponseCode::Success, None)
            .events(alloc::vec![Event::CleanBrokerData { broker_name: name.clone(), ids }])
    }
}
