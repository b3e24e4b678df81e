//! Principals: who is calling, derived from the server's auth context only.
//! The request body can never claim a scope, principal, tenant or grant.
//!
//! Two modes. `local` is PortOS's passwordless install: one anonymous
//! principal `local` in scope `ui` with the configured local grants (reads
//! only). `jwt` verifies a bearer token with `jsonwebtoken`: the algorithm
//! list is pinned by configuration (a token's `alg` header never widens it,
//! `alg: none` cannot be expressed), `exp` is required, `nbf`, `aud` and `iss`
//! are checked with a small leeway, and principal, tenant, scope and grants
//! come from configured claim names. Deliberately not done: JWKS files and
//! key rotation (one PEM key or one secret per server).

use super::error::ApiError;
use super::settings::{AuthMode, JwtSettings, ServerSettings};
use axum::http::{HeaderMap, StatusCode, header};
use jsonwebtoken::{DecodingKey, Validation};
use serde_json::Value;

/// The caller, as the server established it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// Stable id (`local`, or the token's principal claim).
    pub id: String,
    /// Tenant from the token (never from the body).
    pub tenant: Option<String>,
    /// `ui`, `agent`, `mind` or `voice`.
    pub scope: String,
    /// Capability grants.
    pub grants: Vec<String>,
    /// Whether a credential was verified.
    pub authenticated: bool,
}

/// A ready verifier.
pub struct Auth {
    mode: Mode,
    principal_claim: String,
    tenant_claim: String,
    scope_claim: String,
    grants_claim: String,
    local_grants: Vec<String>,
}

enum Mode {
    Local,
    Jwt {
        key: DecodingKey,
        validation: Box<Validation>,
    },
}

fn unauthorized(msg: &str) -> ApiError {
    ApiError::status(StatusCode::UNAUTHORIZED, msg)
}

impl Auth {
    /// Build from settings; a key that does not parse is a start-up error.
    pub fn new(s: &ServerSettings) -> Result<Auth, String> {
        let mode = match &s.auth {
            AuthMode::Local => Mode::Local,
            AuthMode::Jwt(j) => jwt_mode(j)?,
        };
        Ok(Auth {
            mode,
            principal_claim: s.principal_claim.clone(),
            tenant_claim: s.tenant_claim.clone(),
            scope_claim: s.scope_claim.clone(),
            grants_claim: s.grants_claim.clone(),
            local_grants: s.local_grants.clone(),
        })
    }

    /// The principal of a request, or 401 `UNAUTHORIZED`.
    pub fn principal(&self, headers: &HeaderMap) -> Result<Principal, ApiError> {
        match &self.mode {
            Mode::Local => Ok(Principal {
                id: "local".into(),
                tenant: None,
                scope: "ui".into(),
                grants: self.local_grants.clone(),
                authenticated: false,
            }),
            Mode::Jwt { key, validation } => {
                let value = headers
                    .get(header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| unauthorized("A bearer token is required."))?;
                let token = value
                    .strip_prefix("Bearer ")
                    .or_else(|| value.strip_prefix("bearer "))
                    .ok_or_else(|| {
                        unauthorized("The Authorization header must be `Bearer <token>`.")
                    })?
                    .trim();
                let data = jsonwebtoken::decode::<Value>(token, key, validation)
                    .map_err(|e| unauthorized(&format!("The token was refused: {e}.")))?;
                let c = data.claims;
                let id = c
                    .get(&self.principal_claim)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| {
                        unauthorized(&format!(
                            "The token has no `{}` claim.",
                            self.principal_claim
                        ))
                    })?
                    .to_string();
                let tenant = c
                    .get(&self.tenant_claim)
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let scope = c
                    .get(&self.scope_claim)
                    .and_then(Value::as_str)
                    .unwrap_or("ui")
                    .to_string();
                if !super::registry::SCOPES.contains(&scope.as_str()) {
                    return Err(unauthorized(&format!(
                        "The token's scope `{scope}` is not one of agent, mind, ui, voice."
                    )));
                }
                let grants = match c.get(&self.grants_claim) {
                    Some(Value::Array(a)) => a
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
                    Some(Value::Object(m)) => m
                        .iter()
                        .filter(|(_, v)| **v == Value::Bool(true))
                        .map(|(k, _)| k.clone())
                        .collect(),
                    _ => Vec::new(),
                };
                Ok(Principal {
                    id,
                    tenant,
                    scope,
                    grants,
                    authenticated: true,
                })
            }
        }
    }
}

fn jwt_mode(j: &JwtSettings) -> Result<Mode, String> {
    use jsonwebtoken::Algorithm::*;
    let first = j.algorithms[0];
    let key = match first {
        HS256 => DecodingKey::from_secret(j.secret.as_deref().unwrap_or_default())
            .map_err(|e| format!("[server] auth.secret: {e}"))?,
        RS256 => DecodingKey::from_rsa_pem(j.public_key_pem.as_deref().unwrap_or_default())
            .map_err(|e| format!("[server] auth.public_key_file: not an RSA public key: {e}"))?,
        ES256 => DecodingKey::from_ec_pem(j.public_key_pem.as_deref().unwrap_or_default())
            .map_err(|e| format!("[server] auth.public_key_file: not an EC public key: {e}"))?,
        other => {
            return Err(format!(
                "[server] auth.algorithms: {other:?} is not supported"
            ));
        }
    };
    if j.algorithms.iter().any(|a| *a != first) {
        return Err(
            "[server] auth.algorithms: one key kind per server (HS256, RS256 or ES256)".into(),
        );
    }
    let mut v = Validation::new(first);
    v.algorithms = j.algorithms.clone();
    v.leeway = j.leeway;
    v.validate_exp = true;
    v.validate_nbf = true;
    v.set_required_spec_claims(&["exp"]);
    match &j.audience {
        Some(a) => v.set_audience(&[a]),
        None => v.validate_aud = false,
    }
    if let Some(i) = &j.issuer {
        v.set_issuer(&[i]);
    }
    Ok(Mode::Jwt {
        key,
        validation: Box::new(v),
    })
}
