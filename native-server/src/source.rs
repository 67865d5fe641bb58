//! Who a connection comes from, for the fairness rules: networks given as CIDR blocks
//! (`--proxy-protocol-from`, `--per-source-exempt`), the key a source is counted under, a
//! per-source connection count, and log lines limited to one a minute per source.
//!
//! A source is the TCP peer, or the address a listed proxy's PROXY header carries. IPv6
//! addresses are keyed by their /64 (one host usually holds a whole /64), and an IPv4-mapped
//! IPv6 address (a dual-stack listener's view of an IPv4 peer) counts as that IPv4 address.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A network: an address and a prefix length, e.g. `10.0.0.0/8` or `2001:db8::/32`. A bare
/// address is a network of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Whether `ip` (IPv4-mapped IPv6 read as IPv4) lies in this network.
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, canonical(ip)) {
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
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let addr: IpAddr = addr.parse().map_err(|_| format!("`{text}` is not an address or CIDR block"))?;
        let addr = canonical(addr);
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(prefix) => prefix
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("`{text}`: the prefix length must be 0 to {max}"))?,
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

/// Default for `--max-connections-per-source`: a tenth of the connection limit.
#[must_use]
pub fn default_per_source(max_connections: usize) -> usize {
    (max_connections / 10).max(1)
}

/// The rules on sources every RocketMQ-protocol listener applies, and their state.
#[derive(Debug, Default)]
pub(crate) struct Fairness {
    /// `--proxy-protocol-from`.
    pub(crate) proxies: Vec<Cidr>,
    /// `--per-source-exempt`.
    pub(crate) exempt: Vec<Cidr>,
    /// `--max-connections-per-source`.
    pub(crate) per_source: usize,
    /// How long after the accept a PROXY header and a TLS handshake must be done, and how
    /// long a frame gets besides a second per 64 KiB it announces.
    pub(crate) deadline: Duration,
    pub(crate) counts: Arc<SourceCounts>,
    pub(crate) warned: RateLimited,
}

impl Fairness {
    /// Counts a connection from `ip` (the TCP peer, or the client a listed proxy names),
    /// unless it is exempt: `Ok(None)`. `Err` when the source already holds its cap.
    pub(crate) fn admit(&self, ip: IpAddr) -> Result<Option<SourceSlot>, SourceKey> {
        if listed(&self.exempt, ip) {
            return Ok(None);
        }
        let key = SourceKey::of(ip);
        self.counts.take(key, self.per_source).map(Some).ok_or(key)
    }
}

/// Whether any of `networks` holds `ip`.
#[must_use]
pub fn listed(networks: &[Cidr], ip: IpAddr) -> bool {
    networks.iter().any(|net| net.contains(ip))
}

/// IPv4-mapped IPv6 as IPv4; anything else as it is.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// What a source is counted under: an IPv4 address, or an IPv6 /64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SourceKey(IpAddr);

impl SourceKey {
    pub(crate) fn of(ip: IpAddr) -> Self {
        match canonical(ip) {
            IpAddr::V6(v6) => Self(IpAddr::V6(Ipv6Addr::from(masked(u128::from(v6), 64)))),
            v4 => Self(v4),
        }
    }
}

impl fmt::Display for SourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => write!(f, "{v4}"),
        }
    }
}

/// Open connections per source, for `--max-connections-per-source`.
#[derive(Debug, Default)]
pub(crate) struct SourceCounts(Mutex<HashMap<SourceKey, usize>>);

/// One connection counted under its source; dropping it takes it off.
#[derive(Debug)]
pub(crate) struct SourceSlot {
    counts: Arc<SourceCounts>,
    key: SourceKey,
}

impl SourceCounts {
    /// Counts one more connection from `key`, unless `key` already has `cap`.
    pub(crate) fn take(self: &Arc<Self>, key: SourceKey, cap: usize) -> Option<SourceSlot> {
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let count = counts.entry(key).or_insert(0);
        if *count >= cap {
            return None;
        }
        *count += 1;
        Some(SourceSlot { counts: Arc::clone(self), key })
    }
}

impl Drop for SourceSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = counts.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// A warning said at most once per [`Self::EVERY`] per source (a peer repeating what earns
/// the warning must not be able to fill the log).
#[derive(Debug, Default)]
pub(crate) struct RateLimited(Mutex<HashMap<(SourceKey, &'static str), Instant>>);

impl RateLimited {
    const EVERY: Duration = Duration::from_secs(60);
    /// Sources remembered before the old ones are forgotten.
    const REMEMBERED: usize = 4096;

    /// Whether the warning `what` about `key` may be logged now.
    pub(crate) fn allow(&self, key: SourceKey, what: &'static str) -> bool {
        let now = Instant::now();
        let mut last = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if last.get(&(key, what)).is_some_and(|at| now.duration_since(*at) < Self::EVERY) {
            return false;
        }
        if last.len() >= Self::REMEMBERED {
            last.retain(|_, at| now.duration_since(*at) < Self::EVERY);
        }
        last.insert((key, what), now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn networks_hold_their_addresses_and_mapped_ipv4_counts_as_ipv4() {
        let lan: Cidr = "10.1.0.0/16".parse().unwrap();
        assert!(lan.contains(ip("10.1.200.3")) && !lan.contains(ip("10.2.0.1")));
        assert!(lan.contains(ip("::ffff:10.1.0.9")));
        let one: Cidr = "127.0.0.1".parse().unwrap();
        assert!(one.contains(ip("127.0.0.1")) && !one.contains(ip("127.0.0.2")));
        let six: Cidr = "2001:db8::/32".parse().unwrap();
        assert!(six.contains(ip("2001:db8:1::7")) && !six.contains(ip("2001:db9::1")));
        assert!(!six.contains(ip("10.1.0.1")));
        let all: Cidr = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("203.0.113.9")));
        for bad in ["10.0.0.0/33", "::/129", "nonsense", "10.0.0.0/x"] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
    }

    #[test]
    fn sources_are_ipv4_addresses_or_ipv6_slash_64s() {
        assert_eq!(SourceKey::of(ip("2001:db8:0:1::5")), SourceKey::of(ip("2001:db8:0:1:ffff::9")));
        assert_ne!(SourceKey::of(ip("2001:db8:0:1::5")), SourceKey::of(ip("2001:db8:0:2::5")));
        assert_eq!(SourceKey::of(ip("::ffff:192.0.2.1")), SourceKey::of(ip("192.0.2.1")));
        assert_eq!(SourceKey::of(ip("2001:db8:0:1::5")).to_string(), "2001:db8:0:1::/64");
    }

    #[test]
    fn a_source_holds_at_most_its_cap_until_a_slot_is_dropped() {
        let counts = Arc::new(SourceCounts::default());
        let key = SourceKey::of(ip("192.0.2.1"));
        let first = counts.take(key, 2).unwrap();
        let _second = counts.take(key, 2).unwrap();
        assert!(counts.take(key, 2).is_none());
        assert!(counts.take(SourceKey::of(ip("192.0.2.2")), 2).is_some());
        drop(first);
        assert!(counts.take(key, 2).is_some());
    }

    #[test]
    fn a_warning_is_allowed_once_a_minute_per_source() {
        let limit = RateLimited::default();
        let key = SourceKey::of(ip("192.0.2.1"));
        assert!(limit.allow(key, "proxy"));
        assert!(!limit.allow(key, "proxy"));
        assert!(limit.allow(key, "cap"));
        assert!(limit.allow(SourceKey::of(ip("192.0.2.2")), "proxy"));
    }
}
