//! The one error type of the server: every failure answers with PortOS's
//! error envelope `{error, code, timestamp, context?}` (contract §3.10).
//!
//! Captures the status → code map PortOS publishes in `tools.min.json`, the
//! explicit registry codes (`TOOL_*`), `RATE_LIMITED` with `Retry-After`, and
//! the stripping of secret-looking keys from `context`. Deliberately not done:
//! PortOS's Socket.IO `error:occurred` broadcast (this server has no socket).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// An error answer: status, machine code, message and optional context.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The machine-readable code (`TOOL_NOT_FOUND`, `VALIDATION_ERROR`, ...).
    pub code: String,
    /// A sentence for a person.
    pub message: String,
    /// Extra facts (`details` for validation errors); secrets are stripped.
    pub context: Option<Box<Value>>,
    /// Seconds to wait, sent as `Retry-After` (429 and 503).
    pub retry_after: Option<u64>,
}

/// The published status → code map (PortOS `tools.min.json` `errors`).
pub fn status_code_name(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "BAD_REQUEST",
        401 => "UNAUTHORIZED",
        403 => "FORBIDDEN",
        404 => "NOT_FOUND",
        409 => "CONFLICT",
        422 => "VALIDATION_ERROR",
        502 => "BAD_GATEWAY",
        503 => "SERVICE_UNAVAILABLE",
        _ => "INTERNAL_ERROR",
    }
}

impl ApiError {
    /// An error with an explicit code.
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code: code.to_string(),
            message: message.into(),
            context: None,
            retry_after: None,
        }
    }

    /// An error whose code comes from the status map.
    pub fn status(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError::new(status, status_code_name(status), message)
    }

    /// 400 `VALIDATION_ERROR` with `context.details` = `[{path, message}]`.
    pub fn validation(message: impl Into<String>, details: Vec<(String, String)>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message).with_details(details)
    }

    /// Attach `context.details` as `[{path, message}]`.
    pub fn with_details(mut self, details: Vec<(String, String)>) -> ApiError {
        let list: Vec<Value> = details
            .into_iter()
            .map(|(p, m)| json!({"path": p, "message": m}))
            .collect();
        let mut ctx = match self.context.take().map(|b| *b) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        ctx.insert("details".into(), Value::Array(list));
        self.context = Some(Box::new(Value::Object(ctx)));
        self
    }

    /// Attach a context value under `key`.
    pub fn with_context(mut self, key: &str, value: Value) -> ApiError {
        let mut ctx = match self.context.take().map(|b| *b) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        ctx.insert(key.into(), value);
        self.context = Some(Box::new(Value::Object(ctx)));
        self
    }

    /// 500 `INTERNAL_ERROR` for a failure of the server itself (store, task).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// The envelope body.
    pub fn body(&self) -> Value {
        let mut m = Map::new();
        m.insert("error".into(), Value::String(self.message.clone()));
        m.insert("code".into(), Value::String(self.code.clone()));
        m.insert("timestamp".into(), json!(now_ms()));
        if let Some(ctx) = &self.context {
            let mut ctx = (**ctx).clone();
            strip_secrets(&mut ctx);
            m.insert("context".into(), ctx);
        }
        Value::Object(m)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::to_vec(&self.body()).unwrap_or_default();
        let mut resp = (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response();
        if let Some(s) = self.retry_after
            && let Ok(v) = HeaderValue::from_str(&s.to_string())
        {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
        resp
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

const SECRET_MARKS: &[&str] = &[
    "apikey",
    "api_key",
    "token",
    "secret",
    "password",
    "credential",
    "authorization",
    "bearer",
    "envvars",
];

/// Remove every object key that looks like it holds a secret, at any depth.
pub fn strip_secrets(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| {
                let k = k.to_ascii_lowercase();
                !SECRET_MARKS.iter().any(|s| k.contains(s))
            });
            for (_, x) in m.iter_mut() {
                strip_secrets(x);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(strip_secrets),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_secrets_are_stripped_at_any_depth() {
        let e = ApiError::status(StatusCode::BAD_GATEWAY, "x").with_context(
            "upstream",
            json!({"url": "http://a", "apiKey": "k", "inner": {"Authorization": "b", "ok": 1}}),
        );
        let b = e.body();
        assert_eq!(b["code"], "BAD_GATEWAY");
        assert_eq!(
            b["context"],
            json!({"upstream": {"url": "http://a", "inner": {"ok": 1}}})
        );
    }

    #[test]
    fn unknown_statuses_map_to_internal_error() {
        assert_eq!(status_code_name(StatusCode::IM_A_TEAPOT), "INTERNAL_ERROR");
        assert_eq!(status_code_name(StatusCode::CONFLICT), "CONFLICT");
    }
}
