//! Who a connection comes from, for the fairness rules: networks given as CIDR lists
//! (`--proxy-protocol-from`, `--per-source-exempt`), the keys a source is counted under, the
//! per-source connection counts, and log lines limited to one a minute per source.
//!
//! A source is the TCP peer, or the address a listed proxy's PROXY header carries. Each
//! address holds at most `--max-connections-per-source` connections; an IPv6 /64 (usually one
//! host, which can pick any of its 2^64 addresses; sometimes a LAN) holds at most
//! [`NETWORK_SHARES`] times that in all. An IPv4-mapped IPv6 address (a dual-stack listener's
//! view of an IPv4 peer) counts as that IPv4 address.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A network, and a list of them as `--proxy-protocol-from`, `--per-source-exempt` and
/// `--allow-from` take it (`10.0.0.0/8,192.0.2.7, 2001:db8::/32`; empty items are skipped, so
/// an empty value, an environment variable set to "", is an empty list): the core's types,
/// which its authentication rules read too.
pub use nameserver_core::auth::{Cidr, SourceList};

/// Default for `--max-connections-per-source`: a tenth of the connection limit.
#[must_use]
pub fn default_per_source(max_connections: usize) -> usize {
    (max_connections / 10).max(1)
}

/// How many connections one IPv6 /64 may hold in all: [`NETWORK_SHARES`] times the
/// per-address cap, and never more than the connection limit. A /64 is usually one host's (it
/// can pick any of 2^64 addresses), but may be a LAN's, whose hosts each get the per-address
/// cap.
#[must_use]
pub fn per_network(per_source: usize, max_connections: usize) -> usize {
    per_source.saturating_mul(NETWORK_SHARES).min(max_connections).max(1)
}

/// How many per-address caps one IPv6 /64 holds (see [`per_network`]).
pub const NETWORK_SHARES: usize = 4;

/// The rules on sources every RocketMQ-protocol listener applies, and their state.
#[derive(Debug, Default)]
pub(crate) struct Fairness {
    /// `--proxy-protocol-from`.
    pub(crate) proxies: SourceList,
    /// `--per-source-exempt`.
    pub(crate) exempt: SourceList,
    /// `--max-connections-per-source`: connections one address may hold.
    pub(crate) per_source: usize,
    /// Connections one IPv6 /64 may hold in all ([`per_network`]).
    pub(crate) per_network: usize,
    /// How long after the accept a PROXY header and a TLS handshake must be done, and how
    /// long a frame gets besides a second per 64 KiB it announces.
    pub(crate) deadline: Duration,
    pub(crate) counts: Arc<SourceCounts>,
    pub(crate) warned: RateLimited,
}

/// A connection refused because its source already holds its cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Over {
    /// The address or the IPv6 /64 that is full.
    pub(crate) key: SourceKey,
    /// Its cap.
    pub(crate) cap: usize,
}

impl Fairness {
    /// The rules for a listener of `max_connections` (`per_source`: `None` for the default).
    pub(crate) fn new(
        proxies: SourceList,
        exempt: SourceList,
        per_source: Option<usize>,
        max_connections: usize,
        deadline: Duration,
    ) -> Self {
        let per_source = per_source.unwrap_or_else(|| default_per_source(max_connections)).max(1);
        let per_network = per_network(per_source, max_connections);
        Self { proxies, exempt, per_source, per_network, deadline, ..Self::default() }
    }

    /// Counts a connection from `ip` (the TCP peer, or the client a listed proxy names),
    /// unless it is exempt: `Ok(None)`. `Err` when its address already holds
    /// `--max-connections-per-source`, or its IPv6 /64 [`per_network`].
    pub(crate) fn admit(&self, ip: IpAddr) -> Result<Option<SourceSlot>, Over> {
        if self.exempt.contains(ip) {
            return Ok(None);
        }
        let host = (SourceKey::host(ip), self.per_source);
        let network = SourceKey::network(ip).map(|key| (key, self.per_network));
        self.counts.take(host, network).map(Some)
    }
}

/// IPv4-mapped IPv6 as IPv4; anything else as it is.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// What a source is counted and warned under: an address (IPv4, or IPv4-mapped IPv6 as
/// IPv4), or an IPv6 network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SourceKey {
    ip: IpAddr,
    /// 128 for an IPv6 address, 64 for its network; 32 for IPv4.
    prefix: u8,
}

impl SourceKey {
    /// What warnings about `ip` are said once a minute under: the IPv4 address, or the IPv6
    /// /64 (a host picking new addresses in its /64 gets no more warnings).
    pub(crate) fn of(ip: IpAddr) -> Self {
        Self::network(ip).unwrap_or_else(|| Self::host(ip))
    }

    /// The address itself.
    pub(crate) fn host(ip: IpAddr) -> Self {
        let ip = canonical(ip);
        Self { ip, prefix: if ip.is_ipv4() { 32 } else { 128 } }
    }

    /// Whether this is an IPv6 /64 rather than an address.
    pub(crate) fn is_network(&self) -> bool {
        self.prefix == 64
    }

    /// The address, or the network's first address.
    pub(crate) fn ip(&self) -> IpAddr {
        self.ip
    }

    /// The IPv6 /64 holding `ip`; `None` for IPv4 (and IPv4-mapped IPv6).
    pub(crate) fn network(ip: IpAddr) -> Option<Self> {
        match canonical(ip) {
            IpAddr::V6(v6) => {
                Some(Self { ip: IpAddr::V6(Ipv6Addr::from(u128::from(v6) & (u128::MAX << 64))), prefix: 64 })
            }
            IpAddr::V4(_) => None,
        }
    }
}

impl fmt::Display for SourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.prefix {
            64 => write!(f, "{}/64", self.ip),
            _ => write!(f, "{}", self.ip),
        }
    }
}

/// Open connections per address and per IPv6 /64, for the caps.
#[derive(Debug, Default)]
pub(crate) struct SourceCounts(Mutex<HashMap<SourceKey, usize>>);

/// One connection counted under its address (and IPv6 /64); dropping it takes it off.
#[derive(Debug)]
pub(crate) struct SourceSlot {
    counts: Arc<SourceCounts>,
    host: SourceKey,
    network: Option<SourceKey>,
}

impl SourceCounts {
    /// Counts one more connection under `host` and `network`, each with its cap, unless
    /// either is already full: then which one.
    pub(crate) fn take(
        self: &Arc<Self>,
        (host, host_cap): (SourceKey, usize),
        network: Option<(SourceKey, usize)>,
    ) -> Result<SourceSlot, Over> {
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for (key, cap) in std::iter::once((host, host_cap)).chain(network) {
            if counts.get(&key).copied().unwrap_or(0) >= cap {
                return Err(Over { key, cap });
            }
        }
        for (key, _) in std::iter::once((host, host_cap)).chain(network) {
            *counts.entry(key).or_insert(0) += 1;
        }
        Ok(SourceSlot { counts: Arc::clone(self), host, network: network.map(|(key, _)| key) })
    }
}

impl Drop for SourceSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(PoisonError::into_inner);
        for key in std::iter::once(self.host).chain(self.network) {
            if let Some(count) = counts.get_mut(&key) {
                *count -= 1;
                if *count == 0 {
                    counts.remove(&key);
                }
            }
        }
    }
}

/// A warning said at most once per [`Self::EVERY`] per source and kind (a peer repeating what
/// earns the warning must not be able to fill the log); how often it was held back is said
/// when that minute is over (at the next warning of any kind). At most [`Self::REMEMBERED`]
/// warnings are remembered: when that many were said within the last minute, further ones
/// are held back until the oldest expires, so memory is bounded and so is the log (that many
/// a minute in all). Each call is O(1) amortized: entries expire in the order they were made,
/// each is pushed and popped once.
#[derive(Debug, Default)]
pub(crate) struct RateLimited(Mutex<Said>);

/// The warnings said within the last minute: when, and how often held back since, by key;
/// and the keys in the order they were said.
#[derive(Debug, Default)]
struct Said {
    at: HashMap<(SourceKey, &'static str), (Instant, u64)>,
    order: VecDeque<(SourceKey, &'static str)>,
}

/// A warning whose minute is over, and how often it was held back in it.
type HeldBack = (SourceKey, &'static str, u64);

impl RateLimited {
    const EVERY: Duration = Duration::from_secs(60);
    /// Warnings remembered (and so said per [`Self::EVERY`] in all).
    const REMEMBERED: usize = 4096;

    /// Whether the warning `what` about `key` may be logged now. Logs how often warnings
    /// whose minute is over were held back.
    pub(crate) fn allow(&self, key: SourceKey, what: &'static str) -> bool {
        let (allowed, expired) = self.allow_at(key, what, Instant::now());
        for (key, what, count) in expired {
            tracing::warn!("{count} more {what} warnings about {key} were held back in the minute after the last one");
        }
        if !allowed {
            tracing::debug!("a {what} warning about {key} held back (said once a minute per source)");
        }
        allowed
    }

    fn allow_at(&self, key: SourceKey, what: &'static str, now: Instant) -> (bool, Vec<HeldBack>) {
        let mut said = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let Said { at, order } = &mut *said;
        let mut expired = Vec::new();
        while let Some(oldest) = order.front() {
            if at.get(oldest).is_some_and(|(when, _)| now.saturating_duration_since(*when) < Self::EVERY) {
                break;
            }
            if let Some(oldest) = order.pop_front() {
                if let Some((_, count @ 1..)) = at.remove(&oldest) {
                    expired.push((oldest.0, oldest.1, count));
                }
            }
        }
        if let Some((_, count)) = at.get_mut(&(key, what)) {
            *count += 1;
            return (false, expired);
        }
        if at.len() >= Self::REMEMBERED {
            return (false, expired);
        }
        at.insert((key, what), (now, 0));
        order.push_back((key, what));
        (true, expired)
    }

    #[cfg(test)]
    fn remembered(&self) -> (usize, usize) {
        let said = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        (said.at.len(), said.order.len())
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
    fn lists_skip_empty_items_and_name_the_bad_one() {
        let list: SourceList = " 10.0.0.0/8, 192.0.2.7,,2001:db8::/32,".parse().unwrap();
        assert_eq!(list.to_string(), "10.0.0.0/8,192.0.2.7/32,2001:db8::/32");
        assert!(list.contains(ip("10.9.9.9")) && list.contains(ip("2001:db8::1")) && !list.contains(ip("192.0.2.8")));
        assert!("".parse::<SourceList>().unwrap().is_empty());
        let error = "10.0.0.0/8,bogus".parse::<SourceList>().unwrap_err().to_string();
        assert!(
            error.starts_with("`bogus` is not an address or CIDR block") && error.contains("e.g. 10.0.0.0/8"),
            "{error}"
        );
        let joined: SourceList = [list.clone(), "::1".parse().unwrap()].iter().collect();
        assert!(joined.contains(ip("::1")) && joined.contains(ip("10.0.0.1")));
    }

    #[test]
    fn sources_are_addresses_and_ipv6_networks_are_slash_64s() {
        assert_eq!(SourceKey::network(ip("2001:db8:0:1::5")), SourceKey::network(ip("2001:db8:0:1:ffff::9")));
        assert_ne!(SourceKey::host(ip("2001:db8:0:1::5")), SourceKey::host(ip("2001:db8:0:1:ffff::9")));
        assert_ne!(SourceKey::network(ip("2001:db8:0:1::5")), SourceKey::network(ip("2001:db8:0:2::5")));
        assert_eq!(SourceKey::host(ip("::ffff:192.0.2.1")), SourceKey::host(ip("192.0.2.1")));
        assert_eq!(SourceKey::network(ip("::ffff:192.0.2.1")), None);
        assert_eq!(SourceKey::of(ip("2001:db8:0:1::5")).to_string(), "2001:db8:0:1::/64");
        assert_eq!(SourceKey::host(ip("2001:db8:0:1::5")).to_string(), "2001:db8:0:1::5");
        assert_eq!(SourceKey::of(ip("192.0.2.1")).to_string(), "192.0.2.1");
    }

    fn fairness(per_source: usize, max_connections: usize) -> Fairness {
        Fairness::new(SourceList::default(), SourceList::default(), Some(per_source), max_connections, Duration::ZERO)
    }

    #[test]
    fn each_ipv6_address_gets_the_per_source_cap_and_its_slash_64_four_times_that() {
        let fair = fairness(2, 100);
        assert_eq!(fair.per_network, 8);
        let mut held = Vec::new();
        // Two hosts of one LAN /64: each holds its own cap.
        for host in ["2001:db8::1", "2001:db8::2"] {
            held.push(fair.admit(ip(host)).unwrap());
            held.push(fair.admit(ip(host)).unwrap());
            let over = fair.admit(ip(host)).unwrap_err();
            assert_eq!((over.key.to_string(), over.cap), (host.to_string(), 2));
        }
        // A host picking new addresses in its /64 is stopped at four caps in all.
        for i in 3..=6 {
            held.push(fair.admit(ip(&format!("2001:db8::{i}"))).unwrap());
        }
        let over = fair.admit(ip("2001:db8::7")).unwrap_err();
        assert_eq!((over.key.to_string(), over.cap), (String::from("2001:db8::/64"), 8));
        assert!(fair.admit(ip("2001:db8:0:1::7")).is_ok(), "another /64");
        // A slot given back counts for the address and its /64 again.
        held.truncate(7);
        assert!(fair.admit(ip("2001:db8::7")).is_ok());
        // IPv4 is counted by address only.
        let v4: Vec<_> = (1..=20).map(|i| fair.admit(ip(&format!("192.0.2.{i}"))).unwrap()).collect();
        assert_eq!(v4.len(), 20);
    }

    #[test]
    fn the_network_cap_is_bounded_by_the_connection_limit_and_exempt_sources_are_not_counted() {
        assert_eq!(per_network(1000, 10_000), 4000);
        assert_eq!(per_network(10, 20), 20);
        assert_eq!(per_network(usize::MAX, 20), 20);
        let fair = Fairness::new(SourceList::default(), "2001:db8::/64".parse().unwrap(), Some(1), 10, Duration::ZERO);
        assert!(fair.admit(ip("2001:db8::1")).unwrap().is_none());
        assert_eq!(fairness(1, 10).per_source, 1);
        assert_eq!(
            Fairness::new(SourceList::default(), SourceList::default(), None, 10_000, Duration::ZERO).per_source,
            1000
        );
    }

    #[test]
    fn a_source_holds_at_most_its_cap_until_a_slot_is_dropped() {
        let fair = fairness(2, 100);
        let first = fair.admit(ip("192.0.2.1")).unwrap();
        let _second = fair.admit(ip("192.0.2.1")).unwrap();
        assert_eq!(fair.admit(ip("::ffff:192.0.2.1")).unwrap_err().key, SourceKey::host(ip("192.0.2.1")));
        assert!(fair.admit(ip("192.0.2.2")).is_ok());
        drop(first);
        assert!(fair.admit(ip("192.0.2.1")).is_ok());
    }

    #[test]
    fn a_warning_is_allowed_once_a_minute_per_source_then_says_how_often_it_was_held_back() {
        let limit = RateLimited::default();
        let key = SourceKey::of(ip("192.0.2.1"));
        let start = Instant::now();
        assert_eq!(limit.allow_at(key, "proxy", start), (true, vec![]));
        assert_eq!(limit.allow_at(key, "proxy", start), (false, vec![]));
        assert_eq!(limit.allow_at(key, "proxy", start + Duration::from_secs(59)), (false, vec![]));
        assert!(limit.allow_at(key, "cap", start).0);
        let other = SourceKey::of(ip("192.0.2.2"));
        assert!(limit.allow_at(other, "proxy", start).0);
        let later = start + RateLimited::EVERY;
        assert_eq!(limit.allow_at(key, "proxy", later), (true, vec![(key, "proxy", 2)]));
        assert_eq!(limit.remembered(), (1, 1));
    }

    #[test]
    fn many_sources_keep_the_warnings_remembered_at_the_bound() {
        let limit = RateLimited::default();
        let start = Instant::now();
        let sources = (0..3 * RateLimited::REMEMBERED as u128).map(|i| SourceKey::host(IpAddr::V6(Ipv6Addr::from(i))));
        let allowed = sources.filter(|key| limit.allow_at(*key, "per-source", start).0).count();
        assert_eq!(allowed, RateLimited::REMEMBERED, "said in the first minute in all");
        assert_eq!(limit.remembered(), (RateLimited::REMEMBERED, RateLimited::REMEMBERED));
        // A minute on, the old ones are forgotten as new ones come.
        let later = start + RateLimited::EVERY;
        assert!(limit.allow_at(SourceKey::host(ip("192.0.2.1")), "per-source", later).0);
        assert_eq!(limit.remembered(), (1, 1));
    }
}
