//! Source allowlists: networks given as CIDR blocks, e.g. `10.0.0.0/8,192.0.2.7,2001:db8::/32`.
//! An IPv4-mapped IPv6 address (a dual-stack listener's view of an IPv4 peer) is that IPv4
//! address, on either side.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::net::IpAddr;
use core::str::FromStr;

/// A network: an address and a prefix length. A bare address is a network of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Whether `ip` lies in this network.
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                masked(u128::from(u32::from(net)) << 96, self.prefix)
                    == masked(u128::from(u32::from(ip)) << 96, self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                masked(u128::from(net), self.prefix) == masked(u128::from(ip), self.prefix)
            }
            _ => false,
        }
    }
}

fn masked(bits: u128, prefix: u8) -> u128 {
    if prefix == 0 { 0 } else { bits & (u128::MAX << (128 - u32::from(prefix.min(128)))) }
}

impl FromStr for Cidr {
    type Err = CidrError;

    fn from_str(text: &str) -> Result<Self, CidrError> {
        let text = text.trim();
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let addr = addr.parse::<IpAddr>().map_err(|_| CidrError::NotAnAddress)?.to_canonical();
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(prefix) => prefix.parse::<u8>().ok().filter(|p| *p <= max).ok_or(CidrError::BadPrefix { max })?,
            None => max,
        };
        Ok(Self { addr, prefix })
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

/// Why a CIDR block does not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CidrError {
    /// The part before `/` is not an IP address.
    NotAnAddress,
    /// The prefix length is not a number from 0 to `max`.
    BadPrefix {
        /// 32 for IPv4, 128 for IPv6.
        max: u8,
    },
}

impl fmt::Display for CidrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnAddress => f.write_str("not an IP address or CIDR block"),
            Self::BadPrefix { max } => write!(f, "the prefix length must be 0 to {max}"),
        }
    }
}

impl core::error::Error for CidrError {}

/// The sources a class accepts: comma-separated networks; empty items are skipped, so an
/// empty list is possible (and admits no one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceList(Vec<Cidr>);

impl SourceList {
    /// Whether any of the networks holds `ip`.
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(ip))
    }

    /// Whether the list names no network.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The networks.
    #[must_use]
    pub fn networks(&self) -> &[Cidr] {
        &self.0
    }
}

impl FromStr for SourceList {
    type Err = SourceListError;

    fn from_str(text: &str) -> Result<Self, SourceListError> {
        text.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| item.parse().map_err(|why| SourceListError { item: String::from(item), why }))
            .collect::<Result<_, _>>()
            .map(Self)
    }
}

impl From<Vec<Cidr>> for SourceList {
    fn from(networks: Vec<Cidr>) -> Self {
        Self(networks)
    }
}

/// Several lists as one (a flag given more than once).
impl<'a> FromIterator<&'a Self> for SourceList {
    fn from_iter<I: IntoIterator<Item = &'a Self>>(lists: I) -> Self {
        Self(lists.into_iter().flat_map(|list| list.0.iter().copied()).collect())
    }
}

/// Which item of a list of networks does not parse, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceListError {
    /// The item, trimmed.
    pub item: String,
    /// Why it is not a network.
    pub why: CidrError,
}

impl fmt::Display for SourceListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let item = &self.item;
        match self.why {
            CidrError::BadPrefix { max } => write!(f, "`{item}`: the prefix length must be 0 to {max}")?,
            _ => write!(f, "`{item}` is not an address or CIDR block")?,
        }
        f.write_str(" (give addresses or CIDR blocks separated by commas, e.g. 10.0.0.0/8,192.0.2.7,2001:db8::/32)")
    }
}

impl core::error::Error for SourceListError {}

impl fmt::Display for SourceList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, net) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{net}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn networks_hold_their_addresses() {
        let list: SourceList = "10.1.0.0/16, 192.0.2.7,2001:db8::/32,".parse().unwrap();
        assert_eq!(list.networks().len(), 3);
        assert!(list.contains(ip("10.1.255.3")));
        assert!(!list.contains(ip("10.2.0.1")));
        assert!(list.contains(ip("192.0.2.7")));
        assert!(!list.contains(ip("192.0.2.8")));
        assert!(list.contains(ip("::ffff:10.1.0.9")), "IPv4-mapped is IPv4");
        assert!(list.contains(ip("2001:db8:ffff::1")));
        assert!(!list.contains(ip("2001:db9::1")));
        assert!("0.0.0.0/0".parse::<Cidr>().unwrap().contains(ip("203.0.113.1")));
        assert!(!"0.0.0.0/0".parse::<Cidr>().unwrap().contains(ip("::1")));
        assert!(!SourceList::default().contains(ip("127.0.0.1")));
        assert_eq!(alloc::format!("{list}"), "10.1.0.0/16,192.0.2.7/32,2001:db8::/32");
    }

    #[test]
    fn bad_blocks_are_refused() {
        assert_eq!("10.0.0.0/33".parse::<Cidr>(), Err(CidrError::BadPrefix { max: 32 }));
        assert_eq!("::/129".parse::<Cidr>(), Err(CidrError::BadPrefix { max: 128 }));
        assert_eq!("host.example".parse::<Cidr>(), Err(CidrError::NotAnAddress));
        let error = "10.0.0.1,nope".parse::<SourceList>().unwrap_err();
        assert_eq!(error.why, CidrError::NotAnAddress);
        let text = alloc::string::ToString::to_string(&error);
        assert!(
            text.starts_with("`nope` is not an address or CIDR block") && text.contains("e.g. 10.0.0.0/8"),
            "{text}"
        );
        assert!("".parse::<SourceList>().unwrap().is_empty());
        let joined: SourceList = ["10.0.0.0/8".parse().unwrap(), "::1".parse().unwrap()].iter().collect();
        assert!(joined.contains("::1".parse().unwrap()) && joined.contains("10.0.0.1".parse().unwrap()));
    }
}
