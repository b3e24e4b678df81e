//! The `build` verb: write every document into a folder, reusing stored output when no input changed.

use crate::pipeline::Product;
use crate::prepare::AnalysisArgs;
use crate::publish;
use crate::summary::{print_cache_notes, print_timings, write_parsed_list};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// Options of `portolan build`.
#[derive(Args)]
pub(crate) struct BuildArgs {
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// The output folder (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Emit the OpenAPI documents as 3.1.0 (JSON Schema kept as is) instead of 3.0.3.
    #[arg(long)]
    openapi31: bool,
    /// Print where the time went (to stderr).
    #[arg(long)]
    timings: bool,
    /// Write the files the analysis parsed to this file, one a line (for the
    /// bench's parse floor; nothing is written when stored output is reused).
    #[arg(long, hide = true, value_name = "FILE")]
    parsed_list: Option<std::path::PathBuf>,
}

/// Run `portolan build`; the result is the process exit code.
pub(crate) fn run(args: BuildArgs) -> Result<i32> {
    let BuildArgs {
        analysis,
        out,
        openapi31,
        timings,
        parsed_list,
    } = args;
    let start = std::time::Instant::now();
    let prepared = analysis.prepare()?;
    let opts = prepared.spec_options(openapi31)?;
    let derived = prepared.derive(Product::Documents, &opts)?;
    if timings && derived.inventory.is_some() {
        print_cache_notes(&derived.notes);
    }
    let output = derived.output?;
    let files: Vec<(&str, &[u8])> = output
        .files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    publish::write_set(&out, &files)?;
    for w in &output.warnings {
        eprintln!("warning: {w}");
    }
    println!(
        "wrote {} documents to {} {}",
        output.files.len(),
        out.display(),
        output.message
    );
    let Some(inv) = &derived.inventory else {
        if timings {
            print_cache_notes(&derived.notes);
            eprintln!(
                "timings: total {:.1} ms (documents reused: no input changed)",
                start.elapsed().as_secs_f64() * 1000.0
            );
        }
        return Ok(0);
    };
    write_parsed_list(parsed_list.as_deref(), inv)?;
    if timings {
        print_timings(inv, start);
    }
    let code = prepared.exit_code(inv);
    // The process exits next: its memory goes back whole, not freed piece
    // by piece (see `main`).
    drop(files);
    std::mem::forget((derived.inventory, prepared));
    Ok(code)
}
