//! The `portolan` command line.

mod cachecmd;
mod config;
mod failon;
mod outcache;
mod publish;
mod serve_cli;
mod snapshot;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use config::Config;
use std::io::Write;
use std::path::PathBuf;

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
        /// List only findings of this severity or worse: error, warning or info (default: info, all).
        #[arg(long, value_name = "LEVEL", value_parser = ["error", "warning", "info"])]
        findings: Option<String>,
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
        #[arg(long, required_unless_present = "min_coverage")]
        snapshot: Option<PathBuf>,
        /// Rewrite the snapshot instead of comparing.
        #[arg(long, requires = "snapshot")]
        update: bool,
        /// Fail (exit 1) when less than N percent of the census (HTTP
        /// registrations and Socket.IO sites) is charted.
        #[arg(long, value_name = "N")]
        min_coverage: Option<f64>,
    },
    /// Serve the documents and the tool registry over HTTP (no ROOT: the bundled example).
    Serve(serve_cli::ServeArgs),
    /// See, clean or verify the cache folder.
    Cache {
        #[command(subcommand)]
        command: cachecmd::CacheCommand,
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
    /// Exit 1 when a finding of this severity or a more severe one is reported.
    #[arg(long, value_enum, value_name = "LEVEL")]
    fail_on: Option<failon::FailOn>,
}

/// An analysis ready to run, with the configuration it was given.
pub(crate) struct Prepared {
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

/// The cache records a run found damaged and discarded, as `info` lines.
fn print_cache_notes(notes: &[String]) {
    for n in notes {
        eprintln!("info: {n}");
    }
}

fn print_timings(inv: &analyzer::Inventory, start: std::time::Instant) {
    let t = &inv.timings;
    print_cache_notes(&t.cache_notes);
    eprintln!(
        "timings: discover {:.1} ms ({} files), prefilter {:.1} ms, resolve {:.1} ms ({} parsed, {} from cache; parser {:.0} ms + lowering {:.0} ms + census {:.0} ms of CPU), handlers and events {:.1} ms, inventory {:.1} ms (census accounting {:.1} ms){}, total {:.1} ms",
        t.discover_ms,
        t.files_discovered,
        t.prefilter_ms,
        t.resolve_ms,
        t.files_parsed,
        t.files_cached,
        t.parse_cpu_ms,
        t.lower_cpu_ms,
        t.census_cpu_ms,
        t.events_ms,
        t.inventory_ms,
        t.census_account_ms,
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
            findings,
        } => {
            let start = std::time::Instant::now();
            let fail_on = analysis.fail_on;
            let prepared = analysis.prepare()?;
            if json || events {
                // The document alone: reuse the bytes of an identical earlier run.
                // `--json` runs the whole analysis, as `build` does: code read
                // only for the events has findings of its own that catalog.json
                // lists, and the two must print the same bytes.
                let spec = prepared.spec_options(false)?;
                let verb = if json { "scan --json" } else { "scan --events" };
                // (--fail-on needs the findings: no stored output then.)
                let slot = match fail_on {
                    Some(_) => None,
                    None => outcache::Slot::find(&prepared.options, &spec, verb)?,
                };
                let mut code = 0;
                let bytes = match slot.as_ref().and_then(|s| s.load()) {
                    Some(o) => o
                        .files
                        .into_iter()
                        .next()
                        .map(|(_, b)| b)
                        .unwrap_or_default(),
                    None => {
                        let inv = analyzer::analyze(&prepared.options)?;
                        code = failon::exit_code(fail_on, &inv);
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
                    if let Some(s) = &slot {
                        print_cache_notes(&s.notes.borrow());
                    }
                    eprintln!(
                        "timings: total {:.1} ms",
                        start.elapsed().as_secs_f64() * 1000.0
                    );
                }
                return Ok(code);
            }
            let inv = analyzer::analyze(&prepared.options)?;
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
            Ok(failon::exit_code(fail_on, &inv))
        }
        Command::Build {
            analysis,
            out,
            openapi31,
            timings,
        } => {
            let start = std::time::Instant::now();
            let fail_on = analysis.fail_on;
            let prepared = analysis.prepare()?;
            let opts = prepared.spec_options(openapi31)?;
            // (--fail-on needs the findings: no stored output then.)
            let slot = match fail_on {
                Some(_) => None,
                None => outcache::Slot::find(&prepared.options, &opts, "build")?,
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
            let inv = analyzer::analyze(&prepared.options)?;
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
            Ok(failon::exit_code(fail_on, &inv))
        }
        Command::Serve(args) => serve_cli::run(args),
        Command::Check {
            analysis,
            snapshot,
            update,
            min_coverage,
        } => {
            let fail_on = analysis.fail_on;
            let prepared = analysis.prepare()?;
            let opts = prepared.spec_options(false)?;
            let inv = analyzer::analyze(&prepared.options)?;
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
                return Ok(failon::exit_code(fail_on, &inv));
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
                Ok(if below.is_some() {
                    1
                } else {
                    failon::exit_code(fail_on, &inv)
                })
            } else {
                print!("{d}");
                println!("(accept with `--update`)");
                Ok(1)
            }
        }
        Command::Cache { command } => cachecmd::run(command),
    }
}

/// The counts the documents state (catalog.json's and events.json's
/// `stats`), so the summary and `build`'s line say what the documents say.
struct DocumentCounts {
    /// catalog.json's operations (an `all` route is one per method).
    operations: u64,
    /// Routes declared with `all`.
    all_routes: usize,
    /// catalog.json's domains (id, operations).
    domains: std::collections::BTreeMap<String, usize>,
    /// catalog.json's operations per app (`file:line`).
    per_app: std::collections::BTreeMap<String, usize>,
    /// events.json's stats.
    events: u64,
    client_to_server: u64,
    server_to_client: u64,
    bidirectional: u64,
    lifecycle: u64,
    namespaces: u64,
    event_files: u64,
    /// Every finding (catalog.json's plus events.json's).
    findings: usize,
}

impl DocumentCounts {
    fn of(inv: &analyzer::Inventory) -> DocumentCounts {
        let catalog = specgen::catalog(inv);
        let events = specgen::events(inv);
        let n = |v: &serde_json::Value, k: &str| v["stats"][k].as_u64().unwrap_or(0);
        DocumentCounts {
            operations: n(&catalog, "operations"),
            all_routes: inv.operations.iter().filter(|o| o.method == "all").count(),
            domains: catalog["domains"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| {
                    (
                        d["id"].as_str().unwrap_or("").to_string(),
                        d["operations"].as_u64().unwrap_or(0) as usize,
                    )
                })
                .collect(),
            per_app: catalog["operations"].as_array().into_iter().flatten().fold(
                Default::default(),
                |mut m, o| {
                    *m.entry(o["app"].as_str().unwrap_or("").to_string())
                        .or_default() += 1;
                    m
                },
            ),
            events: n(&events, "events"),
            client_to_server: n(&events, "clientToServer"),
            server_to_client: n(&events, "serverToClient"),
            bidirectional: n(&events, "bidirectional"),
            lifecycle: n(&events, "lifecycle"),
            namespaces: n(&events, "namespaces"),
            event_files: n(&events, "sourceFiles"),
            findings: inv.findings.len(),
        }
    }
}

/// `HTTP: 312 of 318 registrations charted (6 unresolved, see findings); Socket.IO: 180 of 185 sites`
fn coverage_line(c: &analyzer::Coverage) -> String {
    let part = |charted: usize, total: usize, what: &str| {
        let missing = total.saturating_sub(charted);
        if missing == 0 {
            format!("{charted} of {total} {what} charted")
        } else {
            format!("{charted} of {total} {what} charted ({missing} unresolved, see findings)")
        }
    };
    format!(
        "HTTP: {}; Socket.IO: {}",
        part(c.http_charted, c.http_total, "registrations"),
        part(c.socket_charted, c.socket_total, "sites")
    )
}

fn print_summary(
    out: &mut impl Write,
    inv: &analyzer::Inventory,
    list: bool,
    level: analyzer::Severity,
) -> Result<()> {
    let s = &inv.stats;
    writeln!(out, "{}", coverage_line(&inv.coverage))?;
    let counts = DocumentCounts::of(inv);
    writeln!(
        out,
        "entries: {}",
        if inv.entries.is_empty() {
            "(none)".into()
        } else {
            inv.entries.join(", ")
        }
    )?;
    // Chosen automatically: say why each one.
    for e in &inv.entries {
        if let Some(why) = inv.entry_reasons.get(e) {
            writeln!(out, "  {e}: {why}")?;
        }
    }
    writeln!(
        out,
        "HTTP: {} operations{}, {} declarations, {} app-level mounts, {} source files{}",
        counts.operations,
        match counts.all_routes {
            0 => String::new(),
            n => format!(
                " ({n} `all` route{} counted once per method)",
                if n == 1 { "" } else { "s" }
            ),
        },
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
            counts
                .per_app
                .get(&format!("{}:{}", app.at.file, app.at.line))
                .copied()
                .unwrap_or(0),
            app.reached
                .as_ref()
                .map(|r| format!("  (reached: {})", r.label()))
                .unwrap_or_default()
        )?;
    }
    let domains = &counts.domains;
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
                "  {:<7} {:<60} {}:{}{}{}",
                op.method.to_uppercase(),
                op.path.express,
                d.at.file,
                d.at.line,
                d.via
                    .as_ref()
                    .map(|v| format!(" (via {}:{})", v.file, v.line))
                    .unwrap_or_default(),
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
    writeln!(
        out,
        "Socket.IO: {} events ({} client-to-server, {} server-to-client, {} both ways), {} lifecycle, {} namespaces, {} source files",
        counts.events,
        counts.client_to_server,
        counts.server_to_client,
        counts.bidirectional,
        counts.lifecycle,
        counts.namespaces,
        counts.event_files
    )?;
    // Findings grouped by severity (errors first), then cause, with counts.
    let mut groups: std::collections::BTreeMap<
        (analyzer::Severity, &str),
        Vec<&analyzer::Finding>,
    > = Default::default();
    for f in &inv.findings {
        groups.entry((f.severity(), f.cause())).or_default().push(f);
    }
    let count =
        |sev: analyzer::Severity| inv.findings.iter().filter(|f| f.severity() == sev).count();
    writeln!(
        out,
        "findings: {} ({} errors, {} warnings, {} info)",
        inv.findings.len(),
        count(analyzer::Severity::Error),
        count(analyzer::Severity::Warning),
        count(analyzer::Severity::Info)
    )?;
    for ((sev, cause), list) in &groups {
        if *sev > level {
            continue;
        }
        writeln!(out, "  {} {cause} ({})", sev.as_str(), list.len())?;
        for f in list {
            writeln!(
                out,
                "    {:<18} {}:{}  {}",
                f.code.as_str(),
                f.at.file,
                f.at.line,
                f.message
            )?;
        }
    }
    let c = &inv.coverage;
    if c.http_charted < c.http_total || c.socket_charted < c.socket_total {
        let mut causes: Vec<(&String, &usize)> = c
            .causes
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "not-a-router" | "not-a-socket"))
            .collect();
        causes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        writeln!(
            out,
            "coverage {:.1}%: {} registrations or sites not charted; top causes: {}",
            c.percent(),
            (c.http_total - c.http_charted) + (c.socket_total - c.socket_charted),
            causes
                .iter()
                .take(4)
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    Ok(())
}
