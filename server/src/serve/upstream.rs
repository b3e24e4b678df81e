//! HTTP adapters: an HTTP-bound tool calls the analysed application at the
//! configured `upstream` using its binding.
//!
//! Captures path parameters substituted and percent-encoded (`:id`, `:id?`,
//! `:id(\\d+)`), the remaining arguments as query parameters for reads and
//! as the JSON body otherwise, the principal and tenant forwarded in
//! configured headers, a timeout, upstream 4xx/5xx mapped to the tool's
//! declared `failures` codes (unknown → `BAD_GATEWAY`), and connection
//! failures and timeouts as 502/504 results, never a server 500.
//! Deliberately not done: TLS upstreams, redirects, streaming bodies.

use super::auth::Principal;
use super::registry::Tool;
use axum::body::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// What an execution produced, before it is stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Exec {
    /// Completed or not.
    pub ok: bool,
    /// The record.
    pub result: Option<Value>,
    /// Bounded error text.
    pub error: Option<String>,
    /// Machine code of a failure.
    pub code: Option<String>,
    /// HTTP status of the call answer.
    pub status: u16,
}

impl Exec {
    /// A failure without a result.
    pub fn failed(status: u16, code: &str, error: impl Into<String>) -> Exec {
        Exec {
            ok: false,
            result: None,
            error: Some(bounded(&error.into())),
            code: Some(code.to_string()),
            status,
        }
    }
}

/// Cut text to 500 characters, as PortOS bounds adapter errors.
pub fn bounded(s: &str) -> String {
    s.chars().take(500).collect()
}

/// A client bound to one upstream base URL.
pub struct Upstream {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
    timeout: Duration,
    principal_header: String,
    tenant_header: String,
}

const MAX_BODY: usize = 16 << 20;

fn encode_segment(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Fill `:params` of an Express path from `args`; returns the path and the
/// arguments left over, or the name of a missing required parameter.
pub fn fill_path(
    path: &str,
    args: &Map<String, Value>,
) -> Result<(String, Map<String, Value>), String> {
    let mut rest = args.clone();
    let mut out = String::new();
    for seg in path.split('/').skip(1) {
        if let Some(p) = seg.strip_prefix(':') {
            let name: String = p
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            let optional = p.ends_with('?');
            match rest.remove(&name) {
                Some(v) if !v.is_null() => {
                    out.push('/');
                    out.push_str(&encode_segment(&scalar(&v)));
                }
                _ if optional => {}
                _ => return Err(name),
            }
        } else {
            out.push('/');
            out.push_str(seg);
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    Ok((out, rest))
}

impl Upstream {
    /// A client for `base` (`http://host:port`, no trailing slash).
    pub fn new(
        base: &str,
        timeout: Duration,
        principal_header: &str,
        tenant_header: &str,
    ) -> Upstream {
        Upstream {
            client: Client::builder(TokioExecutor::new()).build_http(),
            base: base.to_string(),
            timeout,
            principal_header: principal_header.to_string(),
            tenant_header: tenant_header.to_string(),
        }
    }

    /// Call the tool's binding with validated arguments.
    pub async fn call(
        &self,
        tool: &Tool,
        method: &str,
        path: &str,
        args: &Value,
        who: &Principal,
    ) -> Exec {
        let empty = Map::new();
        let args = args.as_object().unwrap_or(&empty);
        let (path, rest) = match fill_path(path, args) {
            Ok(x) => x,
            Err(name) => {
                return Exec::failed(
                    422,
                    "TOOL_VALIDATION_ERROR",
                    format!("The path parameter `{name}` is required."),
                );
            }
        };
        let in_query = tool.is_read() || matches!(method, "GET" | "HEAD" | "DELETE");
        let mut uri = format!("{}{path}", self.base);
        let mut body = Bytes::new();
        if in_query {
            let mut pairs: Vec<(String, String)> = Vec::new();
            for (k, v) in &rest {
                match v {
                    Value::Null => {}
                    Value::Array(a) => pairs.extend(a.iter().map(|x| (k.clone(), scalar(x)))),
                    other => pairs.push((k.clone(), scalar(other))),
                }
            }
            if !pairs.is_empty() {
                uri.push('?');
                uri.push_str(&serde_urlencoded::to_string(&pairs).unwrap_or_default());
            }
        } else {
            body = Bytes::from(Value::Object(rest).to_string());
        }
        let mut req = hyper::Request::builder()
            .method(method)
            .uri(&uri)
            .header("accept", "application/json")
            .header(self.principal_header.as_str(), who.id.as_str());
        if let Some(t) = &who.tenant {
            req = req.header(self.tenant_header.as_str(), t.as_str());
        }
        if !in_query {
            req = req.header("content-type", "application/json");
        }
        let req = match req.body(Full::new(body)) {
            Ok(r) => r,
            Err(e) => {
                return Exec::failed(
                    502,
                    "BAD_GATEWAY",
                    format!("Cannot build the upstream request: {e}"),
                );
            }
        };
        let sent = tokio::time::timeout(self.timeout, async {
            let resp = self
                .client
                .request(req)
                .await
                .map_err(|e| (502u16, e.to_string()))?;
            let status = resp.status().as_u16();
            let bytes = Limited::new(resp.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| (502u16, format!("reading the answer: {e}")))?
                .to_bytes();
            Ok::<_, (u16, String)>((status, bytes))
        })
        .await;
        let (status, bytes) = match sent {
            Err(_) => {
                return Exec::failed(
                    504,
                    "GATEWAY_TIMEOUT",
                    format!(
                        "The upstream did not answer within {} ms.",
                        self.timeout.as_millis()
                    ),
                );
            }
            Ok(Err((s, e))) => {
                return Exec::failed(
                    s,
                    "BAD_GATEWAY",
                    format!("The upstream could not be reached: {e}"),
                );
            }
            Ok(Ok(x)) => x,
        };
        let body: Value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                Value::String(String::from_utf8_lossy(&bytes).chars().take(4000).collect())
            })
        };
        if (200..300).contains(&status) {
            return Exec {
                ok: true,
                result: Some(json!({"ok": true, "status": status, "body": body})),
                error: None,
                code: None,
                status: 200,
            };
        }
        let declared = tool
            .failures
            .iter()
            .find(|(s, _)| *s == status)
            .map(|(_, c)| c.clone());
        let message = body
            .get("error")
            .or_else(|| body.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("The upstream answered {status}."));
        let code = declared.clone().unwrap_or_else(|| "BAD_GATEWAY".into());
        Exec {
            ok: false,
            result: Some(json!({"ok": false, "status": status, "code": code, "body": body})),
            error: Some(bounded(&message)),
            code: Some(code),
            status: if declared.is_some() { 422 } else { 502 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_are_filled_and_encoded() {
        let args = json!({"id": "a b/c", "n": 5, "q": "x"});
        let (p, rest) = fill_path("/api/items/:id/n/:n", args.as_object().unwrap()).unwrap();
        assert_eq!(p, "/api/items/a%20b%2Fc/n/5");
        assert_eq!(Value::Object(rest), json!({"q": "x"}));
        let (p, _) = fill_path("/api/x/:opt?", &Map::new()).unwrap();
        assert_eq!(p, "/api/x");
        assert_eq!(fill_path("/api/:id(\\d+)", &Map::new()).unwrap_err(), "id");
    }
}
