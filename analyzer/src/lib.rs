//! Portolan's analyzer: a JavaScript/TypeScript source tree in, an
//! [`Inventory`] of mounted Express operations (with findings for what could
//! not be resolved) out. Nothing is executed.
//!
//! Three stages: syntax (tree-sitter → per-file facts, cached by content
//! hash), facts loading with a byte prefilter and parallel prefetch, and
//! resolve (a small evaluator over the facts, then a walk of the mount graph
//! from every root app).

pub mod cachefile;
mod census;
mod entries;
mod eval;
mod inventory;
mod ir;
mod loader;
mod paths;
mod project;
mod salvaged;
mod syntax;
mod unread_client;
mod value;

pub use inventory::{
    App, CensusEntry, Contract, Coverage, Declaration, Direction, Event, EventSite, EventStats,
    Finding, FindingCode, Guard, Handler, Inventory, Location, MountStep, Operation, Reached,
    ResponseInfo, SchemaInfo, Severity, Side, SocketServer, SourceFile, Stats, Timings,
    UNKNOWN_PREFIX, UNKNOWN_PREFIX_PARAM,
};
pub use paths::{PathParam, PathPattern, join as join_paths};

use eval::{Interp, PathArg, RegKind, RouterData, UseHandler};
use loader::{Cache, Loader, needle};
use project::{FileId, Project};
use salvaged::{salvage_unmounted, salvage_walk, salvaged_pattern};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What stops an analysis from running at all (per-file trouble is a [`Finding`]).
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// The root cannot be used.
    #[error("cannot analyze `{0}`: {1}")]
    Root(String, String),
    /// A named entry file does not exist.
    #[error(
        "entry `{0}` is not a JavaScript or TypeScript file under the root (check --entry; paths are relative to the root)"
    )]
    Entry(String),
    /// The cache directory cannot be used.
    #[error("cannot use the cache at `{0}`: {1} (pass --cache-dir DIR or --no-cache)")]
    Cache(String, String),
    /// A bug: the analysis panicked (the panic message was printed).
    #[error("internal error: {0} (a bug in portolan; please report it with the message above)")]
    Internal(String),
}

/// How to analyze.
#[derive(Debug, Clone, Default)]
pub struct AnalyzeOptions {
    /// The project root.
    pub root: PathBuf,
    /// Entry files relative to the root; empty means auto-detect.
    pub entries: Vec<String>,
    /// Where the facts cache lives; `None` means the default location.
    pub cache_dir: Option<PathBuf>,
    /// Do not read or write the cache.
    pub no_cache: bool,
    /// Leave out the Socket.IO inventory (and the code read only to find it):
    /// for callers that need the HTTP inventory alone.
    pub skip_events: bool,
    /// Folders (relative to the root) whose Socket.IO sites are server code,
    /// whatever the values say.
    pub server_dirs: Vec<String>,
    /// Folders whose Socket.IO sites are client code.
    pub client_dirs: Vec<String>,
}

/// The folder that holds every root's cache: `$PORTOLAN_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/portolan`, else `$HOME/.cache/portolan`, else the
/// system's temporary folder. As the XDG Base Directory specification says,
/// an empty variable counts as unset and a relative `XDG_CACHE_HOME` is
/// invalid and ignored (so is a relative `HOME`): a cache never lands in the
/// current directory by accident.
pub fn cache_base() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("PORTOLAN_CACHE_DIR")
        .or_else(|| {
            var("XDG_CACHE_HOME")
                .filter(|p| p.is_absolute())
                .map(|p| p.join("portolan"))
        })
        .or_else(|| {
            var("HOME")
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".cache").join("portolan"))
        })
        .unwrap_or_else(|| std::env::temp_dir().join("portolan"))
}

/// The default cache folder for a root: one subfolder of [`cache_base`] per
/// (canonical) root.
pub fn default_cache_dir(root: &Path) -> PathBuf {
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let key = blake3::hash(canon.to_string_lossy().as_bytes()).to_hex();
    cache_base().join(&key[..16])
}

/// What [`verify_cache`] found, one line per file or record group.
#[derive(Debug, Default)]
pub struct CacheReport {
    /// Intact parts.
    pub ok: Vec<String>,
    /// Damaged parts (each would be discarded and recomputed by a run).
    pub damaged: Vec<String>,
    /// What was removed (with `repair`).
    pub repaired: Vec<String>,
}

/// Check every record of the analyzer's cache for `root` in `cache_dir`
/// (the facts index and pack, the tree walk, stored inventories); with
/// `repair`, remove what is damaged (the next run recomputes it). Files of
/// other layers in the folder (the CLI's `out/`) are the caller's.
pub fn verify_cache(root: &Path, cache_dir: &Path, repair: bool) -> CacheReport {
    let mut report = CacheReport::default();
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    loader::verify_facts(cache_dir, &root, &mut report, repair);
    match project::verify_walk_cache(cache_dir, &root) {
        Ok(true) => report.ok.push("walk.bin: intact".into()),
        Ok(false) => {}
        Err(damage) => {
            report.damaged.push(format!("walk.bin: {damage}"));
            if repair && std::fs::remove_file(cache_dir.join("walk.bin")).is_ok() {
                report.repaired.push("removed walk.bin".into());
            }
        }
    }
    report
}

pub(crate) fn is_test_path(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.contains(".test.")
        || name.contains(".spec.")
        || rel.split('/').any(|seg| {
            matches!(
                seg,
                "__tests__"
                    | "__mocks__"
                    | "test"
                    | "tests"
                    | "spec"
                    | "specs"
                    | "__fixtures__"
                    | "fixtures"
                    | "e2e"
                    | "cypress"
            )
        })
}

/// Analyze a project.
pub fn analyze(opts: &AnalyzeOptions) -> Result<Inventory, AnalyzeError> {
    configure_pool();
    let opts = opts.clone();
    std::thread::Builder::new()
        .name("portolan-analyze".into())
        .stack_size(256 << 20)
        .spawn(move || {
            // Test hook: an internal error, for the exit-code tests.
            if std::env::var_os("PORTOLAN_TEST_PANIC").is_some() {
                panic!("PORTOLAN_TEST_PANIC is set");
            }
            analyze_here(&opts)
        })
        .map_err(|e| AnalyzeError::Internal(format!("cannot start the analysis thread: {e}")))?
        .join()
        .unwrap_or_else(|_| Err(AnalyzeError::Internal("the analysis panicked".into())))
}

/// A key over every input of an analysis: each source file's content hash,
/// the manifests, the options and the analyzer's version. Equal keys give
/// equal inventories.
fn input_key(opts: &AnalyzeOptions, project: &Project, loader: &Arc<Loader>) -> String {
    loader.scan_needles();
    let mut h = blake3::Hasher::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&loader::FACTS_VERSION.to_le_bytes());
    h.update(if opts.skip_events { b"http" } else { b"full" });
    for d in opts.server_dirs.iter().chain(&opts.client_dirs) {
        h.update(d.as_bytes());
        h.update(b"\0");
    }
    h.update(format!("{}/{}", opts.server_dirs.len(), opts.client_dirs.len()).as_bytes());
    for e in &opts.entries {
        h.update(e.as_bytes());
        h.update(b"\0");
    }
    h.update(b"\x01");
    for (i, f) in project.files.iter().enumerate() {
        h.update(f.rel.as_bytes());
        h.update(
            loader
                .hash_of(i as FileId)
                .as_ref()
                .map(|x| &x[..])
                .unwrap_or(b"-"),
        );
    }
    h.update(project.config_fingerprint().as_bytes());
    h.finalize().to_hex().to_string()
}

/// Deeply nested sources recurse deeply: the worker pool gets generous
/// stacks. Done before any use of the global pool (the walk cache uses it too).
fn configure_pool() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rayon::ThreadPoolBuilder::new()
            .stack_size(64 << 20)
            .build_global();
    });
}

/// The input key of an analysis without running it (see [`analyze`]): callers
/// that cache what they derive from an inventory key it with this (the same
/// key as [`Inventory::input_key`]). `None` when the cache is off, or empty:
/// then nothing can be stored under any key, and computing one would read
/// every file before the analysis does.
pub fn fingerprint(opts: &AnalyzeOptions) -> Result<Option<String>, AnalyzeError> {
    fingerprint_noting(opts).map(|(key, _)| key)
}

/// [`fingerprint`], with the cache records it found damaged and discarded
/// (one line each, as in [`Timings::cache_notes`]).
pub fn fingerprint_noting(
    opts: &AnalyzeOptions,
) -> Result<(Option<String>, Vec<String>), AnalyzeError> {
    if opts.no_cache {
        return Ok((None, Vec::new()));
    }
    configure_pool();
    let cache_dir = opts
        .cache_dir
        .clone()
        .unwrap_or_else(|| default_cache_dir(&opts.root));
    if !cache_dir.join("index.bin").is_file() {
        return Ok((None, Vec::new()));
    }
    std::fs::create_dir_all(&cache_dir)
        .map_err(|e| AnalyzeError::Cache(cache_dir.display().to_string(), e.to_string()))?;
    let project = Arc::new(Project::discover(&opts.root, &cache_dir, true)?);
    let cache = Arc::new(Cache::open(cache_dir, &project.root));
    let loader = Loader::new(project.clone(), Some(cache.clone()));
    let key = input_key(opts, &project, &loader);
    cache.save();
    let notes = project
        .cache_note
        .iter()
        .cloned()
        .chain(cache.notes())
        .collect();
    Ok((Some(key), notes))
}

fn analyze_here(opts: &AnalyzeOptions) -> Result<Inventory, AnalyzeError> {
    let t0 = Instant::now();
    let cache_dir = opts
        .cache_dir
        .clone()
        .unwrap_or_else(|| default_cache_dir(&opts.root));
    let scratch = if opts.no_cache {
        std::env::temp_dir().join("portolan-scratch")
    } else {
        cache_dir.clone()
    };
    let project = Arc::new(Project::discover(&opts.root, &scratch, !opts.no_cache)?);
    let cache = if opts.no_cache {
        None
    } else {
        std::fs::create_dir_all(&cache_dir)
            .map_err(|e| AnalyzeError::Cache(cache_dir.display().to_string(), e.to_string()))?;
        Some(Arc::new(Cache::open(cache_dir, &project.root)))
    };
    let loader = Loader::new(project.clone(), cache.clone());
    let mut timings = Timings {
        discover_ms: ms(t0),
        files_discovered: project.files.len(),
        ..Timings::default()
    };

    // A whole earlier result, when no input changed (every file's content
    // hash, the manifests, the options and the analyzer's version).
    // (An empty cache holds no result: the key is then computed at the end,
    // once the analysis has read the files it needs, so it does not wait on
    // reading every file first.)
    let result_key = cache
        .as_ref()
        .filter(|c| !c.is_empty())
        .map(|_| input_key(opts, &project, &loader));
    if let (Some(c), Some(key)) = (&cache, &result_key)
        && let Some(bytes) = c.read_result(key)
        && let Ok(mut inv) = serde_json::from_slice::<Inventory>(&bytes)
    {
        timings.prefilter_ms = ms(t0) - timings.discover_ms;
        timings.files_cached = project.files.len();
        timings.result_cached = true;
        c.save();
        timings.cache_notes = project
            .cache_note
            .iter()
            .cloned()
            .chain(c.notes())
            .collect();
        inv.timings = timings;
        inv.input_key = Some(key.clone());
        return Ok(inv);
    }

    // Entries: named, else package.json main/start, else files calling express().
    let t1 = Instant::now();
    let mut entries: Vec<FileId> = Vec::new();
    let mut missing_entries: Vec<(String, String)> = Vec::new();
    // Why each automatically chosen entry was chosen (for the summary).
    let mut reasons: BTreeMap<FileId, String> = BTreeMap::new();
    if !opts.entries.is_empty() {
        for e in &opts.entries {
            let rel = project::normalize(&e.replace('\\', "/"));
            match project.file_id(&rel).or_else(|| project.resolve_path(&rel)) {
                Some(id) => entries.push(id),
                None => return Err(AnalyzeError::Entry(e.clone())),
            }
        }
    } else {
        loader.scan_needles();
        let mut set = BTreeSet::new();
        // The root package's `main`/start script, and those of packages in
        // sub-folders that depend on Express or Socket.IO (a `server/` app
        // whose entry calls an app factory another file defines).
        for p in &project.packages {
            if !p.dir.is_empty() && !depends_on_server_packages(&p.json) {
                continue;
            }
            let in_package = |f: &str| project::normalize(&format!("{}/{f}", p.dir));
            let manifest = in_package("package.json");
            for hint in entries::package_hints(&p.json) {
                let rel = in_package(&hint.path);
                match project.resolve_path(&rel) {
                    Some(id) => {
                        set.insert(id);
                        reasons
                            .entry(id)
                            .or_insert(format!("{manifest} {}", hint.reason));
                    }
                    None => {
                        // Built output not checked in: start from its source.
                        let source = entries::source_of_built(&hint.path)
                            .into_iter()
                            .find_map(|s| project.resolve_path(&in_package(&s)));
                        if let Some(id) = source {
                            set.insert(id);
                            reasons.entry(id).or_insert(format!(
                                "{manifest} {} names build output; this is its source",
                                hint.reason
                            ));
                        }
                        // `main: lib/index.js` of a package whose build output is
                        // not checked in: say so rather than start elsewhere silently.
                        if hint.firm && !opts.root.join(&rel).exists() {
                            missing_entries.push((manifest.clone(), rel))
                        }
                    }
                }
            }
        }
        for (i, f) in project.files.iter().enumerate() {
            if loader.needles_of(i as FileId) & needle::APP != 0 && !is_test_path(&f.rel) {
                set.insert(i as FileId);
                reasons.entry(i as FileId).or_insert_with(|| {
                    "creates an app (express(), NestFactory.create, createExpressServer)".into()
                });
            }
        }
        entries = set.into_iter().collect();
    }
    timings.prefilter_ms = ms(t1);

    let t2 = Instant::now();
    let mut interp = Interp::new(loader.clone());
    loader.prefetch(entries.iter().copied());
    // Entries that create or receive nothing a server is made of (an app, a
    // router, a Socket.IO server) are not reported as entries when others do.
    let mut productive: BTreeSet<FileId> = BTreeSet::new();
    for &e in &entries {
        let before = (interp.routers.len(), interp.sio_servers.len());
        interp.run_module(e);
        if (interp.routers.len(), interp.sio_servers.len()) != before {
            productive.insert(e);
        }
    }
    // Modules the entries start with `child_process.fork` are programs of their own.
    if opts.entries.is_empty() {
        let mut i = 0;
        while let Some(&(target, file, line)) = interp.forked().get(i) {
            i += 1;
            if entries.contains(&target) {
                continue;
            }
            let before = (interp.routers.len(), interp.sio_servers.len());
            interp.run_module(target);
            if (interp.routers.len(), interp.sio_servers.len()) != before {
                productive.insert(target);
            }
            entries.push(target);
            reasons.entry(target).or_insert(format!(
                "started with child_process.fork at {}:{line}",
                project.rel(file)
            ));
        }
    }
    interp.finish_nest_apps();
    let reached: BTreeSet<FileId> = interp.touched.clone();
    // Files that declare Express routers but that no entry reaches.
    if opts.entries.is_empty() {
        // (needles already scanned)
    } else {
        loader.scan_needles();
    }
    interp.set_unreached_mode(true);
    let extra: Vec<FileId> = (0..project.files.len() as FileId)
        .filter(|&i| {
            let n = loader.needles_of(i);
            n & needle::ROUTER != 0
                && n & needle::EXPRESS != 0
                && !interp.is_loaded(i)
                && !is_test_path(project.rel(i))
        })
        .collect();
    loader.prefetch(extra.iter().copied());
    for i in extra {
        interp.run_module(i);
    }
    // Apps and routers built by code no entry runs (see `eval/salvage.rs`).
    interp.salvage_uncalled();
    timings.resolve_ms = ms(t2);

    // Events: modules that mention sockets and nobody loaded (client code,
    // handlers' helpers), then every function nobody called.
    let t4 = Instant::now();
    interp.set_event_mode(true);
    // Route handlers run once with a request and a response: the contracts.
    interp.mark_route_handlers_called();
    interp.run_route_handlers(true);
    interp.probe_guards();
    let http_files = interp.touched.clone();
    let sock: Vec<FileId> = (0..project.files.len() as FileId)
        .filter(|&i| {
            !opts.skip_events
                && loader.needles_of(i) & needle::SOCKET != 0
                && !interp.is_loaded(i)
                && !is_test_path(project.rel(i))
        })
        .collect();
    loader.prefetch(sock.iter().copied());
    interp.loading_unreached = true;
    for i in sock {
        interp.run_module(i);
    }
    interp.loading_unreached = false;
    if !opts.skip_events {
        interp.run_uncalled(24);
        // Again after start-up code, for the events handlers emit.
        interp.run_route_handlers(false);
    }
    if opts.skip_events {
        interp.sites.clear();
        interp.sio_servers.clear();
    } else {
        interp.replay_emitters();
        interp.run_uncalled(12);
    }
    interp.set_event_mode(false);
    timings.events_ms = ms(t4);

    let t3 = Instant::now();
    // The census: every file the analysis read, and the others that hold
    // registration-shaped calls.
    let census_files = census::files(&project, &loader, &interp.touched, !opts.skip_events);
    loader.prefetch(census_files.iter().copied());
    let mut inv = build_inventory(
        &project,
        &loader,
        &interp,
        &entries,
        &reached,
        &http_files,
        opts,
        &census_files,
    );
    if opts.entries.is_empty() && !productive.is_empty() {
        let keep: BTreeSet<String> = productive
            .iter()
            .map(|&e| project.rel(e).to_string())
            .collect();
        inv.entries.retain(|e| keep.contains(e));
    }
    inv.entry_reasons = reasons
        .into_iter()
        .filter(|(id, _)| inv.entries.iter().any(|e| e == project.rel(*id)))
        .map(|(id, why)| (project.rel(id).to_string(), why))
        .collect();
    missing_entries.sort();
    missing_entries.dedup();
    for (manifest, rel) in missing_entries {
        // The line that names it (`"main": "lib/index.js"`).
        let name = rel.rsplit('/').next().unwrap_or(&rel).to_string();
        let line = std::fs::read_to_string(opts.root.join(&manifest))
            .ok()
            .and_then(|text| {
                text.lines()
                    .position(|l| l.contains(&name))
                    .map(|i| i as u32 + 1)
            })
            .unwrap_or(1);
        inv.findings.push(Finding {
            code: FindingCode::NoEntry,
            at: Location {
                file: manifest,
                line,
            },
            message: format!(
                "the entry `{rel}` it names is not in the project (build output not checked in?); the analysis started from the other entries; pass --entry FILE to choose"
            ),
            cause: None,
        });
    }
    inv.findings
        .sort_by(|a, b| (&a.at, a.code, &a.message).cmp(&(&b.at, b.code, &b.message)));
    timings.inventory_ms = ms(t3);
    timings.files_parsed = loader.parsed.load(std::sync::atomic::Ordering::Relaxed);
    timings.files_cached = loader.from_cache.load(std::sync::atomic::Ordering::Relaxed);
    timings.parse_cpu_ms = syntax::PARSE_NS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6;
    timings.lower_cpu_ms = syntax::LOWER_NS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6;
    let result_key = match (result_key, loader.cache()) {
        (None, Some(_)) => Some(input_key(opts, &project, &loader)),
        (k, _) => k,
    };
    if let Some(c) = loader.cache() {
        c.save();
        if let Some(key) = &result_key
            && let Ok(bytes) = serde_json::to_vec(&inv)
        {
            c.write_result(key, &bytes);
        }
        timings.cache_notes = project
            .cache_note
            .iter()
            .cloned()
            .chain(c.notes())
            .collect();
    }
    inv.timings = timings;
    inv.input_key = result_key;
    Ok(inv)
}

/// One schema for what several sites send as literals: objects merge (every
/// property any site sends; required what every site sends); otherwise the
/// first site's.
fn merge_literals(all: &[&serde_json::Value]) -> serde_json::Value {
    use serde_json::{Map, Value};
    let Some(first) = all.first() else {
        return Value::Object(Map::new());
    };
    let is_object = |v: &Value| v.get("type").and_then(Value::as_str) == Some("object");
    if all.len() > 1 && all.iter().all(|v| is_object(v)) {
        let mut props = Map::new();
        for v in all {
            if let Some(Value::Object(p)) = v.get("properties") {
                for (k, s) in p {
                    props.entry(k.clone()).or_insert_with(|| s.clone());
                }
            }
        }
        let required: Vec<Value> = props
            .keys()
            .filter(|k| {
                all.iter().all(|v| {
                    v.get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(k.as_str())))
                })
            })
            .map(|k| Value::String(k.clone()))
            .collect();
        let mut out = Map::new();
        out.insert("type".into(), Value::String("object".into()));
        out.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        return Value::Object(out);
    }
    (*first).clone()
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Whether a package.json lists `express` or `socket.io` among its dependencies.
fn depends_on_server_packages(json: &serde_json::Value) -> bool {
    ["dependencies", "devDependencies"].iter().any(|k| {
        json.get(k)
            .and_then(|d| d.as_object())
            .is_some_and(|d| d.contains_key("express") || d.contains_key("socket.io"))
    })
}

struct WalkOut {
    /// (app, method, full path, regex) → declarations
    ops: BTreeMap<(u32, String, String, bool), Vec<Declaration>>,
    mount_paths: BTreeMap<(u32, String, String, bool), String>,
    reached_routers: HashSet<u32>,
    decl_keys: BTreeSet<(FileId, u32, String, String)>,
    app_mounts: BTreeSet<String>,
}

#[derive(Clone)]
struct ScopedMw {
    name: String,
    /// Applies only under this full prefix.
    scope: Option<String>,
}

fn loc(project: &Project, file: FileId, line: u32) -> Location {
    Location {
        file: project.rel(file).to_string(),
        line,
    }
}

fn walk(
    project: &Project,
    interp: &Interp,
    app: u32,
    router: u32,
    prefix: &str,
    inherited: &[ScopedMw],
    mounts: &[MountStep],
    cond: Option<&str>,
    stack: &mut Vec<u32>,
    out: &mut WalkOut,
) {
    if stack.contains(&router) || stack.len() > 64 {
        return;
    }
    stack.push(router);
    out.reached_routers.insert(router);
    let data = &interp.routers[router as usize];
    let mut chain: Vec<ScopedMw> = inherited.to_vec();
    for reg in &data.regs {
        let cond_here = match (cond, reg.cond.as_deref()) {
            (Some(a), Some(b)) => Some(format!("{a} && {b}")),
            (Some(a), None) => Some(a.to_string()),
            (None, Some(b)) => Some(b.to_string()),
            (None, None) => None,
        };
        match &reg.kind {
            RegKind::Use { paths, handlers } => {
                let mut local_mw: Vec<ScopedMw> = Vec::new();
                for h in handlers {
                    match h {
                        UseHandler::Router(child) => {
                            for p in paths {
                                let PathArg::Str(p) = p else { continue };
                                let full = paths::join(prefix, p);
                                if stack.len() == 1 {
                                    out.app_mounts.insert(paths::join("", p));
                                }
                                let mut next_chain = chain.clone();
                                next_chain.extend(param_callbacks(data, p));
                                next_chain.extend(local_mw.iter().cloned());
                                let mut next_mounts = mounts.to_vec();
                                next_mounts.push(MountStep {
                                    prefix: p.clone(),
                                    at: loc(project, reg.file, reg.line),
                                });
                                walk(
                                    project,
                                    interp,
                                    app,
                                    *child,
                                    &full,
                                    &next_chain,
                                    &next_mounts,
                                    cond_here.as_deref(),
                                    stack,
                                    out,
                                );
                            }
                        }
                        UseHandler::Middleware(name) => local_mw.push(ScopedMw {
                            name: name.clone(),
                            scope: None,
                        }),
                    }
                }
                // Middleware in a use() without routers applies to what follows.
                if !handlers.iter().any(|h| matches!(h, UseHandler::Router(_))) {
                    for p in paths {
                        let scope = match p {
                            PathArg::Str(s) if paths::join("", s) != "/" => {
                                Some(paths::join(prefix, s))
                            }
                            PathArg::Str(_) => None,
                            PathArg::Regex(_) => continue,
                        };
                        for m in &local_mw {
                            chain.push(ScopedMw {
                                name: m.name.clone(),
                                scope: scope.clone(),
                            });
                        }
                    }
                }
            }
            RegKind::Route {
                method,
                paths: route_paths,
                middleware,
                handler,
                contract,
                ..
            } => {
                let raw_guard = contract.borrow().guard.clone();
                let contract = public_contract(project, &contract.borrow());
                for p in route_paths {
                    let (full, regex, own) = match p {
                        PathArg::Str(s) => (paths::join(prefix, s), false, s.clone()),
                        PathArg::Regex(r) => (paths::join_regex(prefix, r), true, r.clone()),
                    };
                    let mut mw: Vec<String> = chain
                        .iter()
                        .filter(|m| match &m.scope {
                            None => true,
                            Some(s) => {
                                full == *s
                                    || full.starts_with(&format!("{}/", s.trim_end_matches('/')))
                                    || s == "/"
                            }
                        })
                        .map(|m| m.name.clone())
                        .collect();
                    if !regex {
                        mw.extend(param_callbacks(data, &own).map(|m| m.name));
                    }
                    mw.extend(middleware.iter().cloned());
                    let guard = mw
                        .iter()
                        .find_map(|n| {
                            interp.guards.get(n).map(|g| Guard {
                                name: n.clone(),
                                status: g.status,
                                at: loc(project, g.file, g.line),
                                credential: g.credential.clone(),
                            })
                        })
                        .or_else(|| {
                            // A route middleware the chain cannot name, seen answering 401/403.
                            raw_guard.as_ref().map(|(name, status, f, l)| Guard {
                                name: name.clone(),
                                status: *status,
                                at: loc(project, *f, *l),
                                credential: contract
                                    .headers_read
                                    .iter()
                                    .find(|h| {
                                        *h == "authorization"
                                            || h.contains("key")
                                            || h.contains("token")
                                    })
                                    .cloned(),
                            })
                        });
                    let decl = Declaration {
                        at: loc(project, reg.file, reg.line),
                        via: reg.via.map(|(f, l)| loc(project, f, l)),
                        route_path: own.clone(),
                        router: loc(project, data.file, data.line),
                        mounts: mounts.to_vec(),
                        middleware: mw,
                        handler: handler.as_ref().map(|h| Handler {
                            name: h.name.clone(),
                            at: h.at.map(|(f, l)| loc(project, f, l)),
                        }),
                        conditional: cond_here.clone(),
                        doc: reg.doc.clone(),
                        contract: contract.clone(),
                        guard,
                    };
                    let key = (app, method.clone(), full.clone(), regex);
                    out.mount_paths.entry(key.clone()).or_insert_with(|| {
                        mounts
                            .first()
                            .map(|m| paths::join("", &m.prefix))
                            .unwrap_or_default()
                    });
                    let list = out.ops.entry(key).or_default();
                    if !list.iter().any(|d| d.at == decl.at && d.via == decl.via) {
                        list.push(decl);
                    }
                    let expanded: Vec<&str> = if method == "all" {
                        vec!["delete", "get", "head", "options", "patch", "post", "put"]
                    } else {
                        vec![method.as_str()]
                    };
                    for m in expanded {
                        out.decl_keys
                            .insert((reg.file, reg.line, m.to_string(), own.clone()));
                    }
                }
            }
        }
    }
    stack.pop();
}

/// The `router.param(name, fn)` callbacks Express runs for a layer whose own
/// path is `own`: those of the router, for the parameters that path names.
fn param_callbacks<'a>(data: &'a RouterData, own: &str) -> impl Iterator<Item = ScopedMw> + 'a {
    let names: Vec<String> = if data.param_callbacks.is_empty() {
        Vec::new()
    } else {
        PathPattern::parse(own, false)
            .params
            .into_iter()
            .map(|p| p.name)
            .collect()
    };
    data.param_callbacks
        .iter()
        .filter(move |(n, _, _)| names.contains(n))
        .map(|(_, f, _)| ScopedMw {
            name: f.clone(),
            scope: None,
        })
}

fn build_inventory(
    project: &Project,
    loader: &Arc<Loader>,
    interp: &Interp,
    entries: &[FileId],
    reached: &BTreeSet<FileId>,
    http_files: &BTreeSet<FileId>,
    opts: &AnalyzeOptions,
    census_files: &[FileId],
) -> Inventory {
    let mut findings: Vec<Finding> = interp
        .findings
        .iter()
        .map(|f| Finding {
            code: f.code,
            at: loc(project, f.file, f.line),
            message: f.message.clone(),
            cause: None,
        })
        .collect();
    let mut out = WalkOut {
        ops: BTreeMap::new(),
        mount_paths: BTreeMap::new(),
        reached_routers: HashSet::new(),
        decl_keys: BTreeSet::new(),
        app_mounts: BTreeSet::new(),
    };
    let roots: Vec<u32> = interp
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_app && !r.mounted && !r.unreached && r.salvage.is_none())
        .map(|(i, _)| i as u32)
        .collect();
    // An app factory that runs twice (two entries calling `createApp()`)
    // makes one app: what each instance serves is merged under the first.
    let canonical = |i: u32| -> u32 {
        let r = &interp.routers[i as usize];
        roots
            .iter()
            .copied()
            .find(|&j| {
                let o = &interp.routers[j as usize];
                o.file == r.file && o.line == r.line
            })
            .unwrap_or(i)
    };
    for &root in &roots {
        let app = canonical(root);
        walk(
            project,
            interp,
            app,
            root,
            "",
            &[],
            &[],
            None,
            &mut Vec::new(),
            &mut out,
        );
    }
    let salvaged = salvage_walk(project, interp, &roots, &mut out);
    // Routers with routes that no root reaches.
    for (i, r) in interp.routers.iter().enumerate() {
        if out.reached_routers.contains(&(i as u32)) {
            continue;
        }
        let routes: Vec<String> = r
            .regs
            .iter()
            .filter_map(|reg| match &reg.kind {
                RegKind::Route { method, paths, .. } => Some(format!(
                    "{} {} ({}:{})",
                    method.to_uppercase(),
                    paths
                        .iter()
                        .map(|p| match p {
                            PathArg::Str(s) | PathArg::Regex(s) => s.as_str(),
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    project.rel(reg.file),
                    reg.line
                )),
                _ => None,
            })
            .collect();
        if r.is_app && r.unreached && !r.mounted && !r.in_event_pass && r.salvage.is_none() {
            findings.push(Finding {
                code: FindingCode::UnreachedApp,
                at: loc(project, r.file, r.line),
                message: format!(
                    "an Express app in a file no entry reaches ({} route declarations); name it with --entry to include it",
                    routes.len()
                ),
                cause: None,
            });
            continue;
        }
        if routes.is_empty() || r.mounted || (r.is_app && r.salvage.is_some()) {
            continue;
        }
        let message = match &r.salvage {
            Some(s) if s.kind == eval::SalvageKind::Unregistered => format!(
                "`{}` registers routes on its parameter but nothing calls it (or only code known at run time does); they are charted under the unknown prefix `{UNKNOWN_PREFIX}`, marked reached: unregistered, left out of the public OpenAPI: {}",
                s.func,
                routes.join("; ")
            ),
            _ => format!(
                "router declares routes but is never mounted (charted under the unknown prefix `{UNKNOWN_PREFIX}`, marked reached: unmounted, left out of the public OpenAPI): {}",
                routes.join("; ")
            ),
        };
        findings.push(Finding {
            code: FindingCode::UnmountedRouter,
            at: loc(project, r.file, r.line),
            message,
            cause: None,
        });
    }
    let salvaged = salvage_unmounted(project, interp, &out, salvaged);
    if entries.is_empty() && interp.sio_servers.is_empty() && interp.sites.is_empty() {
        findings.push(Finding {
            code: FindingCode::NoEntry,
            at: Location {
                file: String::new(),
                line: 0,
            },
            message: "no entry found: no package.json main/start script and no file calls express(); pass --entry FILE".into(),
            cause: None,
        });
    }
    let (socket_servers, events, event_stats) =
        // The entries are a program (not, say, a process-manager config) when they build an app.
        build_events(project, interp, !roots.is_empty(), reached, opts, &mut findings);
    findings.sort_by(|a, b| (&a.at, a.code, &a.message).cmp(&(&b.at, b.code, &b.message)));

    let mut app_counts: BTreeMap<u32, usize> = BTreeMap::new();
    let mut operations: Vec<Operation> = Vec::new();
    let mut salvaged_ops: BTreeSet<(String, String, bool)> = BTreeSet::new();
    for op in salvaged.ops {
        let mut decls = op.decls;
        decls.sort_by(|a, b| a.at.cmp(&b.at));
        *app_counts.entry(op.app).or_default() += 1;
        salvaged_ops.insert((op.method.clone(), op.full.clone(), op.regex));
        let r = &interp.routers[op.app as usize];
        operations.push(Operation {
            method: op.method,
            path: salvaged_pattern(&op.full, op.regex),
            app: loc(project, r.file, r.line),
            mount_path: op.mount_path,
            declarations: decls,
            reached: Some(op.reached),
        });
    }
    for ((app, method, full, regex), mut decls) in out.ops {
        decls.sort_by(|a, b| a.at.cmp(&b.at));
        *app_counts.entry(app).or_default() += 1;
        let r = &interp.routers[app as usize];
        let mount_path = out
            .mount_paths
            .get(&(app, method.clone(), full.clone(), regex))
            .cloned()
            .unwrap_or_default();
        operations.push(Operation {
            method,
            path: PathPattern::parse(&full, regex),
            app: loc(project, r.file, r.line),
            mount_path,
            declarations: decls,
            reached: None,
        });
    }
    operations.sort_by(|a, b| {
        (a.path.express.as_bytes(), &a.method, &a.app).cmp(&(
            b.path.express.as_bytes(),
            &b.method,
            &b.app,
        ))
    });
    let apps: Vec<App> = roots
        .iter()
        .filter(|&&a| canonical(a) == a)
        .map(|&a| {
            let r = &interp.routers[a as usize];
            App {
                at: loc(project, r.file, r.line),
                operations: app_counts.get(&a).copied().unwrap_or(0),
                reached: None,
            }
        })
        .chain(salvaged.apps.iter().map(|(a, reached)| {
            let a = *a;
            let r = &interp.routers[a as usize];
            App {
                at: loc(project, r.file, r.line),
                operations: app_counts.get(&a).copied().unwrap_or(0),
                reached: Some(reached.clone()),
            }
        }))
        .collect();
    let entry_set: HashSet<FileId> = entries.iter().copied().collect();
    let source_files: Vec<SourceFile> = interp
        .touched
        .iter()
        .map(|&f| SourceFile {
            file: project.rel(f).to_string(),
            hash: loader.get(f).hash.clone(),
            http: http_files.contains(&f),
        })
        .collect();
    // Operations under the unknown prefix are counted in `salvaged` only.
    let unique_ops: BTreeSet<(String, String, bool)> = operations
        .iter()
        .filter(|o| !o.path.express.starts_with(UNKNOWN_PREFIX))
        .map(|o| (o.method.clone(), o.path.express.clone(), o.path.regex))
        .collect();
    let stats = Stats {
        mounts: out.app_mounts.len(),
        operations: unique_ops.len(),
        declarations: out.decl_keys.len(),
        source_files: reached.iter().filter(|f| !entry_set.contains(f)).count(),
        salvaged: salvaged_ops.len(),
    };
    let mut inv = Inventory {
        entries: entries
            .iter()
            .map(|&e| project.rel(e).to_string())
            .collect(),
        entry_reasons: BTreeMap::new(),
        apps,
        operations,
        mounts: out.app_mounts.into_iter().collect(),
        findings,
        source_files,
        stats,
        socket_servers,
        events,
        event_stats,
        coverage: Coverage::default(),
        census: Vec::new(),
        timings: Timings::default(),
        input_key: None,
    };
    let run = census::RunView {
        project,
        loader,
        interp,
        reached,
        walked: &out.reached_routers,
        imported: census::imported_by(project, loader, reached),
        events: !opts.skip_events,
    };
    census::account(&run, census_files, &mut inv);
    inv
}

/// Group event sites into events per (namespace, name), with cross-checks.
fn build_events(
    project: &Project,
    interp: &Interp,
    have_entries: bool,
    reached: &BTreeSet<FileId>,
    opts: &AnalyzeOptions,
    findings: &mut Vec<Finding>,
) -> (Vec<SocketServer>, Vec<Event>, EventStats) {
    // Sides named in the configuration win over what the values say.
    let under = |dirs: &[String], file: &str| {
        dirs.iter().any(|d| {
            let d = d.trim_matches('/');
            d.is_empty() || file == d || file.starts_with(&format!("{d}/"))
        })
    };
    let flip = |d: Direction| match d {
        Direction::ClientToServer => Direction::ServerToClient,
        Direction::ServerToClient => Direction::ClientToServer,
    };
    let sites: Vec<eval::RawSite> = interp
        .sites
        .iter()
        .map(|s| {
            let file = project.rel(s.file);
            let mut s = s.clone();
            let want = if under(&opts.client_dirs, file) {
                Some(Side::Client)
            } else if under(&opts.server_dirs, file) {
                Some(Side::Server)
            } else {
                None
            };
            if let Some(side) = want
                && side != s.side
            {
                s.side = side;
                s.direction = flip(s.direction);
            }
            s
        })
        .collect();
    // A server that only the event pass reached (a separate program, such as a
    // worker started with fork()) is reported, and its events left out, when the
    // entries reach a server of their own.
    let any_reached = interp.sio_servers.iter().any(|s| s.reached);
    let separate: BTreeSet<u32> = interp
        .sio_servers
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.reached && s.separate && (any_reached || have_entries))
        .map(|(i, _)| i as u32)
        .collect();
    for &i in &separate {
        let s = &interp.sio_servers[i as usize];
        findings.push(Finding {
            code: FindingCode::SeparateServer,
            at: loc(project, s.file, s.line),
            message: "a Socket.IO server in a file no entry reaches (a separate program?); its events are not listed; name it with --entry to include it".into(),
            cause: None,
        });
    }
    let servers: Vec<SocketServer> = interp
        .sio_servers
        .iter()
        .enumerate()
        .filter(|(i, _)| !separate.contains(&(*i as u32)))
        .map(|(_, s)| SocketServer {
            at: loc(project, s.file, s.line),
            path: s.path.clone(),
            namespaces: s.namespaces.iter().cloned().collect(),
        })
        .collect();
    let mut groups: BTreeMap<(String, String), Vec<&eval::RawSite>> = BTreeMap::new();
    for site in sites.iter().filter(|s| !separate.contains(&s.server)) {
        groups
            .entry((site.ns.clone(), site.name.clone()))
            .or_default()
            .push(site);
    }
    let mut events = Vec::new();
    let mut stats = EventStats::default();
    let mut files: BTreeSet<FileId> = BTreeSet::new();
    let kept = || sites.iter().filter(|s| !separate.contains(&s.server));
    let has_client = kept().any(|s| s.side == Side::Client);
    let has_server = kept().any(|s| s.side == Side::Server);
    // A server-side `onAny` (in a file with server sites) may receive any name
    // a client emits: no `unhandled-event` then (NodeBB looks its handlers up by name).
    let server_files: BTreeSet<FileId> = kept()
        .filter(|s| s.side == Side::Server)
        .map(|s| s.file)
        .collect();
    let catch_all = interp
        .findings
        .iter()
        .any(|f| f.code == FindingCode::CatchAllListener && server_files.contains(&f.file));
    for ((ns, name), raw) in &groups {
        let mut sites: Vec<EventSite> = raw
            .iter()
            .map(|r| {
                files.insert(r.file);
                EventSite {
                    at: loc(project, r.file, r.line),
                    side: r.side,
                    direction: r.direction,
                    kind: r.kind.to_string(),
                    via: r.via.clone(),
                    rooms: r.rooms.clone(),
                    args: r.args.clone(),
                    ack: r.ack,
                }
            })
            .collect();
        sites.sort();
        sites.dedup();
        let directions: Vec<Direction> = sites
            .iter()
            .map(|s| s.direction)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let lifecycle =
            eval::RESERVED_EVENTS.contains(&name.as_str()) || eval::client_lifecycle(name, raw);
        let mut rooms: Vec<String> = sites.iter().flat_map(|s| s.rooms.clone()).collect();
        rooms.sort();
        rooms.dedup();
        let mut payload = BTreeMap::new();
        let mut ack = BTreeMap::new();
        // Per direction, the payload the code states best: a validator's or a
        // type's over literals; literals from every site merged (see `merge_literals`).
        // Sites in file order, so the result does not depend on evaluation order.
        let mut stated: Vec<&&eval::RawSite> = raw.iter().filter(|r| r.payload.is_some()).collect();
        stated.sort_by(|a, b| (project.rel(a.file), a.line).cmp(&(project.rel(b.file), b.line)));
        for dir in [Direction::ClientToServer, Direction::ServerToClient] {
            let source = |r: &eval::RawSite| -> &'static str {
                match r.payload_source {
                    Some(src) => src,
                    None if r.kind == "on" || r.kind == "once" => "typescript",
                    None => "literal",
                }
            };
            let here: Vec<&&eval::RawSite> = stated
                .iter()
                .copied()
                .filter(|r| r.direction == dir)
                .collect();
            let Some(best) = here
                .iter()
                .copied()
                .find(|r| source(r) != "literal")
                .or(here.first().copied())
            else {
                continue;
            };
            let schema = if source(best) == "literal" {
                let all: Vec<&serde_json::Value> =
                    here.iter().filter_map(|r| r.payload.as_ref()).collect();
                merge_literals(&all)
            } else {
                best.payload.clone().unwrap_or_default()
            };
            payload.insert(
                dir,
                SchemaInfo {
                    schema,
                    source: source(best).into(),
                    name: None,
                    at: loc(project, best.file, best.line),
                },
            );
        }
        for r in raw.iter() {
            if let Some(a) = &r.ack_schema {
                ack.insert(
                    r.direction,
                    SchemaInfo {
                        schema: a.clone(),
                        source: "typescript".into(),
                        name: None,
                        at: loc(project, r.file, r.line),
                    },
                );
            } else if r.ack {
                ack.entry(r.direction).or_insert_with(|| SchemaInfo {
                    schema: serde_json::json!({}),
                    source: "literal".into(),
                    name: None,
                    at: loc(project, r.file, r.line),
                });
            }
        }
        if lifecycle {
            stats.lifecycle += 1;
        } else {
            stats.events += 1;
            let c2s = directions.contains(&Direction::ClientToServer);
            let s2c = directions.contains(&Direction::ServerToClient);
            stats.client_to_server += usize::from(c2s);
            stats.server_to_client += usize::from(s2c);
            stats.bidirectional += usize::from(c2s && s2c);
            if has_client && has_server {
                cross_check(
                    project, ns, name, raw, &groups, reached, catch_all, findings,
                );
            }
        }
        events.push(Event {
            name: name.clone(),
            pattern: raw.iter().any(|r| r.pattern),
            namespace: ns.clone(),
            directions,
            lifecycle,
            sites,
            payload,
            ack,
            rooms,
        });
    }
    // "No client emits it" may be the client code the analysis did not read.
    if findings
        .iter()
        .any(|f| f.code == FindingCode::UnemittedEvent)
        && let Some(note) =
            unread_client::note(&project.root, &|rel| project.file_id(rel).is_some())
    {
        for f in findings
            .iter_mut()
            .filter(|f| f.code == FindingCode::UnemittedEvent)
        {
            f.message.push_str(&note);
        }
    }
    stats.source_files = files.len();
    (servers, events, stats)
}

/// Whether two event names can be the same event (`{x}` matches anything).
fn names_match(a: &str, b: &str) -> bool {
    fn to_parts(p: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut rest = p;
        while let Some(i) = rest.find('{') {
            out.push((false, &rest[..i]));
            match rest[i..].find('}') {
                Some(j) => {
                    out.push((true, ""));
                    rest = &rest[i + j + 1..];
                }
                None => {
                    out.push((false, &rest[i..]));
                    rest = "";
                }
            }
        }
        out.push((false, rest));
        out
    }
    if a == b {
        return true;
    }
    if !a.contains('{') && !b.contains('{') {
        return false;
    }
    // A literal against a pattern: the pattern's fixed parts in order.
    let (pat, lit) = if a.contains('{') { (a, b) } else { (b, a) };
    let parts = to_parts(pat);
    let mut pos = 0usize;
    let mut wild = false;
    for (is_wild, text) in parts {
        if is_wild {
            wild = true;
            continue;
        }
        if text.is_empty() {
            continue;
        }
        if wild {
            match lit[pos..].find(text) {
                Some(i) => pos += i + text.len(),
                None => return false,
            }
        } else if lit[pos..].starts_with(text) {
            pos += text.len();
        } else {
            return false;
        }
        wild = false;
    }
    wild || pos == lit.len()
}

#[allow(clippy::too_many_arguments)]
fn cross_check(
    project: &Project,
    ns: &str,
    name: &str,
    raw: &[&eval::RawSite],
    groups: &BTreeMap<(String, String), Vec<&eval::RawSite>>,
    reached: &BTreeSet<FileId>,
    catch_all: bool,
    findings: &mut Vec<Finding>,
) {
    let any = |side: Side, dir: Direction| -> bool {
        groups.iter().any(|((n2, e2), sites)| {
            (n2 == ns || n2.starts_with('{') || n2.starts_with('/') && n2.contains(['^', '(']))
                && names_match(e2, name)
                && sites.iter().any(|s| s.side == side && s.direction == dir)
        })
    };
    let first =
        |side: Side, dir: Direction| raw.iter().find(|s| s.side == side && s.direction == dir);
    if let Some(s) = first(Side::Client, Direction::ClientToServer)
        && !catch_all
        && !any(Side::Server, Direction::ClientToServer)
    {
        findings.push(Finding {
            code: FindingCode::UnhandledEvent,
            at: loc(project, s.file, s.line),
            message: format!(
                "the client emits `{name}` on `{ns}`, but no server handler receives it"
            ),
            cause: None,
        });
    }
    if let Some(s) = first(Side::Server, Direction::ClientToServer)
        && !any(Side::Client, Direction::ClientToServer)
    {
        findings.push(Finding {
            code: FindingCode::UnemittedEvent,
            at: loc(project, s.file, s.line),
            message: format!("the server listens for `{name}` on `{ns}`, but no client emits it"),
            cause: None,
        });
    }
    if let Some(s) = first(Side::Server, Direction::ServerToClient)
        && !any(Side::Client, Direction::ServerToClient)
    {
        findings.push(Finding {
            code: FindingCode::UnheardEvent,
            at: loc(project, s.file, s.line),
            message: format!("the server emits `{name}` on `{ns}`, but no client listens for it"),
            cause: None,
        });
    }
    // A client in the server's own code (what the entries run) talks to
    // another service: what it listens for is that service's API.
    if let Some(s) = raw.iter().find(|s| {
        s.side == Side::Client
            && s.direction == Direction::ServerToClient
            && !reached.contains(&s.file)
    }) && !any(Side::Server, Direction::ServerToClient)
    {
        findings.push(Finding {
            code: FindingCode::UnsentEvent,
            at: loc(project, s.file, s.line),
            message: format!(
                "the client listens for `{name}` on `{ns}`, but the analysis found no server site that emits it"
            ),
            cause: None,
        });
    }
}

fn public_contract(project: &Project, c: &eval::RawContract) -> Contract {
    let info = |_: &str, x: &Option<(serde_json::Value, Option<String>, FileId, u32)>| {
        x.as_ref().map(|(schema, name, f, l)| {
            let n = name.as_deref().unwrap_or("");
            let (source, name) = if let Some(rest) = n.strip_prefix("joi:") {
                ("joi", rest)
            } else if let Some(rest) = n.strip_prefix("jsdoc:") {
                ("jsdoc", rest)
            } else if let Some(rest) = n.strip_prefix("class-validator:") {
                ("class-validator", rest)
            } else if let Some(rest) = n.strip_prefix("typescript:") {
                ("typescript", rest)
            } else if n == "express-validator" || n == "celebrate" {
                (n, "")
            } else if n.starts_with("Request<") {
                ("typescript", "")
            } else {
                ("zod", n)
            };
            SchemaInfo {
                schema: schema.clone(),
                source: source.into(),
                name: (!name.is_empty()).then(|| name.to_string()),
                at: loc(project, *f, *l),
            }
        })
    };
    let mut responses: Vec<ResponseInfo> = c
        .responses
        .iter()
        .map(|(status, schema, f, l)| ResponseInfo {
            status: *status,
            schema: schema.as_ref().map(|s| SchemaInfo {
                schema: s.clone(),
                source: "literal".into(),
                name: None,
                at: loc(project, *f, *l),
            }),
            at: loc(project, *f, *l),
        })
        .collect();
    responses.sort_by(|a, b| (a.status, &a.at).cmp(&(b.status, &b.at)));
    Contract {
        body: info("zod", &c.body),
        query: info("zod", &c.query),
        params: info("zod", &c.params),
        query_read: c.query_read.iter().cloned().collect(),
        headers_read: c.headers_read.iter().cloned().collect(),
        body_read: c.body_read.iter().cloned().collect(),
        responses,
    }
}

#[cfg(test)]
mod tests {
    use super::merge_literals;
    use serde_json::json;

    #[test]
    fn test_paths_are_told_by_name_and_folder() {
        for t in [
            "spec/helper.js",
            "server/specs/app.js",
            "src/__tests__/routes.js",
            "src/app.test.ts",
            "src/app.spec.js",
            "test/server.js",
        ] {
            assert!(super::is_test_path(t), "{t} is a test path");
        }
        for t in [
            "src/specification.js",
            "src/routes/inspect.js",
            "spec.js",
            "src/testing-tools/app.js",
        ] {
            assert!(!super::is_test_path(t), "{t} is not a test path");
        }
    }

    #[test]
    fn literal_payloads_from_several_sites_merge() {
        let a = json!({"type": "object", "properties": {"event": {"type": "string"}, "message": {"type": "string"}}, "required": ["event", "message"]});
        let b = json!({"type": "object", "properties": {"event": {"type": "string"}}, "required": ["event"]});
        assert_eq!(
            merge_literals(&[&b, &a]),
            json!({"type": "object", "properties": {"event": {"type": "string"}, "message": {"type": "string"}}, "required": ["event"]})
        );
        // Not all objects: the first site's schema.
        let s = json!({"type": "string"});
        assert_eq!(merge_literals(&[&s, &a]), s);
        assert_eq!(merge_literals(&[&a]), a);
    }
}
