//! The `portolan` command line.

mod build;
mod cachecmd;
mod check;
mod config;
mod failon;
mod outcache;
mod pipeline;
mod prepare;
mod publish;
mod scan;
mod serve_cli;
mod snapshot;
mod summary;

pub(crate) use pipeline::Prepared;
pub(crate) use prepare::AnalysisArgs;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// mimalloc: rendering the documents builds and drops large JSON trees, where
/// the system allocator spent about 40% of the time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "portolan",
    version,
    about = "Charts Express and Socket.IO servers from their source code"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Analyze a project and print a summary (or the catalog with --json).
    Scan(scan::ScanArgs),
    /// Write every document (catalog, OpenAPI, events, AsyncAPI, tools) into a folder.
    Build(build::BuildArgs),
    /// Compare the inventory with a pinned snapshot; exit 1 on drift.
    Check(check::CheckArgs),
    /// Serve the documents and the tool registry over HTTP (no ROOT: the bundled example).
    Serve(serve_cli::ServeArgs),
    /// See, clean or verify the cache folder.
    Cache {
        #[command(subcommand)]
        command: cachecmd::CacheCommand,
    },
}

/// Exit codes (the README's table): 0 success, 1 drift (or a damaged cache
/// for `cache verify`), 2 usage or input errors (clap's own usage errors
/// exit 2 too), 3 internal errors (a bug: a panic anywhere).
const EXIT_INPUT: i32 = 2;
const EXIT_INTERNAL: i32 = 3;

fn main() {
    let cli = Cli::parse();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli))) {
        Ok(Ok(code)) => std::process::exit(code),
        Ok(Err(e)) => {
            eprintln!("error: {e:#}");
            let internal = e
                .downcast_ref::<analyzer::AnalyzeError>()
                .is_some_and(|a| matches!(a, analyzer::AnalyzeError::Internal(_)));
            std::process::exit(if internal { EXIT_INTERNAL } else { EXIT_INPUT });
        }
        Err(_) => {
            eprintln!(
                "error: internal error (a bug in portolan; please report it with the message above)"
            );
            std::process::exit(EXIT_INTERNAL);
        }
    }
}

/// Run a verb; the result is the process exit code. The process exits
/// right after: `scan` and `build` end by forgetting the inventory and the
/// documents they hold (`mem::forget`) rather than freeing them piece by
/// piece; the operating system takes the memory back whole.
fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Scan(args) => scan::run(args),
        Command::Build(args) => build::run(args),
        Command::Check(args) => check::run(args),
        Command::Serve(args) => serve_cli::run(args),
        Command::Cache { command } => cachecmd::run(command),
    }
}
