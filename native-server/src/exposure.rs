//! What an operator must be told at start about who can reach this NameServer: each line is a
//! way in that the configuration leaves open without saying so.

use std::net::SocketAddr;

use crate::tls::{self, ClientAuth, TlsConfig, TlsMode};

/// The warnings for a RocketMQ port listening on `listening` with `tls`.
#[must_use]
pub fn warnings(listening: SocketAddr, tls: &TlsConfig) -> Vec<String> {
    let mut out = Vec::new();
    let checked_clients =
        tls.mode == TlsMode::Enforcing && tls.need_client_auth == ClientAuth::Require && tls.trust_cert_path.is_some();
    if !listening.ip().is_loopback() && !checked_clients {
        out.push(format!(
            "the RocketMQ port {listening} serves anyone who reaches it, as Java's NameServer does: any client can \
             register or unregister brokers, delete topics and change the configuration. Keep it on a network only \
             brokers and clients reach (a firewall, or deploy/kubernetes' NetworkPolicy), or require client \
             certificates ({}=enforcing, {}=require, {})",
            tls::MODE,
            tls::NEED_CLIENT_AUTH,
            tls::TRUST_CERT_PATH
        ));
    }
    if tls.mode == TlsMode::Permissive && tls.need_client_auth == ClientAuth::Require {
        out.push(format!(
            "{}=require, but {}=permissive still serves plaintext connections, which show no certificate; \
             set {}=enforcing to require one",
            tls::NEED_CLIENT_AUTH,
            tls::MODE,
            tls::MODE
        ));
    }
    if tls.mode != TlsMode::Disabled && tls.need_client_auth != ClientAuth::None && tls.trust_cert_path.is_none() {
        out.push(format!(
            "{}={} asks clients for a certificate, but without {} any certificate passes; name the CA \
             certificates client certificates must chain to",
            tls::NEED_CLIENT_AUTH,
            tls.need_client_auth.name(),
            tls::TRUST_CERT_PATH
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    #[test]
    fn each_open_way_in_is_said() {
        let mut tls = TlsConfig::java_defaults();
        assert!(warnings(addr("127.0.0.1:9876"), &tls).is_empty(), "loopback with Java's defaults");
        let open = warnings(addr("0.0.0.0:9876"), &tls);
        assert_eq!(open.len(), 1);
        assert!(open[0].starts_with("the RocketMQ port 0.0.0.0:9876 serves anyone"), "{open:?}");
        tls.need_client_auth = ClientAuth::Require;
        let said = warnings(addr("127.0.0.1:9876"), &tls);
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(said[0].contains("still serves plaintext"));
        assert!(said[1].contains("any certificate passes"));
        tls.mode = TlsMode::Enforcing;
        tls.trust_cert_path = Some("/etc/rocketmq/ca.pem".into());
        assert!(warnings(addr("[::]:9876"), &tls).is_empty(), "every client shows a certificate a CA signed");
    }
}
