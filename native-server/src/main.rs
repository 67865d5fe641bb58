//! `nameserver`: start-up like `mqnamesrv` — arguments, configuration, KV load, logging,
//! bind, serve until SIGINT/SIGTERM.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser as _;
use nameserver::args::Args;
use nameserver_core::properties;

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
    let home_dir = home_dir(args);
    let rocketmq_home = match std::env::var("ROCKETMQ_HOME") {
        Ok(home) if !home.is_empty() => home,
        _ => std::env::current_dir()
            .context("ROCKETMQ_HOME is not set and the current directory is unknown")?
            .display()
            .to_string(),
    };
    let (namesrv, clamped) = args.namesrv_config(&home_dir, &rocketmq_home)?;
    let controller = args.controller_settings(&namesrv, &home_dir)?;
    let tls = args.tls_config().context("TLS")?;
    if args.print_config_item {
        // Java prints NamesrvConfig, NettyServerConfig and NettyClientConfig.
        let tls_enable = args.system_property("tls.enable");
        let mut all: std::collections::BTreeMap<String, String> =
            nameserver::config_keys::netty_client_defaults(&tls, tls_enable).into_iter().collect();
        all.extend(namesrv.to_properties());
        print!("{}", properties::to_plain_text(&all));
        return Ok(());
    }
    let (auth, acl_warnings) = args.auth_config()?;
    let log_dir = nameserver::logging::log_dir(args.log_dir.as_ref(), &home_dir);
    let logging = nameserver::logging::init(args.log_level.as_deref(), log_dir.as_deref())?;
    tracing::info!("nameserver {}", nameserver::version::LONG);
    for warning in clamped {
        tracing::warn!("config: {warning}");
    }
    for warning in nameserver::config_keys::unimplemented(&namesrv) {
        tracing::warn!("config: {warning}");
    }
    for key in args.unknown_system_properties() {
        tracing::warn!(
            "-D{key} is not a property this NameServer reads (it reads {}, {}); ignored",
            nameserver::tls::SERVER_KEYS.join(", "),
            nameserver::args::OTHER_SYSTEM_KEYS.join(", ")
        );
    }
    if !args.jvm_options.is_empty() {
        tracing::info!(
            "JVM options ignored (no JVM here; memory is bounded by the --max-* options): {}",
            args.jvm_options.join(" ")
        );
    }
    for warning in acl_warnings {
        tracing::warn!("{warning}");
    }
    for line in auth.describe() {
        tracing::info!("{line}");
    }
    // A bad certificate path is a start-up error, before anything listens.
    if tls.mode != nameserver::tls::TlsMode::Disabled || args.http_tls {
        tls.build().context("TLS")?;
    }
    let kv = nameserver::load_kv(namesrv.kv_config_path.as_ref())?;
    tracing::info!("load KV config table OK, {} entries from {}", kv.len(), namesrv.kv_config_path);
    if kv.bytes() > args.max_kv_bytes {
        tracing::warn!(
            "the KV table loaded from {} holds {} bytes (namespace + key + value as the file writes them + 64 \
             per entry), more than \
             --max-kv-bytes ({}): it is served, and puts that would grow it are refused",
            namesrv.kv_config_path,
            kv.bytes(),
            args.max_kv_bytes
        );
    }
    let (bind_address, port) = (namesrv.bind_address.clone(), namesrv.listen_port);
    let mut config = args.server_config(namesrv, kv);
    config.tls = tls;
    config.auth = auth;
    config.max_connections = open_files(config.max_connections);
    config.traffic_log = logging.files();
    match config.go_away_window {
        Some(window) => tracing::info!(
            "shutdown: serving {window:?} more (GO_AWAY to clients newer than V5_3_1), then connections get up to {:?} to be answered",
            config.shutdown_grace
        ),
        None => tracing::info!("shutdown: connections get up to {:?} to be answered", config.shutdown_grace),
    }

    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the tokio runtime")?;
    runtime.block_on(async {
        let signals = nameserver::shutdown::signals().context("cannot install the SIGINT/SIGTERM handlers")?;
        config.go_away_cut_short = signals.again.clone();
        let shutdown = signals.first.cancelled_owned();
        let listener = nameserver::bind(&bind_address, port)
            .await
            .with_context(|| format!("cannot listen on {bind_address}:{port}"))?;
        let address = listener.local_addr().context("the listener has no local address")?;
        for warning in nameserver::exposure::warnings(address, &config.tls, &config.auth.rules) {
            tracing::warn!("{warning}");
        }
        let controller = match controller {
            Some(settings) => {
                let port = settings.port;
                for warning in &settings.ignored {
                    tracing::warn!("config: {warning}");
                }
                let listener = nameserver::bind(&bind_address, port).await.with_context(|| {
                    format!("cannot listen on {bind_address}:{port} (the controller's entry of controllerDLegerPeers)")
                })?;
                Some(nameserver::controller::ControllerPort::open(listener, settings)?)
            }
            None => None,
        };
        let console = bind_console(args).await?;
        let boot = format!("The Name Server boot success. serializeType=JSON, address {address}");
        tracing::info!("{boot}");
        // As Java's System.out: a closed stdout is no reason to stop (nor the lines below).
        let _ = writeln!(std::io::stdout(), "{boot}");
        if let Some(console) = &console {
            let http = console.listener.local_addr().context("the HTTP listener has no local address")?;
            let scheme = if args.http_tls { "https" } else { "http" };
            let _ = writeln!(
                std::io::stdout(),
                "HTTP console: {scheme}://{http}/ (live view: {scheme}://{http}/www/?live)"
            );
        }
        if let Some(controller) = &controller {
            let at = controller.listener.local_addr().context("the controller's listener has no local address")?;
            // Java's ControllerStartup says this; the embedded one says nothing: a line to wait for.
            // Not println!: it panics once the reader of the boot line has closed stdout.
            let _ = writeln!(std::io::stdout(), "The controller boot success, address {at}");
        }
        nameserver::serve_with_controller(listener, console, controller, config, shutdown)
            .await
            .context("the NameServer stopped with an error")
    })
}

/// Raises the open-files limit for `max_connections` and returns how many connections can be
/// served: fewer when the hard limit is too low, so that peers beyond it wait in the listen
/// backlog instead of failing to be accepted.
fn open_files(max_connections: usize) -> usize {
    let limits = match nameserver::open_files::raise_for(max_connections) {
        Ok(limits) => limits,
        Err(error) => {
            tracing::warn!("open files: cannot read or raise RLIMIT_NOFILE ({error}); keeping it as it is");
            return max_connections;
        }
    };
    let nameserver::open_files::Limits { old_soft, soft, hard } = limits;
    let usable = usize::try_from(limits.usable_connections()).unwrap_or(usize::MAX);
    if soft != old_soft {
        tracing::info!(
            "open files: soft limit raised from {old_soft} to {soft} (hard {hard}) for --max-connections {max_connections}"
        );
    } else if usable >= max_connections {
        tracing::info!("open files: soft limit {soft} (hard {hard}), enough for --max-connections {max_connections}");
    }
    if usable < max_connections {
        tracing::warn!(
            "open files: the hard limit {hard} is below --max-connections {max_connections} plus {} for files and listeners; \
             serving at most {usable} connections at once (more wait in the backlog). Raise it (systemd LimitNOFILE=, ulimit -Hn, \
             docker --ulimit nofile=) or lower --max-connections",
            nameserver::open_files::MARGIN
        );
        return usable;
    }
    max_connections
}

/// The HTTP console's listener. When the default port is taken the daemon runs without it;
/// a port given with --http-port must be free.
async fn bind_console(args: &Args) -> anyhow::Result<Option<nameserver::http::Console>> {
    let Some(options) = args.http_options()? else {
        if !args.http_peers.is_empty() {
            tracing::warn!(
                "--http-peers is ignored with --no-http: the console compares this NameServer with its peers"
            );
        }
        return Ok(None);
    };
    options.check().map_err(anyhow::Error::msg)?;
    for warning in args.token_warnings(&options) {
        tracing::warn!("HTTP console: {warning}");
    }
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
fn home_dir(args: &Args) -> String {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    nameserver::user_home::resolve(
        args.system_property("user.home"),
        nameserver::user_home::from_database(),
        std::env::var(var).ok(),
    )
}
