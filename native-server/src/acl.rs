//! Authentication on the RocketMQ port, the daemon's side (docs/PROTOCOL.md §19): the
//! accounts of `--acl-file` (the `accounts` list of RocketMQ 4.x's `plain_acl.yml`), reloaded
//! as the TLS files are (`watch.rs`), the rules of `--auth` and `--allow-from`, and the
//! `Auth` every connection task checks each request against before the route snapshot or
//! the owner sees it. The check itself is the core's ([`nameserver_core::auth::check`]).

use std::collections::BTreeSet;
use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use arc_swap::ArcSwap;
use nameserver_core::auth::{
    AccessKey, Account, Accounts, AuthRules, Cidr, Policy, RequestClass, SecretKey, SourceList, Verdict,
};
use nameserver_core::protocol::{RemotingCommand, RequestCode};
use tokio_util::sync::CancellationToken;
use yaml_rust2::{Yaml, YamlLoader};

use crate::watch::Trigger;

/// How requests on the RocketMQ port are authenticated: the rules, and the accounts with the
/// file they come from.
#[derive(Clone, Debug)]
pub struct AuthConfig {
    /// Each class's policy and source list.
    pub rules: AuthRules,
    /// `--acl-file`: watched and reloaded while the server runs.
    pub acl_file: Option<PathBuf>,
    /// The accounts at start (read from `acl_file`).
    pub accounts: Accounts,
    /// The bytes `accounts` were read from, to tell a later change.
    pub acl_bytes: Vec<u8>,
}

impl AuthConfig {
    /// Every class open to every source, no accounts: Java's NameServer.
    #[must_use]
    pub fn open() -> Self {
        Self { rules: AuthRules::open(), acl_file: None, accounts: Accounts::default(), acl_bytes: Vec::new() }
    }

    /// The start-up lines saying what each class requires.
    #[must_use]
    pub fn describe(&self) -> Vec<String> {
        let mut lines = vec![match &self.acl_file {
            Some(path) => format!(
                "auth: {} accounts from --acl-file {} (reloaded when it changes or on SIGHUP)",
                self.accounts.len(),
                path.display()
            ),
            None => String::from("auth: no --acl-file: no signature is verified (as in Java's NameServer)"),
        }];
        for class in RequestClass::ALL {
            let codes: Vec<String> = (0..1000)
                .filter(|code| RequestClass::of(RequestCode::from(*code)) == Some(class))
                .map(|code| code.to_string())
                .collect();
            let policy = match self.rules.policy(class) {
                Policy::Open => "open (the AccessKey is not read)",
                Policy::Signed => "signed (a known account's valid signature)",
                Policy::Admin => "admin (a valid signature from an account with admin: true)",
                Policy::Deny => "deny (refused to everyone)",
            };
            let from = match self.rules.allow_from(class) {
                Some(list) if list.networks().is_empty() => String::from("from no source"),
                Some(list) => format!("from {list} only"),
                None => String::from("from any source"),
            };
            lines.push(format!("auth: {class} ({}): {policy}, {from}", codes.join(", ")));
        }
        lines
    }
}

/// The accounts a file holds, and what in it was ignored.
#[derive(Debug)]
pub struct AclFile {
    /// The `accounts` list.
    pub accounts: Accounts,
    /// What was ignored, one warning each.
    pub ignored: Vec<String>,
}

/// Why an ACL file cannot be used.
#[derive(Debug)]
pub struct AclError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub why: String,
}

impl fmt::Display for AclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the ACL file {}: {}", self.path.display(), self.why)
    }
}

impl std::error::Error for AclError {}

/// The account keys read; others (`whiteRemoteAddress`, `topicPerms`, ...) are about the
/// brokers' resources and are ignored here.
const ACCOUNT_KEYS: [&str; 3] = ["accessKey", "secretKey", "admin"];

/// Reads `path`: the accounts, the warnings, and the bytes read (to tell a later change).
///
/// # Errors
/// The file cannot be read, is not YAML, has no `accounts` list, an account lacks `accessKey`
/// or `secretKey` or has an `admin` that is not true or false, or two share an `accessKey`.
pub fn load(path: &Path) -> Result<(AclFile, Vec<u8>), AclError> {
    let error = |why: String| AclError { path: path.to_path_buf(), why };
    let bytes = std::fs::read(path).map_err(|e| error(format!("cannot read it: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| error(String::from("it is not UTF-8 text")))?;
    let mut file = parse(text).map_err(error)?;
    file.ignored.extend(readable_by_others(path));
    Ok((file, bytes))
}

/// The accounts of a `plain_acl.yml` text.
///
/// # Errors
/// As [`load`].
pub fn parse(text: &str) -> Result<AclFile, String> {
    let documents = YamlLoader::load_from_str(text).map_err(|e| format!("it is not YAML: {e}"))?;
    let Some(Yaml::Hash(top)) = documents.first() else {
        return Err(String::from("it has no `accounts:` list (the accounts of RocketMQ's plain_acl.yml)"));
    };
    let mut ignored = Vec::new();
    let mut accounts = None;
    for (key, value) in top {
        match key.as_str() {
            Some("accounts") => accounts = Some(value),
            Some(other) => ignored.push(format!("`{other}` is ignored: only the accounts are read")),
            None => ignored.push(format!("the key {key:?} is ignored: only the accounts are read")),
        }
    }
    let list = match accounts {
        Some(Yaml::Array(list)) => list.as_slice(),
        Some(Yaml::Null) => &[],
        Some(_) => return Err(String::from("`accounts` is not a list")),
        None => return Err(String::from("it has no `accounts:` list (the accounts of RocketMQ's plain_acl.yml)")),
    };
    let mut unread_keys = BTreeSet::new();
    let mut parsed = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        let Yaml::Hash(fields) = entry else {
            return Err(format!("accounts[{i}] is not a mapping of accessKey, secretKey and admin"));
        };
        let field = |name: &str| fields.get(&Yaml::String(name.to_string()));
        let named = field("accessKey").and_then(scalar);
        let which = named.as_ref().map_or_else(|| format!("accounts[{i}]"), |ak| format!("accounts[{i}] ({ak})"));
        let access_key = named
            .ok_or_else(|| format!("{which} has no accessKey"))
            .and_then(|ak| AccessKey::new(ak).map_err(|e| format!("{which}: {e}")))?;
        let secret_key = field("secretKey")
            .and_then(scalar)
            .ok_or_else(|| format!("{which} has no secretKey"))
            .and_then(|sk| SecretKey::new(sk).map_err(|e| format!("{which}: {e}")))?;
        let admin = match field("admin") {
            None | Some(Yaml::Null) => false,
            Some(Yaml::Boolean(admin)) => *admin,
            Some(Yaml::String(text)) if text.eq_ignore_ascii_case("true") => true,
            Some(Yaml::String(text)) if text.eq_ignore_ascii_case("false") => false,
            Some(_) => return Err(format!("{which}: admin must be true or false")),
        };
        for key in fields.keys() {
            let name = key.as_str().map_or_else(|| format!("{key:?}"), str::to_string);
            if !ACCOUNT_KEYS.contains(&name.as_str()) {
                unread_keys.insert(name);
            }
        }
        parsed.push(Account { access_key, secret_key, admin });
    }
    if !unread_keys.is_empty() {
        let keys: Vec<_> = unread_keys.into_iter().collect();
        ignored.push(format!(
            "the account keys {} are ignored: the NameServer reads accessKey, secretKey and admin \
             (list sources with --allow-from instead of whiteRemoteAddress)",
            keys.join(", ")
        ));
    }
    if parsed.is_empty() {
        ignored.push(String::from("it lists no accounts: every signed or admin class refuses every request"));
    }
    let accounts = Accounts::new(parsed).map_err(|e| e.to_string())?;
    Ok(AclFile { accounts, ignored })
}

/// A key or secret as Java reads it: text, or a number YAML read as one (`secretKey: 12345678`).
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(number) => Some(number.to_string()),
        _ => None,
    }
}

/// A warning when users other than the owner may read the secrets.
#[cfg(unix)]
fn readable_by_others(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(path).ok()?.permissions().mode();
    (mode & 0o044 != 0).then(|| {
        format!("it holds secret keys and its group or other users can read it (mode {:o}); chmod 600 it", mode & 0o777)
    })
}

#[cfg(not(unix))]
fn readable_by_others(_path: &Path) -> Option<String> {
    None
}

/// The rules and the accounts in use, shared by every connection task.
#[derive(Debug)]
pub(crate) struct Auth {
    rules: AuthRules,
    /// Nothing is checked: every class open to every source.
    open: bool,
    accounts: ArcSwap<Accounts>,
}

impl Auth {
    pub(crate) fn new(rules: AuthRules, accounts: Accounts) -> Self {
        let open = rules == AuthRules::open();
        Self { rules, open, accounts: ArcSwap::from_pointee(accounts) }
    }

    /// Whether every request is answered without a check (no `--acl-file`, `--auth` or
    /// `--allow-from`).
    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// Whether `request` from `source` may be answered.
    pub(crate) fn check(&self, source: IpAddr, request: &RemotingCommand) -> Verdict {
        if self.open {
            return Verdict::Allow;
        }
        nameserver_core::auth::check(&self.rules, &self.accounts.load(), source, request)
    }
}

/// Reloads the accounts of `path` whenever its bytes change or on SIGHUP, until `stop`. A file
/// that no longer reads or parses is logged, and the accounts in use stay.
pub(crate) async fn watch(path: PathBuf, seen: Vec<u8>, auth: Arc<Auth>, stop: CancellationToken) {
    crate::watch::watch(vec![path.clone()], vec![seen], stop, |trigger| {
        let why = match trigger {
            Trigger::Hangup => "SIGHUP",
            Trigger::Changed => "the ACL file changed",
        };
        match load(&path) {
            Ok((file, bytes)) => {
                for warning in &file.ignored {
                    tracing::warn!("the ACL file {}: {warning}", path.display());
                }
                let count = file.accounts.len();
                auth.accounts.store(Arc::new(file.accounts));
                tracing::info!("{why}: reloaded {count} accounts from the ACL file {}", path.display());
                Some(vec![bytes])
            }
            Err(error) => {
                tracing::error!("{why}: cannot reload it ({error}); keeping the accounts in use");
                None
            }
        }
    })
    .await;
}

/// One `--auth` value: `CLASS=POLICY`, several separated by commas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassPolicies(pub Vec<(RequestClass, Policy)>);

impl FromStr for ClassPolicies {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let usage = "give CLASS=POLICY, e.g. broker=signed, several separated by commas; \
                     classes: route-read, broker, admin-read, admin-write; policies: open, signed, admin, deny";
        text.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                let (class, policy) = item.split_once('=').ok_or_else(|| format!("`{item}`: {usage}"))?;
                let class = class.trim().parse().map_err(|e| format!("`{item}`: the class: {e}"))?;
                let policy = policy.trim().parse().map_err(|e| format!("`{item}`: the policy: {e}"))?;
                Ok((class, policy))
            })
            .collect::<Result<_, String>>()
            .map(Self)
    }
}

/// One `--allow-from` value: `CLASS=CIDR,CIDR,...`; another `CLASS=` in the list starts that
/// class's networks (`broker=10.0.0.0/8,admin-write=10.1.2.3`). `CLASS=` alone lists none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassSources(pub Vec<(RequestClass, Vec<Cidr>)>);

impl FromStr for ClassSources {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let mut out: Vec<(RequestClass, Vec<Cidr>)> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|item| !item.is_empty()) {
            let network = match item.split_once('=') {
                Some((class, first)) => {
                    let class = class.trim().parse().map_err(|e| format!("`{item}`: the class: {e}"))?;
                    out.push((class, Vec::new()));
                    first.trim()
                }
                None => item,
            };
            let Some((_, networks)) = out.last_mut() else {
                return Err(format!(
                    "`{item}`: give CLASS=CIDR,CIDR,..., e.g. admin-write=10.0.0.0/8,192.0.2.7; \
                     classes: route-read, broker, admin-read, admin-write"
                ));
            };
            if !network.is_empty() {
                networks.extend_from_slice(network.parse::<SourceList>().map_err(|e| e.to_string())?.networks());
            }
        }
        Ok(Self(out))
    }
}

/// The rules `--auth` and `--allow-from` give, on top of the defaults (with accounts or not).
///
/// # Errors
/// A class given two policies, or a signed or admin class without accounts.
pub fn rules(with_file: bool, policies: &[ClassPolicies], sources: &[ClassSources]) -> Result<AuthRules, String> {
    let mut rules = if with_file { AuthRules::with_accounts() } else { AuthRules::open() };
    let mut given: Vec<(RequestClass, Policy)> = Vec::new();
    for &(class, policy) in policies.iter().flat_map(|p| &p.0) {
        if let Some((_, earlier)) = given.iter().find(|(c, p)| *c == class && *p != policy) {
            return Err(format!("--auth gives {class} two policies: {earlier} and {policy}"));
        }
        given.push((class, policy));
        rules.set_policy(class, policy);
    }
    if !with_file {
        if let Some(&(class, policy)) = given.iter().find(|(_, p)| matches!(p, Policy::Signed | Policy::Admin)) {
            return Err(format!(
                "--auth {class}={policy} verifies signatures, which needs the accounts of --acl-file \
                 (RocketMQ's plain_acl.yml); without one only open, deny and --allow-from apply"
            ));
        }
    }
    for class in RequestClass::ALL {
        let mut listed = sources.iter().flat_map(|s| &s.0).filter(|(c, _)| *c == class).peekable();
        if listed.peek().is_some() {
            let networks: Vec<Cidr> = listed.flat_map(|(_, networks)| networks.iter().copied()).collect();
            rules.set_allow_from(class, SourceList::from(networks));
        }
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_acl_yml_accounts_are_read_and_the_rest_ignored() {
        let file = parse(
            "globalWhiteRemoteAddresses:\n  - 10.10.103.*\naccounts:\n  - accessKey: RocketMQ\n    secretKey: 12345678\n    \
             whiteRemoteAddress:\n    admin: false\n    defaultTopicPerm: DENY\n  - accessKey: rocketmq2\n    \
             secretKey: \"s3cr3t!\"\n    admin: true\n",
        )
        .unwrap();
        assert_eq!(file.accounts.len(), 2);
        let plain = file.accounts.get("RocketMQ").unwrap();
        assert_eq!((plain.secret_key.as_str(), plain.admin), ("12345678", false));
        assert!(file.accounts.get("rocketmq2").unwrap().admin);
        assert_eq!(file.ignored.len(), 2, "{:?}", file.ignored);
        assert!(file.ignored[0].contains("globalWhiteRemoteAddresses"));
        assert!(file.ignored[1].contains("defaultTopicPerm, whiteRemoteAddress"), "{:?}", file.ignored);
    }

    #[test]
    fn a_bad_file_says_what_is_wrong() {
        let said = |text: &str| parse(text).unwrap_err();
        assert!(said("accounts: [").starts_with("it is not YAML"));
        assert!(said("globalWhiteRemoteAddresses: []\n").contains("no `accounts:` list"));
        assert!(said("accounts: 3\n").contains("not a list"));
        assert_eq!(said("accounts:\n  - secretKey: x\n"), "accounts[0] has no accessKey");
        assert_eq!(said("accounts:\n  - accessKey: ak\n"), "accounts[0] (ak) has no secretKey");
        assert_eq!(
            said("accounts:\n  - {accessKey: ak, secretKey: s, admin: 1}\n"),
            "accounts[0] (ak): admin must be true or false"
        );
        assert_eq!(
            said("accounts:\n  - {accessKey: ak, secretKey: s}\n  - {accessKey: ak, secretKey: t}\n"),
            "two accounts have the accessKey `ak`"
        );
        assert!(said("accounts:\n  - {accessKey: ak, accessKey: b, secretKey: s}\n").contains("duplicated key"));
    }

    #[test]
    fn flags_give_policies_and_sources_per_class() {
        let policies: ClassPolicies = "broker=open, admin-read=deny".parse().unwrap();
        let sources: ClassSources = "broker=10.0.0.0/8,192.0.2.7,admin-write=".parse().unwrap();
        let given = rules(true, &[policies], &[sources, "broker=10.1.0.1".parse().unwrap()]).unwrap();
        assert_eq!(given.policy(RequestClass::Broker), Policy::Open);
        assert_eq!(given.policy(RequestClass::AdminRead), Policy::Deny);
        assert_eq!(given.policy(RequestClass::AdminWrite), Policy::Admin);
        assert_eq!(given.allow_from(RequestClass::Broker).unwrap().to_string(), "10.0.0.0/8,192.0.2.7/32,10.1.0.1/32");
        assert!(given.allow_from(RequestClass::AdminWrite).unwrap().networks().is_empty());
        assert!(given.allow_from(RequestClass::RouteRead).is_none());

        assert!("broker".parse::<ClassPolicies>().unwrap_err().contains("CLASS=POLICY"));
        assert!("brokers=open".parse::<ClassPolicies>().unwrap_err().contains("the class"));
        assert!("10.0.0.0/8".parse::<ClassSources>().unwrap_err().contains("CLASS=CIDR"));
        assert!("broker=10.0.0.300".parse::<ClassSources>().unwrap_err().contains("not an address"));
        let twice = ["broker=open".parse().unwrap(), "broker=signed".parse().unwrap()];
        assert!(rules_error(true, &twice).contains("two policies"));
        assert!(
            rules_error(false, &["admin-write=admin".parse().unwrap()]).contains("needs the accounts of --acl-file")
        );
        let without_file = rules(false, &["admin-write=deny".parse().unwrap()], &[]).unwrap();
        assert_eq!(without_file.policy(RequestClass::Broker), Policy::Open);
        assert_eq!(without_file.policy(RequestClass::AdminWrite), Policy::Deny);
    }

    fn rules_error(with_file: bool, policies: &[ClassPolicies]) -> String {
        rules(with_file, policies, &[]).unwrap_err()
    }
}
