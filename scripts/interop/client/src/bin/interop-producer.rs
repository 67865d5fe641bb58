//! Sends N messages to a topic through the NameServer given with --namesrv.
//! Prints one `SEND_OK ...` line per message and a final
//! `PRODUCER OK sent=N` (exit 0) or `PRODUCER FAIL ...` (exit 1).

use std::time::Duration;
use std::time::Instant;

use rocketmq_client_rust::DefaultMQProducer;
use rocketmq_model::common::message::message_single::Message;
use rocketmq_model::result::SendStatus;
use rmq_interop_client::client_config;
use rmq_interop_client::Env;
use rmq_interop_client::Flags;

const USAGE: &str = "interop-producer [--namesrv 127.0.0.1:9876] [--topic InteropTopic] [--count 10] \
[--group interop_producer_group] [--tag TagA] [--prefix interop] [--timeout-ms 3000] [--attempts 5] [--quiet] [--tls] [--tls-trust ca.pem]";

#[tokio::main]
async fn main() {
    let flags = Flags::from_env(USAGE);
    let namesrv = flags.str("namesrv", "127.0.0.1:9876");
    let topic = flags.str("topic", "InteropTopic");
    let count = flags.num("count", 10);
    let group = flags.str("group", "interop_producer_group");
    let tag = flags.str("tag", "TagA");
    let prefix = flags.str("prefix", "interop");
    let timeout_ms = flags.num("timeout-ms", 3000);
    let attempts = flags.num("attempts", 5).max(1);
    let quiet = flags.str("quiet", "false") == "true";
    let tls = flags.has("tls") || flags.has("tls-trust");

    let env = match Env::new("producer") {
        Ok(e) => e,
        Err(e) => {
            println!("PRODUCER FAIL setup: {e}");
            std::process::exit(1);
        }
    };
    let mut producer = DefaultMQProducer::builder(env.client.clone())
        .producer_group(group.clone())
        .client_config(client_config(&flags))
        .name_server_addr(namesrv.clone())
        .send_msg_timeout(timeout_ms as u32)
        .build();
    if let Err(e) = producer.start().await {
        println!("PRODUCER FAIL start namesrv={namesrv}: {e}");
        std::process::exit(1);
    }
    println!("PRODUCER STARTED namesrv={namesrv} tls={tls} topic={topic} group={group} count={count}");

    let started = Instant::now();
    let mut ok = 0u64;
    let mut failed = 0u64;
    for i in 0..count {
        let body = format!("{prefix}-{i}");
        let mut last_err = String::new();
        let mut sent = false;
        for attempt in 1..=attempts {
            let msg = Message::builder()
                .topic(topic.as_str())
                .tags(tag.as_str())
                .body_slice(body.as_bytes())
                .build_unchecked();
            match producer.send_with_timeout(msg, timeout_ms).await {
                Ok(Some(r)) if r.send_status == SendStatus::SendOk => {
                    if !quiet {
                        let mq = r
                            .message_queue
                            .as_ref()
                            .map(|q| format!("{}:{}", q.broker_name(), q.queue_id()))
                            .unwrap_or_else(|| "?".to_string());
                        println!(
                            "SEND_OK i={i} body={body} msgId={} queue={mq} offset={}",
                            r.msg_id.as_ref().map(|m| m.as_str()).unwrap_or("?"),
                            r.queue_offset
                        );
                    }
                    sent = true;
                    break;
                }
                Ok(Some(r)) => last_err = format!("status {}", r.send_status),
                Ok(None) => last_err = "no send result".to_string(),
                Err(e) => last_err = e.to_string(),
            }
            println!("SEND_RETRY i={i} attempt={attempt} err={last_err}");
            tokio::time::sleep(Duration::from_millis(1000)).await;
        }
        if sent {
            ok += 1;
        } else {
            failed += 1;
            println!("SEND_FAIL i={i} err={last_err}");
        }
    }
    let secs = started.elapsed().as_secs_f64();
    producer.shutdown().await;
    env.shutdown().await;
    if failed == 0 {
        println!("PRODUCER OK sent={ok} elapsed_s={secs:.3}");
    } else {
        println!("PRODUCER FAIL sent={ok} failed={failed} elapsed_s={secs:.3}");
        std::process::exit(1);
    }
}
