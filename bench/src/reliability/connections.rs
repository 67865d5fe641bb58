//! connections: many held, a few busy

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nameserver_testkit::client::REPLY_PATIENCE;
use nameserver_testkit::frames;
use tokio::sync::Semaphore;

use super::args::ConnectionsArgs;
use super::conn::{Conn, ask_route};
use super::monitor::{conclude, monitor, usage};
use super::stats::{Dice, Gauge, Stats, pause};
use crate::fleet::{Fleet, FleetSpec};

pub(crate) async fn connections(args: ConnectionsArgs) -> bool {
    let common = args.common.clone();
    let stats = Stats::new();
    let live = Arc::new(AtomicU64::new(0));
    let baseline = common.pid.and_then(|pid| usage(pid).ok());
    println!(
        "connections: {} held, {} querying, {} topics, {}s against {} (daemon {:?})",
        args.conns, args.queriers, args.topics, common.secs, common.addr, baseline
    );
    let topics: Vec<String> = (0..args.topics).map(frames::topic_name).collect();
    let mut tasks = Vec::new();
    // Four brokers serve the topics and re-register every 20 s, as real ones do every 30 s.
    let spec = FleetSpec {
        addr: common.addr,
        brokers: 4,
        topics: args.topics,
        queue_spread: 1,
        compressed: false,
        period: Duration::from_secs(20),
        timeout: REPLY_PATIENCE,
        in_flight: 4,
    };
    match Fleet::start(&spec).await {
        Ok(brokers) => {
            let (stats, live) = (Arc::clone(&stats), Arc::clone(&live));
            tasks.push(tokio::spawn(async move {
                let _live: Vec<Gauge<'_>> = (0..spec.brokers).map(|_| Gauge::up(&live)).collect();
                while pause(&stats, Duration::from_secs(3600)).await {}
                let report = brokers.stop().await;
                for _ in 0..report.registrations {
                    stats.registrations.add();
                }
                if report.errors > 0 {
                    stats.error(format!("{} broker registrations failed", report.errors));
                }
            }));
        }
        Err(error) => stats.error(format!("the brokers did not register: {error:#}")),
    }
    let monitor_task = tokio::spawn(monitor(common.clone(), Arc::clone(&stats), Arc::clone(&live)));

    // The held connections: connect (200 at a time), ask once, then every 20-60 s.
    let connecting = Arc::new(Semaphore::new(200));
    let established = Arc::new(AtomicU64::new(0));
    for i in 0..args.conns {
        let (stats, live, topics, connecting, established) =
            (Arc::clone(&stats), Arc::clone(&live), topics.clone(), Arc::clone(&connecting), Arc::clone(&established));
        let addr = common.addr;
        tasks.push(tokio::spawn(async move {
            let permit = connecting.acquire_owned().await;
            let mut conn = match Conn::connect(addr).await {
                Ok(conn) => conn,
                Err(error) => {
                    stats.error(format!("held connection {i}: connect: {error}"));
                    return;
                }
            };
            let _live = Gauge::up(&live);
            let mut dice = Dice::new(i as u64 + 7);
            let topic = &topics[dice.below(topics.len() as u64) as usize];
            let ok = ask_route(&mut conn, &stats, topic, None, false, false).await;
            drop(permit);
            if ok {
                established.fetch_add(1, Ordering::Relaxed);
            }
            while ok && pause(&stats, Duration::from_secs(dice.between(20, 60))).await {
                let topic = &topics[dice.below(topics.len() as u64) as usize];
                if !ask_route(&mut conn, &stats, topic, None, false, false).await {
                    break;
                }
            }
        }));
    }
    // The busy ones.
    for q in 0..args.queriers {
        let (stats, live, topics) = (Arc::clone(&stats), Arc::clone(&live), topics.clone());
        let addr = common.addr;
        tasks.push(tokio::spawn(async move {
            let Ok(mut conn) = Conn::connect(addr).await else {
                stats.error("querier connect failed");
                return;
            };
            let _live = Gauge::up(&live);
            let mut dice = Dice::new(1000 + q as u64);
            while !stats.stopping() {
                let topic = &topics[dice.below(topics.len() as u64) as usize];
                if !ask_route(&mut conn, &stats, topic, None, false, q % 4 == 3).await {
                    break;
                }
            }
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(common.secs);
    let mut reported = false;
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if !reported && established.load(Ordering::Relaxed) as usize == args.conns {
            reported = true;
            let daemon = common.pid.and_then(|pid| usage(pid).ok());
            println!(
                "[{:>7.1}s] all {} held connections established and answered; daemon {daemon:?}",
                stats.started.elapsed().as_secs_f64(),
                args.conns
            );
        }
    }
    if !reported {
        stats.error(format!(
            "only {} of {} held connections were answered",
            established.load(Ordering::Relaxed),
            args.conns
        ));
    }
    conclude(&common, &stats, baseline, tasks, monitor_task).await
}
