//! Principals: who is calling, derived from the server's auth context only.
//! The request body can never claim a scope, principal, tenant or grant.
//!
//! Two modes. `local` is PortOS's passwordless install: one anonymous
//! principal `local` in scope `ui` with the configured local grants (reads
//! only). `jwt` verifies a bearer token with `jsonwebtoken`: the algorithm
//! list is pinned by configuration (a token's `alg` header never widens it,
//! `alg: none` cannot be expressed), `exp` is required, `nbf`, `aud` and `iss`
//! are checked with a small leeway, and principal, tenant, scope and grants
//! come from configured claim names. RS256/ES256 keys come from one PEM key
//! or from a JWK Set file: each JWK must carry a `kid` and is bound at
//! start-up to one algorithm (its `alg`, or RS256 for an RSA key and ES256
//! for a P-256 key), so a token is verified only with the key its `kid`
//! names and only under that key's algorithm. Deliberately not done:
//! fetching a JWKS over HTTP and live key rotation (the file is read once).

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
    /// Keys from a JWK Set, sorted by `kid`, each with a validation pinned to its algorithm.
    Jwks(Vec<JwksKey>),
}

struct JwksKey {
    kid: String,
    alg: jsonwebtoken::Algorithm,
    key: DecodingKey,
    validation: Box<Validation>,
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
            Mode::Jwt { .. } | Mode::Jwks(_) => {
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
                let (key, validation) = match &self.mode {
                    Mode::Jwt { key, validation } => (key, &**validation),
                    Mode::Jwks(keys) => jwks_key(keys, token)?,
                    Mode::Local => unreachable!("matched above"),
                };
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

/// The key a token's `kid` names and its pinned validation, or 401.
fn jwks_key<'a>(
    keys: &'a [JwksKey],
    token: &str,
) -> Result<(&'a DecodingKey, &'a Validation), ApiError> {
    let header = jsonwebtoken::decode_header(token)
        .map_err(|e| unauthorized(&format!("The token was refused: {e}.")))?;
    let kid = header
        .kid
        .as_deref()
        .ok_or_else(|| unauthorized("The token has no `kid` header naming its key."))?;
    let k = keys
        .binary_search_by(|k| k.kid.as_str().cmp(kid))
        .map(|i| &keys[i])
        .map_err(|_| unauthorized(&format!("The token's key `{kid}` is not known.")))?;
    if header.alg != k.alg {
        return Err(unauthorized(&format!(
            "The token's algorithm {:?} does not match key `{kid}` ({:?}).",
            header.alg, k.alg
        )));
    }
    Ok((&k.key, &k.validation))
}

/// Parse a JWK Set: every key needs a `kid`, one of the configured
/// algorithms, and a usable public key; anything else names the key and why.
fn jwks_mode(j: &JwtSettings, bytes: &[u8], base: &Validation) -> Result<Mode, String> {
    use jsonwebtoken::Algorithm;
    use jsonwebtoken::jwk::{
        AlgorithmParameters, EllipticCurve, JwkSet, KeyAlgorithm, PublicKeyUse,
    };
    let bad = |what: &str, why: String| format!("[server] auth.jwks_file: {what}: {why}");
    let set: JwkSet = serde_json::from_slice(bytes)
        .map_err(|e| format!("[server] auth.jwks_file: not a JWK Set: {e}"))?;
    if set.keys.is_empty() {
        return Err("[server] auth.jwks_file: the JWK Set has no keys".into());
    }
    let mut keys: Vec<JwksKey> = Vec::new();
    for (i, jwk) in set.keys.iter().enumerate() {
        let Some(kid) = jwk.common.key_id.clone().filter(|k| !k.is_empty()) else {
            return Err(bad(&format!("key #{i}"), "has no `kid`".into()));
        };
        let name = format!("key `{kid}`");
        if let Some(u) = &jwk.common.public_key_use
            && *u != PublicKeyUse::Signature
        {
            return Err(bad(&name, "its `use` is not `sig`".into()));
        }
        let alg = match (&jwk.algorithm, jwk.common.key_algorithm) {
            (AlgorithmParameters::RSA(_), None | Some(KeyAlgorithm::RS256)) => Algorithm::RS256,
            (AlgorithmParameters::EllipticCurve(p), None | Some(KeyAlgorithm::ES256))
                if p.curve == EllipticCurve::P256 =>
            {
                Algorithm::ES256
            }
            (AlgorithmParameters::EllipticCurve(p), _) => {
                return Err(bad(
                    &name,
                    format!(
                        "curve {:?} is not supported (only P-256 for ES256)",
                        p.curve
                    ),
                ));
            }
            (AlgorithmParameters::RSA(_), Some(a))
            | (AlgorithmParameters::OctetKey(_), Some(a))
            | (AlgorithmParameters::OctetKeyPair(_), Some(a))
            | (AlgorithmParameters::Other(_), Some(a)) => {
                return Err(bad(
                    &name,
                    format!("algorithm {a} is not supported (RS256, ES256)"),
                ));
            }
            _ => {
                return Err(bad(
                    &name,
                    "only RSA (RS256) and P-256 EC (ES256) public keys are supported".into(),
                ));
            }
        };
        if !j.algorithms.contains(&alg) {
            return Err(bad(
                &name,
                format!("its algorithm {alg:?} is not in auth.algorithms"),
            ));
        }
        let key = DecodingKey::from_jwk(jwk)
            .map_err(|e| bad(&name, format!("not a usable public key: {e}")))?;
        // `from_jwk` only decodes base64; check the sizes here so a truncated
        // key fails start-up instead of refusing every token later. (Whether an
        // EC point lies on the curve is checked only when a token is verified.)
        let decoded = |b64: &str| b64.trim_end_matches('=').len() * 3 / 4;
        match &jwk.algorithm {
            AlgorithmParameters::EllipticCurve(p) if decoded(&p.x) != 32 || decoded(&p.y) != 32 => {
                return Err(bad(
                    &name,
                    "not a usable public key: P-256 `x` and `y` must be 32 bytes each".into(),
                ));
            }
            AlgorithmParameters::RSA(p) if decoded(&p.n) < 256 || decoded(&p.e) == 0 => {
                return Err(bad(
                    &name,
                    "not a usable public key: the RSA modulus `n` must be at least 2048 bits and `e` present".into(),
                ));
            }
            _ => {}
        }
        let mut validation = base.clone();
        validation.algorithms = vec![alg];
        keys.push(JwksKey {
            kid,
            alg,
            key,
            validation: Box::new(validation),
        });
    }
    keys.sort_by(|a, b| a.kid.cmp(&b.kid));
    if let Some(w) = keys.windows(2).find(|w| w[0].kid == w[1].kid) {
        return Err(bad(
            &format!("key `{}`", w[0].kid),
            "its `kid` appears twice".into(),
        ));
    }
    Ok(Mode::Jwks(keys))
}

fn jwt_mode(j: &JwtSettings) -> Result<Mode, String> {
    use jsonwebtoken::Algorithm::*;
    let first = j.algorithms[0];
    if let Some(bytes) = &j.jwks {
        return jwks_mode(j, bytes, &validation(j, first));
    }
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
    Ok(Mode::Jwt {
        key,
        validation: Box::new(validation(j, first)),
    })
}

/// The claim checks shared by every key: `exp` required, `nbf`, `aud`, `iss`, leeway.
fn validation(j: &JwtSettings, first: jsonwebtoken::Algorithm) -> Validation {
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
    v
}
