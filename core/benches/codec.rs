//! Codec microbenchmarks: decoding the frames captured from real clients and brokers, encoding
//! a route reply's header, and writing route bodies in both JSON styles.

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use nameserver_core::codec::{self, Limits};
use nameserver_core::json::{JsonStyle, WriteJson};
use nameserver_core::protocol::{RemotingCommand, Request, ResponseCode};
use nameserver_core::{Instant, TopicName};

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode");
    for frame in common::real_frames() {
        group.throughput(Throughput::Bytes(frame.bytes.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(&frame.name), &frame.bytes, |b, bytes| {
            b.iter(|| codec::decode(black_box(bytes), &Limits::DEFAULT));
        });
    }
    // What a route query costs before any routing: frame, header and typed request.
    let route = common::real_frames().into_iter().find(|f| f.name.starts_with("105-")).expect("a route query");
    group.bench_function("105-then-parse", |b| {
        b.iter(|| {
            let (cmd, _) = codec::decode(black_box(&route.bytes), &Limits::DEFAULT).ok()??;
            Request::parse(&cmd, &Limits::DEFAULT).ok()
        });
    });
    // The route fast path's read: a route query straight from its frame, nothing allocated.
    for frame in common::real_frames().iter().filter(|f| f.name.starts_with("105-")) {
        group.bench_with_input(BenchmarkId::new("route_request", &frame.name), &frame.bytes, |b, bytes| {
            b.iter(|| codec::route_request(black_box(bytes)).map(|request| request.opaque));
        });
    }
    group.finish();
}

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("encode");
    let (query, _) = codec::decode(&common::real_frames()[0].bytes, &Limits::DEFAULT).unwrap().unwrap();
    let reply = RemotingCommand::response_to(&query, ResponseCode::Success);
    let mut out = Vec::with_capacity(4096);
    group.bench_function("reply-header", |b| {
        b.iter(|| {
            out.clear();
            codec::encode_with_body(black_box(&reply), &[], &mut out)
        });
    });
    let not_found = RemotingCommand::response_to(&query, ResponseCode::TopicNotExist)
        .with_remark("No topic route info in name server for the topic: TopicTest");
    group.bench_function("topic-not-exist", |b| {
        b.iter(|| {
            out.clear();
            codec::encode(black_box(&not_found), &mut out)
        });
    });
    group.finish();
}

/// Route bodies of a topic served by 4 and by 100 broker groups, in both styles: from the
/// route (`to_json`) and from the tables (`NameServer::route_body`, lookup included).
fn route_body(c: &mut Criterion) {
    let mut group = c.benchmark_group("route-body");
    for brokers in [4, 100] {
        let mut ns = common::nameserver();
        for i in 0..brokers {
            common::register(
                &mut ns,
                Instant::from_millis(1),
                i,
                common::register_command(i, common::register_body(0, 2, 1), None),
            );
        }
        let topic = TopicName::new(common::topic(0));
        let route = ns.routes().pickup_topic_route_data(&topic, Default::default()).expect("a route");
        for (style, name) in [(JsonStyle::Plain, "plain"), (JsonStyle::Standard, "standard")] {
            group.throughput(Throughput::Bytes(route.to_json(style).len() as u64));
            group.bench_function(BenchmarkId::new(format!("to_json-{name}"), brokers), |b| {
                b.iter(|| black_box(&route).to_json(style));
            });
            group.bench_function(BenchmarkId::new(format!("route_body-{name}"), brokers), |b| {
                b.iter(|| ns.route_body(black_box(&topic), style));
            });
        }
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    decode(&mut c);
    encode(&mut c);
    route_body(&mut c);
    c.final_summary();
}
