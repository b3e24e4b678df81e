//! `portolan serve`: the derived documents, cached and served at PortOS's
//! URLs, next to the governed tool registry (catalog, strict calls,
//! idempotency, durable results, principals, rate limits, audit).
//!
//! [`app`] builds the whole HTTP application from an [`AppState`], so tests
//! drive every route with `tower::ServiceExt::oneshot` and no socket;
//! [`serve`] listens and shuts down gracefully; [`watch`] re-derives the
//! documents and re-reads `[server]` when a source file or the configuration
//! changes and swaps the whole set atomically (a request holds one
//! `Arc<DocSet>`, with its [`Live`] settings, from start to end, so it sees
//! either the old set or the new one, never a mix).
//!
//! Module map: `docs` (ETag, encodings), `registry` (tools and catalog
//! formats), `builtin` (built-in read tools), `calls` (call endpoint,
//! idempotency, coalescing), `recipes` (saved read recipes),
//! `mcp` (agents over MCP, trust rules),
//! `v1` (the platform tools API, `/v1/tools`), `upstream` (HTTP adapters),
//! `store` (the store trait; SQLite), `postgres` (the shared PostgreSQL store),
//! `auth` (principals), `limits` (rate limits), `settings` (`[server]`),
//! `error` (the one error type), `openapi` (the server's own OpenAPI
//! document and reference page).

pub mod auth;
pub mod builtin;
pub mod calls;
pub mod docs;
pub mod error;
pub mod explorer;
pub mod limits;
pub mod mcp;
pub mod openapi;
pub mod postgres;
pub mod recipes;
pub mod registry;
pub mod settings;
pub mod store;
pub mod upstream;
pub mod v1;

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
    /// The `[server]` settings this set was built with, and what is built
    /// from them (a reload swaps both together).
    pub live: Arc<Live>,
}

/// The `[server]` settings in force and what is built from them: the token
/// verifier, the rate-limit buckets and the upstream client. A `--watch`
/// reload builds a new one and swaps it with the documents, so a request
/// holds one set of documents, registry and settings from start to end.
/// `listen`, `data_dir`, `store` and `claim_lease_ms` are read at start-up
/// only ([`RESTART_KEYS`]).
pub struct Live {
    /// The validated settings.
    pub settings: ServerSettings,
    pub(crate) auth: auth::Auth,
    /// Shared with the previous `Live` while the limits are unchanged, so a
    /// reload does not refill every bucket.
    pub(crate) limits: Arc<limits::Limits>,
    pub(crate) upstream: Option<upstream::Upstream>,
}

/// `[server]` keys a running server cannot apply: the socket is bound and
/// the store opened at start-up. A reload that changes one says so.
pub const RESTART_KEYS: &[&str] = &["listen", "data_dir", "store", "claim_lease_ms"];

impl Live {
    /// Build from settings; `previous` lends its rate-limit buckets when the
    /// limits are unchanged. A key that does not parse is an error naming it.
    pub fn new(settings: ServerSettings, previous: Option<&Live>) -> Result<Live, String> {
        let auth = auth::Auth::new(&settings)?;
        let limits = match previous {
            Some(p)
                if p.settings.read_limit == settings.read_limit
                    && p.settings.write_limit == settings.write_limit =>
            {
                p.limits.clone()
            }
            _ => Arc::new(limits::Limits::new(
                settings.read_limit,
                settings.write_limit,
            )),
        };
        let upstream = settings.upstream.as_ref().map(|u| {
            upstream::Upstream::new(
                u,
                settings.upstream_timeout,
                &settings.principal_header,
                &settings.tenant_header,
            )
        });
        Ok(Live {
            settings,
            auth,
            limits,
            upstream,
        })
    }
}

impl DocSet {
    /// Compress every document once (in parallel), parse what the tools
    /// read, and build the registry. Errors are start-up errors.
    pub fn build(d: Derived, live: Arc<Live>, generation: u64) -> Result<DocSet, String> {
        let settings = &live.settings;
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
            live,
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
    store: Arc<dyn Store>,
    inflight: calls::Inflight,
    /// Adapter executions since start (tests check coalescing with it).
    executions: std::sync::atomic::AtomicU64,
    /// What the last `--watch` reload said when it kept the previous set.
    last_reload_error: std::sync::Mutex<Option<String>>,
    /// `/openapi.json` and `/openapi/`, generated once.
    openapi: openapi::Served,
}

/// What a reload applied, for the log.
#[derive(Debug, Default, PartialEq)]
pub struct Reloaded {
    /// The new set's generation.
    pub generation: u64,
    /// `[server]` keys that changed but need a restart, with old and new values.
    pub needs_restart: Vec<String>,
    /// Whether the `[server]` settings changed at all.
    pub settings_changed: bool,
}

impl AppState {
    /// Build the state from a first derivation; fails on a bad registry
    /// (a tenant field, a schema that does not compile) or bad keys.
    pub fn new(
        derived: Derived,
        settings: ServerSettings,
        store: Arc<dyn Store>,
    ) -> Result<AppState, String> {
        let live = Arc::new(Live::new(settings, None)?);
        let set = DocSet::build(derived, live, 1)?;
        let recovered = store.recover(error::now_ms())?;
        if recovered > 0 {
            eprintln!(
                "store: {recovered} call(s) left running by a previous process are now failed (interrupted)"
            );
        }
        let state = AppState {
            inner: Arc::new(Inner {
                current: RwLock::new(Arc::new(set)),
                store,
                inflight: Default::default(),
                executions: Default::default(),
                last_reload_error: Default::default(),
                openapi: openapi::Served::new(),
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

    /// Replace the documents at once, keeping the settings; on error the
    /// old set stays.
    pub fn swap(&self, derived: Derived) -> Result<u64, String> {
        let current = self.current();
        let set = DocSet::build(derived, current.live.clone(), current.generation + 1)?;
        Ok(self.install(set))
    }

    /// Replace the documents and the `[server]` settings together (what
    /// `--watch` does after an edit). On any error (a key that does not
    /// parse, a key file that cannot be read, a registry the new settings
    /// refuse) nothing changes and the error names the key. Keys of
    /// [`RESTART_KEYS`] that changed are reported, not applied.
    pub fn reload(&self, derived: Derived, settings: ServerSettings) -> Result<Reloaded, String> {
        let current = self.current();
        let old = &current.live.settings;
        let mut needs_restart = Vec::new();
        if old.listen != settings.listen {
            needs_restart.push(format!("listen ({} -> {})", old.listen, settings.listen));
        }
        if old.data_dir != settings.data_dir {
            let show = |d: &Option<PathBuf>| {
                d.as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "default".into())
            };
            needs_restart.push(format!(
                "data_dir ({} -> {})",
                show(&old.data_dir),
                show(&settings.data_dir)
            ));
        }
        if old.store != settings.store {
            // Never the URL: it may hold a password.
            needs_restart.push("store".to_string());
        }
        if old.claim_lease != settings.claim_lease {
            needs_restart.push(format!(
                "claim_lease_ms ({} -> {})",
                old.claim_lease.as_millis(),
                settings.claim_lease.as_millis()
            ));
        }
        let settings_changed = *old != settings;
        let live = if settings_changed {
            Arc::new(Live::new(settings, Some(&current.live))?)
        } else {
            current.live.clone()
        };
        let set = DocSet::build(derived, live, current.generation + 1)?;
        let generation = self.install(set);
        Ok(Reloaded {
            generation,
            needs_restart,
            settings_changed,
        })
    }

    fn install(&self, set: DocSet) -> u64 {
        let generation = set.generation;
        *self
            .inner
            .current
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Arc::new(set);
        generation
    }

    /// The settings in force.
    pub fn settings(&self) -> Arc<Live> {
        self.current().live.clone()
    }

    /// Why the last `--watch` reload kept the previous set (None after a
    /// reload that applied).
    pub fn last_reload_error(&self) -> Option<String> {
        self.inner
            .last_reload_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
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
        let live = self.settings();
        let s = &live.settings;
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
        .route("/", get(root))
        .route("/api-docs", get(api_docs))
        .route("/api-docs/", get(explorer))
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/api/cos/tools", get(tool_catalog))
        .route("/api/cos/tools/call", axum::routing::post(calls::call))
        .route("/api/cos/tools/calls/{request_id}", get(calls::get_call))
        .route("/api/cos/tools/audit", get(calls::get_audit))
        .route(mcp::ENDPOINT, axum::routing::any(mcp::endpoint))
        .route("/api/agent-context/manifest", get(mcp::manifest))
        .route("/v1/tools", get(v1::list))
        .route("/v1/tools/{name}", axum::routing::post(v1::call))
        .route("/openapi.json", get(openapi::openapi_json))
        .route("/openapi/", get(openapi::reference_page));
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
        Some(d) => d.respond(h),
        None => ApiError::status(
            StatusCode::NOT_FOUND,
            format!("{path} was not produced for this project."),
        )
        .into_response(),
    }
}

#[utoipa::path(
    get,
    path = "/",
    tag = "documents",
    responses((status = 307, description = "Redirects to the explorer, `/api-docs/`.", headers(("Location" = String))))
)]
async fn root() -> Redirect {
    Redirect::temporary("/api-docs/")
}

#[utoipa::path(
    get,
    path = "/api-docs",
    tag = "documents",
    responses((status = 308, description = "Redirects to `/api-docs/`.", headers(("Location" = String))))
)]
async fn api_docs() -> Redirect {
    Redirect::permanent("/api-docs/")
}

/// The explorer page (`index.html` with the registry's tools filled in).
#[utoipa::path(
    get,
    path = "/api-docs/",
    tag = "documents",
    params(("If-None-Match" = Option<String>, Header, nullable = false, description = "An ETag from an earlier answer.")),
    responses(
        (status = 200, description = "The explorer page.", body = String, content_type = "text/html"),
        (status = 304, description = "Not modified: the `If-None-Match` ETag is current."),
        (status = 404, description = "The explorer was not produced for this project.", body = openapi::ErrorEnvelope),
    )
)]
async fn explorer(State(s): State<AppState>, h: HeaderMap) -> Response {
    document(&s, "index.html", &h)
}

#[utoipa::path(
    get,
    path = "/health",
    tag = "server",
    responses((status = 200, description = "The process answers.", body = openapi::Health))
)]
async fn health() -> Response {
    json_response(StatusCode::OK, &json!({"status": "ok"}))
}

#[utoipa::path(
    get,
    path = "/ready",
    tag = "server",
    responses(
        (status = 200, description = "Documents loaded and the store reachable.", body = openapi::Ready),
        (status = 503, description = "The store is not reachable (`SERVICE_UNAVAILABLE`).", body = openapi::ErrorEnvelope),
    )
)]
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

/// The registry's catalog for the caller's grants.
#[utoipa::path(
    get,
    path = "/api/cos/tools",
    tag = "registry",
    params(
        ("scope" = Option<String>, Query, nullable = false, description = "`all` (default) or one scope.", pattern = "^(all|agent|mind|ui|voice)$"),
        ("intent" = Option<String>, Query, nullable = false, description = "Rank tools by this text (at most 500 characters).", max_length = 500),
        ("format" = Option<String>, Query, nullable = false, description = "`portos` (default), `openai`, `anthropic` or `mcp`.", pattern = "^(portos|openai|anthropic|mcp)$"),
    ),
    responses(
        (status = 200, description = "The catalog in the requested format.", body = Object),
        (status = 304, description = "Not modified: the `If-None-Match` ETag is current."),
        (status = 400, description = "`VALIDATION_ERROR`: an unknown, repeated or invalid query parameter.", body = openapi::ErrorEnvelope),
        (status = 401, description = "`UNAUTHORIZED`: a bad or missing credential (JWT mode).", body = openapi::ErrorEnvelope),
    )
)]
async fn tool_catalog(
    State(s): State<AppState>,
    RawQuery(q): RawQuery,
    h: HeaderMap,
) -> Result<Response, ApiError> {
    let q = CatalogQuery::parse(q.as_deref())?;
    let set = s.current();
    let principal = set.live.auth.principal(&h)?;
    let body = set.registry.catalog(&q, &principal.grants);
    Ok(docs::respond_json(
        serde_json::to_vec(&body).unwrap_or_default(),
        &h,
        "private, no-cache",
    ))
}

/// The 304 of a conditional GET of a served document, answered before
/// routing (the hot path of a client polling the documents), or None: the
/// request goes to [`app`], which answers it the same way.
pub fn fast_not_modified<B>(state: &AppState, req: &axum::http::Request<B>) -> Option<Response> {
    if req.method() != axum::http::Method::GET || !req.headers().contains_key(header::IF_NONE_MATCH)
    {
        return None;
    }
    let path = req.uri().path().strip_prefix("/api/api-docs/")?;
    if !DOCUMENT_PATHS.contains(&path) {
        return None;
    }
    state.current().doc(path)?.not_modified(req.headers())
}

/// What a connection does with one request.
enum Next {
    /// Answered before routing.
    Answer(Response),
    /// Handed to the application.
    Route(Router),
}

/// Listen until SIGINT or SIGTERM; in-flight requests finish.
///
/// Each connection is served by hyper's HTTP/1 connection directly rather
/// than `axum::serve`: Nagle off (`TCP_NODELAY`), pipelined responses
/// flushed together, conditional GETs of documents answered by
/// [`fast_not_modified`] before routing, and the peer address handed to the
/// handlers as `ConnectInfo` (the MCP trust rules read it).
pub async fn serve(state: AppState, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use tower::Service;
    let pruner = state.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(300));
        loop {
            tick.tick().await;
            pruner.current().live.limits.retain_recent();
            let s = pruner.clone();
            match tokio::task::spawn_blocking(move || s.prune()).await {
                Ok(Err(e)) => eprintln!("retention: {e}"),
                Err(e) => eprintln!("retention: {e}"),
                _ => {}
            }
            // Calls of a process that died while others share the store.
            let store = pruner.store();
            if store.shared() {
                match tokio::task::spawn_blocking(move || store.recover(error::now_ms())).await {
                    Ok(Ok(0)) => {}
                    Ok(Ok(n)) => eprintln!(
                        "store: {n} call(s) whose process stopped are now failed (interrupted)"
                    ),
                    Ok(Err(e)) => eprintln!("store: {e}"),
                    Err(e) => eprintln!("store: {e}"),
                }
            }
        }
    });
    let router = app(state.clone());
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).pipeline_flush(true);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut stop = std::pin::pin!(shutdown_signal());
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors and the like: wait, never spin.
                    eprintln!("accept: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let _ = tcp.set_nodelay(true);
        let (state, router) = (state.clone(), router.clone());
        let service = hyper::service::service_fn(
            move |mut req: axum::http::Request<hyper::body::Incoming>| {
                let next = match fast_not_modified(&state, &req) {
                    Some(answer) => Next::Answer(answer),
                    None => Next::Route(router.clone()),
                };
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                async move {
                    match next {
                        Next::Answer(answer) => Ok(answer),
                        // A Router is always ready (its poll_ready returns Ready).
                        Next::Route(mut router) => router.call(req).await,
                    }
                }
            },
        );
        let conn = graceful.watch(http.serve_connection(TokioIo::new(tcp), service));
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
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

/// Whether the file at `p` (no extension) is a Node script the analysis
/// reads, judged by its first line as the walk judges it.
fn node_script_at(p: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(128);
    std::fs::File::open(p)
        .and_then(|f| f.take(128).read_to_end(&mut head))
        .is_ok()
        && analyzer::is_node_script(&head)
}

/// What `--watch` runs after an edit: a fresh derivation and the `[server]`
/// section read again (an error names the file or the key).
pub type Rederive = Arc<dyn Fn() -> Result<(Derived, ServerSettings), String> + Send + Sync>;

/// Re-derive on changes under `root` (sources, Node scripts with no
/// extension, `package.json`,
/// `tsconfig.json`, `portolan.toml`) or to the `config` file, debounced
/// 300 ms, and [`AppState::reload`] the documents and the `[server]`
/// settings together. A failure keeps the previous set and settings, logs
/// the reason (naming the key) and is kept for [`AppState::last_reload_error`];
/// a changed key of [`RESTART_KEYS`] is logged as needing a restart.
/// Runs on its own thread for the life of the process.
pub fn watch(
    state: AppState,
    root: PathBuf,
    config: Option<PathBuf>,
    ignore: Vec<PathBuf>,
    derive: Rederive,
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
            || (p.extension().is_none() && node_script_at(p))
    };
    std::thread::spawn(move || {
        let _keep = watcher;
        let debounce = std::time::Duration::from_millis(300);
        // Whether an event changes a relevant file; `None` for a read
        // (opening a file is no change, and every derivation reads them all:
        // counted, each would start the next).
        let changes = |ev: notify::Result<notify::Event>| match ev {
            Ok(e) if matches!(e.kind, notify::EventKind::Access(_)) => None,
            Ok(e) => Some(e.paths.iter().any(|p| relevant(p))),
            Err(_) => Some(false),
        };
        while let Ok(ev) = rx.recv() {
            let Some(mut hit) = changes(ev) else {
                continue;
            };
            // Debounce: gather changes until 300 ms pass without one.
            let mut quiet_at = std::time::Instant::now() + debounce;
            loop {
                let left = quiet_at.saturating_duration_since(std::time::Instant::now());
                match rx.recv_timeout(left) {
                    Ok(ev) => {
                        if let Some(h) = changes(ev) {
                            hit |= h;
                            quiet_at = std::time::Instant::now() + debounce;
                        }
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
                }
            }
            if !hit {
                continue;
            }
            let start = std::time::Instant::now();
            let set_error = |e: Option<String>| {
                *state
                    .inner
                    .last_reload_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = e;
            };
            // A good derivation clears the last error before its set is
            // published, so nobody sees the new set with the old error.
            let outcome = derive().and_then(|(d, settings)| {
                set_error(None);
                state.reload(d, settings)
            });
            let error = match outcome {
                Ok(r) => {
                    let set = state.current();
                    eprintln!(
                        "watch: re-derived in {:.0} ms (set {}: {} operations, {} events, {} tools{})",
                        start.elapsed().as_secs_f64() * 1000.0,
                        r.generation,
                        set.counts.0,
                        set.counts.1,
                        set.counts.3,
                        if r.settings_changed {
                            "; [server] settings applied"
                        } else {
                            ""
                        }
                    );
                    for k in &r.needs_restart {
                        eprintln!(
                            "watch: [server] {k} changed; restart portolan serve to apply it"
                        );
                    }
                    None
                }
                Err(e) => {
                    eprintln!("watch: kept the previous documents and settings: {e}");
                    Some(e)
                }
            };
            if error.is_some() {
                set_error(error);
            }
        }
    });
    Ok(())
}
