//! `POST /api/cos/tools/call`, `GET /api/cos/tools/calls/{requestId}` and
//! `GET /api/cos/tools/audit` (contract §3.10, with the fixes of §7).
//!
//! Captures the strict `portos_tool_call` envelope, the `Idempotency-Key`
//! rule, authority from the server's auth context only (scope, capability,
//! authentication checks in PortOS's order), per-principal rate limits,
//! argument validation with every violation's JSON pointer, the fingerprint
//! (blake3 of canonical `{arguments, name, scope}`), and idempotency: a
//! request id belongs to its principal (no cross-principal collisions);
//! concurrent duplicates coalesce onto one execution (an in-process map of
//! watch channels in front of the store's claim; across processes sharing a
//! PostgreSQL store, the claim decides and the loser polls the winner's
//! record); a duplicate that arrives
//! while the call still runs waits at most `pending_wait` and then answers
//! 202 `pending`; the same id with other arguments is 409
//! `TOOL_IDEMPOTENCY_CONFLICT`; an id whose result retention dropped is 409
//! `TOOL_IDEMPOTENCY_EXPIRED`, never a silent re-execution. The execution
//! runs in its own task, so a client that hangs up does not abandon it.
//! Every answered call is audited (keys and value types of the arguments,
//! never values); a fresh call's audit row is written in the transaction
//! that records its result.

use super::auth::Principal;
use super::builtin;
use super::error::{ApiError, now_ms};
use super::recipes::{self, Recipe};
use super::registry::{Adapter, Tool, validate_arguments};
use super::store::{AuditEntry, CallRecord, CallState, Claim};
use super::upstream::{Exec, bounded};
use super::{AppState, DocSet};
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;

/// What the executing task hands to everyone waiting on one request id.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// This execution's final record.
    Fresh(CallRecord),
    /// The id already had a record (from an earlier call).
    Existing(CallRecord),
    /// The store failed.
    Error(ApiError),
}

/// Request ids in flight in this process, per principal.
pub type Inflight = std::sync::Mutex<
    std::collections::HashMap<(String, String), watch::Receiver<Option<Arc<Outcome>>>>,
>;

/// A validated call: what HTTP `POST /api/cos/tools/call` and MCP
/// `tools/call` hand to [`call_tool`].
pub(crate) struct Envelope {
    pub(crate) request_id: String,
    pub(crate) name: String,
    pub(crate) arguments: Value,
}

pub(crate) fn valid_id(s: &str, max: usize, extra: &[char]) -> bool {
    !s.is_empty()
        && s.chars().count() <= max
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
}

/// A fresh request id for a surface whose client sent no `Idempotency-Key`
/// (MCP, `/v1/tools`): unique in this process and, by the time and process
/// id in its seed, across restarts.
pub(crate) fn fresh_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = format!("{nanos}:{n}:{}", std::process::id());
    blake3::hash(seed.as_bytes()).to_hex()[..32].to_string()
}

fn parse_envelope(body: &[u8]) -> Result<Envelope, ApiError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::validation(
            format!("The body is not JSON: {e}"),
            vec![("".into(), e.to_string())],
        )
    })?;
    let Value::Object(m) = v else {
        return Err(ApiError::validation(
            "The body must be a portos_tool_call object.",
            vec![("".into(), "expected an object".into())],
        ));
    };
    let mut details: Vec<(String, String)> = Vec::new();
    for k in m.keys() {
        if !["type", "requestId", "name", "version", "arguments"].contains(&k.as_str()) {
            details.push((
                k.clone(),
                "unknown field (scope, principal, tenant and capabilities come from the server)"
                    .into(),
            ));
        }
    }
    match m.get("type") {
        None => {}
        Some(Value::String(t)) if t == "portos_tool_call" => {}
        Some(_) => details.push(("type".into(), "must be \"portos_tool_call\"".into())),
    }
    match m.get("version") {
        None => {}
        Some(v) if v.as_u64() == Some(1) => {}
        Some(_) => details.push(("version".into(), "only version 1 is supported".into())),
    }
    let mut text = |key: &str, max: usize, extra: &[char]| -> String {
        match m.get(key).and_then(Value::as_str).map(str::trim) {
            Some(s) if valid_id(s, max, extra) => s.to_string(),
            Some(_) => {
                details.push((
                    key.into(),
                    format!(
                        "1-{max} characters of letters, digits and {}",
                        extra.iter().collect::<String>()
                    ),
                ));
                String::new()
            }
            None => {
                details.push((key.into(), "required string".into()));
                String::new()
            }
        }
    };
    let request_id = text("requestId", 200, &['.', '_', ':', '-']);
    let name = text("name", 100, &['.', '_', '-']);
    let arguments = match m.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => {
            details.push(("arguments".into(), "must be an object".into()));
            Value::Null
        }
    };
    if !details.is_empty() {
        let msg = details
            .iter()
            .map(|(p, m)| format!("{p} {m}"))
            .collect::<Vec<_>>()
            .join("; ");
        return Err(ApiError::validation(
            format!("Invalid tool call: {msg}"),
            details,
        ));
    }
    Ok(Envelope {
        request_id,
        name,
        arguments,
    })
}

/// JSON with object keys sorted recursively (the fingerprint's input).
pub fn canonical(v: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String((*k).clone()).to_string());
                    out.push(':');
                    write(&m[*k], out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut s = String::new();
    write(v, &mut s);
    s
}

/// `{key: type}` of an arguments object: what the audit log keeps.
pub fn args_shape(args: &Value) -> Value {
    let mut m = Map::new();
    if let Value::Object(o) = args {
        for (k, v) in o {
            let t = match v {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            };
            m.insert(k.clone(), json!(t));
        }
    }
    Value::Object(m)
}

/// Normalise a built-in adapter's output (PortOS's rules).
fn normalize(v: Value) -> Exec {
    let Value::Object(m) = &v else {
        return Exec::failed(
            422,
            "TOOL_FAILED",
            "Tool adapter returned an invalid result",
        );
    };
    let failed = m.get("ok") == Some(&Value::Bool(false))
        || m.get("state").and_then(Value::as_str) == Some("failed");
    if failed {
        let error = m
            .get("error")
            .or_else(|| m.get("summary"))
            .and_then(Value::as_str)
            .unwrap_or("Tool call failed");
        return Exec {
            ok: false,
            error: Some(bounded(error)),
            code: Some("TOOL_FAILED".into()),
            result: Some(v),
            status: 422,
        };
    }
    Exec {
        ok: true,
        result: Some(v),
        error: None,
        code: None,
        status: 200,
    }
}

fn result_body(rec: &CallRecord, duplicate: bool) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("portos_tool_result"));
    m.insert("requestId".into(), json!(rec.request_id));
    m.insert("name".into(), json!(rec.name));
    m.insert("version".into(), json!(rec.version));
    m.insert("state".into(), json!(rec.state.as_str()));
    m.insert("duplicate".into(), json!(duplicate));
    if let Some(e) = &rec.error {
        m.insert("error".into(), json!(e));
    }
    if let Some(c) = &rec.code {
        m.insert("code".into(), json!(c));
    }
    if let Some(r) = &rec.result {
        m.insert("result".into(), r.clone());
    }
    Value::Object(m)
}

fn json_answer(status: u16, v: &Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    super::json_response(status, v)
}

fn pending_body(request_id: &str, name: &str, version: u64) -> Value {
    json!({
        "type": "portos_tool_result",
        "requestId": request_id,
        "name": name,
        "version": version,
        "state": "pending",
        "duplicate": true
    })
}

/// The answer to a duplicate (or a claim that found an earlier record).
fn answer_existing(rec: &CallRecord, fingerprint: &str) -> Result<(u16, Value, String), ApiError> {
    if rec.fingerprint != fingerprint {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "TOOL_IDEMPOTENCY_CONFLICT",
            format!(
                "The request id {} was used for a different call.",
                rec.request_id
            ),
        ));
    }
    match rec.state {
        CallState::Expired => Err(ApiError::new(
            StatusCode::CONFLICT,
            "TOOL_IDEMPOTENCY_EXPIRED",
            format!(
                "The result of request {} is no longer retained; a replay cannot be answered safely. Use a new request id to run the call again.",
                rec.request_id
            ),
        )),
        CallState::Pending => Ok((
            202,
            pending_body(&rec.request_id, &rec.name, rec.version),
            "pending".into(),
        )),
        _ => Ok((
            rec.status.max(200),
            result_body(rec, true),
            "replayed".into(),
        )),
    }
}

pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("store task failed: {e}")))?
        .map_err(ApiError::internal)
}

struct Ctx {
    principal: Principal,
    tool: String,
    request_id: String,
    shape: Value,
    start: Instant,
}

impl Ctx {
    fn entry(&self, outcome: &str, status: u16) -> AuditEntry {
        AuditEntry {
            time_ms: now_ms(),
            principal: self.principal.id.clone(),
            tenant: self.principal.tenant.clone(),
            tool: self.tool.clone(),
            request_id: self.request_id.clone(),
            outcome: outcome.to_string(),
            status,
            latency_ms: self.start.elapsed().as_millis() as i64,
            args_shape: self.shape.clone(),
        }
    }
}

async fn audit(s: &AppState, entry: AuditEntry) {
    let store = s.store();
    if let Err(e) = blocking(move || store.audit(&entry)).await {
        eprintln!("audit: {e}");
    }
}

/// `POST /api/cos/tools/call`.
#[utoipa::path(
    post,
    path = "/api/cos/tools/call",
    tag = "registry",
    operation_id = "callTool",
    description = "An `Idempotency-Key` header, when sent, must equal `requestId` (400 `TOOL_IDEMPOTENCY_MISMATCH` otherwise). OpenAPI cannot state that equality, so the header is described here rather than as a parameter.",
    request_body(content = super::openapi::ToolCall, description = "A `portos_tool_call`."),
    responses(
        (status = 200, description = "The `portos_tool_result` (also for a replay of the same request id).", body = Object),
        (status = 202, description = "The call is running; read it later at `/api/cos/tools/calls/{requestId}`.", body = Object),
        (status = 400, description = "`VALIDATION_ERROR`, `TOOL_VALIDATION_ERROR` or `TOOL_IDEMPOTENCY_MISMATCH`: a bad body, input or key.", body = super::openapi::ErrorEnvelope),
        (status = 401, description = "`UNAUTHORIZED`: a bad or missing credential.", body = super::openapi::ErrorEnvelope),
        (status = 403, description = "`TOOL_SCOPE_DENIED`, `TOOL_CAPABILITY_DENIED` or `TOOL_AUTH_REQUIRED`.", body = super::openapi::ErrorEnvelope),
        (status = 404, description = "`TOOL_NOT_FOUND`: no such tool.", body = super::openapi::ErrorEnvelope),
        (status = 409, description = "`TOOL_IDEMPOTENCY_CONFLICT` or `TOOL_IDEMPOTENCY_EXPIRED`: the request id was used for another call.", body = super::openapi::ErrorEnvelope),
        (status = 422, description = "`RECIPE_STEP_FAILED` or a tool's own failure, as a `portos_tool_result`.", body = Object),
        (status = 429, description = "`RATE_LIMITED` (with `Retry-After`).", body = super::openapi::ErrorEnvelope),
        (status = 502, description = "The upstream failed (`BAD_GATEWAY`), as a `portos_tool_result`.", body = Object),
        (status = 503, description = "`TOOL_UNAVAILABLE`: the tool cannot run here (no upstream configured).", body = super::openapi::ErrorEnvelope),
        (status = 504, description = "The upstream timed out, as a `portos_tool_result`.", body = Object),
    )
)]
pub async fn call(State(s): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let set = s.current();
    let principal = match set.live.auth.principal(&headers) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let key = headers
        .get("idempotency-key")
        .map(|k| k.to_str().map(str::trim).unwrap_or(""));
    match call_tool(&s, set, principal, parse_envelope(&body), key).await {
        Ok((status, body)) => json_answer(status, &body),
        Err(e) => e.into_response(),
    }
}

/// One call through the registry, whichever surface it came from: resolve,
/// authorize, rate-limit, validate, then idempotency and execution; every
/// refusal is audited. Answers the HTTP status and the `portos_tool_result`,
/// or the error envelope. `idempotency_key` is the `Idempotency-Key` header,
/// which must equal the request id.
pub(crate) async fn call_tool(
    s: &AppState,
    set: Arc<DocSet>,
    principal: Principal,
    envelope: Result<Envelope, ApiError>,
    idempotency_key: Option<&str>,
) -> Result<(u16, Value), ApiError> {
    let mut ctx = Ctx {
        principal,
        tool: String::new(),
        request_id: String::new(),
        shape: json!({}),
        start: Instant::now(),
    };
    let answer = match envelope {
        Ok(env) => dispatch(s, set, env, idempotency_key, &mut ctx).await,
        Err(e) => Err(e),
    };
    if let Err(e) = &answer {
        audit(s, ctx.entry(&e.code, e.status.as_u16())).await;
    }
    answer
}

async fn dispatch(
    s: &AppState,
    set: Arc<DocSet>,
    env: Envelope,
    idempotency_key: Option<&str>,
    ctx: &mut Ctx,
) -> Result<(u16, Value), ApiError> {
    ctx.request_id = env.request_id.clone();
    ctx.tool = env.name.clone();
    ctx.shape = args_shape(&env.arguments);
    if let Some(k) = idempotency_key
        && k != env.request_id
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "TOOL_IDEMPOTENCY_MISMATCH",
            "The Idempotency-Key header must equal requestId.",
        ));
    }
    let live = &set.live;
    let tool = set.registry.resolve(&env.name).cloned().ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "TOOL_NOT_FOUND",
            format!("No tool is named {}.", env.name),
        )
    })?;
    ctx.tool = tool.name.clone();
    authorize(&ctx.principal, &tool)?;
    super::limits::take(s, live, &ctx.principal.id, tool.is_read()).await?;
    validate_arguments(&tool, &env.arguments, &live.settings.tenant_field)?;
    if let Some(reason) = &tool.unavailable {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "TOOL_UNAVAILABLE",
            format!("{} cannot be called here: {reason}.", tool.name),
        ));
    }
    let fingerprint = blake3::hash(
        canonical(
            &json!({"name": tool.name, "arguments": env.arguments, "scope": ctx.principal.scope}),
        )
        .as_bytes(),
    )
    .to_hex()
    .to_string();
    let key = (ctx.principal.id.clone(), env.request_id.clone());
    let (mut rx, leader) = {
        let mut map = s.inner.inflight.lock().unwrap_or_else(|p| p.into_inner());
        match map.get(&key) {
            Some(rx) => (rx.clone(), false),
            None => {
                let (tx, rx) = watch::channel(None);
                map.insert(key.clone(), rx.clone());
                let record = CallRecord {
                    principal: key.0.clone(),
                    request_id: key.1.clone(),
                    name: tool.name.clone(),
                    version: tool.version,
                    fingerprint: fingerprint.clone(),
                    state: CallState::Pending,
                    result: None,
                    error: None,
                    code: None,
                    status: 202,
                    created_ms: now_ms(),
                    finished_ms: None,
                };
                tokio::spawn(execute(
                    s.clone(),
                    set.clone(),
                    tool.clone(),
                    env.arguments.clone(),
                    ctx.principal.clone(),
                    record,
                    ctx.shape.clone(),
                    ctx.start,
                    tx,
                ));
                (rx, true)
            }
        }
    };
    let wait = if leader {
        live.settings.upstream_timeout + std::time::Duration::from_secs(30)
    } else {
        live.settings.pending_wait
    };
    // The watch guard must not live across the awaits below (it is not Send).
    let got: Option<Arc<Outcome>> =
        match tokio::time::timeout(wait, rx.wait_for(|v| v.is_some())).await {
            Ok(Ok(v)) => v.clone(),
            _ => None,
        };
    let outcome = match got {
        Some(o) => o,
        None => {
            audit(s, ctx.entry("pending", 202)).await;
            return Ok((202, pending_body(&env.request_id, &tool.name, tool.version)));
        }
    };
    match &*outcome {
        Outcome::Fresh(rec) if leader => Ok((rec.status, result_body(rec, false))),
        Outcome::Fresh(rec) | Outcome::Existing(rec) => {
            let (status, body, what) = answer_existing(rec, &fingerprint)?;
            audit(s, ctx.entry(&what, status)).await;
            Ok((status, body))
        }
        Outcome::Error(e) => Err(e.clone()),
    }
}

pub(crate) fn authorize(p: &Principal, tool: &Tool) -> Result<(), ApiError> {
    if !tool.scopes.contains(&p.scope) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "TOOL_SCOPE_DENIED",
            format!("{} is not available in scope {}.", tool.name, p.scope),
        ));
    }
    if (p.scope == "agent" || p.scope == "mind")
        && !tool
            .required_capabilities
            .iter()
            .all(|c| p.grants.contains(c))
    {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "TOOL_CAPABILITY_DENIED",
            format!(
                "{} needs the capability grants {}.",
                tool.name,
                tool.required_capabilities.join(", ")
            ),
        ));
    }
    if p.scope == "ui" && !tool.is_read() && !p.authenticated {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "TOOL_AUTH_REQUIRED",
            format!(
                "{} changes state: an authenticated caller is required.",
                tool.name
            ),
        ));
    }
    Ok(())
}

/// The executing task: claim, run, record with its audit row, notify.
#[allow(clippy::too_many_arguments)]
async fn execute(
    s: AppState,
    set: Arc<DocSet>,
    tool: Tool,
    args: Value,
    principal: Principal,
    record: CallRecord,
    shape: Value,
    start: Instant,
    tx: watch::Sender<Option<Arc<Outcome>>>,
) {
    let key = (record.principal.clone(), record.request_id.clone());
    let store = s.store();
    let claim_rec = record.clone();
    let outcome = match blocking(move || store.claim(&claim_rec)).await {
        Err(e) => Outcome::Error(e),
        Ok(Claim::Existing(r))
            if r.state == CallState::Pending
                && r.fingerprint == record.fingerprint
                && s.store().shared() =>
        {
            await_other(&s, *r, set.live.settings.pending_wait).await
        }
        Ok(Claim::Existing(r)) => Outcome::Existing(*r),
        Ok(Claim::New) => {
            s.inner
                .executions
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let exec = match &tool.adapter {
                Adapter::Builtin(b) => normalize(builtin::run(*b, &args, &set)),
                Adapter::Recipe(r) => {
                    run_recipe(&s, &set, r, &args, &principal, &record.request_id).await
                }
                Adapter::Http { method, path } => match &set.live.upstream {
                    Some(u) => u.call(&tool, method, path, &args, &principal).await,
                    None => Exec::failed(503, "TOOL_UNAVAILABLE", "No upstream is configured."),
                },
            };
            let mut rec = record;
            rec.state = if exec.ok {
                CallState::Completed
            } else {
                CallState::Failed
            };
            rec.result = exec.result;
            rec.error = exec.error;
            rec.code = exec.code;
            rec.status = exec.status;
            rec.finished_ms = Some(now_ms());
            let entry = AuditEntry {
                time_ms: now_ms(),
                principal: principal.id.clone(),
                tenant: principal.tenant.clone(),
                tool: tool.name.clone(),
                request_id: rec.request_id.clone(),
                outcome: rec.state.as_str().into(),
                status: rec.status,
                latency_ms: start.elapsed().as_millis() as i64,
                args_shape: shape,
            };
            let store = s.store();
            let done = rec.clone();
            match blocking(move || store.complete(&done, &entry)).await {
                Ok(()) => Outcome::Fresh(rec),
                Err(e) => Outcome::Error(e),
            }
        }
    };
    let _ = tx.send(Some(Arc::new(outcome)));
    s.inner
        .inflight
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&key);
}

/// A call that another process sharing the store claimed: poll its record
/// until it finishes (or its lease runs out and the store fails it
/// "interrupted"), for at most `wait`; the last record read is the answer
/// (still pending: 202, as for a local duplicate).
async fn await_other(s: &AppState, mut rec: CallRecord, wait: std::time::Duration) -> Outcome {
    let deadline = Instant::now() + wait;
    let mut pause = std::time::Duration::from_millis(10);
    while rec.state == CallState::Pending {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        tokio::time::sleep(pause.min(deadline - now)).await;
        pause = (pause * 2).min(std::time::Duration::from_millis(200));
        let store = s.store();
        let (p, i) = (rec.principal.clone(), rec.request_id.clone());
        match blocking(move || store.get(&p, &i)).await {
            Ok(Some(r)) => rec = r,
            // Retention dropped it meanwhile: answer what was last seen.
            Ok(None) => break,
            Err(e) => return Outcome::Error(e),
        }
    }
    Outcome::Existing(rec)
}

/// Run a recipe's steps in order, each through [`call_tool`] under the
/// request id `RECIPE_ID#N` (so each step is authorized, rate-limited,
/// validated, idempotent and audited on its own); the first step that does
/// not complete ends the recipe, failed. Boxed: a step's call spawns
/// [`execute`] again, which would make the future's type contain itself.
fn run_recipe<'a>(
    s: &'a AppState,
    set: &'a Arc<DocSet>,
    recipe: &'a Recipe,
    input: &'a Value,
    principal: &'a Principal,
    request_id: &'a str,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Exec> + Send + 'a>> {
    Box::pin(async move {
        let mut steps: Vec<Value> = Vec::new();
        for (i, step) in recipe.steps.iter().enumerate() {
            let n = i + 1;
            let envelope = Envelope {
                request_id: format!("{request_id}#{n}"),
                name: step.tool.clone(),
                arguments: recipes::arguments(step, input),
            };
            let id = envelope.request_id.clone();
            let answer = call_tool(s, set.clone(), principal.clone(), Ok(envelope), None).await;
            let mut record = json!({"step": n, "tool": step.tool, "requestId": id});
            let failure = match answer {
                Ok((_, body)) => {
                    for k in ["state", "duplicate", "result", "error", "code"] {
                        if let Some(v) = body.get(k) {
                            record[k] = v.clone();
                        }
                    }
                    match body.get("state").and_then(Value::as_str) {
                        Some("completed") => None,
                        Some("pending") => Some("is still running".to_string()),
                        _ => Some(format!(
                            "failed: {}",
                            body.get("error")
                                .and_then(Value::as_str)
                                .unwrap_or("no result")
                        )),
                    }
                }
                Err(e) => {
                    record["state"] = json!("failed");
                    record["error"] = e.body();
                    record["code"] = json!(e.code);
                    Some(format!("was refused: {}", e.message))
                }
            };
            steps.push(record);
            if let Some(why) = failure {
                return Exec {
                    ok: false,
                    error: Some(bounded(&format!("step {n} ({}) {why}", step.tool))),
                    code: Some("RECIPE_STEP_FAILED".into()),
                    result: Some(json!({"steps": steps})),
                    status: 422,
                };
            }
        }
        Exec {
            ok: true,
            result: Some(json!({"steps": steps})),
            error: None,
            code: None,
            status: 200,
        }
    })
}

/// `GET /api/cos/tools/calls/{requestId}`: the retained result, 202 while
/// the call runs, 404 `TOOL_CALL_NOT_FOUND` otherwise.
#[utoipa::path(
    get,
    path = "/api/cos/tools/calls/{request_id}",
    tag = "registry",
    operation_id = "getCall",
    params(("request_id" = String, Path, description = "The call's `requestId`.", pattern = "^[A-Za-z0-9._:-]{1,200}$")),
    responses(
        (status = 200, description = "The retained `portos_tool_result`.", body = Object),
        (status = 202, description = "The call is still running.", body = Object),
        (status = 400, description = "`VALIDATION_ERROR`: not a valid request id.", body = super::openapi::ErrorEnvelope),
        (status = 401, description = "`UNAUTHORIZED`: a bad or missing credential.", body = super::openapi::ErrorEnvelope),
        (status = 404, description = "`TOOL_CALL_NOT_FOUND`: no retained result (`context.expired` when it expired).", body = super::openapi::ErrorEnvelope),
        (status = 422, description = "The retained result of a call that failed.", body = Object),
        (status = 502, description = "The retained result of a call whose upstream failed.", body = Object),
        (status = 503, description = "The retained result of a call that could not run.", body = Object),
        (status = 504, description = "The retained result of a call whose upstream timed out.", body = Object),
    )
)]
pub async fn get_call(
    State(s): State<AppState>,
    Path(request_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let principal = s.current().live.auth.principal(&headers)?;
    let id = request_id.trim().to_string();
    if !valid_id(&id, 200, &['.', '_', ':', '-']) {
        return Err(ApiError::validation(
            "Invalid requestId.",
            vec![(
                "requestId".into(),
                "1-200 characters of letters, digits and ._:-".into(),
            )],
        ));
    }
    let key = (principal.id.clone(), id.clone());
    let running = s
        .inner
        .inflight
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .map(|rx| rx.borrow().is_none())
        .unwrap_or(false);
    let store = s.store();
    let (p, i) = key.clone();
    let rec = blocking(move || store.get(&p, &i)).await?;
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "TOOL_CALL_NOT_FOUND",
            format!("No retained result for request {id}."),
        )
    };
    match rec {
        Some(r) if r.state == CallState::Pending || running => Ok(json_answer(
            202,
            &pending_body(&r.request_id, &r.name, r.version),
        )),
        Some(r) if r.state == CallState::Expired => {
            Err(not_found().with_context("expired", json!(true)))
        }
        Some(r) => Ok(json_answer(r.status.max(200), &result_body(&r, false))),
        None => Err(not_found()),
    }
}

/// `GET /api/cos/tools/audit?since=&limit=`: admin grant required.
#[utoipa::path(
    get,
    path = "/api/cos/tools/audit",
    tag = "registry",
    operation_id = "getAudit",
    params(
        ("since" = Option<i64>, Query, nullable = false, description = "Entries at or after this time (epoch milliseconds).", minimum = 0),
        ("limit" = Option<u16>, Query, nullable = false, description = "At most this many entries (default 100).", minimum = 1, maximum = 1000),
    ),
    responses(
        (status = 200, description = "The audit entries, oldest first.", body = Object),
        (status = 400, description = "`VALIDATION_ERROR`: an unknown or invalid query parameter.", body = super::openapi::ErrorEnvelope),
        (status = 401, description = "`UNAUTHORIZED`: a bad or missing credential.", body = super::openapi::ErrorEnvelope),
        (status = 403, description = "`FORBIDDEN`: the admin grant is missing.", body = super::openapi::ErrorEnvelope),
    )
)]
pub async fn get_audit(
    State(s): State<AppState>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let live = s.settings();
    let principal = live.auth.principal(&headers)?;
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(q.as_deref().unwrap_or(""))
        .map_err(|e| ApiError::validation(format!("Invalid query string: {e}"), vec![]))?;
    let mut since = 0i64;
    let mut limit = 100usize;
    let mut details = Vec::new();
    for (k, v) in pairs {
        match k.as_str() {
            "since" => match v.parse::<i64>() {
                Ok(x) if x >= 0 => since = x,
                _ => details.push((k, "epoch milliseconds".to_string())),
            },
            "limit" => match v.parse::<usize>() {
                Ok(x) if (1..=1000).contains(&x) => limit = x,
                _ => details.push((k, "an integer from 1 to 1000".to_string())),
            },
            _ => details.push((k, "unknown query parameter".to_string())),
        }
    }
    if !details.is_empty() {
        return Err(ApiError::validation("Invalid audit query.", details));
    }
    if !principal.grants.contains(&live.settings.admin_grant) {
        return Err(ApiError::status(
            StatusCode::FORBIDDEN,
            format!(
                "Reading the audit log needs the `{}` grant.",
                live.settings.admin_grant
            ),
        ));
    }
    let store = s.store();
    let rows = blocking(move || store.audit_since(since, limit)).await?;
    let entries: Vec<Value> = rows
        .iter()
        .map(|a| {
            json!({
                "time": a.time_ms,
                "principal": a.principal,
                "tenant": a.tenant,
                "tool": a.tool,
                "requestId": a.request_id,
                "outcome": a.outcome,
                "status": a.status,
                "latencyMs": a.latency_ms,
                "arguments": a.args_shape,
            })
        })
        .collect();
    Ok(super::json_response(
        StatusCode::OK,
        &json!({"type": "portos_tool_audit", "entries": entries, "count": entries.len()}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let v = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}});
        assert_eq!(
            canonical(&v),
            r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#
        );
    }

    #[test]
    fn shapes_keep_types_never_values() {
        let v =
            json!({"q": "secret words", "n": 3, "f": 1.5, "l": [1], "o": {}, "z": null, "b": true});
        assert_eq!(
            args_shape(&v),
            json!({"q": "string", "n": "integer", "f": "number", "l": "array", "o": "object", "z": "null", "b": "boolean"})
        );
    }
}
