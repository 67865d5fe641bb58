//! `loadgen controller`: controller requests (RIP-44) on an embedded controller's port.

use clap::Args;
use nameserver_bench::controller_load::{self, ControllerLoad};

use crate::{Target, emit, loopback};

/// `controller`.
#[derive(Debug, Args)]
pub(crate) struct ControllerArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    load: ControllerLoad,
}

/// `controller`: a `CONTROLLER` line; every reply must be SUCCESS.
pub(crate) async fn controller((label, json): (&str, bool), args: &ControllerArgs) -> anyhow::Result<bool> {
    let (addr, timeout) = loopback(&args.target)?;
    let result = controller_load::run(addr, &args.load, timeout).await?;
    emit(json, &result.line(&args.load, label))?;
    Ok(result.errors() == 0 && result.measured.completed > 0)
}
