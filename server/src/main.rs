//! The `portolan` command line.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;

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
    Scan {
        #[command(flatten)]
        analysis: AnalysisArgs,
        /// Print catalog.json instead of the summary.
        #[arg(long)]
        json: bool,
        /// Print where the time went (to stderr).
        #[arg(long)]
        timings: bool,
        /// List every operation in the summary.
        #[arg(long)]
        list: bool,
    },
}

/// Options every verb shares.
#[derive(Args)]
struct AnalysisArgs {
    /// The project root (default: the current directory).
    root: Option<PathBuf>,
    /// An entry file, relative to ROOT (repeatable). Default: auto-detect.
    #[arg(long = "entry")]
    entries: Vec<String>,
    /// Read options from this portolan.toml (default: ROOT/portolan.toml if present).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where to keep the per-file facts cache.
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Neither read nor write the cache.
    #[arg(long)]
    no_cache: bool,
}

impl AnalysisArgs {
    fn options(&self) -> Result<analyzer::AnalyzeOptions> {
        let root = self.root.clone().unwrap_or_else(|| PathBuf::from("."));
        let mut entries = self.entries.clone();
        let config_path = self.config.clone().or_else(|| {
            let p = root.join("portolan.toml");
            p.exists().then_some(p)
        });
        if let Some(path) = config_path {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read the config file {}", path.display()))?;
            let config = parse_config(&text).with_context(|| format!("in {}", path.display()))?;
            if entries.is_empty() {
                entries = config.entries;
            }
        }
        Ok(analyzer::AnalyzeOptions {
            root,
            entries,
            cache_dir: self.cache_dir.clone(),
            no_cache: self.no_cache,
        })
    }
}

struct Config {
    entries: Vec<String>,
}

/// The subset of portolan.toml this version reads: `entries = ["a.js", ...]`.
fn parse_config(text: &str) -> Result<Config> {
    let mut entries = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            anyhow::bail!("line {}: expected `key = value`", i + 1);
        };
        if key.trim() == "entries" {
            let v = value.trim();
            let inner = v
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(']'))
                .with_context(|| format!("line {}: `entries` must be a list of strings", i + 1))?;
            for item in inner.split(',') {
                let item = item.trim().trim_matches('"').trim_matches('\'');
                if !item.is_empty() {
                    entries.push(item.to_string());
                }
            }
        }
    }
    Ok(Config { entries })
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Scan {
            analysis,
            json,
            timings,
            list,
        } => {
            let start = std::time::Instant::now();
            let opts = analysis.options()?;
            let inv = analyzer::analyze(&opts)?;
            let mut out = std::io::stdout().lock();
            if json {
                let doc = specgen::catalog(&inv);
                serde_json::to_writer_pretty(&mut out, &doc)?;
                writeln!(out)?;
            } else {
                print_summary(&mut out, &inv, list)?;
            }
            if timings {
                let t = &inv.timings;
                eprintln!(
                    "timings: discover {:.1} ms ({} files), prefilter {:.1} ms, resolve {:.1} ms ({} parsed, {} from cache), inventory {:.1} ms, total {:.1} ms",
                    t.discover_ms,
                    t.files_discovered,
                    t.prefilter_ms,
                    t.resolve_ms,
                    t.files_parsed,
                    t.files_cached,
                    t.inventory_ms,
                    start.elapsed().as_secs_f64() * 1000.0
                );
            }
            Ok(())
        }
    }
}

fn print_summary(out: &mut impl Write, inv: &analyzer::Inventory, list: bool) -> Result<()> {
    let s = &inv.stats;
    writeln!(
        out,
        "entries: {}",
        if inv.entries.is_empty() {
            "(none)".into()
        } else {
            inv.entries.join(", ")
        }
    )?;
    writeln!(
        out,
        "HTTP: {} operations, {} declarations, {} app-level mounts, {} source files",
        s.operations, s.declarations, s.mounts, s.source_files
    )?;
    for app in &inv.apps {
        writeln!(
            out,
            "  app {}:{}  {} operations",
            app.at.file, app.at.line, app.operations
        )?;
    }
    let mut domains: std::collections::BTreeMap<String, usize> = Default::default();
    for op in &inv.operations {
        let segs: Vec<&str> = op
            .path
            .express
            .split('/')
            .filter(|x| !x.is_empty())
            .collect();
        let d = match segs.as_slice() {
            ["api", d, ..] => d.to_string(),
            [d, ..] => d.to_string(),
            [] => "root".into(),
        };
        *domains.entry(d).or_default() += 1;
    }
    let mut top: Vec<_> = domains.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let shown: Vec<String> = top
        .iter()
        .take(12)
        .map(|(d, n)| format!("{d} {n}"))
        .collect();
    writeln!(
        out,
        "domains: {} ({}{})",
        domains.len(),
        shown.join(", "),
        if domains.len() > 12 { ", ..." } else { "" }
    )?;
    if list {
        for op in &inv.operations {
            let d = &op.declarations[0];
            writeln!(
                out,
                "  {:<7} {:<60} {}:{}{}",
                op.method.to_uppercase(),
                op.path.express,
                d.at.file,
                d.at.line,
                op.conditional()
                    .map(|c| format!("  (if {c})"))
                    .unwrap_or_default()
            )?;
        }
    }
    let mut by_code: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in &inv.findings {
        *by_code.entry(f.code.as_str()).or_default() += 1;
    }
    writeln!(
        out,
        "findings: {}{}",
        inv.findings.len(),
        if by_code.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                by_code
                    .iter()
                    .map(|(c, n)| format!("{c} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    )?;
    for f in &inv.findings {
        writeln!(
            out,
            "  {:<18} {}:{}  {}",
            f.code.as_str(),
            f.at.file,
            f.at.line,
            f.message
        )?;
    }
    Ok(())
}
