//! Reading certificates and keys (PEM), or making the test mode's self-signed certificate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use super::{CERT_PATH, KEY_PASSWORD, KEY_PATH, TEST_MODE, TlsConfig, TlsError};

/// A rustls configuration and the file contents it was built from (to tell a change).
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The configuration.
    pub config: Arc<rustls::ServerConfig>,
    /// Each watched file with the bytes read (empty for a self-signed certificate).
    pub contents: Contents,
}

type Chain = Vec<CertificateDer<'static>>;
/// Each file read, with its bytes.
type Contents = Vec<(PathBuf, Vec<u8>)>;

/// The certificate chain and key, with the bytes read.
pub(super) fn certificate(tls: &TlsConfig) -> Result<(Chain, PrivateKeyDer<'static>, Contents), TlsError> {
    let (Some(cert_path), Some(key_path)) = (&tls.cert_path, &tls.key_path) else {
        if tls.cert_path.is_some() || tls.key_path.is_some() {
            return Err(TlsError(format!("{CERT_PATH} and {KEY_PATH} go together: set both")));
        }
        if !tls.test_mode {
            return Err(TlsError(format!(
                "TLS is on but no certificate is configured: set {CERT_PATH} and {KEY_PATH}, \
                 or {TEST_MODE}=true for a self-signed one, or -Dtls.server.mode=disabled"
            )));
        }
        let (chain, key) = self_signed()?;
        return Ok((chain, key, Vec::new()));
    };
    let cert_bytes = read(cert_path, CERT_PATH)?;
    let chain: Chain = CertificateDer::pem_slice_iter(&cert_bytes)
        .collect::<Result<_, _>>()
        .map_err(|error| TlsError(format!("{CERT_PATH} {}: {error}", cert_path.display())))?;
    if chain.is_empty() {
        return Err(TlsError(format!("{CERT_PATH} {}: no PEM certificate in it", cert_path.display())));
    }
    let key_bytes = read(key_path, KEY_PATH)?;
    let key = private_key(&key_bytes, tls.key_password.as_deref())
        .map_err(|why| TlsError(format!("{KEY_PATH} {}: {why}", key_path.display())))?;
    let mut contents = vec![(cert_path.clone(), cert_bytes), (key_path.clone(), key_bytes)];
    if let Some(trust) = &tls.trust_cert_path {
        contents.push((trust.clone(), read(trust, super::TRUST_CERT_PATH)?));
    }
    Ok((chain, key, contents))
}

/// The CA certificates in `path`.
pub(super) fn roots(path: &Path) -> Result<RootCertStore, TlsError> {
    let bytes = read(path, super::TRUST_CERT_PATH)?;
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&bytes) {
        let cert = cert.map_err(|error| TlsError(format!("{} {}: {error}", super::TRUST_CERT_PATH, path.display())))?;
        roots.add(cert).map_err(|error| TlsError(format!("{} {}: {error}", super::TRUST_CERT_PATH, path.display())))?;
    }
    if roots.is_empty() {
        return Err(TlsError(format!("{} {}: no PEM certificate in it", super::TRUST_CERT_PATH, path.display())));
    }
    Ok(roots)
}

fn read(path: &Path, key: &str) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|error| TlsError(format!("{key} {}: {error}", path.display())))
}

/// A PEM private key: PKCS#8, PKCS#1 or SEC1, or an encrypted PKCS#8 key with `password`.
fn private_key(pem: &[u8], password: Option<&str>) -> Result<PrivateKeyDer<'static>, String> {
    let text = String::from_utf8_lossy(pem);
    if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") {
        let Some(password) = password else {
            return Err(format!("the key is encrypted: set {KEY_PASSWORD}"));
        };
        let (label, document) = pkcs8::Document::from_pem(&text).map_err(|error| error.to_string())?;
        if label != "ENCRYPTED PRIVATE KEY" {
            return Err(format!("unexpected PEM section {label}"));
        }
        let info =
            pkcs8::EncryptedPrivateKeyInfoRef::try_from(document.as_bytes()).map_err(|error| error.to_string())?;
        let plain =
            info.decrypt(password).map_err(|error| format!("cannot decrypt it with {KEY_PASSWORD}: {error}"))?;
        return Ok(PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(plain.as_bytes().to_vec())));
    }
    if text.contains("-----BEGIN RSA PRIVATE KEY-----") && text.contains("ENCRYPTED") {
        return Err(format!(
            "an encrypted PKCS#1 (OpenSSL legacy) key cannot be read; convert it to encrypted PKCS#8 \
             (openssl pkcs8 -topk8) for {KEY_PASSWORD}, or decrypt it"
        ));
    }
    PrivateKeyDer::from_pem_slice(pem).map_err(|error| format!("no usable PEM private key: {error}"))
}

/// Java's test mode: a fresh self-signed certificate for `localhost`.
fn self_signed() -> Result<(Chain, PrivateKeyDer<'static>), TlsError> {
    let certified = rcgen::generate_simple_self_signed(vec![String::from("localhost")])
        .map_err(|error| TlsError(format!("cannot make the test mode's self-signed certificate: {error}")))?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der()));
    Ok((vec![certified.cert.der().clone()], key))
}
