//! connections: many held, a few busy

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::ConnectionsArgs;
use crate::conn::{Conn, ask_route, register};
use crate::monitor::{conclude, monitor, usage};
use crate::stats::{Dice, Gauge, Stats, pause};

pub(crate) async fn connections(args: ConnectionsArgs) -> bool {
    let common = args.common.clone();
    let stats = Stats::new();
    let live = Arc::new(AtomicU64::new(0));
    let baseline = common.pid.and_then(|pid| usage(pid).ok());
    println!(
        "connections: {} held, {} querying, {} topics, {}s against {} (daemon {:?})",
        args.conns, args.queriers, args.topics, common.secs, common.addr, baseline
    );
    let topics: Vec<String> = (0..args.topics).map(|i| format!("HeldTopic{i}")).collect();
    let mut tasks = Vec::new();
    // Four brokers serve the topics and re-register every 20 s, as real ones do every 30 s.
    for b in 0..4 {
        let (stats, live, topics) = (Arc::clone(&stats), Arc::clone(&live), topics.clone());
        let addr = common.addr;
        tasks.push(tokio::spawn(async move {
            let Ok(mut conn) = Conn::connect(addr).await else {
                stats.error("broker connect failed");
                return;
            };
            let _live = Gauge::up(&live);
            let name = format!("held-broker-{b}");
            let mut counter = 1;
            loop {
                let cmd =
                    register("HeldCluster", &name, 0, &format!("127.0.0.1:{}", 20_000 + b), &topics, counter, None);
                match conn.call(cmd).await {
                    Ok(reply) if reply.code == 0 => stats.registrations.add(),
                    Ok(reply) => stats.error(format!("{name} register: code {} {:?}", reply.code, reply.remark)),
                    Err(error) => stats.error(format!("{name} register: {error}")),
                }
                counter += 1;
                if !pause(&stats, Duration::from_secs(20)).await {
                    break;
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
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
