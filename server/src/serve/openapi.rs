//! The server's own OpenAPI 3.1 document (`GET /openapi.json`) and a small
//! reference page listing its operations (`GET /openapi/`), both generated
//! with `utoipa` from the `#[utoipa::path]` attributes on the handlers.
//!
//! Every route [`super::app`] mounts is described, with its parameters, its
//! request body, its success bodies and the PortOS error envelope
//! ([`ErrorEnvelope`]) for each error status it answers. The served
//! documents (`/api/api-docs/<document>`) are mounted in a loop over
//! [`super::DOCUMENT_PATHS`]; one handler attribute describes them and
//! `Finish` copies it to each path. `server/tests/serve/openapi.rs` reads the
//! router source with `syn` and fails when a mounted route is missing here or
//! a documented one is not mounted.
//!
//! Deliberately loose: bodies whose shape depends on the analysed project or
//! the requested format (the catalog, tool results, the documents
//! themselves, JSON-RPC responses) are described as objects with a
//! description, not field by field. The 404 and 405 answers of the router's
//! fallbacks (unknown route, wrong method) use the same envelope and are not
//! repeated under every operation.

use super::{AppState, DOCUMENT_PATHS};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

/// PortOS's error envelope, the body of every error answer (contract §3.10).
#[derive(ToSchema)]
#[expect(dead_code, reason = "describes a body for the OpenAPI document only")]
pub(crate) struct ErrorEnvelope {
    /// A sentence for a person.
    error: String,
    /// The machine-readable code (`NOT_FOUND`, `VALIDATION_ERROR`, `TOOL_NOT_FOUND`, ...).
    code: String,
    /// When the error was answered, in milliseconds since the Unix epoch.
    timestamp: i64,
    /// Extra facts (`details`: `[{path, message}]` for validation errors); secrets stripped.
    #[schema(value_type = Option<Object>)]
    context: Option<Value>,
}

/// `GET /health`.
#[derive(ToSchema)]
#[expect(dead_code, reason = "describes a body for the OpenAPI document only")]
pub(crate) struct Health {
    /// Always `ok`.
    #[schema(example = "ok")]
    status: String,
}

/// `GET /ready`.
#[derive(ToSchema)]
#[expect(dead_code, reason = "describes a body for the OpenAPI document only")]
pub(crate) struct Ready {
    /// Always `ready`.
    #[schema(example = "ready")]
    status: String,
    /// The document set in service: 1 at start-up, +1 per `--watch` reload.
    #[schema(minimum = 1)]
    generation: u64,
    /// `ok`: the store answered.
    store: String,
}

/// A `portos_tool_call`: the body of `POST /api/cos/tools/call`. Scope,
/// principal, tenant and capabilities come from the server, never the body.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "describes a body for the OpenAPI document only")]
pub(crate) struct ToolCall {
    /// `portos_tool_call` when given.
    #[schema(value_type = Option<String>, nullable = false, pattern = "^portos_tool_call$")]
    r#type: Option<String>,
    /// The idempotency key of the call.
    #[serde(rename = "requestId")]
    #[schema(pattern = "^[A-Za-z0-9._:-]{1,200}$")]
    request_id: String,
    /// The tool's name.
    #[schema(pattern = "^[A-Za-z0-9._-]{1,100}$")]
    name: String,
    /// 1 when given.
    #[schema(nullable = false, minimum = 1, maximum = 1)]
    version: Option<u8>,
    /// The tool input, checked against the tool's input schema.
    #[schema(value_type = Option<Object>)]
    arguments: Option<Value>,
}

/// A JSON-RPC 2.0 request (with `id`) or notification (without): the body
/// of `POST /api/agent-context/mcp`. Batches are not supported.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "describes a body for the OpenAPI document only")]
pub(crate) struct JsonRpcRequest {
    /// `2.0`.
    #[schema(pattern = "^2\\.0$")]
    jsonrpc: String,
    /// The request id (a number is accepted too); absent for a notification.
    #[schema(nullable = false, max_length = 200)]
    id: Option<String>,
    /// `initialize`, `ping`, `tools/list`, `tools/call`, a notification...
    #[schema(min_length = 1, max_length = 120)]
    method: String,
    /// The method's parameters.
    #[schema(value_type = Option<Object>, nullable = false)]
    params: Option<Value>,
}

/// Adds the bearer scheme used by `/v1/tools` (and JWT mode elsewhere), and
/// copies the served-document description to each of [`DOCUMENT_PATHS`].
struct Finish;

impl Modify for Finish {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        if let Some(c) = api.components.as_mut() {
            c.add_security_scheme(
                "bearer",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .bearer_format("JWT")
                        .build(),
                ),
            );
        }
        let template = "/api/api-docs/{document}";
        if let Some(item) = api.paths.paths.remove(template) {
            for p in DOCUMENT_PATHS {
                let mut item = item.clone();
                if let Some(op) = item.get.as_mut() {
                    op.operation_id = Some(format!("document:{p}"));
                    op.summary = Some(format!("The served document `{p}`"));
                }
                api.paths.paths.insert(format!("/api/api-docs/{p}"), item);
            }
        }
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "portolan serve",
        description = "The documents Portolan derives, served at PortOS's URLs, and the governed tool registry.",
        license(name = "MIT", identifier = "MIT")
    ),
    paths(
        super::root,
        super::api_docs,
        super::explorer,
        document,
        super::health,
        super::ready,
        super::tool_catalog,
        super::calls::call,
        super::calls::get_call,
        super::calls::get_audit,
        super::mcp::endpoint,
        super::mcp::manifest,
        super::v1::list,
        super::v1::call,
        openapi_json,
        reference_page,
    ),
    components(schemas(ErrorEnvelope, Health, Ready, ToolCall, JsonRpcRequest)),
    modifiers(&Finish)
)]
struct ServerApi;

/// `/openapi.json` and `/openapi/`, built once per [`AppState`].
pub(crate) struct Served {
    json: Bytes,
    page: Bytes,
}

impl Served {
    pub(crate) fn new() -> Served {
        let api = ServerApi::openapi();
        let value = serde_json::to_value(&api).unwrap_or_default();
        Served {
            json: serde_json::to_vec_pretty(&value).unwrap_or_default().into(),
            page: page(&value).into(),
        }
    }
}

/// Stands for the served documents in [`ServerApi`]; [`Finish`] copies it.
#[utoipa::path(
    get,
    path = "/api/api-docs/{document}",
    tag = "documents",
    params(("If-None-Match" = Option<String>, Header, nullable = false, description = "An ETag from an earlier answer.")),
    responses(
        (status = 200, description = "The document (ETag and Cache-Control set; gzip or br when accepted).", body = Object, content_type = "application/json"),
        (status = 304, description = "Not modified: the `If-None-Match` ETag is current."),
        (status = 404, description = "The document was not produced for this project.", body = ErrorEnvelope),
    )
)]
#[expect(dead_code, reason = "only its path attribute is used")]
fn document() {}

/// `GET /openapi.json`.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "server",
    operation_id = "openapi",
    summary = "This document: the server's own OpenAPI 3.1",
    responses((status = 200, description = "The OpenAPI document.", body = Object, content_type = "application/json"))
)]
pub(crate) async fn openapi_json(State(s): State<AppState>) -> Response {
    let mut r = s.inner.openapi.json.clone().into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// `GET /openapi/`.
#[utoipa::path(
    get,
    path = "/openapi/",
    tag = "server",
    operation_id = "openapiReference",
    summary = "A reference page listing the operations of /openapi.json",
    responses((status = 200, description = "A self-contained HTML page.", body = String, content_type = "text/html"))
)]
pub(crate) async fn reference_page(State(s): State<AppState>) -> Response {
    let mut r = s.inner.openapi.page.clone().into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The reference page: one row per operation (method, path, summary,
/// statuses), no scripts and no external assets.
fn page(api: &Value) -> String {
    let title = api
        .pointer("/info/title")
        .and_then(Value::as_str)
        .unwrap_or("API");
    let mut rows = String::new();
    for (path, item) in api
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for method in ["get", "post", "put", "patch", "delete"] {
            let Some(op) = item.get(method) else { continue };
            let text = |k: &str| op.get(k).and_then(Value::as_str).unwrap_or("");
            let statuses: Vec<String> = op
                .get("responses")
                .and_then(Value::as_object)
                .map(|r| {
                    r.iter()
                        .map(|(code, resp)| {
                            let d = resp.get("description").and_then(Value::as_str);
                            format!(
                                "<li><b>{}</b> {}</li>",
                                escape(code),
                                escape(d.unwrap_or(""))
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            rows.push_str(&format!(
                "<tr><td class=m>{}</td><td><code>{}</code></td><td>{}<br><small>{}</small></td><td><ul>{}</ul></td></tr>\n",
                method.to_uppercase(),
                escape(path),
                escape(text("summary")),
                escape(text("operationId")),
                statuses.join("")
            ));
        }
    }
    format!(
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8><title>{t}: reference</title>\n\
<style>body{{font:14px system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}}.m{{font-weight:bold}}ul{{margin:0;padding-left:1.2em}}</style>\n\
</head><body><h1>{t}</h1><p>Every operation of <a href=\"/openapi.json\">/openapi.json</a> (OpenAPI {v}).</p>\n\
<table><tr><th>Method</th><th>Path</th><th>Summary</th><th>Responses</th></tr>\n{rows}</table></body></html>\n",
        t = escape(title),
        v = escape(api.get("openapi").and_then(Value::as_str).unwrap_or("")),
    )
}
