//! Time: the heartbeat scan (first at 2 s, then every 5 s) removes silent brokers, closes
//! their connections and re-elects a silent master; the timer is always the next scan.

use nameserver_controller::{ControllerConfig, Output};
use nameserver_core::ConnId;

use crate::common::{Rig, two_replicas};

#[test]
fn a_silent_master_is_replaced_at_the_first_scan_after_its_timeout() {
    let mut rig = two_replicas(ControllerConfig::default());
    assert_eq!(rig.controller.poll_timeout().unwrap().as_millis(), 2_000);
    rig.at(2_000);
    // Only replica 2 keeps beating.
    let beat = |rig: &mut Rig, from: u64, to: u64| {
        for t in (from..=to).step_by(1_000) {
            rig.now = t;
            rig.heartbeat(2, "broker-a", 2, 1, 100);
        }
    };
    beat(&mut rig, 1_000, 6_000);
    let at_7 = rig.at(7_000);
    assert!(at_7.is_empty(), "not expired at 7 s: {at_7:?}");
    beat(&mut rig, 8_000, 11_000);
    // 10 001 ms after its last heartbeat (at 0) the master is expired; the scan at 12 s sees it.
    let at_12 = rig.at(12_000);
    assert!(at_12.contains(&Output::Close { conn: ConnId(1) }), "{at_12:?}");
    assert_eq!(rig.group("broker-a"), (Some(2), 2, 3, vec![2]));
    assert!(at_12.iter().any(|o| matches!(o, Output::Notify { addr, .. } if addr.as_str() == "10.0.0.2:30911")));
    assert_eq!(rig.controller.poll_timeout().unwrap().as_millis(), 15_000, "the master scan, 5 s after the start");
}

#[test]
fn a_late_timer_keeps_the_fixed_rate() {
    let mut rig = Rig::new();
    rig.at(13_500);
    assert_eq!(rig.controller.poll_timeout().unwrap().as_millis(), 15_000);
}
