//! Wire enums: request, response and language codes, and the header serialize type.
//!
//! Every enum keeps values it does not know in an `Unknown(raw)` variant, so nothing a peer
//! sends is lost or collapsed into a sentinel.

/// Declares a wire enum over an integer type with an `Unknown(raw)` fallback: `From` both
/// ways, `raw()` and `KNOWN`. Exported so that other crates' wire enums (the controller's
/// codes) keep unknown values by the same rule.
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident: $repr:ty {
            $( $(#[$vmeta:meta])* $variant:ident = $value:expr, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this implementation does not know, kept as received.
            Unknown($repr),
        }

        impl From<$repr> for $name {
            fn from(raw: $repr) -> Self {
                match raw {
                    $( $value => Self::$variant, )*
                    other => Self::Unknown(other),
                }
            }
        }

        impl From<$name> for $repr {
            fn from(code: $name) -> $repr {
                match code {
                    $( $name::$variant => $value, )*
                    $name::Unknown(raw) => raw,
                }
            }
        }

        impl $name {
            /// The raw wire value.
            #[must_use]
            pub fn raw(self) -> $repr {
                <$repr>::from(self)
            }

            /// Every known variant, in declaration order.
            pub const KNOWN: &'static [$name] = &[ $( $name::$variant, )* ];
        }
    };
}

wire_enum! {
    /// Request codes (`org.apache.rocketmq.remoting.protocol.RequestCode`): the ones a NameServer
    /// answers, plus the broker-side ones the simulation's clients send.
    pub enum RequestCode: i32 {
        /// `SEND_MESSAGE` (to brokers).
        SendMessage = 10,
        /// `PULL_MESSAGE` (to brokers).
        PullMessage = 11,
        /// `QUERY_CONSUMER_OFFSET` (consumers to brokers).
        QueryConsumerOffset = 14,
        /// `UPDATE_CONSUMER_OFFSET` (consumers to brokers).
        UpdateConsumerOffset = 15,
        /// `GET_MAX_OFFSET` (consumers to brokers).
        GetMaxOffset = 30,
        /// `HEART_BEAT` (clients to brokers).
        HeartBeat = 34,
        /// `GET_ALL_CONSUMER_OFFSET` (a slave to its master).
        GetAllConsumerOffset = 43,
        /// `PUT_KV_CONFIG`
        PutKvConfig = 100,
        /// `GET_KV_CONFIG`
        GetKvConfig = 101,
        /// `DELETE_KV_CONFIG`
        DeleteKvConfig = 102,
        /// `REGISTER_BROKER`
        RegisterBroker = 103,
        /// `UNREGISTER_BROKER`
        UnregisterBroker = 104,
        /// `GET_ROUTEINFO_BY_TOPIC`
        GetRouteInfoByTopic = 105,
        /// `GET_BROKER_CLUSTER_INFO`
        GetBrokerClusterInfo = 106,
        /// `WIPE_WRITE_PERM_OF_BROKER`
        WipeWritePermOfBroker = 205,
        /// `GET_ALL_TOPIC_LIST_FROM_NAMESERVER`
        GetAllTopicListFromNameserver = 206,
        /// `DELETE_TOPIC_IN_NAMESRV`
        DeleteTopicInNamesrv = 216,
        /// `REGISTER_TOPIC_IN_NAMESRV`
        RegisterTopicInNamesrv = 217,
        /// `GET_KVLIST_BY_NAMESPACE`
        GetKvlistByNamespace = 219,
        /// `GET_TOPICS_BY_CLUSTER`
        GetTopicsByCluster = 224,
        /// `GET_SYSTEM_TOPIC_LIST_FROM_NS`
        GetSystemTopicListFromNs = 304,
        /// `SEND_MESSAGE_V2` (to brokers).
        SendMessageV2 = 310,
        /// `GET_UNIT_TOPIC_LIST`
        GetUnitTopicList = 311,
        /// `GET_HAS_UNIT_SUB_TOPIC_LIST`
        GetHasUnitSubTopicList = 312,
        /// `GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST`
        GetHasUnitSubUnunitTopicList = 313,
        /// `UPDATE_NAMESRV_CONFIG`
        UpdateNamesrvConfig = 318,
        /// `GET_NAMESRV_CONFIG`
        GetNamesrvConfig = 319,
        /// `QUERY_DATA_VERSION`
        QueryDataVersion = 322,
        /// `ADD_WRITE_PERM_OF_BROKER`
        AddWritePermOfBroker = 327,
        /// `GET_BROKER_MEMBER_GROUP`
        GetBrokerMemberGroup = 901,
        /// `BROKER_HEARTBEAT`
        BrokerHeartbeat = 904,
        /// `NOTIFY_MIN_BROKER_ID_CHANGE` (NameServer to broker).
        NotifyMinBrokerIdChange = 905,
    }
}

impl RequestCode {
    /// The Java constant name, e.g. `GET_ROUTEINFO_BY_TOPIC`; `None` for unknown codes.
    #[must_use]
    pub fn java_name(self) -> Option<&'static str> {
        Some(match self {
            Self::SendMessage => "SEND_MESSAGE",
            Self::PullMessage => "PULL_MESSAGE",
            Self::QueryConsumerOffset => "QUERY_CONSUMER_OFFSET",
            Self::UpdateConsumerOffset => "UPDATE_CONSUMER_OFFSET",
            Self::GetMaxOffset => "GET_MAX_OFFSET",
            Self::HeartBeat => "HEART_BEAT",
            Self::GetAllConsumerOffset => "GET_ALL_CONSUMER_OFFSET",
            Self::PutKvConfig => "PUT_KV_CONFIG",
            Self::GetKvConfig => "GET_KV_CONFIG",
            Self::DeleteKvConfig => "DELETE_KV_CONFIG",
            Self::RegisterBroker => "REGISTER_BROKER",
            Self::UnregisterBroker => "UNREGISTER_BROKER",
            Self::GetRouteInfoByTopic => "GET_ROUTEINFO_BY_TOPIC",
            Self::GetBrokerClusterInfo => "GET_BROKER_CLUSTER_INFO",
            Self::WipeWritePermOfBroker => "WIPE_WRITE_PERM_OF_BROKER",
            Self::GetAllTopicListFromNameserver => "GET_ALL_TOPIC_LIST_FROM_NAMESERVER",
            Self::DeleteTopicInNamesrv => "DELETE_TOPIC_IN_NAMESRV",
            Self::RegisterTopicInNamesrv => "REGISTER_TOPIC_IN_NAMESRV",
            Self::GetKvlistByNamespace => "GET_KVLIST_BY_NAMESPACE",
            Self::GetTopicsByCluster => "GET_TOPICS_BY_CLUSTER",
            Self::GetSystemTopicListFromNs => "GET_SYSTEM_TOPIC_LIST_FROM_NS",
            Self::SendMessageV2 => "SEND_MESSAGE_V2",
            Self::GetUnitTopicList => "GET_UNIT_TOPIC_LIST",
            Self::GetHasUnitSubTopicList => "GET_HAS_UNIT_SUB_TOPIC_LIST",
            Self::GetHasUnitSubUnunitTopicList => "GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST",
            Self::UpdateNamesrvConfig => "UPDATE_NAMESRV_CONFIG",
            Self::GetNamesrvConfig => "GET_NAMESRV_CONFIG",
            Self::QueryDataVersion => "QUERY_DATA_VERSION",
            Self::AddWritePermOfBroker => "ADD_WRITE_PERM_OF_BROKER",
            Self::GetBrokerMemberGroup => "GET_BROKER_MEMBER_GROUP",
            Self::BrokerHeartbeat => "BROKER_HEARTBEAT",
            Self::NotifyMinBrokerIdChange => "NOTIFY_MIN_BROKER_ID_CHANGE",
            Self::Unknown(_) => return None,
        })
    }
}

wire_enum! {
    /// Response codes (`RemotingSysResponseCode` and `ResponseCode`).
    pub enum ResponseCode: i32 {
        /// `SUCCESS`
        Success = 0,
        /// `SYSTEM_ERROR`
        SystemError = 1,
        /// `SYSTEM_BUSY`
        SystemBusy = 2,
        /// `REQUEST_CODE_NOT_SUPPORTED`
        RequestCodeNotSupported = 3,
        /// `TRANSACTION_FAILED`
        TransactionFailed = 4,
        /// `FLUSH_DISK_TIMEOUT`
        FlushDiskTimeout = 10,
        /// `SLAVE_NOT_AVAILABLE`
        SlaveNotAvailable = 11,
        /// `FLUSH_SLAVE_TIMEOUT`
        FlushSlaveTimeout = 12,
        /// `MESSAGE_ILLEGAL`
        MessageIllegal = 13,
        /// `SERVICE_NOT_AVAILABLE`
        ServiceNotAvailable = 14,
        /// `VERSION_NOT_SUPPORTED`
        VersionNotSupported = 15,
        /// `NO_PERMISSION`
        NoPermission = 16,
        /// `TOPIC_NOT_EXIST`
        TopicNotExist = 17,
        /// `TOPIC_EXIST_ALREADY`
        TopicExistAlready = 18,
        /// `PULL_NOT_FOUND`
        PullNotFound = 19,
        /// `QUERY_NOT_FOUND`
        QueryNotFound = 22,
        /// `INVALID_PARAMETER`
        InvalidParameter = 29,
        /// `ILLEGAL_OPERATION`
        IllegalOperation = 604,
        /// `GO_AWAY`
        GoAway = 1500,
    }
}

impl ResponseCode {
    /// The Java constant name, e.g. `TOPIC_NOT_EXIST`; `None` for unknown codes.
    #[must_use]
    pub fn java_name(self) -> Option<&'static str> {
        Some(match self {
            Self::Success => "SUCCESS",
            Self::SystemError => "SYSTEM_ERROR",
            Self::SystemBusy => "SYSTEM_BUSY",
            Self::RequestCodeNotSupported => "REQUEST_CODE_NOT_SUPPORTED",
            Self::TransactionFailed => "TRANSACTION_FAILED",
            Self::FlushDiskTimeout => "FLUSH_DISK_TIMEOUT",
            Self::SlaveNotAvailable => "SLAVE_NOT_AVAILABLE",
            Self::FlushSlaveTimeout => "FLUSH_SLAVE_TIMEOUT",
            Self::MessageIllegal => "MESSAGE_ILLEGAL",
            Self::ServiceNotAvailable => "SERVICE_NOT_AVAILABLE",
            Self::VersionNotSupported => "VERSION_NOT_SUPPORTED",
            Self::NoPermission => "NO_PERMISSION",
            Self::TopicNotExist => "TOPIC_NOT_EXIST",
            Self::TopicExistAlready => "TOPIC_EXIST_ALREADY",
            Self::PullNotFound => "PULL_NOT_FOUND",
            Self::QueryNotFound => "QUERY_NOT_FOUND",
            Self::InvalidParameter => "INVALID_PARAMETER",
            Self::IllegalOperation => "ILLEGAL_OPERATION",
            Self::GoAway => "GO_AWAY",
            Self::Unknown(_) => return None,
        })
    }
}

wire_enum! {
    /// The sender's language (`LanguageCode`).
    pub enum LanguageCode: u8 {
        /// `JAVA`
        Java = 0,
        /// `CPP`
        Cpp = 1,
        /// `DOTNET`
        Dotnet = 2,
        /// `PYTHON`
        Python = 3,
        /// `DELPHI`
        Delphi = 4,
        /// `ERLANG`
        Erlang = 5,
        /// `RUBY`
        Ruby = 6,
        /// `OTHER`
        Other = 7,
        /// `HTTP`
        Http = 8,
        /// `GO`
        Go = 9,
        /// `PHP`
        Php = 10,
        /// `OMS`
        Oms = 11,
        /// `RUST`
        Rust = 12,
        /// `NODE_JS`
        NodeJs = 13,
    }
}

const LANGUAGE_NAMES: [(LanguageCode, &str); 14] = [
    (LanguageCode::Java, "JAVA"),
    (LanguageCode::Cpp, "CPP"),
    (LanguageCode::Dotnet, "DOTNET"),
    (LanguageCode::Python, "PYTHON"),
    (LanguageCode::Delphi, "DELPHI"),
    (LanguageCode::Erlang, "ERLANG"),
    (LanguageCode::Ruby, "RUBY"),
    (LanguageCode::Other, "OTHER"),
    (LanguageCode::Http, "HTTP"),
    (LanguageCode::Go, "GO"),
    (LanguageCode::Php, "PHP"),
    (LanguageCode::Oms, "OMS"),
    (LanguageCode::Rust, "RUST"),
    (LanguageCode::NodeJs, "NODE_JS"),
];

impl LanguageCode {
    /// Value used when a JSON header names a language this implementation does not know.
    /// Java parses such a name to `null`; the byte is never written back as a name.
    pub const UNKNOWN_NAME: Self = Self::Unknown(0xFF);

    /// The enum name as it appears in JSON headers (`"JAVA"`), `None` for unknown values.
    #[must_use]
    pub fn name(self) -> Option<&'static str> {
        LANGUAGE_NAMES.iter().find(|(code, _)| *code == self).map(|(_, name)| *name)
    }

    /// Looks a JSON header name up; unknown names give [`LanguageCode::UNKNOWN_NAME`].
    #[must_use]
    pub fn from_name(name: &str) -> Self {
        LANGUAGE_NAMES.iter().find(|(_, n)| *n == name).map_or(Self::UNKNOWN_NAME, |(code, _)| *code)
    }
}

/// The header serialization of a frame (the high byte of the second length word).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SerializeType {
    /// Type byte 0: the header is a JSON object.
    #[default]
    Json,
    /// Type byte 1: the header is RocketMQ's compact binary form.
    Rocketmq,
}

impl SerializeType {
    /// The type byte on the wire.
    #[must_use]
    pub const fn byte(self) -> u8 {
        match self {
            Self::Json => 0,
            Self::Rocketmq => 1,
        }
    }

    /// The name used in the JSON header's `serializeTypeCurrentRPC`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Json => "JSON",
            Self::Rocketmq => "ROCKETMQ",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_codes_are_kept() {
        assert_eq!(RequestCode::from(105), RequestCode::GetRouteInfoByTopic);
        assert_eq!(RequestCode::from(4242), RequestCode::Unknown(4242));
        assert_eq!(RequestCode::Unknown(4242).raw(), 4242);
        assert_eq!(ResponseCode::from(17), ResponseCode::TopicNotExist);
        assert_eq!(LanguageCode::from(200u8), LanguageCode::Unknown(200));
    }

    #[test]
    fn every_known_code_round_trips() {
        for code in RequestCode::KNOWN {
            assert_eq!(RequestCode::from(code.raw()), *code);
            assert!(code.java_name().is_some());
        }
        for code in ResponseCode::KNOWN {
            assert_eq!(ResponseCode::from(code.raw()), *code);
            assert!(code.java_name().is_some());
        }
        for code in LanguageCode::KNOWN {
            assert_eq!(LanguageCode::from(code.raw()), *code);
            assert_eq!(LanguageCode::from_name(code.name().unwrap()), *code);
        }
    }

    #[test]
    fn unknown_language_name_is_not_rejected() {
        assert_eq!(LanguageCode::from_name("COBOL"), LanguageCode::UNKNOWN_NAME);
        assert_eq!(LanguageCode::UNKNOWN_NAME.name(), None);
    }
}
