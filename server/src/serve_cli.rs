//! The `serve` verb: parse options, derive the documents with the same
//! prepare → analyze → generate path as `build`, build the state, listen.
//! Everything else lives in the library (`portolan::serve`).
//!
//! With no ROOT and no `--config` (and no `./portolan.toml`), the bundled
//! example project `tests/projects/harbor` is served. It is looked for, in
//! order, under `$PORTOLAN_EXAMPLE`, the current folder and its ancestors,
//! the binary's folder and its ancestors (a `target/debug/portolan` finds
//! the workspace), and the source tree the binary was built from.

use crate::AnalysisArgs;
use crate::pipeline::{self, Product};
use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use portolan::serve::postgres::PostgresStore;
use portolan::serve::store::{SqliteStore, Store};
use portolan::serve::{self, Derived, settings::ServerSettings};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Options of `portolan serve`.
#[derive(Args)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// Address to listen on (default: [server] listen, else 127.0.0.1:5555).
    #[arg(long)]
    listen: Option<String>,
    /// Folder for the durable store (default: [server] data_dir, else the
    /// platform data folder, one database per analysed root).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Re-derive the documents when a source file or portolan.toml changes.
    #[arg(long)]
    watch: bool,
}

const EXAMPLE: &str = "tests/projects/harbor";

fn find_example() -> Option<PathBuf> {
    let ok = |p: &Path| p.join("package.json").is_file();
    if let Some(p) = std::env::var_os("PORTOLAN_EXAMPLE").map(PathBuf::from) {
        return ok(&p).then_some(p);
    }
    let mut starts: Vec<PathBuf> = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd);
    }
    if let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        starts.push(dir.to_path_buf());
    }
    for s in starts {
        for a in s.ancestors() {
            let p = a.join(EXAMPLE);
            if ok(&p) {
                return Some(p);
            }
        }
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(EXAMPLE);
    ok(&built).then_some(built)
}

/// The `[server]` settings of a prepared configuration, with the command
/// line's `--listen` over the file's.
fn server_settings(prepared: &crate::Prepared, listen: Option<&str>) -> Result<ServerSettings> {
    let mut settings =
        ServerSettings::from_toml(prepared.config.server.clone(), &|k| std::env::var(k).ok())
            .map_err(|e| anyhow!(e))?;
    settings.recipes =
        serve::recipes::parse(prepared.config.recipes.clone()).map_err(|e| anyhow!(e))?;
    if let Some(l) = listen {
        if l.parse::<std::net::SocketAddr>().is_err() {
            bail!("--listen: `{l}` is not an address like 127.0.0.1:5555");
        }
        settings.listen = l.to_string();
    }
    Ok(settings)
}

fn derive(prepared: &crate::Prepared) -> Result<Derived> {
    let opts = prepared.spec_options(false)?;
    let inv = prepared.analyze()?;
    let documents = pipeline::generate(&inv, Product::Documents, &opts)?;
    for w in &documents.warnings {
        eprintln!("warning: {w}");
    }
    Ok(Derived {
        documents,
        operations: inv.operations.len(),
        events: inv.events.iter().filter(|e| !e.lifecycle).count(),
        findings: inv.findings.len(),
    })
}

/// Run the server until SIGINT/SIGTERM.
pub(crate) fn run(mut args: ServeArgs) -> Result<i32> {
    let start = std::time::Instant::now();
    if args.analysis.root.is_none()
        && args.analysis.config.is_none()
        && !Path::new("portolan.toml").exists()
    {
        let example = find_example().ok_or_else(|| {
            anyhow!(
                "no ROOT given and the bundled example ({EXAMPLE}) was not found; give the project folder: portolan serve PATH"
            )
        })?;
        eprintln!(
            "no ROOT given: serving the bundled example project {} (give ROOT to serve yours)",
            example.display()
        );
        args.analysis.root = Some(example);
    }
    let prepared = args.analysis.prepare()?;
    let root = prepared.options().root.clone();
    let listen = args.listen.take();
    let settings = server_settings(&prepared, listen.as_deref())?;
    let data_dir = args
        .data_dir
        .clone()
        .or_else(|| settings.data_dir.clone())
        .unwrap_or_else(|| serve::default_data_dir(&root));
    let store: Arc<dyn Store> = match &settings.store {
        Some(url) => Arc::new(
            PostgresStore::open(url, settings.claim_lease)
                .map_err(|e| anyhow!("[server] store: {e}"))?,
        ),
        None => Arc::new(SqliteStore::open(&data_dir.join("portolan.db")).map_err(|e| anyhow!(e))?),
    };
    let derived = derive(&prepared)?;
    let derived_ms = start.elapsed().as_secs_f64() * 1000.0;
    let state = serve::AppState::new(derived, settings.clone(), store)
        .map_err(|e| anyhow!("cannot serve: {e}"))?;
    let ready_ms = start.elapsed().as_secs_f64() * 1000.0;
    let set = state.current();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&settings.listen)
            .await
            .with_context(|| format!("cannot listen on {}", settings.listen))?;
        let addr = listener.local_addr()?;
        println!(
            "portolan serve: http://{addr}/api-docs/  ({} operations, {} events, {} findings, {} tools; derived in {derived_ms:.0} ms, compressed and indexed in {:.0} ms)",
            set.counts.0,
            set.counts.1,
            set.counts.2,
            set.counts.3,
            ready_ms - derived_ms
        );
        println!("  root: {}", root.display());
        println!("  state: {}", state.store().location());
        println!("  {}", settings.describe());
        if args.watch {
            let config = args.analysis.config.clone();
            let a = Arc::new(args.analysis);
            let derive_fn: serve::Rederive = Arc::new(move || {
                let prepared = a.prepare().map_err(|e| format!("{e:#}"))?;
                let settings = server_settings(&prepared, listen.as_deref())
                    .map_err(|e| format!("{e:#}"))?;
                let derived = derive(&prepared).map_err(|e| format!("{e:#}"))?;
                Ok((derived, settings))
            });
            serve::watch(
                state.clone(),
                root.clone(),
                config,
                vec![data_dir.clone()],
                derive_fn,
            )
                .map_err(|e| anyhow!(e))?;
            println!("  watching {} for changes", root.display());
        }
        drop(set);
        serve::serve(state, listener).await?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(0)
}
