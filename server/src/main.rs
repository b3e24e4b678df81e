//! The `portolan` command line.

mod config;
mod outcache;
mod snapshot;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use config::Config;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    Scan {
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
        /// List every operation in the summary.
        #[arg(long)]
        list: bool,
    },
    /// Write every document (catalog, OpenAPI, events, AsyncAPI, tools) into a folder.
    Build {
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
    },
    /// Compare the inventory with a pinned snapshot; exit 1 on drift.
    Check {
        #[command(flatten)]
        analysis: AnalysisArgs,
        /// The snapshot file.
        #[arg(long)]
        snapshot: PathBuf,
        /// Rewrite the snapshot instead of comparing.
        #[arg(long)]
        update: bool,
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

/// An analysis ready to run, with the configuration it was given.
struct Prepared {
    options: analyzer::AnalyzeOptions,
    config: Config,
}

impl AnalysisArgs {
    fn prepare(&self) -> Result<Prepared> {
        let root = self.root.clone().unwrap_or_else(|| PathBuf::from("."));
        let config_path = self.config.clone().or_else(|| {
            let p = root.join("portolan.toml");
            p.exists().then_some(p)
        });
        let config = match config_path {
            Some(path) => Config::load(&path)?,
            None => Config::default(),
        };
        let entries = if self.entries.is_empty() {
            config.entries.clone()
        } else {
            self.entries.clone()
        };
        Ok(Prepared {
            options: analyzer::AnalyzeOptions {
                root,
                entries,
                cache_dir: self.cache_dir.clone(),
                no_cache: self.no_cache,
                skip_events: false,
                server_dirs: config.socket.server_dirs.clone(),
                client_dirs: config.socket.client_dirs.clone(),
            },
            config,
        })
    }
}

impl Prepared {
    /// Emitter options: the config, with title and version from the
    /// project's package.json (else the folder name and `0.0.0`).
    fn spec_options(&self, openapi31: bool) -> Result<specgen::SpecOptions> {
        let root = &self.options.root;
        let pkg: Option<serde_json::Value> = std::fs::read(root.join("package.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let field = |k: &str| {
            pkg.as_ref()
                .and_then(|p| p.get(k))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let title = field("name").unwrap_or_else(|| {
            root.canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "API".into())
        });
        let version = field("version").unwrap_or_else(|| "0.0.0".into());
        let mut opts = self.config.spec_options(title, version, openapi31)?;
        // A plain SPDX id only; `SEE LICENSE IN …` and expressions are not names.
        if opts.license.is_none() {
            opts.license = field("license").filter(|l| {
                !l.is_empty()
                    && l.chars()
                        .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c))
            });
        }
        Ok(opts)
    }
}

fn main() {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}

fn print_timings(inv: &analyzer::Inventory, start: std::time::Instant) {
    let t = &inv.timings;
    eprintln!(
        "timings: discover {:.1} ms ({} files), prefilter {:.1} ms, resolve {:.1} ms ({} parsed, {} from cache; parser {:.0} ms + lowering {:.0} ms of CPU), handlers and events {:.1} ms, inventory {:.1} ms{}, total {:.1} ms",
        t.discover_ms,
        t.files_discovered,
        t.prefilter_ms,
        t.resolve_ms,
        t.files_parsed,
        t.files_cached,
        t.parse_cpu_ms,
        t.lower_cpu_ms,
        t.events_ms,
        t.inventory_ms,
        if t.result_cached {
            " (inventory reused: no input changed)"
        } else {
            ""
        },
        start.elapsed().as_secs_f64() * 1000.0
    );
}

/// Run a verb; the result is the process exit code.
fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Scan {
            analysis,
            json,
            events,
            timings,
            list,
        } => {
            let start = std::time::Instant::now();
            let prepared = analysis.prepare()?;
            if json || events {
                // The document alone: reuse the bytes of an identical earlier run.
                let mut prepared = prepared;
                // catalog.json holds no events: leave out the code read only for them.
                prepared.options.skip_events = json;
                let spec = prepared.spec_options(false)?;
                let verb = if json { "scan --json" } else { "scan --events" };
                let slot = outcache::Slot::find(&prepared.options, &spec, verb)?;
                let bytes = match slot.as_ref().and_then(|s| s.load()) {
                    Some(o) => o
                        .files
                        .into_iter()
                        .next()
                        .map(|(_, b)| b)
                        .unwrap_or_default(),
                    None => {
                        let inv = analyzer::analyze(&prepared.options)?;
                        let mut b = if json {
                            serde_json::to_vec_pretty(&specgen::catalog_with(&inv, &spec)?)?
                        } else {
                            serde_json::to_vec_pretty(&specgen::events(&inv))?
                        };
                        b.push(b'\n');
                        if let Some(s) = outcache::Slot::after(&inv, &prepared.options, &spec, verb)
                        {
                            s.store(&outcache::Output {
                                files: vec![(verb.into(), b.clone())],
                                message: String::new(),
                                warnings: Vec::new(),
                            });
                        }
                        if timings {
                            print_timings(&inv, start);
                        }
                        b
                    }
                };
                let mut out = std::io::stdout().lock();
                out.write_all(&bytes)?;
                out.flush()?;
                if timings {
                    eprintln!(
                        "timings: total {:.1} ms",
                        start.elapsed().as_secs_f64() * 1000.0
                    );
                }
                return Ok(0);
            }
            let inv = analyzer::analyze(&prepared.options)?;
            let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            print_summary(&mut out, &inv, list)?;
            out.flush()?;
            if timings {
                print_timings(&inv, start);
            }
            Ok(0)
        }
        Command::Build {
            analysis,
            out,
            openapi31,
            timings,
        } => {
            let start = std::time::Instant::now();
            let prepared = analysis.prepare()?;
            let opts = prepared.spec_options(openapi31)?;
            let slot = outcache::Slot::find(&prepared.options, &opts, "build")?;
            if let Some(o) = slot.as_ref().and_then(|s| s.load()) {
                for w in &o.warnings {
                    eprintln!("warning: {w}");
                }
                for (path, bytes) in &o.files {
                    let target = out.join(path);
                    if let Some(dir) = target.parent() {
                        std::fs::create_dir_all(dir)
                            .with_context(|| format!("cannot create {}", dir.display()))?;
                    }
                    std::fs::write(&target, bytes)
                        .with_context(|| format!("cannot write {}", target.display()))?;
                }
                println!(
                    "wrote {} documents to {} {}",
                    o.files.len(),
                    out.display(),
                    o.message
                );
                if timings {
                    eprintln!(
                        "timings: total {:.1} ms (documents reused: no input changed)",
                        start.elapsed().as_secs_f64() * 1000.0
                    );
                }
                return Ok(0);
            }
            let inv = analyzer::analyze(&prepared.options)?;
            let docs = specgen::documents(&inv, &opts)?;
            write_documents(&out, &docs)?;
            for w in &docs.warnings {
                eprintln!("warning: {w}");
            }
            // Operations under the unknown prefix `{?}` are salvaged, not counted.
            let message = format!(
                "({} operations, {} events, {} findings)",
                inv.operations
                    .iter()
                    .filter(|o| !o.path.express.starts_with(analyzer::UNKNOWN_PREFIX))
                    .count(),
                inv.events.iter().filter(|e| !e.lifecycle).count(),
                inv.findings.len()
            );
            println!(
                "wrote {} documents to {} {message}",
                docs.documents.len(),
                out.display(),
            );
            if let Some(s) = outcache::Slot::after(&inv, &prepared.options, &opts, "build") {
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
            Ok(0)
        }
        Command::Check {
            analysis,
            snapshot,
            update,
        } => {
            let prepared = analysis.prepare()?;
            let opts = prepared.spec_options(false)?;
            let inv = analyzer::analyze(&prepared.options)?;
            let current = snapshot::render(&inv, &opts)?;
            if update {
                if let Some(dir) = snapshot.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                }
                std::fs::write(&snapshot, &current)
                    .with_context(|| format!("cannot write the snapshot {}", snapshot.display()))?;
                println!("wrote {}", snapshot.display());
                return Ok(0);
            }
            let pinned = match std::fs::read_to_string(&snapshot) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
                    "the snapshot {} does not exist; create it with `portolan check {} --snapshot {} --update`",
                    snapshot.display(),
                    prepared.options.root.display(),
                    snapshot.display()
                ),
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot read the snapshot {}", snapshot.display())
                    });
                }
            };
            let d = snapshot::diff(&pinned, &current);
            if d.is_empty() {
                println!("no drift: the inventory matches {}", snapshot.display());
                Ok(0)
            } else {
                print!("{d}");
                println!("(accept with `--update`)");
                Ok(1)
            }
        }
    }
}

/// Write each document under `out`, creating folders as the paths need.
fn write_documents(out: &Path, docs: &specgen::Documents) -> Result<()> {
    for d in &docs.documents {
        let path = out.join(&d.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::write(&path, &d.bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
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
        "HTTP: {} operations, {} declarations, {} app-level mounts, {} source files{}",
        s.operations,
        s.declarations,
        s.mounts,
        s.source_files,
        if s.salvaged > 0 {
            format!(
                "; {} salvaged from code no entry runs (marked reached; those under the unknown prefix `{{?}}` are not counted above)",
                s.salvaged
            )
        } else {
            String::new()
        }
    )?;
    for app in &inv.apps {
        writeln!(
            out,
            "  app {}:{}  {} operations{}",
            app.at.file,
            app.at.line,
            app.operations,
            app.reached
                .as_ref()
                .map(|r| format!("  (reached: {})", r.label()))
                .unwrap_or_default()
        )?;
    }
    let mut domains: std::collections::BTreeMap<String, usize> = Default::default();
    for op in inv
        .operations
        .iter()
        .filter(|o| !o.path.express.starts_with(analyzer::UNKNOWN_PREFIX))
    {
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
                    + &op
                        .reached
                        .as_ref()
                        .map(|r| format!("  (reached: {})", r.label()))
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
