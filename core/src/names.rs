//! Newtypes for every identifier that crosses a function boundary.
//!
//! Names are kept exactly as the peer sent them (RocketMQ compares them byte for byte).
//!
//! A name is shared, not copied: the text lives once behind a reference count, so the tables,
//! the events and the change sets that all mention a topic or a broker group hold pointers to
//! the same bytes (a large cluster names each group in every one of its topics' queue entries).
//! The pointer is one word ([`ArcStr`] keeps the length with the text), not the two of an
//! `Arc<str>`: with every route different, each topic's list holds an entry per group, and
//! those entries are a third smaller. Equality, order and hashing are the text's, exactly as
//! for a `String`.

use alloc::string::String;
use arcstr::ArcStr;
use core::borrow::Borrow;
use core::fmt;

macro_rules! name_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(ArcStr);

        impl $name {
            /// Wraps a name as received.
            #[must_use]
            pub fn new(name: impl Into<String>) -> Self {
                Self(ArcStr::from(name.into()))
            }

            /// The name as text.
            #[must_use]
            pub fn as_str(&self) -> &str {
                self.0.as_str()
            }

            /// The text, copied.
            #[must_use]
            pub fn into_string(self) -> String {
                self.0.to_string()
            }

            /// Whether both share one text (a cheap test before comparing bytes).
            #[must_use]
            pub fn ptr_eq(&self, other: &Self) -> bool {
                ArcStr::ptr_eq(&self.0, &other.0)
            }
        }

        impl Default for $name {
            /// The empty name; every one shares a static empty text, so it costs no
            /// allocation (serde's defaults build one per topic config read).
            fn default() -> Self {
                Self(ArcStr::new())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str(NameVisitor).map(Self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.0.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(ArcStr::from(s))
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(ArcStr::from(s))
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                self.0.as_str()
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                self.0.as_str()
            }
        }
    };
}

/// Reads a name straight into its shared text: one allocation, whether the deserializer lends
/// the text or hands over its own.
struct NameVisitor;

impl serde::de::Visitor<'_> for NameVisitor {
    type Value = ArcStr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(ArcStr::from(v))
    }
}

name_type!(
    /// A topic name, e.g. `TopicTest`.
    TopicName
);
name_type!(
    /// A broker group name, e.g. `broker-a` (master and slaves share it).
    BrokerName
);
name_type!(
    /// A cluster name, e.g. `DefaultCluster`.
    ClusterName
);
name_type!(
    /// A broker's `ip:port` as it registered (its main listener, not the peer address).
    BrokerAddr
);

/// Java's charset for topic names, as `TopicValidator` writes it.
pub const JAVA_NAME_CHARSET: &str = "^[%|a-zA-Z0-9_-]+$";

/// Whether `name` matches [`JAVA_NAME_CHARSET`]. Java checks topics against it; broker and
/// cluster names it takes as sent, and so does this NameServer (the daemon warns once per
/// name outside it: such a name breaks tools and pages that assume it).
#[must_use]
pub fn in_java_charset(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'%' | b'|' | b'_' | b'-'))
}

/// A broker's id within its group: 0 is the master, anything greater a slave.
///
/// Java carries it as a `Long`; negative values are kept rather than rejected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize)]
#[serde(transparent)]
pub struct BrokerId(pub i64);

impl BrokerId {
    /// The master's id.
    pub const MASTER: Self = Self(0);

    /// Whether this is the master's id.
    #[must_use]
    pub const fn is_master(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for BrokerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A connection as named by the driver. The core never sees sockets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnId(pub u64);

impl fmt::Display for ConnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "conn#{}", self.0)
    }
}

/// A request that came on no connection (an operator's console), as named by the driver:
/// [`crate::Input::Request`] carries it in and [`crate::Output::Answer`] back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestId(pub u64);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request#{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javas_charset_is_letters_digits_and_four_signs() {
        for name in ["broker-a", "DefaultCluster", "%RETRY%group", "a|b", "_x_", "0"] {
            assert!(in_java_charset(name), "{name}");
        }
        for name in ["", "<b>x</b>", "c l", "a.b", "é", "a\nb", "a/b"] {
            assert!(!in_java_charset(name), "{name}");
        }
    }

    #[test]
    fn the_empty_name_is_shared_and_equal_to_an_empty_text() {
        let (a, b) = (TopicName::default(), TopicName::default());
        assert!(a.ptr_eq(&b), "no allocation per default name");
        assert_eq!(a, TopicName::from(""));
        assert_eq!(a.as_str(), "");
    }

    #[test]
    fn a_name_is_one_word_and_compares_and_hashes_as_its_text() {
        // Every queue entry holds a group's name: with every route different, 100 groups ×
        // 1,000 topics of them (route::queues checks the entry's size).
        assert_eq!(size_of::<BrokerName>(), size_of::<usize>());
        let names = ["b", "a", "", "a-longer-name", "ab"];
        for x in names {
            assert_eq!(crate::hash_fed::fed(&TopicName::from(x)), crate::hash_fed::fed(&x), "{x}");
            for y in names {
                assert_eq!(TopicName::from(x).cmp(&TopicName::from(y)), x.cmp(y), "{x} {y}");
                assert_eq!(TopicName::from(x) == TopicName::new(y), x == y, "{x} {y}");
            }
        }
    }
}
