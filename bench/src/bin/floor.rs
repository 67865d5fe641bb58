//! `floor`: the protocol's ceiling. Answers every request with SUCCESS and the route body of
//! one topic served by `--brokers` brokers, computed once at start; no routing work per request
//! (see `nameserver_bench::floor`). Prints
//! `The floor server boot success. address 127.0.0.1:PORT body_bytes=N` once listening.

use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use clap::Parser;
use nameserver_bench::floor;
use nameserver_testkit::frames;

/// A RocketMQ remoting server that does no routing work.
#[derive(Debug, Parser)]
#[command(name = "floor", version)]
struct Cli {
    /// Port to listen on (0: any free port)
    #[arg(long, default_value_t = 0)]
    listen_port: u16,
    /// Address to bind (loopback only)
    #[arg(long, default_value = "127.0.0.1")]
    bind_address: IpAddr,
    /// The reply body is the route of a topic served by this many brokers
    #[arg(long, default_value_t = 4)]
    brokers: usize,
    /// Worker threads (default: one per core, like the NameServer's runtime)
    #[arg(long)]
    threads: Option<usize>,
}

fn main() -> ExitCode {
    match start(&Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("floor: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn start(cli: &Cli) -> anyhow::Result<()> {
    if !cli.bind_address.is_loopback() {
        bail!("{} is not a loopback address", cli.bind_address);
    }
    let body: Arc<[u8]> = frames::reference_route_body(cli.brokers).into();
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = cli.threads {
        builder.worker_threads(threads.max(1));
    }
    let runtime = builder.enable_all().build().context("cannot start the runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(cli.bind_address, cli.listen_port))
            .await
            .context("cannot listen")?;
        let address = listener.local_addr()?;
        println!("The floor server boot success. address {address} body_bytes={}", body.len());
        floor::serve(listener, body).await.context("accept failed")
    })
}
