//! Who may do what: the request classes, the policy per class, and the accounts.

use alloc::collections::BTreeMap;
use alloc::string::String;
use core::borrow::Borrow;
use core::fmt;
use core::str::FromStr;

use crate::protocol::RequestCode;

/// The requests a policy covers, by what they touch. Codes outside every class are not
/// checked: they are answered as before (REQUEST_CODE_NOT_SUPPORTED for unknown codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RequestClass {
    /// Route lookups clients make: 105, 106, 901.
    RouteRead,
    /// What brokers send: 103, 104, 217, 322, 904.
    Broker,
    /// Admin reads: 101, 206, 219, 224, 304, 311, 312, 313, 319.
    AdminRead,
    /// Admin changes: 100, 102, 205, 216, 318, 327.
    AdminWrite,
}

impl RequestClass {
    /// Every class, in the order of their names in [`Self::name`].
    pub const ALL: [Self; 4] = [Self::RouteRead, Self::Broker, Self::AdminRead, Self::AdminWrite];

    /// The class of a request code, if it has one.
    #[must_use]
    pub fn of(code: RequestCode) -> Option<Self> {
        Some(match code.raw() {
            105 | 106 | 901 => Self::RouteRead,
            103 | 104 | 217 | 322 | 904 => Self::Broker,
            101 | 206 | 219 | 224 | 304 | 311..=313 | 319 => Self::AdminRead,
            100 | 102 | 205 | 216 | 318 | 327 => Self::AdminWrite,
            _ => return None,
        })
    }

    /// The name flags and refusals use: `route-read`, `broker`, `admin-read`, `admin-write`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::RouteRead => "route-read",
            Self::Broker => "broker",
            Self::AdminRead => "admin-read",
            Self::AdminWrite => "admin-write",
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for RequestClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RequestClass {
    type Err = UnknownName;

    fn from_str(text: &str) -> Result<Self, UnknownName> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == text)
            .ok_or(UnknownName("route-read, broker, admin-read, admin-write"))
    }
}

/// What a class requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Anyone: the AccessKey is never read, let alone trusted.
    Open,
    /// A known account whose signature verifies.
    Signed,
    /// A known account with `admin: true` whose signature verifies.
    Admin,
    /// No one.
    Deny,
}

impl Policy {
    /// Every policy.
    pub const ALL: [Self; 4] = [Self::Open, Self::Signed, Self::Admin, Self::Deny];

    /// The name flags use: `open`, `signed`, `admin`, `deny`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Signed => "signed",
            Self::Admin => "admin",
            Self::Deny => "deny",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Policy {
    type Err = UnknownName;

    fn from_str(text: &str) -> Result<Self, UnknownName> {
        Self::ALL.into_iter().find(|p| p.name() == text).ok_or(UnknownName("open, signed, admin, deny"))
    }
}

/// A class or policy name that is not one; holds the names that are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownName(pub &'static str);

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected one of {}", self.0)
    }
}

impl core::error::Error for UnknownName {}

/// An account's public name (`accessKey`). Invariant: not empty.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AccessKey(String);

impl AccessKey {
    /// # Errors
    /// [`AccountError::EmptyAccessKey`] for "".
    pub fn new(key: impl Into<String>) -> Result<Self, AccountError> {
        let key = key.into();
        if key.is_empty() { Err(AccountError::EmptyAccessKey) } else { Ok(Self(key)) }
    }

    /// The key as sent in `AccessKey`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for AccessKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AccessKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An account's secret (`secretKey`), the HMAC key. Invariant: not empty (Java's HMAC refuses
/// an empty key). `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretKey(String);

impl SecretKey {
    /// # Errors
    /// [`AccountError::EmptySecretKey`] for "".
    pub fn new(secret: impl Into<String>) -> Result<Self, AccountError> {
        let secret = secret.into();
        if secret.is_empty() { Err(AccountError::EmptySecretKey) } else { Ok(Self(secret)) }
    }

    /// The secret text; its UTF-8 bytes are the key.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretKey(..)")
    }
}

/// One account, as an entry of `plain_acl.yml`'s `accounts` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    /// `accessKey`.
    pub access_key: AccessKey,
    /// `secretKey`.
    pub secret_key: SecretKey,
    /// `admin`: may use classes whose policy is [`Policy::Admin`].
    pub admin: bool,
}

/// The accounts, by access key. Invariant: keys are unique.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accounts(BTreeMap<AccessKey, Account>);

impl Accounts {
    /// # Errors
    /// [`AccountError::Duplicate`] when two accounts share an access key.
    pub fn new(accounts: impl IntoIterator<Item = Account>) -> Result<Self, AccountError> {
        let mut map = BTreeMap::new();
        for account in accounts {
            let key = account.access_key.clone();
            if map.insert(key.clone(), account).is_some() {
                return Err(AccountError::Duplicate(key));
            }
        }
        Ok(Self(map))
    }

    /// The account named `access_key`.
    #[must_use]
    pub fn get(&self, access_key: &str) -> Option<&Account> {
        self.0.get(access_key)
    }

    /// How many accounts there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Why an account or the account list is not valid.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AccountError {
    /// An empty `accessKey`.
    EmptyAccessKey,
    /// An empty `secretKey`.
    EmptySecretKey,
    /// Two accounts with this `accessKey`.
    Duplicate(AccessKey),
}

impl fmt::Display for AccountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyAccessKey => f.write_str("an account has an empty accessKey"),
            Self::EmptySecretKey => f.write_str("an account has an empty secretKey"),
            Self::Duplicate(key) => write!(f, "two accounts have the accessKey `{key}`"),
        }
    }
}

impl core::error::Error for AccountError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for class in RequestClass::ALL {
            assert_eq!(class.name().parse(), Ok(class));
        }
        for policy in Policy::ALL {
            assert_eq!(policy.name().parse(), Ok(policy));
        }
        assert!("admin_write".parse::<RequestClass>().is_err());
        assert!("Open".parse::<Policy>().is_err());
    }

    #[test]
    fn classes_cover_the_listed_codes_only() {
        let classed: usize = (0..1000).filter(|c| RequestClass::of(RequestCode::from(*c)).is_some()).count();
        assert_eq!(classed, 3 + 5 + 9 + 6);
        assert_eq!(RequestClass::of(RequestCode::UpdateNamesrvConfig), Some(RequestClass::AdminWrite));
        assert_eq!(RequestClass::of(RequestCode::GetNamesrvConfig), Some(RequestClass::AdminRead));
        assert_eq!(RequestClass::of(RequestCode::from(4242)), None);
    }

    #[test]
    fn accounts_refuse_empty_and_duplicate_keys() {
        assert_eq!(AccessKey::new(""), Err(AccountError::EmptyAccessKey));
        assert_eq!(SecretKey::new("").map(|_| ()), Err(AccountError::EmptySecretKey));
        let account = |ak: &str| Account {
            access_key: AccessKey::new(ak).unwrap(),
            secret_key: SecretKey::new("secret").unwrap(),
            admin: false,
        };
        let dup = Accounts::new([account("a"), account("b"), account("a")]);
        assert_eq!(dup, Err(AccountError::Duplicate(AccessKey::new("a").unwrap())));
        assert_eq!(Accounts::new([account("a"), account("b")]).unwrap().len(), 2);
        assert_eq!(alloc::format!("{:?}", account("a").secret_key), "SecretKey(..)");
    }
}
