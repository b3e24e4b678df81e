//! The `build` verb: write every document into a folder, reusing stored output when no input changed.

use crate::prepare::AnalysisArgs;
use crate::summary::{DocumentCounts, print_cache_notes, print_timings, write_parsed_list};
use crate::{failon, outcache, publish};
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
    let fail_on = analysis.fail_on;
    let prepared = analysis.prepare()?;
    let opts = prepared.spec_options(openapi31)?;
    // (--fail-on needs the findings: no stored output then.)
    let slot = match fail_on {
        Some(_) => None,
        None => outcache::Slot::find(&prepared.analyzer, &opts, "build")?,
    };
    if let Some(o) = slot.as_ref().and_then(|s| s.load()) {
        let files: Vec<(&str, &[u8])> = o
            .files
            .iter()
            .map(|(p, b)| (p.as_str(), b.as_slice()))
            .collect();
        publish::write_set(&out, &files)?;
        for w in &o.warnings {
            eprintln!("warning: {w}");
        }
        println!(
            "wrote {} documents to {} {}",
            o.files.len(),
            out.display(),
            o.message
        );
        if timings {
            if let Some(s) = &slot {
                print_cache_notes(&s.notes.borrow());
            }
            eprintln!(
                "timings: total {:.1} ms (documents reused: no input changed)",
                start.elapsed().as_secs_f64() * 1000.0
            );
        }
        return Ok(0);
    }
    if timings && let Some(s) = &slot {
        print_cache_notes(&s.notes.borrow());
    }
    let inv = prepared.analyzer.run()?;
    write_parsed_list(parsed_list.as_deref(), &inv)?;
    let docs = specgen::documents(&inv, &opts)?;
    let files: Vec<(&str, &[u8])> = docs
        .documents
        .iter()
        .map(|d| (d.path.as_str(), d.bytes.as_slice()))
        .collect();
    publish::write_set(&out, &files)?;
    for w in &docs.warnings {
        eprintln!("warning: {w}");
    }
    let counts = DocumentCounts::of(&inv);
    let message = format!(
        "({} operations, {} events, {} findings)",
        counts.operations, counts.events, counts.findings
    );
    println!(
        "wrote {} documents to {} {message}",
        docs.documents.len(),
        out.display(),
    );
    if let Some(s) = outcache::Slot::after(&inv, prepared.options(), &opts, "build") {
        s.store(&outcache::Output {
            files: docs
                .documents
                .iter()
                .map(|d| (d.path.clone(), d.bytes.clone()))
                .collect(),
            message,
            warnings: docs.warnings.clone(),
        });
    }
    if timings {
        print_timings(&inv, start);
    }
    let code = failon::exit_code(fail_on, &inv);
    // The process exits next: its memory goes back whole, not freed piece
    // by piece (see `main`).
    drop(files);
    std::mem::forget((inv, docs, prepared));
    Ok(code)
}
