//! Typed requests: every request the NameServer answers, parsed once at the edge.
//!
//! Header parsing is as lenient as Java's (extFields in any order, unknown keys ignored).
//! Java's reflective header decoder logs a missing or unparsable field and leaves it null; a
//! handler then carries on with that null where it can. Here such a field is `None` (and
//! noted, see [`IgnoredField`]) wherever Java's null cannot corrupt the tables; where Java
//! would throw later (a NullPointerException) or store a null key, the field is required and
//! reported instead, with the same response code (SYSTEM_ERROR) — PROTOCOL.md §3.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use super::body::{BodyError, DataVersion, QueueData, RegisterBrokerBody, TopicRouteData};
use super::{RemotingCommand, RequestCode};
use crate::json::{JsonError, from_fastjson};
use crate::limits::Limits;
use crate::names::{BrokerAddr, BrokerId, BrokerName, ClusterName, TopicName};
use crate::properties::{self, PropertiesError};

/// A request, fully recognised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `PUT_KV_CONFIG` (100).
    PutKvConfig {
        /// Namespace.
        namespace: String,
        /// Key.
        key: String,
        /// Value; Java stores a missing one as null, which reads as no entry.
        value: Option<String>,
    },
    /// `GET_KV_CONFIG` (101).
    GetKvConfig {
        /// Namespace (Java looks a missing one up as null: nothing is found).
        namespace: Option<String>,
        /// Key.
        key: Option<String>,
    },
    /// `DELETE_KV_CONFIG` (102).
    DeleteKvConfig {
        /// Namespace (Java deletes nothing when it or the key is missing).
        namespace: Option<String>,
        /// Key.
        key: Option<String>,
    },
    /// `REGISTER_BROKER` (103).
    RegisterBroker(alloc::boxed::Box<RegisterBroker>),
    /// `UNREGISTER_BROKER` (104).
    UnregisterBroker(BrokerIdentity),
    /// `GET_ROUTEINFO_BY_TOPIC` (105).
    GetRouteInfo(GetRouteInfo),
    /// `GET_BROKER_CLUSTER_INFO` (106).
    GetBrokerClusterInfo,
    /// `WIPE_WRITE_PERM_OF_BROKER` (205).
    WipeWritePerm {
        /// The broker group (a missing one has no topics: the count is 0).
        broker_name: Option<BrokerName>,
    },
    /// `ADD_WRITE_PERM_OF_BROKER` (327).
    AddWritePerm {
        /// The broker group (a missing one has no topics: the count is 0).
        broker_name: Option<BrokerName>,
    },
    /// `GET_ALL_TOPIC_LIST_FROM_NAMESERVER` (206).
    GetAllTopicList,
    /// `DELETE_TOPIC_IN_NAMESRV` (216).
    DeleteTopic {
        /// The topic (a missing one deletes nothing).
        topic: Option<TopicName>,
        /// Only this cluster's queues, when given and non-empty.
        cluster: Option<ClusterName>,
    },
    /// `REGISTER_TOPIC_IN_NAMESRV` (217).
    RegisterTopic {
        /// The topic.
        topic: TopicName,
        /// The queues to register (`queueDatas` of the body).
        queue_datas: Vec<QueueData>,
    },
    /// `GET_KVLIST_BY_NAMESPACE` (219).
    GetKvListByNamespace {
        /// Namespace (a missing one is not found).
        namespace: Option<String>,
    },
    /// `GET_TOPICS_BY_CLUSTER` (224).
    GetTopicsByCluster {
        /// The cluster (a missing one has no topics).
        cluster: Option<ClusterName>,
    },
    /// `GET_SYSTEM_TOPIC_LIST_FROM_NS` (304).
    GetSystemTopicList,
    /// `GET_UNIT_TOPIC_LIST` (311), `GET_HAS_UNIT_SUB_TOPIC_LIST` (312),
    /// `GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST` (313).
    GetUnitTopicList(UnitList),
    /// `UPDATE_NAMESRV_CONFIG` (318).
    UpdateNamesrvConfig {
        /// The properties in the body.
        entries: BTreeMap<String, String>,
    },
    /// `GET_NAMESRV_CONFIG` (319).
    GetNamesrvConfig,
    /// `QUERY_DATA_VERSION` (322). Java reads only the cluster and address; either missing
    /// fails (SYSTEM_ERROR, as Java 5.5.0's NullPointerException).
    QueryDataVersion {
        /// The broker asking, by its live-table key.
        broker: Option<(ClusterName, BrokerAddr)>,
        /// Its current data version (`None` when the body is empty).
        data_version: Option<DataVersion>,
    },
    /// `GET_BROKER_MEMBER_GROUP` (901).
    GetBrokerMemberGroup {
        /// The cluster (echoed; omitted from the reply when missing, as Java's null).
        cluster: Option<ClusterName>,
        /// The broker group (a missing one has no members).
        broker_name: Option<BrokerName>,
    },
    /// `BROKER_HEARTBEAT` (904). Java reads only the cluster and address; either missing
    /// fails (SYSTEM_ERROR, as Java 5.5.0's NullPointerException).
    BrokerHeartbeat {
        /// The broker, by its live-table key.
        broker: Option<(ClusterName, BrokerAddr)>,
    },
    /// Any code the NameServer does not serve.
    Unsupported(RequestCode),
}

/// Which unit topic list (PROTOCOL.md §7.15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnitList {
    /// Topics with the unit flag.
    Unit,
    /// Topics with the unit-sub flag.
    HasUnitSub,
    /// Topics with the unit-sub flag and without the unit flag.
    HasUnitSubUnunit,
}

/// The four fields that name one broker instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BrokerIdentity {
    /// `clusterName`.
    pub cluster: ClusterName,
    /// `brokerAddr`.
    pub broker_addr: BrokerAddr,
    /// `brokerName`.
    pub broker_name: BrokerName,
    /// `brokerId`.
    pub broker_id: BrokerId,
}

/// REGISTER_BROKER, header and decoded body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterBroker {
    /// Who is registering.
    pub broker: BrokerIdentity,
    /// `haServerAddr` (Java carries on without it: the field is then null everywhere).
    pub ha_server_addr: Option<String>,
    /// `heartbeatTimeoutMillis` (5.x, acting-master brokers only).
    pub heartbeat_timeout_millis: Option<u64>,
    /// `enableActingMaster`; `None` marks a pre-5.0 broker.
    pub enable_acting_master: Option<bool>,
    /// `__ZONE_NAME`.
    pub zone_name: Option<String>,
    /// The topic table and filter servers.
    pub body: RegisterBrokerBody,
}

/// GET_ROUTEINFO_BY_TOPIC.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GetRouteInfo {
    /// `topic`.
    pub topic: TopicName,
    /// Whether the reply must be standard JSON (`version ≥ 401` or `acceptStandardJsonOnly`).
    pub standard_json: bool,
    /// The zone to filter by, when `__ZONE_MODE` is true and `__ZONE_NAME` is set.
    pub zone: Option<String>,
}

impl GetRouteInfo {
    /// The query, borrowed.
    #[must_use]
    pub fn query(&self) -> RouteQuery<'_> {
        RouteQuery { topic: self.topic.as_str(), standard_json: self.standard_json, zone: self.zone.as_deref() }
    }
}

/// GET_ROUTEINFO_BY_TOPIC borrowed from the header that carried it: what the route path reads
/// straight from a frame without allocating (`codec::route_request`), and what
/// [`GetRouteInfo`] lends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RouteQuery<'a> {
    /// `topic`.
    pub topic: &'a str,
    /// Whether the reply must be standard JSON (`version ≥ 401` or `acceptStandardJsonOnly`).
    pub standard_json: bool,
    /// The zone to filter by, when `__ZONE_MODE` is true and `__ZONE_NAME` is set.
    pub zone: Option<&'a str>,
}

impl<'a> RouteQuery<'a> {
    /// The query from the sender's `version` and its extFields (`field` gives one by name):
    /// the one place its rules are written.
    ///
    /// # Errors
    /// No `topic`.
    pub fn read(version: i32, field: impl Fn(&str) -> Option<&'a str>) -> Result<Self, HeaderError> {
        let flag = |name| field(name).map(java_boolean);
        let zone = (flag("__ZONE_MODE") == Some(true))
            .then(|| field("__ZONE_NAME").map(str::trim).filter(|z| !z.is_empty()))
            .flatten();
        Ok(Self {
            topic: field("topic").ok_or(HeaderError::Missing("topic"))?,
            standard_json: version >= V4_9_4 || flag("acceptStandardJsonOnly") == Some(true),
            zone,
        })
    }

    /// The owned form, as [`Request::parse`] gives it.
    #[must_use]
    pub fn owned(&self) -> GetRouteInfo {
        GetRouteInfo {
            topic: TopicName::new(self.topic),
            standard_json: self.standard_json,
            zone: self.zone.map(ToString::to_string),
        }
    }
}

/// A route query with what its reply needs of the command that carried it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RouteRequest<'a> {
    /// The request's `opaque`, echoed in the reply.
    pub opaque: i32,
    /// Sent oneway: no reply.
    pub oneway: bool,
    /// The query.
    pub query: RouteQuery<'a>,
}

/// Java `Boolean.parseBoolean` on a header field: only a case-insensitive "true" (here also
/// with spaces around it) is true.
fn java_boolean(value: &str) -> bool {
    value.trim().eq_ignore_ascii_case("true")
}

/// MQVersion `V4_9_4`: clients from this version on get standard-JSON routes.
pub const V4_9_4: i32 = 401;

/// Why a request could not be recognised.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderError {
    /// A required extField is absent (Java: "the custom field `<x>` is null").
    Missing(&'static str),
    /// An extField does not parse as its type.
    Invalid {
        /// The field.
        field: &'static str,
        /// The value received.
        value: String,
    },
    /// `bodyCrc32` does not match the body.
    CrcMismatch,
    /// The REGISTER_BROKER body could not be decoded.
    RegisterBody(BodyError),
    /// Another JSON body could not be decoded.
    Body(JsonError),
    /// The UPDATE_NAMESRV_CONFIG body is not properties text.
    Properties(PropertiesError),
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing(field) => write!(f, "the custom field <{field}> is null"),
            Self::Invalid { field, value } => write!(f, "the custom field <{field}> is invalid: `{value}`"),
            Self::CrcMismatch => f.write_str("crc32 not match"),
            Self::RegisterBody(e) => write!(f, "Failed to decode RegisterBrokerBody: {e}"),
            Self::Body(e) => write!(f, "Failed to decode body: {e}"),
            Self::Properties(e) => write!(f, "string2Properties error: {e}"),
        }
    }
}

impl core::error::Error for HeaderError {}

/// A header field Java's decoder would log and leave null, and that was read as absent here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredField {
    /// The field.
    pub field: &'static str,
    /// What arrived (`None`: nothing).
    pub value: Option<String>,
}

/// A request read by [`Request::parse_noting`], with the fields it read leniently: what a
/// driver reads on the thread the command arrived on and hands over with the command
/// (the server's `Input::Parsed`), so that decoding a registration of thousands of topics does not
/// hold up the thread that owns the tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub(crate) request: Result<Request, HeaderError>,
    pub(crate) ignored: Vec<IgnoredField>,
}

impl Parsed {
    /// Reads `cmd` as a NameServer given `limits` would.
    #[must_use]
    pub fn read(cmd: &RemotingCommand, limits: &Limits) -> Self {
        let mut ignored = Vec::new();
        let request = Request::parse_noting(cmd, limits, &mut ignored);
        Self { request, ignored }
    }

    /// The request, or why it could not be read.
    pub fn request(&self) -> Result<&Request, &HeaderError> {
        self.request.as_ref()
    }
}

/// Hashes nothing: a `Parsed` is a function of the command it travels with, which is hashed.
impl core::hash::Hash for Parsed {
    fn hash<H: core::hash::Hasher>(&self, _: &mut H) {}
}

/// Reads typed fields out of `extFields`, noting those read leniently.
struct Fields<'a, 'n>(&'a RemotingCommand, &'n mut Vec<IgnoredField>);

impl Fields<'_, '_> {
    fn opt(&self, name: &str) -> Option<&str> {
        self.0.field(name)
    }

    fn text(&self, name: &'static str) -> Result<String, HeaderError> {
        self.opt(name).map(ToString::to_string).ok_or(HeaderError::Missing(name))
    }

    fn long(&self, name: &'static str) -> Result<Option<i64>, HeaderError> {
        self.opt(name)
            .map(|v| v.trim().parse::<i64>().map_err(|_| HeaderError::Invalid { field: name, value: v.to_string() }))
            .transpose()
    }

    fn required_long(&self, name: &'static str) -> Result<i64, HeaderError> {
        self.long(name)?.ok_or(HeaderError::Missing(name))
    }

    /// A field Java leaves null when it is missing: noted and `None`.
    fn lenient_text(&mut self, name: &'static str) -> Option<String> {
        let value = self.opt(name).map(ToString::to_string);
        if value.is_none() {
            self.1.push(IgnoredField { field: name, value: None });
        }
        value
    }

    /// A number Java leaves at its default when it does not parse: noted and `None`.
    fn lenient_long(&mut self, name: &'static str) -> Option<i64> {
        match self.long(name) {
            Ok(value) => value,
            Err(_) => {
                self.1.push(IgnoredField { field: name, value: self.opt(name).map(ToString::to_string) });
                None
            }
        }
    }

    /// `clusterName` and `brokerAddr`, the live-table key, when both are there.
    fn live_key(&mut self) -> Option<(ClusterName, BrokerAddr)> {
        let cluster = self.lenient_text("clusterName");
        let addr = self.lenient_text("brokerAddr");
        Some((ClusterName::new(cluster?), BrokerAddr::new(addr?)))
    }

    /// Java `Boolean.parseBoolean`: only a case-insensitive "true" is true.
    fn flag(&self, name: &str) -> Option<bool> {
        self.opt(name).map(java_boolean)
    }

    fn broker(&self) -> Result<BrokerIdentity, HeaderError> {
        Ok(BrokerIdentity {
            cluster: ClusterName::new(self.text("clusterName")?),
            broker_addr: BrokerAddr::new(self.text("brokerAddr")?),
            broker_name: BrokerName::new(self.text("brokerName")?),
            broker_id: BrokerId(self.required_long("brokerId")?),
        })
    }
}

impl Request {
    /// Whether `cmd` is a REGISTER_BROKER whose body is inflated before it is read
    /// (`compressed`): its size on the wire says nothing of what reading it costs.
    #[must_use]
    pub fn inflates(cmd: &RemotingCommand) -> bool {
        cmd.request_code() == RequestCode::RegisterBroker
            && Fields(cmd, &mut Vec::new()).flag(COMPRESSED).unwrap_or(false)
    }

    /// Recognises `cmd` as one of the requests a NameServer serves.
    ///
    /// # Errors
    /// A missing or malformed header field, a CRC mismatch, or an undecodable body.
    pub fn parse(cmd: &RemotingCommand, limits: &Limits) -> Result<Self, HeaderError> {
        Self::parse_noting(cmd, limits, &mut Vec::new())
    }

    /// [`Self::parse`], adding to `ignored` the fields read leniently (missing or unparsable
    /// where Java carries on with null or a default), for the log.
    ///
    /// # Errors
    /// As [`Self::parse`].
    pub fn parse_noting(
        cmd: &RemotingCommand,
        limits: &Limits,
        ignored: &mut Vec<IgnoredField>,
    ) -> Result<Self, HeaderError> {
        let mut f = Fields(cmd, ignored);
        Ok(match cmd.request_code() {
            RequestCode::PutKvConfig => {
                // DefaultRequestProcessor checks namespace and key itself; a null value is stored.
                let (namespace, key) = (f.text("namespace")?, f.text("key")?);
                Self::PutKvConfig { namespace, key, value: f.lenient_text("value") }
            }
            RequestCode::GetKvConfig => {
                Self::GetKvConfig { namespace: f.lenient_text("namespace"), key: f.lenient_text("key") }
            }
            RequestCode::DeleteKvConfig => {
                Self::DeleteKvConfig { namespace: f.lenient_text("namespace"), key: f.lenient_text("key") }
            }
            RequestCode::RegisterBroker => {
                Self::RegisterBroker(alloc::boxed::Box::new(parse_register(cmd, &mut f, limits)?))
            }
            RequestCode::UnregisterBroker => Self::UnregisterBroker(f.broker()?),
            RequestCode::GetRouteInfoByTopic => {
                Self::GetRouteInfo(RouteQuery::read(cmd.version, |name| cmd.field(name))?.owned())
            }
            RequestCode::GetBrokerClusterInfo => Self::GetBrokerClusterInfo,
            RequestCode::WipeWritePermOfBroker => {
                Self::WipeWritePerm { broker_name: f.lenient_text("brokerName").map(BrokerName::new) }
            }
            RequestCode::AddWritePermOfBroker => {
                Self::AddWritePerm { broker_name: f.lenient_text("brokerName").map(BrokerName::new) }
            }
            RequestCode::GetAllTopicListFromNameserver => Self::GetAllTopicList,
            RequestCode::DeleteTopicInNamesrv => Self::DeleteTopic {
                topic: f.lenient_text("topic").map(TopicName::new),
                cluster: f.opt("clusterName").filter(|c| !c.is_empty()).map(ClusterName::from),
            },
            RequestCode::RegisterTopicInNamesrv => {
                let route: TopicRouteData = if cmd.body.is_empty() {
                    TopicRouteData::default()
                } else {
                    from_fastjson(&cmd.body).map_err(HeaderError::Body)?
                };
                Self::RegisterTopic { topic: TopicName::new(f.text("topic")?), queue_datas: route.queue_datas }
            }
            RequestCode::GetKvlistByNamespace => Self::GetKvListByNamespace { namespace: f.lenient_text("namespace") },
            RequestCode::GetTopicsByCluster => {
                Self::GetTopicsByCluster { cluster: f.lenient_text("cluster").map(ClusterName::new) }
            }
            RequestCode::GetSystemTopicListFromNs => Self::GetSystemTopicList,
            RequestCode::GetUnitTopicList => Self::GetUnitTopicList(UnitList::Unit),
            RequestCode::GetHasUnitSubTopicList => Self::GetUnitTopicList(UnitList::HasUnitSub),
            RequestCode::GetHasUnitSubUnunitTopicList => Self::GetUnitTopicList(UnitList::HasUnitSubUnunit),
            RequestCode::UpdateNamesrvConfig => {
                let text = String::from_utf8_lossy(&cmd.body);
                Self::UpdateNamesrvConfig { entries: properties::parse(&text).map_err(HeaderError::Properties)? }
            }
            RequestCode::GetNamesrvConfig => Self::GetNamesrvConfig,
            RequestCode::QueryDataVersion => Self::QueryDataVersion {
                broker: f.live_key(),
                data_version: if cmd.body.is_empty() {
                    None
                } else {
                    Some(from_fastjson(&cmd.body).map_err(HeaderError::Body)?)
                },
            },
            RequestCode::GetBrokerMemberGroup => Self::GetBrokerMemberGroup {
                cluster: f.lenient_text("clusterName").map(ClusterName::new),
                broker_name: f.lenient_text("brokerName").map(BrokerName::new),
            },
            RequestCode::BrokerHeartbeat => Self::BrokerHeartbeat { broker: f.live_key() },
            other => Self::Unsupported(other),
        })
    }
}

/// REGISTER_BROKER's header field: the body is deflated.
const COMPRESSED: &str = "compressed";

fn parse_register(
    cmd: &RemotingCommand,
    f: &mut Fields<'_, '_>,
    limits: &Limits,
) -> Result<RegisterBroker, HeaderError> {
    // The identity stays required: Java would store a null cluster or address as a key, or
    // fail on a null id only after part of the registration.
    let broker = f.broker()?;
    let ha_server_addr = f.lenient_text("haServerAddr");
    // Java's field default is 0, which skips the check.
    let crc = f.lenient_long("bodyCrc32").unwrap_or(0);
    if crc != 0 {
        let actual = i64::from(crc32fast::hash(&cmd.body) & 0x7FFF_FFFF);
        if actual != crc {
            return Err(HeaderError::CrcMismatch);
        }
    }
    // Java uses the value as it is: zero or less expires the broker at the next scan.
    let heartbeat_timeout_millis = f.lenient_long("heartbeatTimeoutMillis").map(|ms| u64::try_from(ms).unwrap_or(0));
    let compressed = f.flag(COMPRESSED).unwrap_or(false);
    let body = RegisterBrokerBody::decode_capped(
        &cmd.body,
        compressed,
        cmd.version,
        limits.max_decompressed,
        limits.max_register_topics,
    )
    .map_err(HeaderError::RegisterBody)?;
    Ok(RegisterBroker {
        broker,
        ha_server_addr,
        heartbeat_timeout_millis,
        enable_acting_master: f.flag("enableActingMaster"),
        zone_name: f.opt("__ZONE_NAME").map(ToString::to_string),
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route_request(fields: &[(&str, &str)], version: i32) -> RemotingCommand {
        let mut cmd = RemotingCommand::request(RequestCode::GetRouteInfoByTopic);
        cmd.version = version;
        for (k, v) in fields {
            cmd = cmd.with_field(k, *v);
        }
        cmd
    }

    #[test]
    fn route_style_follows_version_and_flag() {
        let parse = |cmd: &RemotingCommand| match Request::parse(cmd, &Limits::DEFAULT).unwrap() {
            Request::GetRouteInfo(r) => r,
            other => panic!("{other:?}"),
        };
        assert!(parse(&route_request(&[("topic", "T")], 401)).standard_json);
        assert!(!parse(&route_request(&[("topic", "T")], 400)).standard_json);
        assert!(parse(&route_request(&[("topic", "T"), ("acceptStandardJsonOnly", "TRUE")], 121)).standard_json);
        let zoned = parse(&route_request(&[("topic", "T"), ("__ZONE_MODE", "true"), ("__ZONE_NAME", " z1 ")], 479));
        assert_eq!(zoned.zone.as_deref(), Some("z1"));
        assert_eq!(parse(&route_request(&[("topic", "T"), ("__ZONE_NAME", "z1")], 479)).zone, None);
    }

    #[test]
    fn missing_and_invalid_fields_are_named() {
        assert_eq!(Request::parse(&route_request(&[], 479), &Limits::DEFAULT), Err(HeaderError::Missing("topic")));
        let cmd = RemotingCommand::request(RequestCode::UnregisterBroker)
            .with_field("clusterName", "c")
            .with_field("brokerAddr", "a")
            .with_field("brokerName", "b")
            .with_field("brokerId", "zero");
        assert_eq!(
            Request::parse(&cmd, &Limits::DEFAULT),
            Err(HeaderError::Invalid { field: "brokerId", value: String::from("zero") })
        );
        assert_eq!(HeaderError::Missing("topic").to_string(), "the custom field <topic> is null");
    }

    #[test]
    fn unknown_codes_are_unsupported_not_errors() {
        let cmd = RemotingCommand { code: 4242, ..RemotingCommand::default() };
        assert_eq!(Request::parse(&cmd, &Limits::DEFAULT), Ok(Request::Unsupported(RequestCode::Unknown(4242))));
    }

    #[test]
    fn crc_is_checked_with_the_java_mask() {
        // PROTOCOL.md §9.3: CRC of ASCII `hello` masked = 907060870.
        assert_eq!(crc32fast::hash(b"hello") & 0x7FFF_FFFF, 907_060_870);
        let base = RemotingCommand::request(RequestCode::RegisterBroker)
            .with_field("clusterName", "c")
            .with_field("brokerAddr", "a:1")
            .with_field("brokerName", "b")
            .with_field("brokerId", "0")
            .with_field("haServerAddr", "a:2")
            .with_body(b"{}".to_vec());
        let good = crc32fast::hash(b"{}") & 0x7FFF_FFFF;
        assert!(Request::parse(&base.clone().with_field("bodyCrc32", good.to_string()), &Limits::DEFAULT).is_ok());
        assert_eq!(
            Request::parse(&base.clone().with_field("bodyCrc32", "12345"), &Limits::DEFAULT),
            Err(HeaderError::CrcMismatch)
        );
        assert!(Request::parse(&base.with_field("bodyCrc32", "0"), &Limits::DEFAULT).is_ok());
    }
}
