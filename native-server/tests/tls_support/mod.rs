//! Shared by the TLS and PROXY protocol tests: a small PKI made with rcgen at test time (a CA,
//! a server certificate for localhost/127.0.0.1, a client certificate), written as PEM files,
//! a rustls client, and frame I/O over any stream.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nameserver::tls::{ClientAuth, TlsConfig, TlsMode};
use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::RemotingCommand;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// PEM files of a test PKI.
pub(crate) struct Pki {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) ca: PathBuf,
    pub(crate) server_cert: PathBuf,
    pub(crate) server_key: PathBuf,
    pub(crate) client_cert: PathBuf,
    pub(crate) client_key: PathBuf,
}

impl Pki {
    /// A CA, a server certificate signed by it and a client certificate signed by it.
    pub(crate) fn new() -> Self {
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

    /// The server's TLS settings in `mode` with this PKI's server certificate.
    pub(crate) fn server(&self, mode: TlsMode) -> TlsConfig {
        TlsConfig {
            mode,
            test_mode: false,
            cert_path: Some(self.server_cert.clone()),
            key_path: Some(self.server_key.clone()),
            ..TlsConfig::java_defaults()
        }
    }

    /// [`Self::server`] that also requires a client certificate signed by the CA.
    pub(crate) fn server_requiring_clients(&self, mode: TlsMode) -> TlsConfig {
        TlsConfig {
            need_client_auth: ClientAuth::Require,
            trust_cert_path: Some(self.ca.clone()),
            auth_client: true,
            ..self.server(mode)
        }
    }

    /// A rustls client trusting the CA, with the client certificate if `with_cert`.
    pub(crate) fn client(&self, with_cert: bool) -> tokio_rustls::TlsConnector {
        client_trusting(&self.ca, with_cert.then_some((self.client_cert.as_path(), self.client_key.as_path())))
    }
}

/// A rustls client trusting the CA certificates in `ca`, showing `cert` if given.
pub(crate) fn client_trusting(ca: &Path, cert: Option<(&Path, &Path)>) -> tokio_rustls::TlsConnector {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let config = match cert {
        Some((cert, key)) => {
            let chain = CertificateDer::pem_file_iter(cert).unwrap().map(Result::unwrap).collect();
            builder.with_client_auth_cert(chain, PrivateKeyDer::from_pem_file(key).unwrap()).unwrap()
        }
        None => builder.with_no_client_auth(),
    };
    tokio_rustls::TlsConnector::from(Arc::new(config))
}

/// A TLS connection to `addr` for `localhost`, after `prefix` (a PROXY header) in plaintext.
pub(crate) async fn tls_connect(
    connector: &tokio_rustls::TlsConnector,
    addr: std::net::SocketAddr,
    prefix: &[u8],
) -> std::io::Result<TlsStream<TcpStream>> {
    let mut tcp = TcpStream::connect(addr).await?;
    tcp.write_all(prefix).await?;
    connector.connect(ServerName::try_from("localhost").unwrap(), tcp).await
}

/// Writes `cmd` and reads one frame back; `None` if the connection ends first.
pub(crate) async fn call<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    cmd: &RemotingCommand,
) -> Option<RemotingCommand> {
    stream.write_all(&codec::encode_to_vec(cmd).unwrap()).await.ok()?;
    read_frame(stream).await
}

/// Reads one whole frame; `None` if the connection ends (or fails) first.
pub(crate) async fn read_frame<S: AsyncRead + Unpin>(stream: &mut S) -> Option<RemotingCommand> {
    let mut buf = Vec::new();
    loop {
        if let Ok(Some((cmd, _))) = codec::decode(&buf, &Limits::DEFAULT) {
            return Some(cmd);
        }
        let mut chunk = [0u8; 4096];
        match tokio::time::timeout(crate::support::PATIENCE, stream.read(&mut chunk)).await {
            Ok(Ok(0) | Err(_)) => return None,
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
            Err(_) => panic!("no frame and no close within {:?}", crate::support::PATIENCE),
        }
    }
}
