//! One function per request: typed request in, response command out (PROTOCOL.md §7).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::route_reply::{RouteReply, route_reply};
use super::{NameServer, Output};
use crate::config::{Config, ConfigError, KeyEffect};
use crate::event::{Event, UnregisterReason};
use crate::event_run::EventRun;
use crate::json::{JsonStyle, WriteJson};
use crate::kv::{KvChange, KvPut, ORDER_TOPIC_CONFIG};
use crate::names::{BrokerAddr, BrokerName, ConnId, TopicName};
use crate::properties;
use crate::protocol::body::{BodyError, KvTable};
use crate::protocol::request::{GetRouteInfo, HeaderError, IgnoredField, Parsed, RegisterBroker, Request};
use crate::protocol::{FLAG_ONEWAY, RemotingCommand, RequestCode, ResponseCode};
use crate::route::{RegisterOutcome, Registration, UnregisterItem};

/// Keys whose change can alter every route answer.
const ROUTE_KEYS: [&str; 2] = ["orderMessageEnable", "supportActingMaster"];

impl NameServer {
    /// Answers one request that came on `conn` (`None`: on no connection) (`None`: no reply).
    /// The caller also drops the reply to a oneway request.
    /// `parsed` is `cmd` read ([`Parsed::read`]).
    pub(super) fn process(
        &mut self,
        conn: Option<ConnId>,
        cmd: &RemotingCommand,
        parsed: Parsed,
    ) -> Option<RemotingCommand> {
        // Java (5.2.0+) checks this switch before it reads the header (PROTOCOL.md §7.13).
        if cmd.request_code() == RequestCode::GetTopicsByCluster && !self.config.enable_topic_list {
            return Some(disabled(cmd));
        }
        let Parsed { request, ignored } = parsed;
        let request = match request {
            Ok(request) => request,
            Err(error) => return Some(header_error_reply(cmd, &error)),
        };
        for IgnoredField { field, value } in ignored {
            self.log(Event::HeaderFieldIgnored { request: cmd.request_code(), field, value });
        }
        let ok = || RemotingCommand::response_to(cmd, ResponseCode::Success);
        Some(match request {
            Request::PutKvConfig { namespace, key, value }
                if let Some(refusal) = self.kv_refusal(&namespace, &key, value.as_deref()) =>
            {
                RemotingCommand::response_to(cmd, ResponseCode::InvalidParameter).with_remark(refusal)
            }
            Request::PutKvConfig { namespace, key, value: Some(value) } => {
                if self.kv.put(&namespace, &key, &value) != KvPut::Unchanged {
                    self.kv_changed(KvChange::Put {
                        namespace: namespace.clone(),
                        key: key.clone(),
                        value: value.clone(),
                    });
                    self.log(Event::KvPut { namespace, key, value });
                }
                ok()
            }
            Request::PutKvConfig { namespace, key, value: None } => {
                // Java stores null: the namespace exists, the key reads as absent.
                if self.kv.put_null(&namespace, &key) {
                    self.kv_changed(KvChange::Delete { namespace: namespace.clone(), key: key.clone() });
                    self.log(Event::KvDeleted { namespace, key });
                }
                ok()
            }
            Request::GetKvConfig { namespace, key } => {
                match namespace.as_deref().zip(key.as_deref()).and_then(|(ns, key)| self.kv.get(ns, key)) {
                    Some(value) => ok().with_field("value", value),
                    None => RemotingCommand::response_to(cmd, ResponseCode::QueryNotFound)
                        .with_header_fields()
                        .with_remark(alloc::format!(
                            "No config item, Namespace: {} Key: {}",
                            java_null(namespace.as_deref()),
                            java_null(key.as_deref())
                        )),
                }
            }
            Request::DeleteKvConfig { namespace: Some(namespace), key: Some(key) } => {
                if self.kv.delete(&namespace, &key).is_some() {
                    self.kv_changed(KvChange::Delete { namespace: namespace.clone(), key: key.clone() });
                    self.log(Event::KvDeleted { namespace, key });
                }
                ok()
            }
            // Java looks a null namespace or key up and finds nothing to delete.
            Request::DeleteKvConfig { .. } => ok(),
            Request::RegisterBroker(register) => match conn {
                Some(conn) => self.register_broker(conn, cmd, &register),
                None => no_connection(cmd),
            },
            Request::UnregisterBroker(broker) => match conn {
                Some(conn) => {
                    self.unregister(&[UnregisterItem { broker, reason: UnregisterReason::Request { from: conn } }]);
                    ok()
                }
                None => no_connection(cmd),
            },
            Request::GetRouteInfo(query) => return self.route_info(cmd, &query),
            Request::GetBrokerClusterInfo => ok().with_body(self.routes.cluster_info().to_json(JsonStyle::Plain)),
            Request::WipeWritePerm { broker_name } => {
                let count = broker_name
                    .map_or(0, |name| self.with_log(|routes, log| routes.change_write_perm(&name, false, log)));
                ok().with_field("wipeTopicCount", count.to_string())
            }
            Request::AddWritePerm { broker_name } => {
                let count = broker_name
                    .map_or(0, |name| self.with_log(|routes, log| routes.change_write_perm(&name, true, log)));
                ok().with_field("addTopicCount", count.to_string())
            }
            Request::GetAllTopicList => {
                if !self.config.enable_all_topic_list {
                    return Some(disabled(cmd));
                }
                ok().with_body(self.routes.all_topic_list().to_json(JsonStyle::Plain))
            }
            Request::DeleteTopic { topic, cluster } => {
                if let Some(topic) = topic {
                    self.with_log(|routes, log| routes.delete_topic(&topic, cluster.as_ref(), log));
                }
                ok()
            }
            Request::RegisterTopic { topic, queue_datas } => {
                self.with_log(|routes, log| routes.register_topic(&topic, &queue_datas, log));
                ok()
            }
            Request::GetKvListByNamespace { namespace } => {
                match namespace.as_deref().and_then(|ns| self.kv.namespace(ns)) {
                    Some(table) => ok().with_body(KvTable { table: table.clone() }.to_json(JsonStyle::Plain)),
                    None => RemotingCommand::response_to(cmd, ResponseCode::QueryNotFound)
                        .with_remark(alloc::format!("No config item, Namespace: {}", java_null(namespace.as_deref()))),
                }
            }
            Request::GetTopicsByCluster { cluster } => {
                if !self.config.enable_topic_list {
                    return Some(disabled(cmd));
                }
                let topics = cluster.map(|cluster| self.routes.topics_by_cluster(&cluster)).unwrap_or_default();
                ok().with_body(topics.to_json(JsonStyle::Plain))
            }
            Request::GetSystemTopicList => ok().with_body(self.routes.system_topic_list().to_json(JsonStyle::Plain)),
            Request::GetUnitTopicList(which) => {
                if !self.config.enable_topic_list {
                    return Some(disabled(cmd));
                }
                ok().with_body(self.routes.unit_topic_list(which).to_json(JsonStyle::Plain))
            }
            Request::UpdateNamesrvConfig { entries } => self.update_config(cmd, &entries),
            Request::GetNamesrvConfig => {
                ok().with_body(properties::to_plain_text(&self.config.to_properties()).into_bytes())
            }
            Request::QueryDataVersion { broker: None, .. } => live_key_missing(cmd),
            Request::QueryDataVersion { broker, data_version } => {
                let live = broker.as_ref().and_then(|(c, a)| self.routes.live(c, a)).map(|l| l.data_version);
                let changed = live.is_none() || live != data_version;
                if let Some((cluster, addr)) = &broker {
                    self.routes.refresh(cluster, addr, self.now);
                }
                let reply = ok().with_field("changed", if changed { "true" } else { "false" });
                match live {
                    Some(version) => reply.with_body(version.to_json(JsonStyle::Plain)),
                    None => reply,
                }
            }
            Request::GetBrokerMemberGroup { cluster, broker_name } => {
                // Java's response starts as "not set any response code" and only its code is set.
                ok().with_remark("not set any response code")
                    .with_body(self.routes.broker_member_group(cluster, broker_name).to_json(JsonStyle::Plain))
            }
            Request::BrokerHeartbeat { broker } => {
                let Some((cluster, addr)) = broker else { return Some(live_key_missing(cmd)) };
                self.routes.refresh(&cluster, &addr, self.now);
                ok()
            }
            Request::Unsupported(code) => RemotingCommand::response_to(cmd, ResponseCode::RequestCodeNotSupported)
                .with_remark(alloc::format!(" request type {} not supported", code.raw())),
        })
    }

    fn register_broker(&mut self, conn: ConnId, cmd: &RemotingCommand, register: &RegisterBroker) -> RemotingCommand {
        let body = &register.body;
        let registration = Registration {
            broker: &register.broker,
            ha_server_addr: register.ha_server_addr.as_deref(),
            zone_name: register.zone_name.as_deref(),
            heartbeat_timeout_millis: register.heartbeat_timeout_millis,
            enable_acting_master: register.enable_acting_master,
            wrapper: &body.topic_config_wrapper,
            filter_server_list: &body.filter_server_list,
            conn,
            now: self.now,
            delete_topics_not_listed: self.config.delete_topic_with_broker_registration,
        };
        let outcome = self.with_log(|routes, log| routes.register_broker(&registration, log));
        let mut reply = RemotingCommand::response_to(cmd, ResponseCode::Success).with_header_fields();
        match outcome {
            RegisterOutcome::Rejected => {
                // Java's reply was made with RegisterBrokerResponseHeader: extFields `{}`.
                return RemotingCommand::response_to(cmd, ResponseCode::SystemError)
                    .with_header_fields()
                    .with_remark("register broker failed");
            }
            RegisterOutcome::Conflict => {}
            RegisterOutcome::Registered { ha_server_addr, master_addr, min_broker_id_changed } => {
                if let Some(ha) = ha_server_addr {
                    reply = reply.with_field("haServerAddr", ha);
                }
                if let Some(master) = master_addr {
                    reply = reply.with_field("masterAddr", master.into_string());
                }
                if min_broker_id_changed {
                    self.notify_min_broker_id_changed(
                        &register.broker.broker_name,
                        None,
                        register.ha_server_addr.as_deref(),
                    );
                }
            }
        }
        if self.config.return_order_topic_config_to_broker {
            if let Some(table) = self.kv.namespace(ORDER_TOPIC_CONFIG) {
                reply = reply.with_body(KvTable { table: table.clone() }.to_json(JsonStyle::Plain));
            }
        }
        reply
    }

    /// The reply [`route_reply`] decides, with the route written in the style it chose.
    fn route_info(&self, cmd: &RemotingCommand, query: &GetRouteInfo) -> Option<RemotingCommand> {
        let Ok(reply) = route_reply(self, cmd.is_oneway(), &query.query());
        let head = reply.head(cmd.opaque, query.topic.as_str())?;
        Some(match reply {
            RouteReply::Found { route, style } => head.with_body(route.to_json(style)),
            _ => head,
        })
    }

    fn update_config(
        &mut self,
        cmd: &RemotingCommand,
        entries: &alloc::collections::BTreeMap<String, String>,
    ) -> RemotingCommand {
        if entries.is_empty() {
            return RemotingCommand::response_to(cmd, ResponseCode::Success);
        }
        match self.config.update_remotely(entries, self.remote_config) {
            Ok(()) => {
                if entries.keys().any(|k| ROUTE_KEYS.contains(&k.as_str())) {
                    self.all_routes_changed = true;
                }
                let text = properties::to_escaped_text(&self.config.to_properties());
                self.out.push(Output::PersistConfig(text.into_bytes()));
                let note = effect_note(entries);
                let mut logged = properties::to_plain_text(entries).trim_end().replace('\n', ", ");
                if let Some(note) = &note {
                    logged = alloc::format!("{logged} ({note})");
                }
                self.log(Event::ConfigUpdated { entries: logged });
                let reply = RemotingCommand::response_to(cmd, ResponseCode::Success);
                match note {
                    Some(note) => reply.with_remark(note),
                    None => reply,
                }
            }
            Err(error) => {
                let code = match error {
                    ConfigError::BlackListed(_) => ResponseCode::NoPermission,
                    _ => ResponseCode::InvalidParameter,
                };
                let remark = error.to_string();
                self.log(Event::ConfigUpdateRefused { reason: remark.clone() });
                RemotingCommand::response_to(cmd, code).with_remark(remark)
            }
        }
    }

    /// Unregisters a batch (a request, a closed connection or a scan) and sends the
    /// NOTIFY_MIN_BROKER_ID_CHANGE notices it calls for.
    pub(super) fn unregister(&mut self, items: &[UnregisterItem]) {
        let min_changed = self.with_log(|routes, log| routes.unregister(items, log));
        for name in min_changed {
            let offline = items.iter().find(|i| i.broker.broker_name == name).map(|i| i.broker.broker_addr.clone());
            self.notify_min_broker_id_changed(&name, offline.as_ref(), None);
        }
    }

    /// NOTIFY_MIN_BROKER_ID_CHANGE to the group's members (PROTOCOL.md §10.9), only with
    /// `notifyMinBrokerIdChanged`; after an unregistration (`offline` set) only for
    /// acting-master groups (§10.4), after a registration for every group (§10.3 step 14).
    /// Like Java, each goes to the member's own address (its server side handles 905), live
    /// or not, as an [`Output::NotifyBroker`].
    fn notify_min_broker_id_changed(&mut self, name: &BrokerName, offline: Option<&BrokerAddr>, ha: Option<&str>) {
        if !self.config.notify_min_broker_id_changed {
            return;
        }
        let Some(data) = self.routes.broker_addr_table().get(name) else { return };
        if offline.is_some() && !data.enable_acting_master {
            return;
        }
        let Some((min_id, min_addr)) = data.broker_addrs.iter().next() else { return };
        // Java's chooseBrokerAddrsToNotify.
        let everyone = offline.is_some() || data.broker_addrs.len() == 1;
        let mut notice = RemotingCommand::request(RequestCode::NotifyMinBrokerIdChange)
            .with_field("minBrokerId", min_id.0.to_string())
            .with_field("minBrokerAddr", min_addr.as_str());
        notice.flag = FLAG_ONEWAY;
        if let Some(offline) = offline {
            notice = notice.with_field("offlineBrokerAddr", offline.as_str());
        }
        if let Some(ha) = ha {
            notice = notice.with_field("haBrokerAddr", ha);
        }
        let targets: Vec<BrokerAddr> = data
            .broker_addrs
            .values()
            .filter(|addr| everyone || *addr != min_addr)
            .filter(|addr| self.registered_from_its_host(addr))
            .cloned()
            .collect();
        let min_broker_id = *min_id;
        self.log(Event::MinBrokerIdChanged { min_broker_id, notify: targets.clone(), offline: offline.cloned() });
        for broker_addr in targets {
            self.out.push(Output::NotifyBroker { broker_addr, cmd: notice.clone() });
        }
    }

    /// Whether `addr` names the host its registration came from. A notice connects out to the
    /// member's address, so a peer that registered a member at someone else's address must not
    /// make this server connect there (a deliberate difference from Java, PROTOCOL.md §10.9).
    fn registered_from_its_host(&self, addr: &BrokerAddr) -> bool {
        self.routes.broker_live_table().iter().any(|(key, live)| {
            key.broker_addr == *addr
                && self.conns.get(&live.conn).is_some_and(|remote| same_host(remote, addr.as_str()))
        })
    }

    /// Why a PUT_KV_CONFIG is over the KV budget ([`crate::Limits`]), if it is. A table
    /// already larger (loaded at start, or a lowered limit) takes puts that do not grow it.
    fn kv_refusal(&self, namespace: &str, key: &str, value: Option<&str>) -> Option<String> {
        let (max_value, max_table) = (self.limits.max_kv_value, self.limits.max_kv_bytes);
        if let Some(value) = value.filter(|value| value.len() > max_value) {
            return Some(alloc::format!(
                "the value is {} bytes, more than --max-kv-value-bytes ({max_value}); nothing changed",
                value.len()
            ));
        }
        let (now, after) = (self.kv.bytes(), self.kv.bytes_after_put(namespace, key, value));
        (after > max_table && after > now).then(|| {
            alloc::format!(
                "the KV table would hold {after} bytes (namespace + key + value as kvConfig.json writes them + {} per \
                 entry; it holds {now}), more than --max-kv-bytes ({max_table}); nothing changed",
                crate::kv::ENTRY_OVERHEAD
            )
        })
    }

    fn kv_changed(&mut self, change: KvChange) {
        let (KvChange::Put { namespace, key, .. } | KvChange::Delete { namespace, key }) = &change;
        if namespace == ORDER_TOPIC_CONFIG {
            self.extra_changes.topics.insert(TopicName::from(key.as_str()));
        }
        self.out.push(Output::KvChanged(change));
    }

    fn log(&mut self, event: Event) {
        self.out.push_event(event);
    }

    fn with_log<T>(&mut self, f: impl FnOnce(&mut crate::route::RouteTable, &mut EventRun) -> T) -> T {
        let mut log = EventRun::new();
        let result = f(&mut self.routes, &mut log);
        self.emit(log);
        result
    }
}

/// What a successful UPDATE_NAMESRV_CONFIG says about keys that did not take effect at once
/// (Java answers no remark; its clients ignore a success's remark).
fn effect_note(entries: &alloc::collections::BTreeMap<String, String>) -> Option<String> {
    let with = |effect| entries.keys().filter(|k| Config::key_effect(k) == Some(effect)).cloned().collect::<Vec<_>>();
    let (restart, none) = (with(KeyEffect::AfterRestart), with(KeyEffect::NoEffect));
    let mut parts = Vec::new();
    if !restart.is_empty() {
        parts.push(alloc::format!("takes effect after a restart: {}", restart.join(", ")));
    }
    if !none.is_empty() {
        parts.push(alloc::format!("kept with no effect in this NameServer: {}", none.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A value as Java's string concatenation prints it: `null` when absent.
fn java_null(value: Option<&str>) -> &str {
    value.unwrap_or("null")
}

/// QUERY_DATA_VERSION or BROKER_HEARTBEAT without `clusterName` or `brokerAddr`: Java fails
/// (SYSTEM_ERROR, a NullPointerException's text as the remark); so do we, with our words.
fn live_key_missing(cmd: &RemotingCommand) -> RemotingCommand {
    RemotingCommand::response_to(cmd, ResponseCode::SystemError)
        .with_remark("the custom fields <clusterName> and <brokerAddr> are required")
}

/// A broker's registration lives as long as the connection it came on: a request on none
/// ([`super::Input::Request`]) can neither make nor end one.
fn no_connection(cmd: &RemotingCommand) -> RemotingCommand {
    RemotingCommand::response_to(cmd, ResponseCode::RequestCodeNotSupported)
        .with_remark(alloc::format!(" request type {} not supported without a connection", cmd.code))
}

fn disabled(cmd: &RemotingCommand) -> RemotingCommand {
    RemotingCommand::response_to(cmd, ResponseCode::SystemError).with_remark("disable")
}

fn header_error_reply(cmd: &RemotingCommand, error: &HeaderError) -> RemotingCommand {
    let remark = match (cmd.request_code(), error) {
        (RequestCode::PutKvConfig, HeaderError::Missing("namespace" | "key")) => {
            String::from("namespace or key is null")
        }
        // Java 5.5.0 looks the missing topic up as `null` (its header check is gone).
        (RequestCode::GetRouteInfoByTopic, HeaderError::Missing("topic")) => {
            return RemotingCommand::response_to(cmd, ResponseCode::TopicNotExist).with_remark(alloc::format!(
                "No topic route info in name server for the topic: null\nSee {} for further details.",
                super::route_reply::FAQ_URL
            ));
        }
        // Java 5.5.0's words for a body it cannot read, its stack frame included; our own
        // limits (a zip bomb, too many topics) keep our words.
        (_, HeaderError::RegisterBody(e))
            if !matches!(e, BodyError::TooManyTopics { .. } | BodyError::TooLarge { .. }) =>
        {
            String::from(REGISTER_BODY_REMARK)
        }
        _ => error.to_string(),
    };
    let reply = RemotingCommand::response_to(cmd, ResponseCode::SystemError).with_remark(remark);
    match error {
        // Java made this reply with RegisterBrokerResponseHeader: extFields `{}`. A header or
        // body it cannot read fails in the remoting layer (the exception leaves the handler):
        // no extFields. (As Java 5.5.0 answered in the oracle.)
        HeaderError::CrcMismatch => reply.with_header_fields(),
        _ => reply,
    }
}

/// Whether two `host:port` texts name the same host (an IPv4 address seen through an IPv6
/// socket, `[::ffff:1.2.3.4]`, is that IPv4 address).
fn same_host(a: &str, b: &str) -> bool {
    fn host(text: &str) -> &str {
        let host = text.rsplit_once(':').map_or(text, |(host, _port)| host);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host.strip_prefix("::ffff:").unwrap_or(host)
    }
    host(a).eq_ignore_ascii_case(host(b))
}

/// The remark of Java 5.5.0's REGISTER_BROKER reply to a body it cannot decode.
const REGISTER_BODY_REMARK: &str = "org.apache.rocketmq.remoting.exception.RemotingCommandException: Failed to decode RegisterBrokerBody, org.apache.rocketmq.namesrv.processor.DefaultRequestProcessor.extractRegisterBrokerBodyFromRequest(DefaultRequestProcessor.java:305)";

#[cfg(test)]
mod tests {
    use super::same_host;

    #[test]
    fn hosts_compare_without_ports_and_mapped_prefixes() {
        assert!(same_host("127.0.0.1:53120", "127.0.0.1:10911"));
        assert!(same_host("[::ffff:10.0.0.5]:4000", "10.0.0.5:10911"));
        assert!(same_host("[::1]:4000", "[::1]:10911"));
        assert!(!same_host("127.0.0.1:53120", "6.6.6.6:10911"));
        assert!(!same_host("10.0.0.5:1", "10.0.0.50:10911"));
    }
}
