//! `nameserver`: start-up like `mqnamesrv` — arguments, configuration, KV load, logging,
//! bind, serve until SIGINT/SIGTERM.

use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser as _;
use nameserver::args::Args;
use nameserver_core::properties;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let args = Args::parse();
    match start(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("nameserver: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn start(args: &Args) -> anyhow::Result<()> {
    let home_dir = home_dir();
    let rocketmq_home = match std::env::var("ROCKETMQ_HOME") {
        Ok(home) if !home.is_empty() => home,
        _ => std::env::current_dir()
            .context("ROCKETMQ_HOME is not set and the current directory is unknown")?
            .display()
            .to_string(),
    };
    let namesrv = args.namesrv_config(&home_dir, &rocketmq_home)?;
    if args.print_config_item {
        print!("{}", properties::to_plain_text(&namesrv.to_properties()));
        return Ok(());
    }
    init_tracing(args.log_level.as_deref())?;
    let kv = nameserver::load_kv(namesrv.kv_config_path.as_ref())?;
    tracing::info!("load KV config table OK, {} entries from {}", kv.len(), namesrv.kv_config_path);
    let (bind_address, port) = (namesrv.bind_address.clone(), namesrv.listen_port);
    let config = args.server_config(namesrv, kv);

    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the tokio runtime")?;
    runtime.block_on(async {
        let shutdown = nameserver::shutdown::signals().context("cannot install the SIGINT/SIGTERM handlers")?;
        let listener = nameserver::bind(&bind_address, port)
            .await
            .with_context(|| format!("cannot listen on {bind_address}:{port}"))?;
        let address = listener.local_addr().context("the listener has no local address")?;
        let console = bind_console(args).await?;
        let boot = format!("The Name Server boot success. serializeType=JSON, address {address}");
        tracing::info!("{boot}");
        println!("{boot}");
        if let Some(console) = &console {
            let http = console.listener.local_addr().context("the HTTP listener has no local address")?;
            // A reader may have stopped after the boot line: a closed stdout is no reason to stop.
            let _ = writeln!(std::io::stdout(), "HTTP console: http://{http}/ (live view: http://{http}/www/?live)");
        }
        nameserver::serve(listener, console, config, shutdown).await.context("the NameServer stopped with an error")
    })
}

/// The HTTP console's listener. When the default port is taken the daemon runs without it;
/// a port given with --http-port must be free.
async fn bind_console(args: &Args) -> anyhow::Result<Option<nameserver::http::Console>> {
    let Some(options) = args.http_options() else { return Ok(None) };
    let port = args.http_port.unwrap_or(nameserver::http::DEFAULT_PORT);
    match nameserver::bind(&args.http_bind, port).await {
        Ok(listener) => Ok(Some(nameserver::http::Console { listener, options })),
        Err(error) if args.http_port.is_none() => {
            tracing::warn!(
                "HTTP console: cannot listen on {}:{port} ({error}); running without it (pick a port with --http-port)",
                args.http_bind
            );
            Ok(None)
        }
        Err(error) => Err(error).with_context(|| format!("cannot listen on {}:{port} (--http-port)", args.http_bind)),
    }
}

/// Java's `user.home`.
fn home_dir() -> String {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    std::env::var(var).unwrap_or_else(|_| String::from("."))
}

fn init_tracing(level: Option<&str>) -> anyhow::Result<()> {
    let filter = match level {
        Some(directives) => {
            EnvFilter::try_new(directives).with_context(|| format!("invalid --log-level `{directives}`"))?
        }
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
    };
    let ansi = std::io::stderr().is_terminal();
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi).init();
    Ok(())
}
