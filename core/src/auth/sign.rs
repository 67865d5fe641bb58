//! The signature RocketMQ's `AclClientRPCHook` puts in `Signature`, and its check.
//!
//! `Signature = Base64(HmacSHA1(UTF-8(secretKey), V ‖ body))`, where V is the UTF-8 of the
//! values of every extField except `Signature`, concatenated in ascending key order as Java's
//! `String.compareTo` orders keys (UTF-16 code units, not UTF-8 bytes). The check rebuilds V
//! from the received fields as Apache RocketMQ 5.5.0's verifier does, which also leaves out
//! `_UNIQUE_KEY_QUERY` when the sender's `version` is at most 399 (V4_9_3): those clients added
//! it after signing.

use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit as _, Mac as _};
use sha1::Sha1;

use super::policy::{AccessKey, SecretKey};
use crate::protocol::RemotingCommand;

/// The extField that carries the signature.
pub const SIGNATURE: &str = "Signature";
/// The extField that names the account.
pub const ACCESS_KEY: &str = "AccessKey";
/// The extField a 4.9.x client adds to a message query after signing.
pub const UNIQUE_KEY_QUERY: &str = "_UNIQUE_KEY_QUERY";
/// The last `version` (V4_9_3) whose clients did not sign [`UNIQUE_KEY_QUERY`].
pub const LAST_VERSION_UNSIGNED_UNIQUE_KEY: i32 = 399;

/// The `Signature` a Java client holding `secret` would send with `cmd`'s other fields and
/// body, as the verifier rebuilds them.
#[must_use]
pub fn signature(cmd: &RemotingCommand, secret: &SecretKey) -> String {
    STANDARD.encode(mac(cmd, secret).finalize().into_bytes())
}

/// Whether `cmd`'s `Signature` is the one [`signature`] computes: the same Base64 text (Java
/// compares the texts, so another spelling of the same bytes fails), compared in constant time.
#[must_use]
pub fn verify(cmd: &RemotingCommand, secret: &SecretKey) -> bool {
    let Some(sent) = cmd.field(SIGNATURE) else { return false };
    constant_time_eq(signature(cmd, secret).as_bytes(), sent.as_bytes())
}

/// Signs `cmd` as `AclClientRPCHook` does: adds `AccessKey`, then `Signature` over all fields.
pub fn sign(cmd: &mut RemotingCommand, access_key: &AccessKey, secret: &SecretKey) {
    let fields = cmd.ext_fields.get_or_insert_with(Default::default);
    fields.remove(SIGNATURE);
    fields.insert(String::from(ACCESS_KEY), String::from(access_key.as_str()));
    let signature = signature(cmd, secret);
    cmd.ext_fields.get_or_insert_with(Default::default).insert(String::from(SIGNATURE), signature);
}

/// Java's `String.compareTo`: UTF-16 code unit order. It differs from `str`'s byte order when
/// a character above U+FFFF meets one in U+E000..=U+FFFF.
#[must_use]
pub fn java_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn mac(cmd: &RemotingCommand, secret: &SecretKey) -> Hmac<Sha1> {
    // HMAC takes keys of any length; `SecretKey` is never empty, as Java's `SecretKeySpec`
    // requires.
    let mut mac = Hmac::<Sha1>::new_from_slice(secret.as_str().as_bytes()).expect("HMAC accepts any key length");
    let skip_unique_key = cmd.version <= LAST_VERSION_UNSIGNED_UNIQUE_KEY;
    let mut signed: Vec<(&str, &str)> = cmd
        .ext_fields
        .iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .filter(|(k, _)| *k != SIGNATURE && !(skip_unique_key && *k == UNIQUE_KEY_QUERY))
        .collect();
    // The map is in byte order, already Java's except for the pairs `java_order` exists for.
    signed.sort_by(|(a, _), (b, _)| java_order(a, b));
    for (_, value) in signed {
        mac.update(value.as_bytes());
    }
    mac.update(&cmd.body);
    mac
}

/// Equality whose time depends on the lengths only, not on where the bytes differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    core::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_order_is_utf16_order() {
        // U+1F600 is D83D DE00 in UTF-16, below U+FF01; in UTF-8 it is F0.., above EF BC 81.
        assert_eq!(java_order("\u{1F600}", "\u{FF01}"), Ordering::Less);
        assert_eq!("\u{1F600}".cmp("\u{FF01}"), Ordering::Greater);
        assert_eq!(java_order("\u{1F600}", "\u{D7FF}"), Ordering::Greater);
        assert_eq!(java_order("a", "ab"), Ordering::Less);
        assert_eq!(java_order("B", "a"), Ordering::Less);
    }

    #[test]
    fn constant_time_eq_compares_whole_slices() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(constant_time_eq(b"", b""));
    }

    #[test]
    fn a_signed_command_verifies_until_changed() {
        let secret = SecretKey::new("12345678").unwrap();
        let mut cmd = RemotingCommand::request(crate::protocol::RequestCode::PutKvConfig)
            .with_field("namespace", "ns")
            .with_field("key", "k")
            .with_body(*b"body");
        sign(&mut cmd, &AccessKey::new("rocketmq2").unwrap(), &secret);
        assert!(verify(&cmd, &secret));
        assert!(!verify(&cmd, &SecretKey::new("12345679").unwrap()));
        cmd.body[0] ^= 1;
        assert!(!verify(&cmd, &secret));
    }
}
