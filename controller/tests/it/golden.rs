//! The event encoding is ours and stable: one entry of every event type, pinned byte for
//! byte in `tests/testdata/events.bin`. `GOLDEN_WRITE=1` rewrites the file (only for a new
//! format version).

use std::collections::BTreeSet;

use nameserver_controller::{Event, decode_entry, encode_entry};
use nameserver_core::{BrokerAddr, BrokerId, BrokerName, ClusterName};

fn every_event() -> Vec<Event> {
    let a = || BrokerName::new("broker-a");
    vec![
        Event::ApplyBrokerId {
            cluster: Some(ClusterName::new("DefaultCluster")),
            broker_name: a(),
            broker_address: BrokerAddr::new("127.0.0.1:30911"),
            new_broker_id: BrokerId(1),
            register_check_code: String::from("127.0.0.1:30911;1733090000000"),
        },
        Event::ElectMaster { broker_name: a(), new_master: Some(BrokerId(1)) },
        Event::AlterSyncStateSet { broker_name: a(), new_set: BTreeSet::from([BrokerId(1), BrokerId(2)]) },
        Event::UpdateBrokerAddress {
            cluster: None,
            broker_name: a(),
            broker_id: BrokerId(2),
            broker_address: BrokerAddr::new("10.0.0.5:30911"),
        },
        Event::ElectMaster { broker_name: a(), new_master: None },
        Event::CleanBrokerData { broker_name: a(), ids: Some(BTreeSet::from([BrokerId(2)])) },
        Event::CleanBrokerData { broker_name: BrokerName::new("broker-b"), ids: None },
    ]
}

#[test]
fn the_encoding_matches_the_committed_bytes() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/testdata/events.bin");
    let bytes = encode_entry(&every_event());
    if std::env::var_os("GOLDEN_WRITE").is_some() {
        std::fs::write(path, &bytes).unwrap();
    }
    let golden = std::fs::read(path).expect("the golden file");
    assert_eq!(bytes, golden, "the event encoding changed: a new format needs a new version");
    assert_eq!(decode_entry(&golden).unwrap(), every_event());
    // The head of the entry, spelled out: version 1, seven events, the first of type 2.
    assert_eq!(&golden[..6], &[1, 0, 0, 0, 7, 2]);
}

/// Ours, added after the golden file: type 64, the group, the epoch (an i32), big-endian.
#[test]
fn the_master_epoch_raise_is_type_64() {
    let raise = Event::RaiseMasterEpoch { broker_name: BrokerName::new("b"), master_epoch: 2 };
    let bytes = encode_entry(std::slice::from_ref(&raise));
    assert_eq!(bytes, [1, 0, 0, 0, 1, 64, 0, 0, 0, 1, b'b', 0, 0, 0, 2]);
    assert_eq!(decode_entry(&bytes).unwrap(), [raise]);
}

#[test]
fn an_empty_entry_is_a_read_through_the_log() {
    assert_eq!(encode_entry(&[]), [1, 0, 0, 0, 0]);
    assert_eq!(decode_entry(&[1, 0, 0, 0, 0]).unwrap(), []);
}
