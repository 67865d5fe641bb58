//! What an operator must be told at start about who can reach this NameServer: each line is a
//! way in that the configuration leaves open without saying so.

use std::net::SocketAddr;

use nameserver_core::auth::{AuthRules, Policy, RequestClass};

use crate::tls::{self, ClientAuth, TlsConfig, TlsMode};

/// The warnings for a RocketMQ port listening on `listening` with `tls` and `auth`.
#[must_use]
pub fn warnings(listening: SocketAddr, tls: &TlsConfig, auth: &AuthRules) -> Vec<String> {
    let mut out = Vec::new();
    let checked_clients =
        tls.mode == TlsMode::Enforcing && tls.need_client_auth == ClientAuth::Require && tls.trust_cert_path.is_some();
    // Deleting topics and changing the configuration is what an open port gives away first.
    let admin_write = RequestClass::AdminWrite;
    let admin_write_open = auth.policy(admin_write) == Policy::Open && auth.allow_from(admin_write).is_none();
    if !listening.ip().is_loopback() && !checked_clients && admin_write_open {
        out.push(format!(
            "the RocketMQ port {listening} serves anyone who reaches it, as Java's NameServer does: any client can \
             register or unregister brokers, delete topics and change the configuration. Keep it on a network only \
             brokers and clients reach (a firewall, or deploy/kubernetes' NetworkPolicy), require signed requests \
             (--acl-file: admin-write then needs an admin account) or admin hosts (--allow-from admin-write=CIDR,...), \
             or require client certificates ({}=enforcing, {}=require, {})",
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
        let java = AuthRules::open();
        assert!(warnings(addr("127.0.0.1:9876"), &tls, &java).is_empty(), "loopback with Java's defaults");
        let open = warnings(addr("0.0.0.0:9876"), &tls, &java);
        assert_eq!(open.len(), 1);
        assert!(open[0].starts_with("the RocketMQ port 0.0.0.0:9876 serves anyone"), "{open:?}");
        let signed = AuthRules::with_accounts();
        assert!(warnings(addr("0.0.0.0:9876"), &tls, &signed).is_empty(), "admin-write needs an admin");
        let mut listed = AuthRules::open();
        listed.set_allow_from(RequestClass::AdminWrite, "10.0.0.1".parse().unwrap());
        assert!(warnings(addr("0.0.0.0:9876"), &tls, &listed).is_empty(), "admin-write from listed hosts only");
        let mut reopened = AuthRules::with_accounts();
        reopened.set_policy(RequestClass::AdminWrite, Policy::Open);
        assert_eq!(warnings(addr("0.0.0.0:9876"), &tls, &reopened).len(), 1, "admin-write open again");
        tls.need_client_auth = ClientAuth::Require;
        let said = warnings(addr("127.0.0.1:9876"), &tls, &java);
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(said[0].contains("still serves plaintext"));
        assert!(said[1].contains("any certificate passes"));
        tls.mode = TlsMode::Enforcing;
        tls.trust_cert_path = Some("/etc/rocketmq/ca.pem".into());
        assert!(warnings(addr("[::]:9876"), &tls, &java).is_empty(), "every client shows a certificate a CA signed");
    }
}
