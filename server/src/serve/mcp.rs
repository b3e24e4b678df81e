//! Agents over MCP: `POST /api/agent-context/mcp` (Streamable HTTP,
//! stateless, plain JSON answers) and `GET /api/agent-context/manifest`
//! (contract §3.11, with the fixes of §7).
//!
//! Captures protocol versions 2025-03-26, 2025-06-18 and 2025-11-25
//! (negotiated: the client's if supported, else the latest); `initialize`,
//! `ping`, `tools/list` with cursor pagination (`[server.mcp] page_size`;
//! a cursor names the document set it was issued for, so a list never mixes
//! two registries), `tools/call` through the registry's own call path
//! ([`call_tool`]: validation, idempotency, audit, rate limits) with tool
//! failures as results with `isError: true` and the error envelope as text
//! and `structuredContent`; notifications and responses → 202; `GET` and
//! `DELETE` → 405 with `Allow: POST`; the `Accept` and
//! `MCP-Protocol-Version` checks; JSON-RPC error codes.
//!
//! Trust, in order, for both routes: the client is the socket's peer
//! address (`ConnectInfo`), or, only when that peer is a configured trusted
//! proxy, the rightmost `X-Forwarded-For` entry that is not one (never the
//! `Host` header, never a `localhost` string); a client off loopback is
//! refused unless `allow_remote`; an `Origin`, when sent, must be a loopback
//! origin or in `allowed_origins` (DNS rebinding); in `jwt` mode every agent
//! presents a bearer token and its grants come from it, in `local` mode a
//! loopback agent gets `[server.mcp] grants`. The scope is always `agent`.
//!
//! Example: `curl -s localhost:5555/api/agent-context/mcp -H 'accept:
//! application/json, text/event-stream' -H 'content-type: application/json'
//! -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`.
//!
//! Deliberately not done: SSE streams and sessions (`Mcp-Session-Id`),
//! batches, resources and prompts, list-changed notifications, and
//! PortOS's context tools (this server's built-in read tools play their part).

use super::auth::Principal;
use super::calls::{Envelope, call_tool, fresh_id, valid_id};
use super::error::ApiError;
use super::registry::CatalogQuery;
use super::{AppState, DocSet, Live};
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// Protocol versions this endpoint speaks, oldest first; the last is offered
/// to a client asking for another.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-03-26", "2025-06-18", "2025-11-25"];

/// The endpoint's path.
pub const ENDPOINT: &str = "/api/agent-context/mcp";

const LATEST: &str = "2025-11-25";
/// Largest request body read (a tool call's arguments are small).
const MAX_BODY: usize = 1 << 20;
/// Request ids of MCP calls: the prefix, then the `Idempotency-Key` or a fresh id.
const ID_PREFIX: &str = "agent-mcp:";

/// JSON-RPC error codes used here.
mod code {
    pub(super) const PARSE_ERROR: i64 = -32700;
    pub(super) const INVALID_REQUEST: i64 = -32600;
    pub(super) const METHOD_NOT_FOUND: i64 = -32601;
    pub(super) const INVALID_PARAMS: i64 = -32602;
}

/// Who the agent is, or the refusal.
fn admit(
    live: &Live,
    peer: Option<SocketAddr>,
    headers: &HeaderMap,
) -> Result<Principal, ApiError> {
    let m = &live.settings.mcp;
    let local_only = |why: &str| {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "AGENT_CONTEXT_LOCAL_ONLY",
            format!("The agent endpoint answers loopback clients only: {why}."),
        )
    };
    let Some(peer) = peer else {
        return Err(local_only("the client address is not known"));
    };
    let client =
        client_address(peer.ip(), headers, &m.trusted_proxies).map_err(|e| local_only(&e))?;
    let loopback = is_loopback(client);
    if !loopback && !m.allow_remote {
        return Err(local_only(&format!("{client} is not a loopback address")));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let o = origin.to_str().unwrap_or("");
        if !origin_allowed(o, &m.allowed_origins) {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "AGENT_CONTEXT_ORIGIN_REJECTED",
                format!(
                    "The origin `{o}` is not allowed ([server.mcp] allowed_origins lists the origins besides loopback)."
                ),
            ));
        }
    }
    match &live.settings.auth {
        super::settings::AuthMode::Jwt(_) => {
            let mut p = live.auth.principal(headers)?;
            p.scope = "agent".into();
            Ok(p)
        }
        super::settings::AuthMode::Local => Ok(Principal {
            id: "local".into(),
            tenant: None,
            scope: "agent".into(),
            grants: m.grants.clone(),
            authenticated: false,
        }),
    }
}

/// The client's address: the peer, or behind a trusted proxy the rightmost
/// `X-Forwarded-For` entry that is not a trusted proxy itself.
fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> Result<IpAddr, String> {
    let peer = canonical(peer);
    if !trusted.iter().any(|t| canonical(*t) == peer) {
        return Ok(peer);
    }
    let mut entries: Vec<&str> = Vec::new();
    for v in headers.get_all("x-forwarded-for") {
        let v = v
            .to_str()
            .map_err(|_| "the proxy's X-Forwarded-For is not text".to_string())?;
        entries.extend(v.split(',').map(str::trim));
    }
    for e in entries.iter().rev() {
        let ip: IpAddr = e
            .parse()
            .map_err(|_| format!("the proxy's X-Forwarded-For entry `{e}` is not an IP address"))?;
        let ip = canonical(ip);
        if !trusted.iter().any(|t| canonical(*t) == ip) {
            return Ok(ip);
        }
    }
    Err(format!(
        "the request came through the trusted proxy {peer} without an X-Forwarded-For naming the client"
    ))
}

/// IPv4-mapped IPv6 addresses as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

fn is_loopback(ip: IpAddr) -> bool {
    canonical(ip).is_loopback()
}

/// An `Origin` is allowed when it is listed, or when its host is loopback
/// (`localhost`, `127.x.x.x`, `[::1]`): a page served from this machine.
fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    let Some(o) = super::settings::normalize_origin(origin) else {
        return false;
    };
    if allowed.contains(&o) {
        return true;
    }
    let rest = o.split_once("://").map(|x| x.1).unwrap_or("");
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        rest.split(':').next().unwrap_or("")
    };
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(is_loopback)
}

fn peer_of(req: &Request) -> Option<SocketAddr> {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
}

/// `GET /api/agent-context/manifest`: the endpoint, its trust rules and, only
/// while MCP is enabled, the tools this agent may call.
#[utoipa::path(
    get,
    path = "/api/agent-context/manifest",
    tag = "mcp",
    operation_id = "mcpManifest",
    responses(
        (status = 200, description = "The endpoint, its trust rules and (only while MCP is enabled) the agent's tools.", body = Object),
        (status = 401, description = "`UNAUTHORIZED`: a bad bearer token.", body = super::openapi::ErrorEnvelope),
        (status = 403, description = "`AGENT_CONTEXT_LOCAL_ONLY` or `AGENT_CONTEXT_ORIGIN_REJECTED`.", body = super::openapi::ErrorEnvelope),
    )
)]
pub async fn manifest(State(s): State<AppState>, req: Request) -> Response {
    let set = s.current();
    let live = &set.live;
    let principal = match admit(live, peer_of(&req), req.headers()) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let m = &live.settings.mcp;
    let tools = if m.enabled {
        mcp_tools(&set, &principal)
    } else {
        Vec::new()
    };
    let jwt = matches!(live.settings.auth, super::settings::AuthMode::Jwt(_));
    super::json_response(
        StatusCode::OK,
        &json!({
            "kind": "portos-agent-context",
            "schemaVersion": 3,
            "protocolVersion": LATEST,
            "supportedProtocolVersions": PROTOCOL_VERSIONS,
            "enabled": m.enabled,
            // An invalid [server.mcp] stops start-up and a reload keeps the
            // previous one, so a running server's configuration is valid.
            "configurationValid": true,
            "transport": {
                "type": "streamable-http",
                "endpoint": ENDPOINT,
                "loopbackOnly": !m.allow_remote,
                "stateful": false,
                "auth": if jwt { "bearer-jwt" } else { "none" }
            },
            "pagination": {"pageSize": m.page_size},
            "actions": {
                "readPortos": principal.grants.iter().any(|g| g == "readPortos"),
                "writePortos": principal.grants.iter().any(|g| g == "writePortos")
            },
            "tools": tools
        }),
    )
}

/// The agent-scope tools granted to `p`, in MCP format. `outputSchema`
/// describes what `structuredContent` holds: the `portos_tool_result`, or
/// the error envelope of a failed call (the tool's own output schema is in
/// the result's `result`, published by the catalog).
fn mcp_tools(set: &DocSet, p: &Principal) -> Vec<Value> {
    let q = CatalogQuery {
        scope: "agent".into(),
        intent: None,
        format: "mcp".into(),
    };
    let mut catalog = set.registry.catalog(&q, &p.grants);
    let Some(Value::Array(tools)) = catalog.get_mut("tools").map(Value::take) else {
        return Vec::new();
    };
    tools
        .into_iter()
        .map(|mut t| {
            if let Value::Object(m) = &mut t {
                m.insert("outputSchema".into(), output_schema());
            }
            t
        })
        .collect()
}

fn output_schema() -> Value {
    json!({
        "type": "object",
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "type": {"const": "portos_tool_result"},
                    "requestId": {"type": "string"},
                    "name": {"type": "string"},
                    "version": {"type": "integer"},
                    "state": {"enum": ["completed", "failed", "pending"]},
                    "duplicate": {"type": "boolean"},
                    "result": {},
                    "error": {"type": "string"},
                    "code": {"type": "string"}
                },
                "required": ["type", "requestId", "name", "state"]
            },
            {
                "type": "object",
                "properties": {
                    "error": {"type": "string"},
                    "code": {"type": "string"},
                    "timestamp": {"type": "integer"},
                    "context": {"type": "object"}
                },
                "required": ["error", "code", "timestamp"]
            }
        ]
    })
}

/// `/api/agent-context/mcp`, every method.
#[utoipa::path(
    post,
    path = "/api/agent-context/mcp",
    tag = "mcp",
    operation_id = "mcp",
    summary = "MCP over Streamable HTTP (JSON responses); GET and DELETE answer 405 with `Allow: POST`",
    params(
        ("Accept" = String, Header, description = "Must accept both `application/json` and `text/event-stream` (`*/*` and `type/*` ranges count); 406 otherwise.", pattern = "^application/json, ?text/event-stream$"),
        ("MCP-Protocol-Version" = Option<String>, Header, nullable = false, description = "A negotiated protocol version; 400 for any other.", pattern = "^(2025-03-26|2025-06-18|2025-11-25)$"),
    ),
    request_body(content = super::openapi::JsonRpcRequest, description = "A JSON-RPC 2.0 request or notification (a JSON-RPC response is accepted with 202 too)."),
    responses(
        (status = 200, description = "The JSON-RPC response.", body = Object),
        (status = 202, description = "A notification or response was accepted."),
        (status = 400, description = "A JSON-RPC error: not JSON-RPC, an unsupported protocol version, an unreadable body.", body = Object),
        (status = 401, description = "`UNAUTHORIZED`: a bad bearer token.", body = super::openapi::ErrorEnvelope),
        (status = 403, description = "`AGENT_CONTEXT_DISABLED`, `AGENT_CONTEXT_LOCAL_ONLY` or `AGENT_CONTEXT_ORIGIN_REJECTED`.", body = super::openapi::ErrorEnvelope),
        (status = 406, description = "A JSON-RPC error: the client does not accept both media types.", body = Object),
    )
)]
pub async fn endpoint(State(s): State<AppState>, req: Request) -> Response {
    let set = s.current();
    let principal = match admit(&set.live, peer_of(&req), req.headers()) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    if !set.live.settings.mcp.enabled {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "AGENT_CONTEXT_DISABLED",
            "MCP is turned off ([server.mcp] enabled = false).",
        )
        .into_response();
    }
    if req.method() != Method::POST {
        let mut r = StatusCode::METHOD_NOT_ALLOWED.into_response();
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    let (parts, body) = req.into_parts();
    let h = &parts.headers;
    if !accepts_json_and_sse(h) {
        return rpc_error_http(
            StatusCode::NOT_ACCEPTABLE,
            Value::Null,
            code::INVALID_REQUEST,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        );
    }
    if let Some(v) = h.get("mcp-protocol-version") {
        let v = v.to_str().unwrap_or("");
        if !PROTOCOL_VERSIONS.contains(&v) {
            return rpc_error_http(
                StatusCode::BAD_REQUEST,
                Value::Null,
                code::INVALID_REQUEST,
                &format!(
                    "Unsupported MCP-Protocol-Version `{v}` (supported: {})",
                    PROTOCOL_VERSIONS.join(", ")
                ),
            );
        }
    }
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        return rpc_error_http(
            StatusCode::BAD_REQUEST,
            Value::Null,
            code::INVALID_REQUEST,
            "The body could not be read or is larger than 1 MiB",
        );
    };
    let message = match classify(&bytes) {
        Ok(m) => m,
        Err((c, msg)) => return rpc_error_http(StatusCode::BAD_REQUEST, Value::Null, c, &msg),
    };
    let Message::Request { id, method, params } = message else {
        return StatusCode::ACCEPTED.into_response();
    };
    let answer = match method.as_str() {
        "initialize" => initialize(&params),
        "ping" => strict(&params, &["_meta"]).map(|()| json!({})),
        "tools/list" => list(&set, &principal, &params),
        "tools/call" => call(&s, set.clone(), principal, h, &params).await,
        other => Err((code::METHOD_NOT_FOUND, format!("Method not found: {other}"))),
    };
    let body = match answer {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((c, msg)) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": c, "message": msg}}),
    };
    super::json_response(StatusCode::OK, &body)
}

/// One JSON-RPC message, classified.
enum Message {
    /// Has an id and a method: answered.
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    /// A notification or a response to a server request: 202.
    Accepted,
}

type RpcError = (i64, String);

fn classify(bytes: &Bytes) -> Result<Message, RpcError> {
    let v: Value = serde_json::from_slice(bytes)
        .map_err(|e| (code::PARSE_ERROR, format!("Parse error: {e}")))?;
    let invalid = |why: &str| {
        (
            code::INVALID_REQUEST,
            format!("Invalid JSON-RPC message: {why}"),
        )
    };
    let Value::Object(m) = v else {
        return Err(invalid(
            "one JSON-RPC object per request (batches are not supported)",
        ));
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    let id = match m.get("id") {
        None => None,
        Some(Value::String(s)) if s.chars().count() <= 200 => Some(Value::String(s.clone())),
        Some(Value::Number(n)) => Some(Value::Number(n.clone())),
        Some(_) => {
            return Err(invalid(
                "`id` must be a string of at most 200 characters or a number",
            ));
        }
    };
    if let Some(method) = m.get("method") {
        if let Some(k) = m
            .keys()
            .find(|k| !["jsonrpc", "id", "method", "params"].contains(&k.as_str()))
        {
            return Err(invalid(&format!("unknown member `{k}`")));
        }
        let method = method
            .as_str()
            .filter(|s| (1..=120).contains(&s.chars().count()))
            .ok_or_else(|| invalid("`method` must be a string of 1 to 120 characters"))?;
        let params = match m.get("params") {
            None => Map::new(),
            Some(Value::Object(p)) => p.clone(),
            Some(_) => return Err(invalid("`params` must be an object")),
        };
        return Ok(match id {
            Some(id) => Message::Request {
                id,
                method: method.to_string(),
                params,
            },
            None => Message::Accepted,
        });
    }
    let is_response = id.is_some()
        && (m.contains_key("result") ^ m.contains_key("error"))
        && m.keys()
            .all(|k| ["jsonrpc", "id", "result", "error"].contains(&k.as_str()));
    if is_response {
        Ok(Message::Accepted)
    } else {
        Err(invalid("neither a request, a notification nor a response"))
    }
}

/// Both media types acceptable (wildcards count).
fn accepts_json_and_sse(h: &HeaderMap) -> bool {
    let mut json = false;
    let mut sse = false;
    for v in h.get_all(header::ACCEPT) {
        for range in v.to_str().unwrap_or("").split(',') {
            let media = range
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            json |= matches!(media.as_str(), "application/json" | "application/*" | "*/*");
            sse |= matches!(media.as_str(), "text/event-stream" | "text/*" | "*/*");
        }
    }
    json && sse
}

fn rpc_error_http(status: StatusCode, id: Value, c: i64, msg: &str) -> Response {
    super::json_response(
        status,
        &json!({"jsonrpc": "2.0", "id": id, "error": {"code": c, "message": msg}}),
    )
}

/// Params may hold only these members.
fn strict(params: &Map<String, Value>, allowed: &[&str]) -> Result<(), RpcError> {
    match params.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err((
            code::INVALID_PARAMS,
            format!("Invalid params: unknown member `{k}`"),
        )),
        None => match params.get("_meta") {
            None | Some(Value::Object(_)) => Ok(()),
            Some(_) => Err((
                code::INVALID_PARAMS,
                "Invalid params: `_meta` must be an object".into(),
            )),
        },
    }
}

fn initialize(p: &Map<String, Value>) -> Result<Value, RpcError> {
    let invalid = |why: &str| {
        (
            code::INVALID_PARAMS,
            format!("Invalid initialize params: {why}"),
        )
    };
    strict(
        p,
        &["protocolVersion", "capabilities", "clientInfo", "_meta"],
    )?;
    let requested = p
        .get("protocolVersion")
        .and_then(Value::as_str)
        .filter(|v| v.chars().count() <= 40)
        .ok_or_else(|| invalid("`protocolVersion` must be a string of at most 40 characters"))?;
    if !p.get("capabilities").is_some_and(Value::is_object) {
        return Err(invalid("`capabilities` must be an object"));
    }
    let Some(Value::Object(info)) = p.get("clientInfo") else {
        return Err(invalid("`clientInfo` must be an object"));
    };
    for k in ["name", "version"] {
        if !info.get(k).is_some_and(Value::is_string) {
            return Err(invalid(&format!("`clientInfo.{k}` must be a string")));
        }
    }
    if let Some(k) = info.keys().find(|k| {
        ![
            "name",
            "version",
            "title",
            "websiteUrl",
            "icons",
            "description",
        ]
        .contains(&k.as_str())
    }) {
        return Err(invalid(&format!("unknown member `clientInfo.{k}`")));
    }
    let version = if PROTOCOL_VERSIONS.contains(&requested) {
        requested
    } else {
        LATEST
    };
    Ok(json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "portolan", "title": "Portolan", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "Portolan's tool registry for the analysed API. Use catalog_search and catalog_describe to explore its HTTP operations and events_search for its Socket.IO events; other tools call the application itself. Every call is validated, audited and rate-limited; a failed call is a result with isError and the error envelope."
    }))
}

/// An opaque cursor: the document set it was issued for and the offset.
fn cursor(generation: u64, offset: usize) -> String {
    format!("g{generation}.{offset}")
}

fn list(set: &DocSet, p: &Principal, params: &Map<String, Value>) -> Result<Value, RpcError> {
    strict(params, &["cursor", "_meta"])?;
    let bad_cursor = |why: &str| (code::INVALID_PARAMS, format!("Invalid cursor: {why}"));
    let offset = match params.get("cursor") {
        None => 0,
        Some(Value::String(c)) => {
            let (g, o) = c
                .strip_prefix('g')
                .and_then(|r| r.split_once('.'))
                .and_then(|(g, o)| Some((g.parse::<u64>().ok()?, o.parse::<usize>().ok()?)))
                .ok_or_else(|| bad_cursor("not one this server issued"))?;
            if g != set.generation {
                return Err(bad_cursor(
                    "the tool list changed since it was issued; list again from the start",
                ));
            }
            o
        }
        Some(_) => return Err(bad_cursor("must be a string")),
    };
    let tools = mcp_tools(set, p);
    if offset > tools.len() || (offset > 0 && offset == tools.len()) {
        return Err(bad_cursor("past the end of the list"));
    }
    let page = set.live.settings.mcp.page_size;
    let end = (offset + page).min(tools.len());
    let mut result = Map::new();
    result.insert("tools".into(), Value::Array(tools[offset..end].to_vec()));
    if end < tools.len() {
        result.insert("nextCursor".into(), json!(cursor(set.generation, end)));
    }
    Ok(Value::Object(result))
}

async fn call(
    s: &AppState,
    set: Arc<DocSet>,
    principal: Principal,
    h: &HeaderMap,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    strict(params, &["name", "arguments", "_meta"])?;
    let invalid = |why: &str| {
        (
            code::INVALID_PARAMS,
            format!("Invalid tools/call params: {why}"),
        )
    };
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("`name` must be a string"))?
        .to_string();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => return Err(invalid("`arguments` must be an object")),
    };
    let key = h
        .get("idempotency-key")
        .map(|k| k.to_str().map(str::trim).unwrap_or("").to_string());
    let envelope = match key {
        Some(k) if !valid_id(&k, 200 - ID_PREFIX.len(), &['.', '_', ':', '-']) => {
            Err(ApiError::validation(
                "Invalid Idempotency-Key.",
                vec![(
                    "Idempotency-Key".into(),
                    format!(
                        "1-{} characters of letters, digits and ._:-",
                        200 - ID_PREFIX.len()
                    ),
                )],
            ))
        }
        k => Ok(Envelope {
            request_id: format!("{ID_PREFIX}{}", k.unwrap_or_else(fresh_id)),
            name,
            arguments,
        }),
    };
    // Unknown, ungranted or out-of-scope tools, invalid arguments, rate
    // limits and failed executions are all tool results with isError.
    let (structured, is_error) = match call_tool(s, set, principal, envelope, None).await {
        Ok((status, body)) => {
            let failed =
                status >= 400 || body.get("state").and_then(Value::as_str) == Some("failed");
            (body, failed)
        }
        Err(e) => (e.body(), true),
    };
    Ok(json!({
        "content": [{"type": "text", "text": structured.to_string()}],
        "structuredContent": structured,
        "isError": is_error
    }))
}
