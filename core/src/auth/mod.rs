//! Authentication on 9876: whether a request may be answered, from its class's policy, the
//! accounts, the source address and the signature RocketMQ clients already send
//! (`AclClientRPCHook`; the rule is in [`sign`] and docs/PROTOCOL.md).
//!
//! [`check`] is pure: drivers call it on every request before it reaches the [`NameServer`]
//! or a route snapshot, over the body as received (a compressed registration before it is
//! inflated), and send the refusal's reply (none for oneway requests). Two rules hold in
//! every configuration: an [`Policy::Open`] class never reads the AccessKey, and every other
//! class verifies the signature of every request before it looks at who sent it.
//!
//! [`NameServer`]: crate::NameServer

mod policy;
mod sign;
mod source;

use alloc::format;
use alloc::string::String;
use core::net::IpAddr;

pub use policy::{AccessKey, Account, AccountError, Accounts, Policy, RequestClass, SecretKey, UnknownName};
pub use sign::{
    ACCESS_KEY, LAST_VERSION_UNSIGNED_UNIQUE_KEY, SIGNATURE, UNIQUE_KEY_QUERY, java_order, sign, signature, verify,
};
pub use source::{Cidr, CidrError, SourceList, SourceListError};

use crate::protocol::{RemotingCommand, ResponseCode};

/// The policy and source allowlist of each [`RequestClass`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthRules {
    policies: [Policy; 4],
    sources: [Option<SourceList>; 4],
}

impl AuthRules {
    /// Every class open to every source: Java's NameServer, which has no authentication.
    #[must_use]
    pub fn open() -> Self {
        Self { policies: [Policy::Open; 4], sources: Default::default() }
    }

    /// The defaults once accounts are configured: route-read open, broker and admin-read
    /// signed, admin-write admin; no source lists.
    #[must_use]
    pub fn with_accounts() -> Self {
        let mut rules = Self::open();
        rules.set_policy(RequestClass::Broker, Policy::Signed);
        rules.set_policy(RequestClass::AdminRead, Policy::Signed);
        rules.set_policy(RequestClass::AdminWrite, Policy::Admin);
        rules
    }

    /// Sets a class's policy.
    pub fn set_policy(&mut self, class: RequestClass, policy: Policy) {
        self.policies[class.index()] = policy;
    }

    /// A class's policy.
    #[must_use]
    pub fn policy(&self, class: RequestClass) -> Policy {
        self.policies[class.index()]
    }

    /// Requires a class's requests to come from `sources`, on top of its policy.
    pub fn set_allow_from(&mut self, class: RequestClass, sources: SourceList) {
        self.sources[class.index()] = Some(sources);
    }

    /// A class's source list; `None` admits every source.
    #[must_use]
    pub fn allow_from(&self, class: RequestClass) -> Option<&SourceList> {
        self.sources[class.index()].as_ref()
    }

    /// Whether any class verifies signatures (and so needs accounts).
    #[must_use]
    pub fn verifies(&self) -> bool {
        self.policies.iter().any(|p| matches!(p, Policy::Signed | Policy::Admin))
    }
}

/// What [`check`] decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Answer the request as usual.
    Allow,
    /// Answer NO_PERMISSION (16) with the refusal's remark, and do nothing else.
    Refuse(Refusal),
}

/// A refused request: why, and the remark Java 5.5.0 gives for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The request's class.
    pub class: RequestClass,
    /// Why, for counters and logs.
    pub reason: RefusalReason,
    /// The reply's remark.
    pub remark: String,
}

impl Refusal {
    /// The reply to send for `request` (drivers send none to a oneway request).
    #[must_use]
    pub fn reply_to(&self, request: &RemotingCommand) -> RemotingCommand {
        RemotingCommand::response_to(request, ResponseCode::NoPermission).with_remark(self.remark.clone())
    }
}

/// Why a request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefusalReason {
    /// No AccessKey, or an empty one: `username cannot be null.`
    NoAccessKey,
    /// An AccessKey no account has: `User:<ak> is not found.`
    UnknownAccessKey,
    /// No Signature, or a wrong one: `check signature failed.`
    BadSignature,
    /// The header repeated an extFields key or held a null one, which no Java client sends and
    /// which the verifier and the handlers would read differently from Java's:
    /// `check signature failed.`
    AmbiguousFields,
    /// A verified account without `admin` on an [`Policy::Admin`] class.
    NotAdmin,
    /// A source outside the class's list.
    SourceNotAllowed,
    /// The class's policy is [`Policy::Deny`].
    Denied,
}

impl RefusalReason {
    /// A stable name for metrics labels and logs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::NoAccessKey => "no_access_key",
            Self::UnknownAccessKey => "unknown_access_key",
            Self::BadSignature => "bad_signature",
            Self::AmbiguousFields => "ambiguous_fields",
            Self::NotAdmin => "not_admin",
            Self::SourceNotAllowed => "source_not_allowed",
            Self::Denied => "denied",
        }
    }
}

/// The user named in a no-permission remark when no identity was verified (open and deny
/// classes never read the AccessKey).
pub const ANONYMOUS: &str = "anonymous";

/// Whether `request`, from `source`, may be answered under `rules` and `accounts`.
///
/// Checks, in order: the class (codes outside every class are allowed); then for
/// [`Policy::Deny`] a refusal, for [`Policy::Open`] the source list; for [`Policy::Signed`]
/// and [`Policy::Admin`] the AccessKey, its account, the header's fields and the signature
/// (Java 5.5.0's authentication), then `admin` and the source list (authorisation, on the
/// verified account only).
#[must_use]
pub fn check(rules: &AuthRules, accounts: &Accounts, source: IpAddr, request: &RemotingCommand) -> Verdict {
    let Some(class) = RequestClass::of(request.request_code()) else { return Verdict::Allow };
    let listed = rules.allow_from(class).is_none_or(|list| list.contains(source));
    let refuse = |reason, remark| Verdict::Refuse(Refusal { class, reason, remark });
    // An IPv4 peer of a dual-stack listener is named as IPv4, as it is matched.
    let shown = source.to_canonical();
    let no_permission = |user: &str| {
        format!("User:{user} has no permission to access NameServer:{class} from {shown}, no matched policies.")
    };
    let policy = rules.policy(class);
    match policy {
        Policy::Deny => return refuse(RefusalReason::Denied, no_permission(ANONYMOUS)),
        Policy::Open if listed => return Verdict::Allow,
        Policy::Open => return refuse(RefusalReason::SourceNotAllowed, no_permission(ANONYMOUS)),
        Policy::Signed | Policy::Admin => {}
    }
    let account = match authenticate(accounts, request) {
        Ok(account) => account,
        Err((reason, remark)) => return refuse(reason, remark),
    };
    let user = account.access_key.as_str();
    if policy == Policy::Admin && !account.admin {
        return refuse(RefusalReason::NotAdmin, no_permission(user));
    }
    if !listed {
        return refuse(RefusalReason::SourceNotAllowed, no_permission(user));
    }
    Verdict::Allow
}

/// The account whose signature `request` carries, in the order and with the texts of Java
/// 5.5.0's `DefaultAuthenticationHandler`.
fn authenticate<'a>(accounts: &'a Accounts, request: &RemotingCommand) -> Result<&'a Account, (RefusalReason, String)> {
    let Some(access_key) = request.field(ACCESS_KEY).filter(|key| !key.is_empty()) else {
        return Err((RefusalReason::NoAccessKey, String::from("username cannot be null.")));
    };
    let Some(account) = accounts.get(access_key) else {
        return Err((RefusalReason::UnknownAccessKey, format!("User:{access_key} is not found.")));
    };
    if request.ext_fields_lossy {
        return Err((RefusalReason::AmbiguousFields, String::from(SIGNATURE_FAILED)));
    }
    if !verify(request, &account.secret_key) {
        return Err((RefusalReason::BadSignature, String::from(SIGNATURE_FAILED)));
    }
    Ok(account)
}

const SIGNATURE_FAILED: &str = "check signature failed.";
