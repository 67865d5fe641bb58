//! `tls.ciphers` and `tls.protocols` (Java 5.3.4+): comma-separated JSSE names, mapped to the
//! cipher suites and protocol versions rustls offers. Java hands the lists to Netty, which
//! refuses a name its engine does not know; here every name must be one rustls serves, so
//! what Java's JDK still accepts and rustls never will (TLS 1.0/1.1, CBC and RSA key exchange
//! suites) is a start-up error too (docs/PROTOCOL.md §18, D13 and D14).

use rustls::{CipherSuite, SignatureAlgorithm, SupportedCipherSuite, SupportedProtocolVersion};

use super::{CIPHERS, PROTOCOLS, TlsError};

/// The suites served, by their JSSE (IANA) names, in rustls's order of preference.
const CIPHER_NAMES: [(&str, CipherSuite); 9] = [
    ("TLS_AES_256_GCM_SHA384", CipherSuite::TLS13_AES_256_GCM_SHA384),
    ("TLS_AES_128_GCM_SHA256", CipherSuite::TLS13_AES_128_GCM_SHA256),
    ("TLS_CHACHA20_POLY1305_SHA256", CipherSuite::TLS13_CHACHA20_POLY1305_SHA256),
    ("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384),
    ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256),
    ("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256),
    ("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384),
    ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256),
    ("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256),
];

/// JSSE's pseudo-suite for secure renegotiation: accepted in a list and dropped, since rustls
/// always sends `renegotiation_info` and never renegotiates.
const RENEGOTIATION_SCSV: &str = "TLS_EMPTY_RENEGOTIATION_INFO_SCSV";

/// A protocol version `tls.protocols` may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `TLSv1.2`.
    Tls12,
    /// `TLSv1.3`.
    Tls13,
}

impl Protocol {
    /// JSSE's name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Tls12 => "TLSv1.2",
            Self::Tls13 => "TLSv1.3",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        [Self::Tls13, Self::Tls12].into_iter().find(|p| p.name() == name)
    }

    pub(super) const fn rustls(self) -> &'static SupportedProtocolVersion {
        match self {
            Self::Tls12 => &rustls::version::TLS12,
            Self::Tls13 => &rustls::version::TLS13,
        }
    }
}

/// A suite's JSSE name.
#[must_use]
pub fn cipher_name(suite: CipherSuite) -> &'static str {
    CIPHER_NAMES.iter().find(|(_, s)| *s == suite).map_or("?", |(name, _)| name)
}

/// The names of a list, as Java splits it: at commas (here also trimmed, empty items skipped).
fn items(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|item| !item.is_empty())
}

/// `tls.ciphers`: the suites named, in the order given.
///
/// # Errors
/// A name that is not a suite served here, or no suite at all.
pub fn parse_ciphers(value: &str) -> Result<Vec<CipherSuite>, TlsError> {
    let mut out = Vec::new();
    for item in items(value) {
        if item == RENEGOTIATION_SCSV {
            continue;
        }
        let Some((_, suite)) = CIPHER_NAMES.iter().find(|(name, _)| *name == item) else {
            let supported: Vec<&str> = CIPHER_NAMES.iter().map(|(name, _)| *name).collect();
            return Err(TlsError(format!(
                "{CIPHERS}={value}: `{item}` is not a cipher suite this NameServer serves; it serves {} \
                 (JSSE names; CBC, RSA key exchange and other suites older JDKs accept are not served)",
                supported.join(", ")
            )));
        };
        if !out.contains(suite) {
            out.push(*suite);
        }
    }
    if out.is_empty() {
        return Err(TlsError(format!("{CIPHERS}={value}: names no cipher suite")));
    }
    Ok(out)
}

/// `tls.protocols`: the versions named.
///
/// # Errors
/// A name that is not `TLSv1.2` or `TLSv1.3`, or no version at all.
pub fn parse_protocols(value: &str) -> Result<Vec<Protocol>, TlsError> {
    let mut out = Vec::new();
    for item in items(value) {
        let Some(protocol) = Protocol::parse(item) else {
            return Err(TlsError(format!(
                "{PROTOCOLS}={value}: `{item}` is not a protocol this NameServer serves; it serves TLSv1.3, \
                 TLSv1.2 (TLSv1.1, TLSv1, SSLv3 and SSLv2Hello, which a JDK may accept, are not served)"
            )));
        };
        if !out.contains(&protocol) {
            out.push(protocol);
        }
    }
    if out.is_empty() {
        return Err(TlsError(format!("{PROTOCOLS}={value}: names no protocol")));
    }
    Ok(out)
}

/// The provider's suites restricted to `ciphers` (in their order), and the versions of
/// `protocols` (rustls's defaults for either when not set).
///
/// # Errors
/// No suite named fits a version named (e.g. only TLS 1.3 suites with `TLSv1.2`).
pub(super) fn select(
    all: &[SupportedCipherSuite],
    ciphers: Option<&[CipherSuite]>,
    protocols: Option<&[Protocol]>,
) -> Result<(Vec<SupportedCipherSuite>, Vec<&'static SupportedProtocolVersion>), TlsError> {
    let suites: Vec<SupportedCipherSuite> = match ciphers {
        Some(names) => names.iter().filter_map(|name| all.iter().find(|s| s.suite() == *name).copied()).collect(),
        None => all.to_vec(),
    };
    let versions: Vec<&'static SupportedProtocolVersion> = match protocols {
        Some(list) => list.iter().map(|p| p.rustls()).collect(),
        None => rustls::DEFAULT_VERSIONS.to_vec(),
    };
    if !suites.iter().any(|suite| versions.contains(&suite.version())) {
        let ciphers: Vec<&str> = suites.iter().map(|s| cipher_name(s.suite())).collect();
        let protocols: Vec<&str> = versions
            .iter()
            .map(|v| if v.version == rustls::ProtocolVersion::TLSv1_2 { "TLSv1.2" } else { "TLSv1.3" })
            .collect();
        return Err(TlsError(format!(
            "{CIPHERS} ({}) and {PROTOCOLS} ({}) leave no cipher suite to serve: TLS_AES_*/TLS_CHACHA20_* \
             suites are TLSv1.3's, TLS_ECDHE_* suites TLSv1.2's",
            ciphers.join(","),
            protocols.join(",")
        )));
    }
    Ok((suites, versions))
}

/// Whether a TLS 1.2 suite of `suites` signs with the certificate's key, or TLS 1.3 is on (its
/// suites sign with any key): a list of `TLS_ECDHE_RSA_*` suites alone cannot serve an ECDSA
/// certificate, and every handshake would fail.
///
/// # Errors
/// None can serve the key.
pub(super) fn fit_key(
    suites: &[SupportedCipherSuite],
    versions: &[&'static SupportedProtocolVersion],
    algorithm: SignatureAlgorithm,
) -> Result<(), TlsError> {
    if suites.iter().any(|s| versions.contains(&s.version()) && s.usable_for_signature_algorithm(algorithm)) {
        return Ok(());
    }
    let names: Vec<&str> = suites.iter().map(|s| cipher_name(s.suite())).collect();
    Err(TlsError(format!(
        "{CIPHERS} ({}) has no suite for the certificate's {algorithm:?} key: TLS_ECDHE_RSA_* suites need an RSA \
         key, TLS_ECDHE_ECDSA_* an ECDSA one (TLSv1.3 suites take either)",
        names.join(",")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_names_map_to_rustls_suites_in_the_order_given() {
        let suites = parse_ciphers("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256,").unwrap();
        assert_eq!(suites, [CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, CipherSuite::TLS13_AES_128_GCM_SHA256]);
        // JSSE's renegotiation pseudo-suite is accepted and dropped; repeats count once.
        let suites =
            parse_ciphers("TLS_AES_256_GCM_SHA384,TLS_EMPTY_RENEGOTIATION_INFO_SCSV,TLS_AES_256_GCM_SHA384").unwrap();
        assert_eq!(suites, [CipherSuite::TLS13_AES_256_GCM_SHA384]);
        // Every name of the table is one the ring provider serves.
        let provider = rustls::crypto::ring::default_provider();
        for (name, suite) in CIPHER_NAMES {
            assert!(provider.cipher_suites.iter().any(|s| s.suite() == suite), "{name}");
            assert_eq!(cipher_name(suite), name);
        }
    }

    #[test]
    fn an_unknown_or_unserved_cipher_is_an_error_naming_key_value_and_what_is_served() {
        for value in [
            "TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
            "TLS_RSA_WITH_AES_128_GCM_SHA256",
            "tls_aes_128_gcm_sha256",
            "TLS13_AES_128_GCM_SHA256",
            "ECDHE-RSA-AES128-GCM-SHA256",
        ] {
            let error = parse_ciphers(value).unwrap_err().to_string();
            assert!(error.starts_with(&format!("tls.ciphers={value}: `")), "{error}");
            assert!(error.contains("it serves TLS_AES_256_GCM_SHA384, TLS_AES_128_GCM_SHA256"), "{error}");
        }
        let error = parse_ciphers(" , ").unwrap_err().to_string();
        assert_eq!(error, "tls.ciphers= , : names no cipher suite");
        let error = parse_ciphers("TLS_EMPTY_RENEGOTIATION_INFO_SCSV").unwrap_err().to_string();
        assert!(error.ends_with("names no cipher suite"), "{error}");
    }

    #[test]
    fn protocols_are_tls_1_2_and_1_3_by_java_names() {
        assert_eq!(parse_protocols("TLSv1.3").unwrap(), [Protocol::Tls13]);
        assert_eq!(parse_protocols("TLSv1.2, TLSv1.3, TLSv1.2").unwrap(), [Protocol::Tls12, Protocol::Tls13]);
        for (value, item) in [
            ("TLSv1.2,TLSv1.1", "TLSv1.1"),
            ("TLSv1", "TLSv1"),
            ("SSLv2Hello,TLSv1.2", "SSLv2Hello"),
            ("tlsv1.3", "tlsv1.3"),
        ] {
            let error = parse_protocols(value).unwrap_err().to_string();
            assert!(error.starts_with(&format!("tls.protocols={value}: `{item}` is not a protocol")), "{error}");
            assert!(error.contains("it serves TLSv1.3, TLSv1.2"), "{error}");
        }
        assert!(parse_protocols("").unwrap_err().to_string().ends_with("names no protocol"));
    }

    #[test]
    fn ciphers_and_protocols_must_leave_a_suite() {
        let all = rustls::crypto::ring::default_provider().cipher_suites;
        let tls13_only = parse_ciphers("TLS_AES_128_GCM_SHA256").unwrap();
        let tls12 = parse_protocols("TLSv1.2").unwrap();
        let error = select(&all, Some(&tls13_only), Some(&tls12)).unwrap_err().to_string();
        assert!(
            error.starts_with("tls.ciphers (TLS_AES_128_GCM_SHA256) and tls.protocols (TLSv1.2) leave no"),
            "{error}"
        );
        let (suites, versions) = select(&all, Some(&tls13_only), None).unwrap();
        assert_eq!(suites.len(), 1);
        assert_eq!(versions.len(), 2);
        let (suites, versions) = select(&all, None, Some(&tls12)).unwrap();
        assert_eq!((suites.len(), versions.len()), (all.len(), 1));
    }

    #[test]
    fn tls_1_2_suites_must_fit_the_certificate_key() {
        let all = rustls::crypto::ring::default_provider().cipher_suites;
        let rsa = parse_ciphers("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256").unwrap();
        let (suites, versions) = select(&all, Some(&rsa), None).unwrap();
        assert!(fit_key(&suites, &versions, SignatureAlgorithm::RSA).is_ok());
        let error = fit_key(&suites, &versions, SignatureAlgorithm::ECDSA).unwrap_err().to_string();
        assert!(error.contains("has no suite for the certificate's ECDSA key"), "{error}");
        // A TLS 1.3 suite beside it serves any key.
        let mixed = parse_ciphers("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256").unwrap();
        let (suites, versions) = select(&all, Some(&mixed), None).unwrap();
        assert!(fit_key(&suites, &versions, SignatureAlgorithm::ECDSA).is_ok());
    }
}
