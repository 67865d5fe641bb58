//! Push-consumes a topic (from the first offset, fresh consumer group by
//! default) through the NameServer given with --namesrv until --count
//! distinct messages whose body starts with --prefix have arrived.
//! Prints `RECV ...` per message and `CONSUMER OK received=N` (exit 0) or
//! `CONSUMER TIMEOUT received=k/N` (exit 1).

use std::collections::HashSet;
use std::time::Duration;
use std::time::Instant;

use rocketmq_client_rust::ClientResult;
use rocketmq_client_rust::ConsumeConcurrentlyContext;
use rocketmq_client_rust::ConsumeConcurrentlyStatus;
use rocketmq_client_rust::DefaultMQPushConsumer;
use rocketmq_client_rust::MQPushConsumer;
use rocketmq_client_rust::MessageListenerConcurrently;
use rocketmq_model::common::consumer::consume_from_where::ConsumeFromWhere;
use rocketmq_model::common::message::message_ext::MessageExt;
use rmq_interop_client::client_config;
use rmq_interop_client::now_ms;
use rmq_interop_client::Env;
use rmq_interop_client::Flags;
use tokio::sync::mpsc;

const USAGE: &str = "interop-consumer [--namesrv 127.0.0.1:9876] [--topic InteropTopic] [--count 10] \
[--group interop_consumer_<millis>] [--prefix interop] [--timeout-s 60] [--quiet] [--tls] [--tls-trust ca.pem]";

struct Got {
    body: String,
    msg_id: String,
    queue: String,
    offset: i64,
}

struct Listener {
    tx: mpsc::UnboundedSender<Got>,
}

impl MessageListenerConcurrently for Listener {
    fn consume_message(
        &self,
        msgs: &[&MessageExt],
        _ctx: &ConsumeConcurrentlyContext,
    ) -> ClientResult<ConsumeConcurrentlyStatus> {
        for m in msgs {
            let body = m
                .body()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let _ = self.tx.send(Got {
                body,
                msg_id: m.msg_id().to_string(),
                queue: format!("{}:{}", m.broker_name(), m.queue_id()),
                offset: m.queue_offset(),
            });
        }
        Ok(ConsumeConcurrentlyStatus::ConsumeSuccess)
    }
}

#[tokio::main]
async fn main() {
    let flags = Flags::from_env(USAGE);
    let namesrv = flags.str("namesrv", "127.0.0.1:9876");
    let topic = flags.str("topic", "InteropTopic");
    let count = flags.num("count", 10) as usize;
    let group = flags.str("group", &format!("interop_consumer_{}", now_ms()));
    let prefix = flags.str("prefix", "interop");
    let timeout = Duration::from_secs(flags.num("timeout-s", 60));
    let quiet = flags.str("quiet", "false") == "true";
    let tls = flags.has("tls") || flags.has("tls-trust");

    let env = match Env::new("consumer") {
        Ok(e) => e,
        Err(e) => {
            println!("CONSUMER FAIL setup: {e}");
            std::process::exit(1);
        }
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut consumer = DefaultMQPushConsumer::builder(env.client.clone())
        .consumer_group(group.clone())
        .client_config(client_config(&flags))
        .name_server_addr(namesrv.clone())
        .consume_from_where(ConsumeFromWhere::ConsumeFromFirstOffset)
        .build();
    if let Err(e) = consumer.subscribe(topic.as_str(), "*").await {
        println!("CONSUMER FAIL subscribe: {e}");
        std::process::exit(1);
    }
    consumer.register_message_listener_concurrently(Listener { tx });
    if let Err(e) = consumer.start().await {
        println!("CONSUMER FAIL start namesrv={namesrv}: {e}");
        std::process::exit(1);
    }
    println!("CONSUMER STARTED namesrv={namesrv} tls={tls} topic={topic} group={group} want={count} prefix={prefix}");

    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + timeout;
    let mut seen: HashSet<String> = HashSet::new();
    let mut other = 0u64;
    while seen.len() < count {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(g)) => {
                if !g.body.starts_with(&prefix) {
                    other += 1;
                    continue;
                }
                let dup = !seen.insert(g.body.clone());
                if !quiet || dup {
                    println!(
                        "RECV{} body={} msgId={} queue={} offset={}",
                        if dup { "_DUP" } else { "" },
                        g.body,
                        g.msg_id,
                        g.queue,
                        g.offset
                    );
                }
            }
            Ok(None) | Err(_) => break,
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let got = seen.len();
    consumer.shutdown().await;
    env.shutdown().await;
    if got >= count {
        println!("CONSUMER OK received={got} other={other} elapsed_s={secs:.3}");
    } else {
        println!("CONSUMER TIMEOUT received={got}/{count} other={other} elapsed_s={secs:.3}");
        std::process::exit(1);
    }
}
