//! `loadgen report`: the comparison tables (and charts) of a bench run, from its raw file.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use nameserver_bench::{charts, report};

/// `report`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The raw file
    raw: PathBuf,
    /// A smoke run: no target status is claimed
    #[arg(long)]
    smoke: bool,
    /// Criterion's output directory (target/criterion): adds the microbenchmark rows
    #[arg(long)]
    criterion: Option<PathBuf>,
    /// Also write the charts (latency by percentile, the large cluster's timelines) as
    /// SVG files into this directory
    #[arg(long)]
    svg: Option<PathBuf>,
}

/// Prints the tables; writes the charts with `--svg`.
pub(crate) fn report(args: &ReportArgs) -> anyhow::Result<()> {
    let ReportArgs { raw, smoke, criterion, svg } = args;
    let text = std::fs::read_to_string(raw).with_context(|| format!("reading {}", raw.display()))?;
    let records = report::parse_raw(&text).with_context(|| raw.display().to_string())?;
    if let Some(dir) = svg {
        let charts = charts::charts(&records).map_err(anyhow::Error::msg).with_context(|| raw.display().to_string())?;
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for chart in charts {
            let path = dir.join(&chart.file);
            std::fs::write(&path, chart.svg).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    let criterion = criterion
        .as_deref()
        .map(|dir: &Path| report::criterion_medians(dir).with_context(|| format!("reading {}", dir.display())))
        .transpose()?;
    print!("{}", report::tables(&records, &report::Options { smoke: *smoke, criterion }));
    Ok(())
}
