//! The platform tools API (PerkOS shape, `../shared/seeds/platform-tools-api.md`):
//! `GET /v1/tools` lists the tools the caller's scope holds, each with its
//! name, kind, role and JSON Schema; `POST /v1/tools/{name}` takes the tool
//! input itself as the body and runs it through the registry's call path
//! ([`call_tool`]: scope and capability checks, rate limits, validation,
//! idempotency, audit), answering the `portos_tool_result` or the error
//! envelope.
//!
//! Every `/v1` route needs `Authorization: Bearer <jwt>`, verified with the
//! registry's principal model (`[server.auth]`); the tenant is the token's
//! and an argument naming the tenant field is refused by the registry's
//! validation. In `local` mode there is no token to verify, so `/v1` answers
//! 401 with what to configure (the `/api/cos` routes serve local callers).
//! The request id is `v1:` + the `Idempotency-Key` header (a retry with the
//! same key replays the result with `duplicate: true`), else a fresh id.
//!
//! Example: `curl -s -H "authorization: Bearer $T" localhost:5555/v1/tools/catalog.search
//! -H 'idempotency-key: k1' -d '{"query":"berths"}'`.
//!
//! Deliberately not done: PerkOS's Firestore audit (the store's audit log
//! is the one log) and its per-wallet limits beyond the registry's buckets.

use super::auth::Principal;
use super::calls::{Envelope, authorize, call_tool, fresh_id, valid_id};
use super::error::ApiError;
use super::registry::Tool;
use super::settings::AuthMode;
use super::{AppState, DocSet, Live};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// Request ids of `/v1` calls: the prefix, then the `Idempotency-Key` or a fresh id.
const ID_PREFIX: &str = "v1:";

/// The caller of a `/v1` route: a verified bearer token, never the local principal.
fn bearer(live: &Live, headers: &HeaderMap) -> Result<Principal, ApiError> {
    if matches!(live.settings.auth, AuthMode::Local) {
        return Err(ApiError::status(
            StatusCode::UNAUTHORIZED,
            "/v1/tools needs a bearer token and this server verifies none: set [server.auth] mode = \"jwt\" (local callers use /api/cos/tools).",
        ));
    }
    live.auth.principal(headers)
}

/// One tool as `/v1/tools` lists it.
fn record(set: &DocSet, t: &Tool, p: &Principal) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(t.name));
    m.insert(
        "kind".into(),
        json!(if t.is_read() { "read" } else { "write" }),
    );
    // The grant a caller needs, PerkOS's "role" (each tool needs one).
    m.insert("role".into(), json!(t.required_capabilities.join(",")));
    m.insert("description".into(), json!(t.description));
    m.insert("inputSchema".into(), t.input_schema.clone());
    m.insert("outputSchema".into(), t.output_schema.clone());
    m.insert("granted".into(), json!(authorize(p, t).is_ok()));
    m.insert("available".into(), json!(t.unavailable.is_none()));
    if let Some(r) = &t.unavailable {
        m.insert("unavailableReason".into(), json!(r));
    }
    if let Some(block) = set.registry.recipe_block(t, &p.scope, &p.grants) {
        m.insert("recipe".into(), block);
    }
    Value::Object(m)
}

/// `GET /v1/tools`: the tools of the token's scope.
#[utoipa::path(
    get,
    path = "/v1/tools",
    tag = "v1",
    operation_id = "v1ListTools",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Each granted tool's name, kind, role and JSON Schema.", body = Object),
        (status = 401, description = "`UNAUTHORIZED`: the bearer token is missing or invalid.", body = super::openapi::ErrorEnvelope),
    )
)]
pub async fn list(State(s): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let set = s.current();
    let p = bearer(&set.live, &headers)?;
    let tools: Vec<Value> = set
        .registry
        .tools
        .iter()
        .filter(|t| t.scopes.contains(&p.scope))
        .map(|t| record(&set, t, &p))
        .collect();
    Ok(super::json_response(
        StatusCode::OK,
        &json!({"type": "tool_catalog", "scope": p.scope, "tools": tools}),
    ))
}

/// The envelope of a `/v1` call: the body is the tool input.
fn envelope(name: String, headers: &HeaderMap, body: &[u8]) -> Result<Envelope, ApiError> {
    if !valid_id(&name, 100, &['.', '_', '-']) {
        return Err(ApiError::validation(
            "Invalid tool name.",
            vec![(
                "name".into(),
                "1-100 characters of letters, digits and ._-".into(),
            )],
        ));
    }
    let arguments = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        match serde_json::from_slice::<Value>(body) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                return Err(ApiError::validation(
                    "The body must be the tool input, a JSON object.",
                    vec![("".into(), "expected an object".into())],
                ));
            }
            Err(e) => {
                return Err(ApiError::validation(
                    format!("The body is not JSON: {e}"),
                    vec![("".into(), e.to_string())],
                ));
            }
        }
    };
    let max = 200 - ID_PREFIX.len();
    let key = match headers.get("idempotency-key") {
        None => fresh_id(),
        Some(k) => match k.to_str().map(str::trim) {
            Ok(k) if valid_id(k, max, &['.', '_', ':', '-']) => k.to_string(),
            _ => {
                return Err(ApiError::validation(
                    "Invalid Idempotency-Key.",
                    vec![(
                        "Idempotency-Key".into(),
                        format!("1-{max} characters of letters, digits and ._:-"),
                    )],
                ));
            }
        },
    };
    Ok(Envelope {
        request_id: format!("{ID_PREFIX}{key}"),
        name,
        arguments,
    })
}

/// `POST /v1/tools/{name}`: one call through the registry.
#[utoipa::path(
    post,
    path = "/v1/tools/{name}",
    tag = "v1",
    operation_id = "v1CallTool",
    security(("bearer" = [])),
    params(
        ("name" = String, Path, description = "The tool's name.", pattern = "^[A-Za-z0-9._-]{1,100}$"),
        ("Idempotency-Key" = Option<String>, Header, nullable = false, description = "The request id of the call (a fresh one when absent).", pattern = "^[A-Za-z0-9._:-]{1,197}$"),
    ),
    request_body(content = Object, description = "The tool input."),
    responses(
        (status = 200, description = "The `portos_tool_result`.", body = Object),
        (status = 202, description = "The call is running.", body = Object),
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
pub async fn call(
    State(s): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let set = s.current();
    let principal = match bearer(&set.live, &headers) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let envelope = envelope(name, &headers, &body);
    match call_tool(&s, set, principal, envelope, None).await {
        Ok((status, body)) => super::json_response(
            StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
            &body,
        ),
        Err(e) => e.into_response(),
    }
}
