//! The `scan` verb: analyze and print the summary, or one document (`--json` catalog.json, `--events` events.json), reusing stored output when no input changed.

use crate::pipeline::Product;
use crate::prepare::AnalysisArgs;
use crate::summary::{print_cache_notes, print_summary, print_timings, write_parsed_list};
use anyhow::Result;
use clap::Args;
use std::io::Write;

/// Options of `portolan scan`.
#[derive(Args)]
pub(crate) struct ScanArgs {
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// Print catalog.json instead of the summary.
    #[arg(long)]
    json: bool,
    /// Print events.json instead of the summary.
    #[arg(long, conflicts_with = "json")]
    events: bool,
    /// Print where the time went (to stderr).
    #[arg(long)]
    timings: bool,
    /// Write the files the analysis parsed to this file, one a line (for the
    /// bench's parse floor; nothing is written when stored output is reused).
    #[arg(long, hide = true, value_name = "FILE")]
    parsed_list: Option<std::path::PathBuf>,
    /// List every operation in the summary.
    #[arg(long)]
    list: bool,
    /// List only findings of this severity or worse: error, warning or info (default: info, all).
    #[arg(long, value_name = "LEVEL", value_parser = ["error", "warning", "info"])]
    findings: Option<String>,
}

/// Run `portolan scan`; the result is the process exit code.
pub(crate) fn run(args: ScanArgs) -> Result<i32> {
    let ScanArgs {
        analysis,
        json,
        events,
        timings,
        parsed_list,
        list,
        findings,
    } = args;
    let start = std::time::Instant::now();
    let prepared = analysis.prepare()?;
    if json || events {
        // The document alone: reuse the bytes of an identical earlier run.
        // `--json` runs the whole analysis, as `build` does: code read
        // only for the events has findings of its own that catalog.json
        // lists, and the two must print the same bytes.
        let spec = prepared.spec_options(false)?;
        let product = if json {
            Product::Catalog
        } else {
            Product::Events
        };
        let derived = prepared.derive(product, &spec)?;
        if let Some(inv) = &derived.inventory {
            write_parsed_list(parsed_list.as_deref(), inv)?;
        }
        let code = derived
            .inventory
            .as_ref()
            .map_or(0, |inv| prepared.exit_code(inv));
        let output = derived.output?;
        if timings && let Some(inv) = &derived.inventory {
            print_timings(inv, start);
        }
        let bytes = output
            .files
            .into_iter()
            .next()
            .map(|(_, b)| b)
            .unwrap_or_default();
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes)?;
        out.flush()?;
        if timings {
            print_cache_notes(&derived.notes);
            eprintln!(
                "timings: total {:.1} ms",
                start.elapsed().as_secs_f64() * 1000.0
            );
        }
        // The process exits next (see `main`).
        std::mem::forget(derived.inventory);
        return Ok(code);
    }
    let inv = prepared.analyze()?;
    write_parsed_list(parsed_list.as_deref(), &inv)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let level = findings
        .as_deref()
        .and_then(analyzer::Severity::parse)
        .unwrap_or(analyzer::Severity::Info);
    print_summary(&mut out, &inv, list, level)?;
    out.flush()?;
    if timings {
        print_timings(&inv, start);
    }
    let code = prepared.exit_code(&inv);
    // The process exits next (see `main`).
    std::mem::forget((inv, prepared));
    Ok(code)
}
