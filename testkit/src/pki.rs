//! A small PKI made with rcgen at test time (a CA, a server certificate for
//! localhost/127.0.0.1, a client certificate), written as PEM files, and rustls clients.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// PEM files of a test PKI, in a temporary directory of their own.
#[derive(Debug)]
pub struct Pki {
    /// The directory holding the files.
    pub dir: tempfile::TempDir,
    /// The CA certificate.
    pub ca: PathBuf,
    /// The server certificate (localhost, 127.0.0.1), signed by the CA.
    pub server_cert: PathBuf,
    /// Its key.
    pub server_key: PathBuf,
    /// A client certificate, signed by the CA.
    pub client_cert: PathBuf,
    /// Its key.
    pub client_key: PathBuf,
}

impl Pki {
    /// A CA, a server certificate signed by it and a client certificate signed by it.
    ///
    /// # Panics
    /// Generating or writing fails.
    #[must_use]
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(DnType::CommonName, "nameserver test CA");
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let leaf = |names: Vec<String>, cn: &str| {
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(names).unwrap();
            params.distinguished_name.push(DnType::CommonName, cn);
            (params.signed_by(&key, &ca).unwrap(), key)
        };
        let (server, server_key) = leaf(vec!["localhost".into(), "127.0.0.1".into()], "localhost");
        let (client, client_key) = leaf(vec!["client.test".into()], "a RocketMQ client");
        let write = |name: &str, text: String| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        Self {
            ca: write("ca.pem", ca.pem()),
            server_cert: write("server.pem", server.pem()),
            server_key: write("server.key", server_key.serialize_pem()),
            client_cert: write("client.pem", client.pem()),
            client_key: write("client.key", client_key.serialize_pem()),
            dir,
        }
    }

    /// A rustls client trusting the CA, with the client certificate if `with_cert`.
    ///
    /// # Panics
    /// A file does not read back.
    #[must_use]
    pub fn client(&self, with_cert: bool) -> tokio_rustls::TlsConnector {
        tokio_rustls::TlsConnector::from(self.client_config(with_cert))
    }

    /// The rustls settings of [`Self::client`], for a blocking client
    /// ([`crate::wire::Client::connect_tls`]).
    ///
    /// # Panics
    /// A file does not read back.
    #[must_use]
    pub fn client_config(&self, with_cert: bool) -> Arc<rustls::ClientConfig> {
        client_config(&self.ca, with_cert.then_some((self.client_cert.as_path(), self.client_key.as_path())))
    }
}

impl Default for Pki {
    fn default() -> Self {
        Self::new()
    }
}

/// A rustls client trusting the CA certificates in `ca`, showing `cert` (certificate, key) if given.
///
/// # Panics
/// A file does not read or parse.
#[must_use]
pub fn client_trusting(ca: &Path, cert: Option<(&Path, &Path)>) -> tokio_rustls::TlsConnector {
    tokio_rustls::TlsConnector::from(client_config(ca, cert))
}

/// A rustls client trusting the CA certificates in `ca` that offers only `suites` (all of
/// rustls's when empty) and `versions`, to try a server's `tls.ciphers` and `tls.protocols`
/// (`tokio_rustls::TlsConnector::from` it, or give it to [`crate::wire::Client::connect_tls`]).
///
/// # Panics
/// A file does not read or parse, or no suite fits the versions.
#[must_use]
pub fn client_offering(
    ca: &Path,
    suites: &[rustls::CipherSuite],
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Arc<rustls::ClientConfig> {
    let mut provider = rustls::crypto::ring::default_provider();
    if !suites.is_empty() {
        provider.cipher_suites.retain(|s| suites.contains(&s.suite()));
    }
    client_config_of(provider, versions, ca, None)
}

fn client_config(ca: &Path, cert: Option<(&Path, &Path)>) -> Arc<rustls::ClientConfig> {
    client_config_of(rustls::crypto::ring::default_provider(), rustls::DEFAULT_VERSIONS, ca, cert)
}

fn client_config_of(
    provider: rustls::crypto::CryptoProvider,
    versions: &[&'static rustls::SupportedProtocolVersion],
    ca: &Path,
    cert: Option<(&Path, &Path)>,
) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(versions)
        .unwrap()
        .with_root_certificates(roots);
    let config = match cert {
        Some((cert, key)) => {
            let chain = CertificateDer::pem_file_iter(cert).unwrap().map(Result::unwrap).collect();
            builder.with_client_auth_cert(chain, PrivateKeyDer::from_pem_file(key).unwrap()).unwrap()
        }
        None => builder.with_no_client_auth(),
    };
    Arc::new(config)
}

/// A TLS connection to `addr` for `localhost`, after `prefix` (a PROXY header) in plaintext.
///
/// # Errors
/// The connection or the handshake fails.
///
/// # Panics
/// Never: `localhost` is a valid server name.
pub async fn tls_connect(
    connector: &tokio_rustls::TlsConnector,
    addr: std::net::SocketAddr,
    prefix: &[u8],
) -> std::io::Result<TlsStream<TcpStream>> {
    let mut tcp = TcpStream::connect(addr).await?;
    tcp.write_all(prefix).await?;
    connector.connect(ServerName::try_from("localhost").unwrap(), tcp).await
}
