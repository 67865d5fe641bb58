//! The signature check against frames signed by Java's own `AclClientRPCHook`
//! (`testdata/auth/`, made by scripts/java/auth-vectors.sh), and the policy decision against a
//! model of it.

use std::net::IpAddr;

use nameserver_core::auth::{
    self, AccessKey, Account, Accounts, AuthRules, Policy, RefusalReason, RequestClass, SecretKey, SourceList, Verdict,
};
use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{RemotingCommand, RequestCode, ResponseCode, SerializeType};
use proptest::prelude::*;
use serde_json::Value;

const VECTOR_FILES: [(&str, &str); 2] = [
    ("5.5.0", include_str!("../testdata/auth/java-5.5.0.json")),
    ("4.9.7", include_str!("../testdata/auth/java-4.9.7.json")),
];

const SIGNATURE_FAILED: &str = "check signature failed.";

struct Vector {
    name: String,
    access_key: String,
    secret: SecretKey,
    cmd: RemotingCommand,
    java_accepts: bool,
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn vectors(file: &str) -> Vec<Vector> {
    let doc: Value = serde_json::from_str(file).unwrap();
    assert!(doc["signedBy"].as_str().unwrap().starts_with("Apache RocketMQ "), "the file names the Java version");
    doc["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let frame = unhex(v["frameHex"].as_str().unwrap());
            let (cmd, used) = codec::decode(&frame, &Limits::DEFAULT).unwrap().unwrap();
            assert_eq!(used, frame.len());
            Vector {
                name: v["name"].as_str().unwrap().to_owned(),
                access_key: v["accessKey"].as_str().unwrap().to_owned(),
                secret: SecretKey::new(String::from_utf8(unhex(v["secretKeyUtf8Hex"].as_str().unwrap())).unwrap())
                    .unwrap(),
                cmd,
                java_accepts: v["java550Accepts"].as_bool().unwrap(),
            }
        })
        .collect()
}

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// Every class signed, one (admin) account: the vector's.
fn signed_everywhere(v: &Vector) -> (AuthRules, Accounts) {
    let mut rules = AuthRules::open();
    for class in RequestClass::ALL {
        rules.set_policy(class, Policy::Signed);
    }
    let account =
        Account { access_key: AccessKey::new(&v.access_key).unwrap(), secret_key: v.secret.clone(), admin: true };
    (rules, Accounts::new([account]).unwrap())
}

fn verdict(v: &Vector, cmd: &RemotingCommand) -> Verdict {
    let (rules, accounts) = signed_everywhere(v);
    auth::check(&rules, &accounts, ip("10.0.0.1"), cmd)
}

#[track_caller]
fn assert_refused(verdict: Verdict, remark: &str, what: &str) {
    match verdict {
        Verdict::Refuse(refusal) => assert_eq!(refusal.remark, remark, "{what}"),
        Verdict::Allow => panic!("{what}: allowed"),
    }
}

#[test]
fn java_vectors_verify_as_java_5_5_0_verifies_them() {
    for (version, file) in VECTOR_FILES {
        let vectors = vectors(file);
        assert_eq!(vectors.len(), 22, "{version}");
        assert!(vectors.iter().any(|v| v.cmd.serialize_type == SerializeType::Rocketmq));
        for v in &vectors {
            let what = format!("Java {version} {}", v.name);
            if v.java_accepts {
                assert!(!v.cmd.ext_fields_lossy, "{what}");
                assert!(auth::verify(&v.cmd, &v.secret), "{what}");
                assert_eq!(verdict(v, &v.cmd), Verdict::Allow, "{what}");
                assert_eq!(auth::signature(&v.cmd, &v.secret), v.cmd.field(auth::SIGNATURE).unwrap(), "{what}");
            } else {
                assert_refused(verdict(v, &v.cmd), SIGNATURE_FAILED, &what);
            }
        }
        // Java's own ROCKETMQ frame with an empty value: its decoder reads null, its verifier
        // signs "null" and refuses; ours drops the entry, so the signature alone would match,
        // and the dropped entry is what refuses it.
        let empty = vectors.iter().find(|v| v.name == "rocketmq-empty-value").unwrap();
        assert!(!empty.java_accepts && empty.cmd.ext_fields_lossy && auth::verify(&empty.cmd, &empty.secret));
        // What the vectors are for: both header forms, a body, a token, keys Java orders
        // differently from UTF-8, and both sides of version 399.
        let accepted = |part: &str| vectors.iter().any(|v| v.java_accepts && v.name.contains(part));
        for part in ["json-", "rocketmq-", "with-body", "security-token", "non-bmp", "v399", "non-ascii"] {
            assert!(accepted(part), "Java {version}: no accepted vector `{part}`");
        }
    }
}

/// Vectors Java accepts, with the field a mutation may change: a signed, non-empty value that
/// is not the AccessKey.
fn accepted() -> Vec<(Vector, String)> {
    VECTOR_FILES
        .iter()
        .flat_map(|(_, file)| vectors(file))
        .filter(|v| v.java_accepts)
        .map(|v| {
            let key = v
                .cmd
                .ext_fields
                .as_ref()
                .unwrap()
                .iter()
                .find(|(k, v)| !v.is_empty() && !matches!(k.as_str(), "AccessKey" | "Signature" | "_UNIQUE_KEY_QUERY"))
                .unwrap()
                .0
                .clone();
            (v, key)
        })
        .collect()
}

#[test]
fn auth_refuses_every_change_to_a_java_vector_with_java_texts() {
    let mut bodies = 0;
    for (v, key) in accepted() {
        let what = |change: &str| format!("{}: {change}", v.name);
        let mut changed = v.cmd.clone();
        let value = changed.ext_fields.as_mut().unwrap().get_mut(&key).unwrap();
        let last = value.pop().unwrap();
        value.push(if last == 'x' { 'y' } else { 'x' });
        assert_refused(verdict(&v, &changed), SIGNATURE_FAILED, &what("one value byte"));

        if !v.cmd.body.is_empty() {
            bodies += 1;
            let mut changed = v.cmd.clone();
            let at = changed.body.len() / 2;
            changed.body[at] ^= 0x01;
            assert_refused(verdict(&v, &changed), SIGNATURE_FAILED, &what("one body byte"));
        }

        let (rules, _) = signed_everywhere(&v);
        let wrong = Account {
            access_key: AccessKey::new(&v.access_key).unwrap(),
            secret_key: SecretKey::new(format!("{}!", v.secret.as_str())).unwrap(),
            admin: true,
        };
        let verdict_wrong = auth::check(&rules, &Accounts::new([wrong]).unwrap(), ip("10.0.0.1"), &v.cmd);
        assert_refused(verdict_wrong, SIGNATURE_FAILED, &what("the wrong secret"));

        let mut unsigned = v.cmd.clone();
        unsigned.ext_fields.as_mut().unwrap().remove("Signature");
        assert_refused(verdict(&v, &unsigned), SIGNATURE_FAILED, &what("no Signature"));

        let mut stranger = v.cmd.clone();
        stranger.ext_fields.as_mut().unwrap().insert("AccessKey".into(), "stranger".into());
        assert_refused(verdict(&v, &stranger), "User:stranger is not found.", &what("an unknown key"));

        let mut anonymous = v.cmd.clone();
        anonymous.ext_fields.as_mut().unwrap().remove("AccessKey");
        assert_refused(verdict(&v, &anonymous), "username cannot be null.", &what("no AccessKey"));
    }
    assert!(bodies >= 8, "vectors with a body: {bodies}");
}

/// The frame of a header given as bytes, with a body.
fn frame(serialize_type: u8, header: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&u32::try_from(4 + header.len() + body.len()).unwrap().to_be_bytes());
    out.extend_from_slice(&((u32::from(serialize_type) << 24) | u32::try_from(header.len()).unwrap()).to_be_bytes());
    out.extend_from_slice(header);
    out.extend_from_slice(body);
    out
}

fn decode(bytes: &[u8]) -> RemotingCommand {
    codec::decode(bytes, &Limits::DEFAULT).unwrap().unwrap().0
}

#[test]
fn auth_refuses_headers_whose_fields_were_merged_or_dropped_even_when_the_signature_matches() {
    let secret = SecretKey::new("12345678").unwrap();
    let account = Account { access_key: AccessKey::new("ak").unwrap(), secret_key: secret.clone(), admin: true };
    let accounts = Accounts::new([account]).unwrap();
    let rules = AuthRules::with_accounts();
    let mut signed =
        RemotingCommand::request(RequestCode::PutKvConfig).with_field("namespace", "ns").with_field("key", "k");
    auth::sign(&mut signed, &AccessKey::new("ak").unwrap(), &secret);
    let sig = signed.field("Signature").unwrap().to_owned();
    assert_eq!(auth::check(&rules, &accounts, ip("10.0.0.1"), &signed), Verdict::Allow);

    let json = |fields: &str| {
        let header = format!(
            r#"{{"code":100,"extFields":{{"AccessKey":"ak",{fields},"Signature":"{sig}"}},"flag":0,"language":"JAVA","opaque":1,"serializeTypeCurrentRPC":"JSON","version":513}}"#
        );
        decode(&frame(0, header.as_bytes(), b""))
    };
    let clean = json(r#""key":"k","namespace":"ns""#);
    assert!(!clean.ext_fields_lossy);
    assert_eq!(auth::check(&rules, &accounts, ip("10.0.0.1"), &clean), Verdict::Allow);
    let lossy = [
        ("a repeated key", json(r#""key":"k","key":"k","namespace":"ns""#)),
        ("a repeated key, general reader", json(r#"'key':'k',"key":"k","namespace":"ns""#)),
        ("a null value", json(r#""key":"k","namespace":"ns","x":null"#)),
        ("a number", json(r#""key":"k","namespace":"ns","n":1"#)),
    ];
    for (what, cmd) in lossy {
        assert_eq!(
            cmd.ext_fields,
            clean.ext_fields.as_ref().map(|f| {
                let mut f = f.clone();
                if what == "a number" {
                    f.insert("n".into(), "1".into());
                }
                f
            }),
            "{what}"
        );
        assert!(cmd.ext_fields_lossy, "{what}");
        let Verdict::Refuse(refusal) = auth::check(&rules, &accounts, ip("10.0.0.1"), &cmd) else {
            panic!("{what}: allowed")
        };
        assert_eq!(
            (refusal.reason, refusal.remark.as_str()),
            (RefusalReason::AmbiguousFields, SIGNATURE_FAILED),
            "{what}"
        );
        // An open class reads no identity, so nothing about it is refused.
        let mut open = cmd.clone();
        open.code = RequestCode::GetRouteInfoByTopic.raw();
        assert_eq!(auth::check(&rules, &accounts, ip("10.0.0.1"), &open), Verdict::Allow, "{what}");
    }

    // The ROCKETMQ form: a repeated key, and an empty value (Java reads it as null).
    let binary = |entries: &[(&str, &str)]| {
        let mut h = Vec::new();
        h.extend_from_slice(&100i16.to_be_bytes());
        h.push(0);
        h.extend_from_slice(&513i16.to_be_bytes());
        h.extend_from_slice(&1i32.to_be_bytes());
        h.extend_from_slice(&0i32.to_be_bytes());
        h.extend_from_slice(&0i32.to_be_bytes());
        let mut ext = Vec::new();
        for (k, v) in entries.iter().chain([&("AccessKey", "ak"), &("Signature", sig.as_str())]) {
            ext.extend_from_slice(&i16::try_from(k.len()).unwrap().to_be_bytes());
            ext.extend_from_slice(k.as_bytes());
            ext.extend_from_slice(&i32::try_from(v.len()).unwrap().to_be_bytes());
            ext.extend_from_slice(v.as_bytes());
        }
        h.extend_from_slice(&i32::try_from(ext.len()).unwrap().to_be_bytes());
        h.extend_from_slice(&ext);
        decode(&frame(1, &h, b""))
    };
    let clean = binary(&[("key", "k"), ("namespace", "ns")]);
    assert_eq!(auth::check(&rules, &accounts, ip("10.0.0.1"), &clean), Verdict::Allow);
    for (what, cmd) in [
        ("a repeated key", binary(&[("key", "k"), ("namespace", "ns"), ("key", "k")])),
        ("an empty value", binary(&[("key", "k"), ("namespace", "ns"), ("empty", "")])),
    ] {
        assert!(cmd.ext_fields_lossy, "{what}");
        assert!(
            matches!(auth::check(&rules, &accounts, ip("10.0.0.1"), &cmd), Verdict::Refuse(r) if r.reason == RefusalReason::AmbiguousFields),
            "{what}"
        );
    }
}

// ===== The policy table =====

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Identity {
    NoKey,
    UnknownKey,
    BadSignature,
    NonAdmin,
    Admin,
}

const IDENTITIES: [Identity; 5] =
    [Identity::NoKey, Identity::UnknownKey, Identity::BadSignature, Identity::NonAdmin, Identity::Admin];
const LISTED: &str = "10.1.2.3";
const UNLISTED: &str = "192.0.2.9";

fn code_of(class: RequestClass) -> RequestCode {
    match class {
        RequestClass::RouteRead => RequestCode::GetRouteInfoByTopic,
        RequestClass::Broker => RequestCode::RegisterBroker,
        RequestClass::AdminRead => RequestCode::GetKvConfig,
        RequestClass::AdminWrite => RequestCode::DeleteKvConfig,
    }
}

fn accounts() -> Accounts {
    let account = |ak: &str, admin| Account {
        access_key: AccessKey::new(ak).unwrap(),
        secret_key: SecretKey::new(format!("secret-of-{ak}")).unwrap(),
        admin,
    };
    Accounts::new([account("operator", true), account("broker", false)]).unwrap()
}

fn request(class: RequestClass, identity: Identity, body: &[u8]) -> RemotingCommand {
    let mut cmd = RemotingCommand::request(code_of(class))
        .with_field("namespace", "ns")
        .with_field("key", "k")
        .with_body(body.to_vec());
    let sign = |cmd: &mut RemotingCommand, ak: &str| {
        auth::sign(cmd, &AccessKey::new(ak).unwrap(), &SecretKey::new(format!("secret-of-{ak}")).unwrap());
    };
    match identity {
        Identity::NoKey => {}
        Identity::UnknownKey => sign(&mut cmd, "stranger"),
        Identity::BadSignature => {
            sign(&mut cmd, "operator");
            cmd.ext_fields.as_mut().unwrap().insert("Signature".into(), "AAAAAAAAAAAAAAAAAAAAAAAAAAA=".into());
        }
        Identity::NonAdmin => sign(&mut cmd, "broker"),
        Identity::Admin => sign(&mut cmd, "operator"),
    }
    cmd
}

/// The model: what each row must get, written from the issue's rules, not from the code.
fn expected(class: RequestClass, policy: Policy, identity: Identity, listed: bool) -> Result<(), String> {
    let source = if listed { LISTED } else { UNLISTED };
    let no_permission = |user: &str| {
        Err(format!(
            "User:{user} has no permission to access NameServer:{} from {source}, no matched policies.",
            class.name()
        ))
    };
    let user = match identity {
        Identity::NonAdmin => "broker",
        _ => "operator",
    };
    match (policy, identity) {
        (Policy::Deny, _) => no_permission("anonymous"),
        (Policy::Open, _) if listed => Ok(()),
        (Policy::Open, _) => no_permission("anonymous"),
        (_, Identity::NoKey) => Err("username cannot be null.".into()),
        (_, Identity::UnknownKey) => Err("User:stranger is not found.".into()),
        (_, Identity::BadSignature) => Err(SIGNATURE_FAILED.into()),
        (Policy::Admin, Identity::NonAdmin) => no_permission(user),
        (_, _) if !listed => no_permission(user),
        (_, _) => Ok(()),
    }
}

#[test]
fn auth_table_of_classes_policies_identities_and_sources() {
    let accounts = accounts();
    let mut rows = 0;
    let mut allowed = 0;
    for class in RequestClass::ALL {
        for policy in Policy::ALL {
            let mut rules = AuthRules::open();
            rules.set_policy(class, policy);
            rules.set_allow_from(class, "10.0.0.0/8, 2001:db8::/32".parse::<SourceList>().unwrap());
            for identity in IDENTITIES {
                for listed in [true, false] {
                    let source = ip(if listed { LISTED } else { UNLISTED });
                    let cmd = request(class, identity, b"body");
                    let got = match auth::check(&rules, &accounts, source, &cmd) {
                        Verdict::Allow => Ok(()),
                        Verdict::Refuse(refusal) => {
                            assert_eq!(refusal.class, class);
                            let reply = refusal.reply_to(&cmd);
                            assert_eq!(reply.response_code(), ResponseCode::NoPermission);
                            assert_eq!(reply.remark.as_deref(), Some(refusal.remark.as_str()));
                            Err(refusal.remark)
                        }
                    };
                    assert_eq!(
                        got,
                        expected(class, policy, identity, listed),
                        "{class} {policy} {identity:?} listed={listed}"
                    );
                    allowed += usize::from(got.is_ok());
                    rows += 1;
                    // Other classes keep their (open) policy: the same request under another
                    // class's code is allowed.
                    for other in RequestClass::ALL.into_iter().filter(|c| *c != class) {
                        assert_eq!(
                            auth::check(&rules, &accounts, source, &request(other, identity, b"")),
                            Verdict::Allow
                        );
                    }
                }
            }
        }
    }
    assert_eq!(rows, 4 * 4 * 5 * 2);
    // open: 5 listed per class; signed: non-admin and admin listed; admin: admin listed.
    assert_eq!(allowed, 4 * (5 + 2 + 1));
}

#[test]
fn auth_leaves_codes_outside_the_classes_alone_and_defaults_as_the_issue_says() {
    let mut rules = AuthRules::open();
    for class in RequestClass::ALL {
        rules.set_policy(class, Policy::Deny);
    }
    let unknown = RemotingCommand { code: 4242, ..RemotingCommand::default() };
    assert_eq!(auth::check(&rules, &Accounts::default(), ip("192.0.2.1"), &unknown), Verdict::Allow);
    let Verdict::Refuse(refusal) = auth::check(
        &rules,
        &Accounts::default(),
        ip("::ffff:10.1.2.3"),
        &request(RequestClass::AdminWrite, Identity::Admin, b""),
    ) else {
        panic!("deny allowed")
    };
    assert_eq!(refusal.reason, RefusalReason::Denied);
    assert_eq!(
        refusal.remark,
        "User:anonymous has no permission to access NameServer:admin-write from 10.1.2.3, no matched policies."
    );
    assert!(!AuthRules::open().verifies());
    let defaults = AuthRules::with_accounts();
    let policies: Vec<Policy> = RequestClass::ALL.into_iter().map(|c| defaults.policy(c)).collect();
    assert_eq!(policies, [Policy::Open, Policy::Signed, Policy::Signed, Policy::Admin]);
    assert!(defaults.verifies());
}

fn policy_strategy() -> impl Strategy<Value = Policy> {
    prop::sample::select(Policy::ALL.to_vec())
}

proptest! {
    /// No configuration allows with a bad signature what it refuses without one, and a bad
    /// signature passes only where nothing is verified.
    #[test]
    fn auth_a_bad_signature_never_helps(
        policies in prop::array::uniform4(policy_strategy()),
        lists in prop::array::uniform4(prop::option::of(prop::sample::select(vec!["10.0.0.0/8", "192.0.2.0/24", ""]))),
        class in prop::sample::select(RequestClass::ALL.to_vec()),
        identity in prop::sample::select(IDENTITIES.to_vec()),
        source in prop::sample::select(vec![LISTED, UNLISTED, "::ffff:10.9.9.9", "2001:db8::7"]),
        body in prop::collection::vec(any::<u8>(), 0..16),
        flip in any::<usize>(),
    ) {
        let mut rules = AuthRules::open();
        for (i, c) in RequestClass::ALL.into_iter().enumerate() {
            rules.set_policy(c, policies[i]);
            if let Some(list) = lists[i] {
                rules.set_allow_from(c, list.parse().unwrap());
            }
        }
        let accounts = accounts();
        let source = ip(source);
        let good = request(class, identity, &body);
        let mut unsigned = good.clone();
        if let Some(fields) = unsigned.ext_fields.as_mut() {
            fields.remove("Signature");
        }
        let mut bad = good.clone();
        if let Some(sig) = bad.ext_fields.as_mut().and_then(|f| f.get_mut("Signature")) {
            let mut bytes = sig.clone().into_bytes();
            let at = flip % bytes.len();
            bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
            *sig = String::from_utf8(bytes).unwrap();
        }
        let allowed = |cmd: &RemotingCommand| auth::check(&rules, &accounts, source, cmd) == Verdict::Allow;
        if allowed(&bad) {
            prop_assert!(allowed(&unsigned));
            prop_assert_eq!(rules.policy(class), Policy::Open);
        }
        if allowed(&unsigned) {
            prop_assert_eq!(rules.policy(class), Policy::Open);
        }
    }
}
