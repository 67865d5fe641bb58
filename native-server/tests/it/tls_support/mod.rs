//! Shared by the TLS and PROXY protocol tests: the test kit's PKI (a CA, a server certificate
//! for localhost/127.0.0.1, a client certificate, as PEM files) with the daemon's TLS settings
//! for it, and the kit's rustls clients and frame I/O over any stream.

use nameserver::tls::{ClientAuth, TlsConfig, TlsMode};
pub(crate) use nameserver_testkit::client::{call, read_frame};
pub(crate) use nameserver_testkit::pki::{client_offering, client_trusting, tls_connect};

/// PEM files of a test PKI ([`nameserver_testkit::Pki`]) and the daemon's TLS settings for them.
pub(crate) struct Pki(nameserver_testkit::Pki);

impl Pki {
    /// A CA, a server certificate signed by it and a client certificate signed by it.
    pub(crate) fn new() -> Self {
        Self(nameserver_testkit::Pki::new())
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
}

impl std::ops::Deref for Pki {
    type Target = nameserver_testkit::Pki;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}
