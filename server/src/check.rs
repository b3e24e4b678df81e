//! The `check` verb: compare the inventory with a pinned snapshot, and the census coverage with a floor.

use crate::prepare::AnalysisArgs;
use crate::summary::coverage_line;
use crate::{publish, snapshot};
use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::PathBuf;

/// Options of `portolan check`.
#[derive(Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// The snapshot file.
    #[arg(long, required_unless_present = "min_coverage")]
    snapshot: Option<PathBuf>,
    /// Rewrite the snapshot instead of comparing.
    #[arg(long, requires = "snapshot")]
    update: bool,
    /// Fail (exit 1) when less than N percent of the census (HTTP
    /// registrations and Socket.IO sites) is charted.
    #[arg(long, value_name = "N")]
    min_coverage: Option<f64>,
}

/// Run `portolan check`; the result is the process exit code.
pub(crate) fn run(args: CheckArgs) -> Result<i32> {
    let CheckArgs {
        analysis,
        snapshot,
        update,
        min_coverage,
    } = args;
    let prepared = analysis.prepare()?;
    let opts = prepared.spec_options(false)?;
    let inv = prepared.analyze()?;
    let below = min_coverage.filter(|&n| inv.coverage.percent() + 1e-9 < n);
    if let Some(n) = min_coverage {
        let line = coverage_line(&inv.coverage);
        match below {
            Some(_) => println!(
                "coverage {:.1}% is below --min-coverage {n}: {line}",
                inv.coverage.percent()
            ),
            None => println!(
                "coverage {:.1}% (at least {n}): {line}",
                inv.coverage.percent()
            ),
        }
    }
    let Some(snapshot) = snapshot else {
        return Ok(if below.is_some() { 1 } else { 0 });
    };
    let current = snapshot::render(&inv, &opts)?;
    if update {
        publish::write_one(&snapshot, current.as_bytes())?;
        println!("wrote {}", snapshot.display());
        return Ok(prepared.exit_code(&inv));
    }
    let pinned = match std::fs::read_to_string(&snapshot) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "the snapshot {} does not exist; create it with `portolan check {} --snapshot {} --update`",
            snapshot.display(),
            prepared.options().root.display(),
            snapshot.display()
        ),
        Err(e) => {
            return Err(e)
                .with_context(|| format!("cannot read the snapshot {}", snapshot.display()));
        }
    };
    let d = snapshot::diff(&pinned, &current);
    if d.is_empty() {
        println!("no drift: the inventory matches {}", snapshot.display());
        Ok(if below.is_some() {
            1
        } else {
            prepared.exit_code(&inv)
        })
    } else {
        print!("{d}");
        println!("(accept with `--update`)");
        Ok(1)
    }
}
