//! Inputs the fuzz targets in `fuzz/` found, each pinned as a named test with the exact bytes
//! (sled's `tree_bug_00` style). The property each one broke is the target's.

use nameserver_core::codec::{self, Limits};
use nameserver_core::protocol::{LanguageCode, RemotingCommand};

/// A JSON-header frame around `header`.
fn json_frame(header: &[u8]) -> Vec<u8> {
    let mut frame = Vec::new();
    frame.extend_from_slice(&(4 + header.len() as u32).to_be_bytes());
    frame.extend_from_slice(&(header.len() as u32).to_be_bytes());
    frame.extend_from_slice(header);
    frame
}

/// The `decode` target's property: what decodes re-encodes to bytes that decode to it (with
/// its extFields no longer lossy).
#[track_caller]
fn assert_round_trips(frame: &[u8]) -> RemotingCommand {
    let (cmd, used) = codec::decode(frame, &Limits::DEFAULT).unwrap().unwrap();
    assert_eq!(used, frame.len());
    let bytes = codec::encode_to_vec(&cmd).unwrap();
    let (again, _) = codec::decode(&bytes, &Limits::DEFAULT).unwrap().unwrap();
    assert_eq!(again, RemotingCommand { ext_fields_lossy: false, ..cmd.clone() });
    cmd
}

/// decode crash-14b7d24c: an unknown language name was decoded as "unknown" but re-encoded
/// without a `language` field, which reads back as JAVA.
#[test]
fn decode_00_unknown_language_name_survives_re_encoding() {
    let cmd = assert_round_trips(&json_frame(
        br#"{"code":104,"language":"JAV2A","opaque":1,"flag":0,"version":121,"extFieldsanguagitc":"TopicTest"}"#,
    ));
    assert_eq!(cmd.language, LanguageCode::UNKNOWN_NAME);
    // A raw value from a binary header keeps its number through a JSON header too.
    let binary = RemotingCommand { language: LanguageCode::from(77), ..RemotingCommand::default() };
    let json = codec::encode_to_vec(&binary).unwrap();
    assert!(String::from_utf8_lossy(&json).contains(r#""language":77"#));
    assert_eq!(assert_round_trips(&json).language, LanguageCode::from(77));
}

/// decode crash-734b1ad4: a ROCKETMQ binary header whose extFields hold only an entry with an
/// empty (null) key decoded as an empty map, which re-encodes as no map at all.
#[test]
fn decode_01_binary_ext_fields_with_only_null_entries_are_absent() {
    let mut frame = Vec::new();
    frame.extend_from_slice(&[0, 0, 0, 0x2d, 1, 0, 0, 0x29]);
    // code 105, JAVA, version 479, opaque 7, flag 0, no remark
    frame.extend_from_slice(&[0, 0x69, 0, 1, 0xdf, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0]);
    // extFields: 7 bytes: key of length 0, value of length 1 ("c"); then trailing body bytes.
    frame.extend_from_slice(&[0, 0, 0, 7, 0, 0, 0, 0, 0, 1, b'c']);
    frame.resize(0x2d + 4, 0xff);
    let cmd = assert_round_trips(&frame);
    assert_eq!(cmd.ext_fields, None);
    assert!(cmd.ext_fields_lossy, "the null key was dropped");
}
