//! HAProxy's PROXY protocol (v1 text, v2 binary) at the start of a connection, as Java's
//! NettyRemotingServer (5.1.4+) detects it before its TLS/plain decision (PROTOCOL.md §1.3).
//!
//! [`detect`] looks at the bytes received so far and says whether they start with a PROXY
//! header, need more bytes to tell, or are the connection's own bytes. The header itself is
//! parsed by the `ppp` crate; this module only finds where it ends. Java (Netty's
//! `HAProxyMessageDecoder.detectProtocol`) waits for 12 bytes before deciding; here a
//! connection is passed through as soon as its first bytes can no longer begin a header, so a
//! peer that sends a short bad frame is still closed at once.

use std::net::SocketAddr;

use ppp::{v1, v2};

/// The v2 signature.
const V2_SIGNATURE: &[u8; 12] = b"\r\n\r\n\0\r\nQUIT\n";
/// The v1 prefix.
const V1_PREFIX: &[u8; 6] = b"PROXY ";
/// A v1 header is at most 107 bytes, CRLF included.
const V1_MAX: usize = 107;
/// v2: signature, version/command, family/protocol, length.
const V2_FIXED: usize = 16;

/// What the first bytes of a connection are.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Detection {
    /// Too few bytes to tell.
    NeedMore,
    /// No PROXY header: the bytes are the connection's own.
    Absent,
    /// A whole header of `len` bytes; `source` is the client it carries (`None`: a v2 LOCAL
    /// command, v1 `UNKNOWN` or an address family without ports: keep the peer's address).
    Header {
        /// The header's length in bytes.
        len: usize,
        /// The client's address.
        source: Option<SocketAddr>,
    },
    /// A header that cannot be read: close the connection.
    Malformed(String),
}

/// Looks at the first bytes of a connection.
pub(crate) fn detect(buf: &[u8]) -> Detection {
    if buf.is_empty() {
        return Detection::NeedMore;
    }
    if could_start(buf, V2_SIGNATURE) {
        if buf.len() < V2_FIXED {
            return Detection::NeedMore;
        }
        let len = V2_FIXED + usize::from(u16::from_be_bytes([buf[14], buf[15]]));
        if buf.len() < len {
            return Detection::NeedMore;
        }
        return match v2::Header::try_from(&buf[..len]) {
            Ok(header) => Detection::Header { len, source: v2_source(&header) },
            Err(error) => Detection::Malformed(format!("PROXY protocol v2 header: {error}")),
        };
    }
    if could_start(buf, V1_PREFIX) {
        let Some(end) = buf.windows(2).take(V1_MAX - 1).position(|w| w == b"\r\n") else {
            return if buf.len() < V1_MAX {
                Detection::NeedMore
            } else {
                Detection::Malformed(format!("PROXY protocol v1 header without CRLF in its first {V1_MAX} bytes"))
            };
        };
        let len = end + 2;
        return match v1::Header::try_from(&buf[..len]) {
            Ok(header) => Detection::Header { len, source: v1_source(&header) },
            Err(error) => Detection::Malformed(format!("PROXY protocol v1 header: {error:?}")),
        };
    }
    Detection::Absent
}

/// Whether the first bytes of a connection open with a PROXY signature (v1's `PROXY `, v2's
/// twelve bytes): `None` while they still could. Used where the header is not expected: no
/// RocketMQ frame or TLS record begins this way (as a length prefix, either is over 200 MB).
pub(crate) fn signature(buf: &[u8]) -> Option<bool> {
    for prefix in [V2_SIGNATURE.as_slice(), V1_PREFIX] {
        if could_start(buf, prefix) {
            return if buf.len() >= prefix.len() { Some(true) } else { None };
        }
    }
    if buf.is_empty() { None } else { Some(false) }
}

/// Whether `buf` and `prefix` agree on their common length (so `buf` may still be a header).
fn could_start(buf: &[u8], prefix: &[u8]) -> bool {
    let n = buf.len().min(prefix.len());
    n > 0 && buf[..n] == prefix[..n]
}

fn v1_source(header: &v1::Header<'_>) -> Option<SocketAddr> {
    match header.addresses {
        v1::Addresses::Tcp4(ip) => Some(SocketAddr::from((ip.source_address, ip.source_port))),
        v1::Addresses::Tcp6(ip) => Some(SocketAddr::from((ip.source_address, ip.source_port))),
        v1::Addresses::Unknown => None,
    }
}

fn v2_source(header: &v2::Header<'_>) -> Option<SocketAddr> {
    if header.command == v2::Command::Local {
        return None;
    }
    match header.addresses {
        v2::Addresses::IPv4(ip) => Some(SocketAddr::from((ip.source_address, ip.source_port))),
        v2::Addresses::IPv6(ip) => Some(SocketAddr::from((ip.source_address, ip.source_port))),
        v2::Addresses::Unspecified | v2::Addresses::Unix(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v2(family: u8, addresses: &[u8]) -> Vec<u8> {
        let mut out = V2_SIGNATURE.to_vec();
        out.extend_from_slice(&[0x21, family]);
        out.extend_from_slice(&u16::try_from(addresses.len()).unwrap().to_be_bytes());
        out.extend_from_slice(addresses);
        out
    }

    #[test]
    fn v1_headers_give_the_client_address() {
        let text = b"PROXY TCP4 203.0.113.7 10.0.0.1 51234 9876\r\n\0\0\0\x10";
        let expected = "203.0.113.7:51234".parse().ok();
        assert_eq!(detect(text), Detection::Header { len: 44, source: expected });
        let six = b"PROXY TCP6 2001:db8::7 2001:db8::1 51234 9876\r\n";
        assert_eq!(detect(six), Detection::Header { len: six.len(), source: "[2001:db8::7]:51234".parse().ok() });
        assert_eq!(detect(b"PROXY UNKNOWN\r\n"), Detection::Header { len: 15, source: None });
    }

    #[test]
    fn v2_headers_give_the_client_address_and_skip_tlvs() {
        let mut four = vec![203, 0, 113, 7, 10, 0, 0, 1, 0xC8, 0x22, 0x26, 0x94];
        four.extend_from_slice(&[0x04, 0, 1, 42]); // a NOOP TLV
        let header = v2(0x11, &four);
        let mut stream = header.clone();
        stream.extend_from_slice(&[0, 0, 0, 9]);
        assert_eq!(detect(&stream), Detection::Header { len: header.len(), source: "203.0.113.7:51234".parse().ok() });
        let mut six = vec![0x20, 0x01, 0x0d, 0xb8];
        six.extend_from_slice(&[0; 11]);
        six.push(7);
        six.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        six.extend_from_slice(&[0; 11]);
        six.push(1);
        six.extend_from_slice(&[0xC8, 0x22, 0x26, 0x94]);
        let header = v2(0x21, &six);
        assert_eq!(
            detect(&header),
            Detection::Header { len: header.len(), source: "[2001:db8::7]:51234".parse().ok() }
        );
        // LOCAL (health checks by the proxy itself): the peer's own address stays.
        let mut local = v2(0x00, &[]);
        local[12] = 0x20;
        assert_eq!(detect(&local), Detection::Header { len: 16, source: None });
    }

    #[test]
    fn signatures_are_told_from_frames_tls_and_text() {
        assert_eq!(signature(b""), None);
        assert_eq!(signature(b"PROX"), None);
        assert_eq!(signature(b"\r\n\r\n\0\r\nQUI"), None);
        assert_eq!(signature(b"PROXY "), Some(true));
        assert_eq!(signature(b"\r\n\r\n\0\r\nQUIT\n\x21"), Some(true));
        assert_eq!(signature(&[0, 0, 0, 0x2A]), Some(false));
        assert_eq!(signature(&[0x16, 3, 1]), Some(false));
        assert_eq!(signature(b"PROXX"), Some(false));
    }

    #[test]
    fn partial_absent_and_malformed() {
        let header = v2(0x11, &[203, 0, 113, 7, 10, 0, 0, 1, 0xC8, 0x22, 0x26, 0x94]);
        for cut in [1, 5, 12, 15, 20] {
            assert_eq!(detect(&header[..cut]), Detection::NeedMore, "{cut} bytes");
        }
        assert_eq!(detect(b""), Detection::NeedMore);
        assert_eq!(detect(b"PROX"), Detection::NeedMore);
        assert_eq!(detect(b"PROXY TCP4 1.2.3.4"), Detection::NeedMore);
        // A RocketMQ frame, a TLS ClientHello, HTTP: passed through at once.
        assert_eq!(detect(&[0, 0, 0, 0x2A]), Detection::Absent);
        assert_eq!(detect(&[0x16, 3, 1]), Detection::Absent);
        assert_eq!(detect(b"GET / HTTP/1.1\r\n"), Detection::Absent);
        assert!(matches!(detect(b"PROXY TCP4 nonsense\r\n"), Detection::Malformed(_)));
        assert!(matches!(detect(&[b"PROXY ".as_slice(), &[b'x'; 120]].concat()), Detection::Malformed(_)));
        let mut bad_version = header.clone();
        bad_version[12] = 0x31;
        assert!(matches!(detect(&bad_version), Detection::Malformed(_)));
        let mut short_addresses = v2(0x11, &[203, 0, 113, 7]);
        short_addresses.truncate(20);
        assert!(matches!(detect(&short_addresses), Detection::Malformed(_)));
    }
}
