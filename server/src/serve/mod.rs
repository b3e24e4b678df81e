//! `portolan serve`: the derived documents, cached and served at PortOS's
//! URLs, next to the governed tool registry (catalog, strict calls,
//! idempotency, durable results, principals, rate limits, audit).
//!
//! [`app`] builds the whole HTTP application from an [`AppState`], so tests
//! drive every route with `tower::ServiceExt::oneshot` and no socket;
//! [`serve`] listens and shuts down gracefully; [`watch`] re-derives the
//! documents when a source file changes and swaps the whole set atomically
//! (a request holds one `Arc<DocSet>` from start to end, so it sees either
//! the old set or the new one, never a mix).
//!
//! Module map: `docs` (ETag, encodings), `registry` (tools and catalog
//! formats), `builtin` (built-in read tools), `calls` (call endpoint,
//! idempotency, coalescing), `upstream` (HTTP adapters), `store` (SQLite),
//! `auth` (principals), `limits` (rate limits), `settings` (`[server]`),
//! `error` (the one error type).

pub mod auth;
pub mod builtin;
pub mod calls;
pub mod docs;
pub mod error;
pub mod explorer;
pub mod limits;
pub mod registry;
pub mod settings;
pub mod store;
pub mod upstream;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use docs::ServedDoc;
use error::ApiError;
use registry::{CatalogQuery, Registry};
use serde_json::{Value, json};
use settings::ServerSettings;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use store::Store;

/// What one derivation produced: the documents and the counts to print.
pub struct Derived {
    /// Every document (specgen's order).
    pub documents: specgen::Documents,
    /// HTTP operations.
    pub operations: usize,
    /// Socket.IO events (lifecycle events excluded).
    pub events: usize,
    /// Findings.
    pub findings: usize,
}

/// The URL of each served document under `/api/api-docs/`.
pub const DOCUMENT_PATHS: &[&str] = &[
    "catalog.json",
    "internal/openapi.json",
    "openapi.json",
    "events.json",
    "asyncapi.json",
    "tools.min.json",
];

/// One complete, immutable set: documents ready to serve, the parsed values
/// the built-in tools read, and the registry built from them.
pub struct DocSet {
    docs: HashMap<String, ServedDoc>,
    /// `catalog.json`, parsed.
    pub catalog: Value,
    /// `events.json`, parsed.
    pub events: Value,
    /// `internal/openapi.json`, parsed.
    pub openapi: Value,
    /// The tool registry of this set.
    pub registry: Registry,
    /// Counts: operations, events, findings, tools.
    pub counts: (usize, usize, usize, usize),
    /// 1 for the start-up set, +1 per swap.
    pub generation: u64,
}

impl DocSet {
    /// Compress every document once (in parallel), parse what the tools
    /// read, and build the registry. Errors are start-up errors.
    pub fn build(d: Derived, settings: &ServerSettings, generation: u64) -> Result<DocSet, String> {
        let parse = |p: &str| -> Result<Value, String> {
            match d.documents.get(p) {
                Some(doc) => {
                    serde_json::from_slice(&doc.bytes).map_err(|e| format!("{p} is not JSON: {e}"))
                }
                None => Ok(Value::Null),
            }
        };
        let tools = parse("tools.min.json")?;
        let registry = Registry::build(&tools, settings)?;
        let catalog = parse("catalog.json")?;
        let events = parse("events.json")?;
        let openapi = parse("internal/openapi.json")?;
        let (tools_ref, registry_ref) = (&tools, &registry);
        let docs: HashMap<String, ServedDoc> = std::thread::scope(|s| {
            let handles: Vec<_> = d
                .documents
                .documents
                .iter()
                .map(|doc| {
                    s.spawn(move || {
                        if doc.path == "index.html" {
                            let page = explorer::served_page(&doc.bytes, tools_ref, registry_ref);
                            let hash = blake3::hash(&page).to_hex();
                            return (
                                doc.path.clone(),
                                ServedDoc::new(doc.media_type, page, &hash),
                            );
                        }
                        (
                            doc.path.clone(),
                            ServedDoc::new(doc.media_type, doc.bytes.clone(), &doc.hash),
                        )
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        Ok(DocSet {
            docs,
            catalog,
            events,
            openapi,
            counts: (d.operations, d.events, d.findings, registry.tools.len()),
            registry,
            generation,
        })
    }

    /// A served document by its path relative to the output folder.
    pub fn doc(&self, path: &str) -> Option<&ServedDoc> {
        self.docs.get(path)
    }
}

/// Shared server state; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    current: RwLock<Arc<DocSet>>,
    settings: ServerSettings,
    store: Arc<dyn Store>,
    auth: auth::Auth,
    limits: limits::Limits,
    inflight: calls::Inflight,
    upstream: Option<upstream::Upstream>,
    /// Adapter executions since start (tests check coalescing with it).
    executions: std::sync::atomic::AtomicU64,
}

impl AppState {
    /// Build the state from a first derivation; fails on a bad registry
    /// (a tenant field, a schema that does not compile) or bad keys.
    pub fn new(
        derived: Derived,
        settings: ServerSettings,
        store: Arc<dyn Store>,
    ) -> Result<AppState, String> {
        let set = DocSet::build(derived, &settings, 1)?;
        let auth = auth::Auth::new(&settings)?;
        let limits = limits::Limits::new(settings.read_limit, settings.write_limit);
        let recovered = store.recover(error::now_ms())?;
        if recovered > 0 {
            eprintln!(
                "store: {recovered} call(s) left running by a previous process are now failed (interrupted)"
            );
        }
        let upstream = settings.upstream.as_ref().map(|u| {
            upstream::Upstream::new(
                u,
                settings.upstream_timeout,
                &settings.principal_header,
                &settings.tenant_header,
            )
        });
        let state = AppState {
            inner: Arc::new(Inner {
                current: RwLock::new(Arc::new(set)),
                settings,
                store,
                auth,
                limits,
                inflight: Default::default(),
                upstream,
                executions: Default::default(),
            }),
        };
        state.prune()?;
        Ok(state)
    }

    /// The current document set (held by a request from start to end).
    pub fn current(&self) -> Arc<DocSet> {
        self.inner
            .current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Replace the whole set at once; on error the old set stays.
    pub fn swap(&self, derived: Derived) -> Result<u64, String> {
        let generation = self.current().generation + 1;
        let set = Arc::new(DocSet::build(derived, &self.inner.settings, generation)?);
        *self
            .inner
            .current
            .write()
            .unwrap_or_else(|p| p.into_inner()) = set;
        Ok(generation)
    }

    /// The settings.
    pub fn settings(&self) -> &ServerSettings {
        &self.inner.settings
    }

    /// The store.
    pub fn store(&self) -> Arc<dyn Store> {
        self.inner.store.clone()
    }

    /// Adapter executions since start.
    pub fn executions(&self) -> u64 {
        self.inner
            .executions
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Apply result retention now (also run every five minutes by [`serve`]).
    pub fn prune(&self) -> Result<(usize, usize), String> {
        let s = &self.inner.settings;
        self.inner.store.prune(
            error::now_ms(),
            store::Retention {
                max_age_ms: s.max_age.as_millis() as i64,
                max_results: s.max_results,
                tombstone_ms: s.tombstone_age.as_millis() as i64,
            },
        )
    }
}

/// The whole HTTP application.
pub fn app(state: AppState) -> Router {
    let mut r = Router::new()
        .route("/", get(|| async { Redirect::temporary("/api-docs/") }))
        .route(
            "/api-docs",
            get(|| async { Redirect::permanent("/api-docs/") }),
        )
        .route("/api-docs/", get(explorer))
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/api/cos/tools", get(tool_catalog))
        .route("/api/cos/tools/call", axum::routing::post(calls::call))
        .route("/api/cos/tools/calls/{request_id}", get(calls::get_call))
        .route("/api/cos/tools/audit", get(calls::get_audit));
    for &p in DOCUMENT_PATHS {
        // The request by value, not a `HeaderMap` extractor: that one clones
        // every header on each request, the largest cost of the 304 path.
        r = r.route(
            &format!("/api/api-docs/{p}"),
            get(
                move |State(s): State<AppState>, req: axum::extract::Request| async move {
                    document(&s, p, req.headers())
                },
            ),
        );
    }
    r.fallback(|| async { ApiError::status(StatusCode::NOT_FOUND, "No such route.") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "METHOD_NOT_ALLOWED",
                "This route does not answer that method.",
            )
        })
        .with_state(state)
}

fn document(s: &AppState, path: &str, h: &HeaderMap) -> Response {
    let set = s.current();
    match set.doc(path) {
        Some(d) => d.respond(h, "no-cache"),
        None => ApiError::status(
            StatusCode::NOT_FOUND,
            format!("{path} was not produced for this project."),
        )
        .into_response(),
    }
}

async fn explorer(State(s): State<AppState>, h: HeaderMap) -> Response {
    document(&s, "index.html", &h)
}

async fn health() -> Response {
    json_response(StatusCode::OK, &json!({"status": "ok"}))
}

async fn ready(State(s): State<AppState>) -> Response {
    let set = s.current();
    let store = s.inner.store.clone();
    let ping = tokio::task::spawn_blocking(move || store.ping())
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
    match ping {
        Ok(()) => json_response(
            StatusCode::OK,
            &json!({"status": "ready", "generation": set.generation, "store": "ok"}),
        ),
        Err(e) => ApiError::status(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("The store is not reachable: {e}"),
        )
        .into_response(),
    }
}

fn json_response(status: StatusCode, v: &Value) -> Response {
    let mut r = (status, serde_json::to_vec(v).unwrap_or_default()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

async fn tool_catalog(
    State(s): State<AppState>,
    RawQuery(q): RawQuery,
    h: HeaderMap,
) -> Result<Response, ApiError> {
    let q = CatalogQuery::parse(q.as_deref())?;
    let principal = s.inner.auth.principal(&h)?;
    let set = s.current();
    let body = set.registry.catalog(&q, &principal.grants);
    Ok(docs::respond_json(
        serde_json::to_vec(&body).unwrap_or_default(),
        &h,
        "private, no-cache",
    ))
}

/// Listen on `addr` until SIGINT or SIGTERM; in-flight requests finish.
pub async fn serve(state: AppState, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let pruner = state.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(300));
        loop {
            tick.tick().await;
            pruner.inner.limits.retain_recent();
            let s = pruner.clone();
            match tokio::task::spawn_blocking(move || s.prune()).await {
                Ok(Err(e)) => eprintln!("retention: {e}"),
                Err(e) => eprintln!("retention: {e}"),
                _ => {}
            }
        }
    });
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    eprintln!("shutting down: finishing in-flight requests");
}

/// Where state lives by default: `$XDG_DATA_HOME/portolan` (else
/// `~/.local/share/portolan`), one folder per analysed root (named by the
/// blake3 of its canonical path).
pub fn default_data_dir(root: &Path) -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(std::env::temp_dir)
        .join("portolan");
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let name = canon
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".into());
    let hash = blake3::hash(canon.to_string_lossy().as_bytes()).to_hex();
    base.join(format!("{name}-{}", &hash[..12]))
}

/// Re-derive on changes under `root` (sources, `package.json`,
/// `tsconfig.json`, `portolan.toml`) or to the `config` file, debounced
/// 300 ms, and swap the set. `[server]` settings are read at start-up only.
/// Runs on its own thread for the life of the process.
pub fn watch(
    state: AppState,
    root: PathBuf,
    config: Option<PathBuf>,
    ignore: Vec<PathBuf>,
    derive: Arc<dyn Fn() -> Result<Derived, String> + Send + Sync>,
) -> Result<(), String> {
    use notify::Watcher;
    let (tx, rx) = std::sync::mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(tx).map_err(|e| format!("--watch: {e}"))?;
    watcher
        .watch(&root, notify::RecursiveMode::Recursive)
        .map_err(|e| format!("--watch: cannot watch {}: {e}", root.display()))?;
    // A configuration file outside the root: watch its folder (editors
    // replace files by renaming), and count only events on the file itself.
    let config = config.and_then(|c| c.canonicalize().ok());
    let root_canon = root.canonicalize().unwrap_or_else(|_| root.clone());
    if let Some(c) = &config
        && !c.starts_with(&root_canon)
        && let Some(dir) = c.parent()
    {
        watcher
            .watch(dir, notify::RecursiveMode::NonRecursive)
            .map_err(|e| format!("--watch: cannot watch {}: {e}", dir.display()))?;
    }
    let relevant = move |p: &Path| -> bool {
        if config.as_deref() == Some(p) {
            return true;
        }
        if ignore.iter().any(|i| p.starts_with(i)) {
            return false;
        }
        if p.components().any(|c| {
            matches!(
                c.as_os_str().to_str(),
                Some("node_modules" | ".git" | "target" | ".portolan-cache")
            )
        }) {
            return false;
        }
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        matches!(name, "portolan.toml" | "package.json" | "tsconfig.json")
            || matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx")
            )
    };
    std::thread::spawn(move || {
        let _keep = watcher;
        let debounce = std::time::Duration::from_millis(300);
        while let Ok(ev) = rx.recv() {
            let mut hit = ev
                .map(|e| e.paths.iter().any(|p| relevant(p)))
                .unwrap_or(false);
            // Debounce: gather events until 300 ms pass quietly.
            loop {
                match rx.recv_timeout(debounce) {
                    Ok(ev) => {
                        hit |= ev
                            .map(|e| e.paths.iter().any(|p| relevant(p)))
                            .unwrap_or(false)
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
                }
            }
            if !hit {
                continue;
            }
            let start = std::time::Instant::now();
            match derive().and_then(|d| state.swap(d)) {
                Ok(g) => {
                    let set = state.current();
                    eprintln!(
                        "watch: re-derived in {:.0} ms (set {g}: {} operations, {} events, {} tools)",
                        start.elapsed().as_secs_f64() * 1000.0,
                        set.counts.0,
                        set.counts.1,
                        set.counts.3
                    );
                }
                Err(e) => eprintln!("watch: kept the previous documents: {e}"),
            }
        }
    });
    Ok(())
}
