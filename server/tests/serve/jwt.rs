//! `jwt` mode: refused tokens (401), tenant from the token only, grants.

use crate::upstream::upstream;
use crate::util::*;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

const SECRET: &str = "test-secret-of-enough-length-0123456789";
const CALL: &str = "/api/cos/tools/call";

pub(crate) fn jwt_settings(extra: &str) -> String {
    format!(
        "[server]\n{extra}\n[server.auth]\nmode = \"jwt\"\nsecret = \"{SECRET}\"\naudience = \"portolan\"\nissuer = \"issuer-1\"\nleeway_seconds = 5\nlocal_grants = []\n"
    )
}

fn now() -> i64 {
    portolan::serve::error::now_ms() / 1000
}

fn token_with(alg: Algorithm, secret: &str, claims: Value) -> String {
    jsonwebtoken::encode(
        &Header::new(alg),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()).unwrap(),
    )
    .unwrap()
}

fn claims(extra: Value) -> Value {
    let mut c = json!({"sub": "alice", "tenant": "t-1", "aud": "portolan", "iss": "issuer-1", "exp": now() + 300, "scope": "ui"});
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

pub(crate) fn token(extra: Value) -> String {
    token_with(Algorithm::HS256, SECRET, claims(extra))
}

fn b64(bytes: &[u8]) -> String {
    const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |a, (i, b)| a | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"requestId": id, "name": name, "arguments": args})
}

#[tokio::test]
async fn bad_tokens_are_refused_with_401() {
    let s = state_with(settings(&jwt_settings("")));
    let body = call("j-1", "catalog.search", json!({"query": "x"}));
    let alg_none = format!(
        "{}.{}.",
        b64(br#"{"alg":"none","typ":"JWT"}"#),
        b64(claims(json!({})).to_string().as_bytes())
    );
    let cases: Vec<(&str, String)> = vec![
        ("expired", token(json!({"exp": now() - 120}))),
        ("not yet valid", token(json!({"nbf": now() + 120}))),
        ("wrong audience", token(json!({"aud": "someone-else"}))),
        ("wrong issuer", token(json!({"iss": "issuer-2"}))),
        ("no exp", {
            let mut c = claims(json!({}));
            c.as_object_mut().unwrap().remove("exp");
            token_with(Algorithm::HS256, SECRET, c)
        }),
        (
            "forged signature",
            token_with(
                Algorithm::HS256,
                "another-secret-entirely-0000000000",
                claims(json!({})),
            ),
        ),
        ("alg none", alg_none),
        (
            "algorithm switch",
            token_with(Algorithm::HS512, SECRET, claims(json!({}))),
        ),
        ("garbage", "a.b.c".to_string()),
    ];
    for (what, t) in cases {
        let a = post_json(
            &s,
            CALL,
            &body,
            &[("authorization", &format!("Bearer {t}"))],
        )
        .await;
        assert_eq!(
            a.status,
            401,
            "{what}: {}",
            String::from_utf8_lossy(&a.body)
        );
        a.assert_error(401, "UNAUTHORIZED");
    }
    post_json(&s, CALL, &body, &[])
        .await
        .assert_error(401, "UNAUTHORIZED");
    get(&s, "/api/cos/tools", &[])
        .await
        .assert_error(401, "UNAUTHORIZED");
    // Within the leeway an expired token still passes.
    let t = token(json!({"exp": now() - 2}));
    let a = post_json(
        &s,
        CALL,
        &body,
        &[("authorization", &format!("Bearer {t}"))],
    )
    .await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    // Documents stay public.
    assert_eq!(get(&s, "/api/api-docs/catalog.json", &[]).await.status, 200);
}

#[tokio::test]
async fn grants_and_scope_come_from_the_token() {
    let s = state_with(settings(&jwt_settings("")));
    let body = call("g-1", "catalog.search", json!({"query": "x"}));
    let none = token(json!({"scope": "agent"}));
    post_json(
        &s,
        CALL,
        &body,
        &[("authorization", &format!("Bearer {none}"))],
    )
    .await
    .assert_error(403, "TOOL_CAPABILITY_DENIED");
    let granted = token(json!({"scope": "agent", "capabilities": ["readPortos"]}));
    let a = post_json(
        &s,
        CALL,
        &body,
        &[("authorization", &format!("Bearer {granted}"))],
    )
    .await;
    assert_eq!(a.status, 200);
    let v = get(
        &s,
        "/api/cos/tools?scope=agent",
        &[("authorization", &format!("Bearer {granted}"))],
    )
    .await
    .json();
    assert_eq!(v["tools"][0]["granted"], true);
    // Request ids are per principal: bob's g-1 is his own.
    let bob = token(json!({"sub": "bob", "scope": "agent", "capabilities": ["readPortos"]}));
    let b = post_json(
        &s,
        CALL,
        &call("g-1", "catalog.search", json!({"query": "other"})),
        &[("authorization", &format!("Bearer {bob}"))],
    )
    .await;
    assert_eq!(b.status, 200);
    assert_eq!(b.json()["duplicate"], false);
    // Unknown scope in the token.
    let odd = token(json!({"scope": "root"}));
    post_json(
        &s,
        CALL,
        &body,
        &[("authorization", &format!("Bearer {odd}"))],
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn the_tenant_comes_from_the_token_only() {
    let (base, _) = upstream(0).await;
    let s = state_with(settings(&jwt_settings(&format!("upstream = \"{base}\""))));
    let t = token(json!({"capabilities": ["readPortos", "writePortos", "admin"]}));
    let auth = format!("Bearer {t}");
    let args =
        json!({"berthId": "A-01", "shipId": "Ada", "arrival": "2026-01-01T10:00:00Z", "nights": 2});
    // A body naming the tenant is refused (envelope and arguments alike).
    post_json(
        &s,
        CALL,
        &json!({"requestId": "b-0", "name": "bookings.create", "tenant": "t-2", "arguments": args}),
        &[("authorization", &auth)],
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let mut with_tenant = args.clone();
    with_tenant["tenant"] = json!("t-2");
    post_json(
        &s,
        CALL,
        &call("b-1", "bookings.create", with_tenant),
        &[("authorization", &auth)],
    )
    .await
    .assert_error(400, "TOOL_VALIDATION_ERROR");
    let schema_ok = post_json(
        &s,
        CALL,
        &call("b-2", "bookings.create", args.clone()),
        &[("authorization", &auth)],
    )
    .await;
    let v = schema_ok.json();
    assert_eq!(schema_ok.status, 200, "{v}");
    assert_eq!(v["result"]["status"], 201);
    assert_eq!(v["result"]["body"]["principal"], "alice");
    assert_eq!(v["result"]["body"]["tenant"], "t-1");
    assert_eq!(v["result"]["body"]["body"]["shipId"], "Ada");
    assert!(v["result"]["body"]["body"].get("tenant").is_none());
    let audit = get(&s, "/api/cos/tools/audit", &[("authorization", &auth)])
        .await
        .json();
    let last = audit["entries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["tenant"], "t-1");
    assert_eq!(last["principal"], "alice");
    assert_eq!(last["outcome"], "completed");
    assert!(!audit.to_string().contains("t-2"), "{audit}");
}

fn key_file(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/jwt")
        .join(name)
}

fn public_key_state(alg: &str, public: &str) -> portolan::serve::AppState {
    state_with(settings(&format!(
        "[server.auth]\nmode = \"jwt\"\nalgorithms = [\"{alg}\"]\npublic_key_file = \"{}\"\naudience = \"portolan\"\nissuer = \"issuer-1\"\n",
        key_file(public).display()
    )))
}

#[tokio::test]
async fn rs256_and_es256_public_keys_and_no_algorithm_confusion() {
    let body = call("k-1", "catalog.search", json!({"query": "x"}));
    let sign = |alg: Algorithm, key: EncodingKey| {
        jsonwebtoken::encode(&Header::new(alg), &claims(json!({})), &key).unwrap()
    };
    let rsa = std::fs::read(key_file("rsa-private.pem")).unwrap();
    let ec = std::fs::read(key_file("ec-private.pem")).unwrap();
    let rs_token = sign(Algorithm::RS256, EncodingKey::from_rsa_pem(&rsa).unwrap());
    let es_token = sign(Algorithm::ES256, EncodingKey::from_ec_pem(&ec).unwrap());
    // HS256 signed with the public key's PEM text as the secret: the classic confusion attack.
    let rsa_public = std::fs::read(key_file("rsa-public.pem")).unwrap();
    let confused = sign(
        Algorithm::HS256,
        EncodingKey::from_secret(&rsa_public).unwrap(),
    );

    let rs = public_key_state("RS256", "rsa-public.pem");
    let bearer = |t: &str| format!("Bearer {t}");
    let a = post_json(&rs, CALL, &body, &[("authorization", &bearer(&rs_token))]).await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    for t in [&confused, &es_token] {
        post_json(&rs, CALL, &body, &[("authorization", &bearer(t))])
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    let es = public_key_state("ES256", "ec-public.pem");
    let a = post_json(&es, CALL, &body, &[("authorization", &bearer(&es_token))]).await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    post_json(&es, CALL, &body, &[("authorization", &bearer(&rs_token))])
        .await
        .assert_error(401, "UNAUTHORIZED");
}

#[test]
fn a_key_of_the_wrong_kind_or_mixed_algorithms_fail_start_up() {
    let t: toml::Table = toml::from_str(&format!(
        "[server.auth]\nmode = \"jwt\"\nalgorithms = [\"ES256\"]\npublic_key_file = \"{}\"\n",
        key_file("rsa-public.pem").display()
    ))
    .unwrap();
    let s =
        portolan::serve::settings::ServerSettings::from_toml(t.get("server").cloned(), &|_| None)
            .unwrap();
    let err = portolan::serve::AppState::new(
        derived(harbor()),
        s,
        std::sync::Arc::new(portolan::serve::store::SqliteStore::memory().unwrap()),
    )
    .err()
    .expect("an RSA key for ES256 must fail");
    assert!(err.contains("public_key_file"), "{err}");
    let t: toml::Table = toml::from_str(&format!(
        "[server.auth]\nmode = \"jwt\"\nalgorithms = [\"HS256\", \"RS256\"]\nsecret = \"x\"\npublic_key_file = \"{}\"\n",
        key_file("rsa-public.pem").display()
    ))
    .unwrap();
    let err =
        portolan::serve::settings::ServerSettings::from_toml(t.get("server").cloned(), &|_| None)
            .unwrap_err();
    assert!(err.contains("auth.algorithms"), "{err}");
}

fn jwks_state(algs: &str, jwks: &std::path::Path) -> portolan::serve::AppState {
    state_with(settings(&format!(
        "[server.auth]\nmode = \"jwt\"\nalgorithms = [{algs}]\njwks_file = \"{}\"\naudience = \"portolan\"\nissuer = \"issuer-1\"\n",
        jwks.display()
    )))
}

fn signed(alg: Algorithm, kid: Option<&str>, private: &str) -> String {
    let pem = std::fs::read(key_file(private)).unwrap();
    let key = match alg {
        Algorithm::RS256 => EncodingKey::from_rsa_pem(&pem).unwrap(),
        _ => EncodingKey::from_ec_pem(&pem).unwrap(),
    };
    let mut h = Header::new(alg);
    h.kid = kid.map(str::to_string);
    jsonwebtoken::encode(&h, &claims(json!({})), &key).unwrap()
}

#[tokio::test]
async fn jwks_keys_are_chosen_by_kid_and_pinned_to_their_algorithm() {
    let body = call("w-1", "catalog.search", json!({"query": "x"}));
    let s = jwks_state("\"RS256\", \"ES256\"", &key_file("jwks.json"));
    let bearer = |t: &str| format!("Bearer {t}");
    for t in [
        signed(Algorithm::RS256, Some("rsa-1"), "rsa-private.pem"),
        signed(Algorithm::ES256, Some("ec-1"), "ec-private.pem"),
    ] {
        let a = post_json(&s, CALL, &body, &[("authorization", &bearer(&t))]).await;
        assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    }
    let rsa_public = std::fs::read(key_file("rsa-public.pem")).unwrap();
    let mut h = Header::new(Algorithm::HS256);
    h.kid = Some("rsa-1".into());
    let confused = jsonwebtoken::encode(
        &h,
        &claims(json!({})),
        &EncodingKey::from_secret(&rsa_public).unwrap(),
    )
    .unwrap();
    let cases = [
        (
            "unknown kid",
            signed(Algorithm::RS256, Some("rsa-2"), "rsa-private.pem"),
            "not known",
        ),
        (
            "no kid",
            signed(Algorithm::RS256, None, "rsa-private.pem"),
            "kid",
        ),
        (
            "ES256 token naming the RSA key",
            signed(Algorithm::ES256, Some("rsa-1"), "ec-private.pem"),
            "does not match",
        ),
        (
            "RS256 token naming the EC key",
            signed(Algorithm::RS256, Some("ec-1"), "rsa-private.pem"),
            "does not match",
        ),
        (
            "HS256 with the public key as secret",
            confused,
            "does not match",
        ),
        (
            "signed by another key under a known kid",
            {
                // The right kid and algorithm, but the claims were changed after signing.
                let t = signed(Algorithm::RS256, Some("rsa-1"), "rsa-private.pem");
                let mut parts: Vec<String> = t.split('.').map(str::to_string).collect();
                parts[1] = b64(claims(json!({"sub": "mallory"})).to_string().as_bytes());
                parts.join(".")
            },
            "refused",
        ),
    ];
    for (what, t, says) in cases {
        let a = post_json(&s, CALL, &body, &[("authorization", &bearer(&t))]).await;
        let text = String::from_utf8_lossy(&a.body).to_string();
        assert_eq!(a.status, 401, "{what}: {text}");
        assert!(text.contains(says), "{what}: {text}");
        a.assert_error(401, "UNAUTHORIZED");
    }
}

#[test]
fn an_invalid_jwks_file_fails_start_up_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let start = |algs: &str, text: &str| -> String {
        let p = dir.path().join("jwks.json");
        std::fs::write(&p, text).unwrap();
        let t: toml::Table = toml::from_str(&format!(
            "[server.auth]\nmode = \"jwt\"\nalgorithms = [{algs}]\njwks_file = \"{}\"\n",
            p.display()
        ))
        .unwrap();
        let s = match portolan::serve::settings::ServerSettings::from_toml(
            t.get("server").cloned(),
            &|_| None,
        ) {
            Ok(s) => s,
            Err(e) => return e,
        };
        portolan::serve::AppState::new(
            derived(harbor()),
            s,
            std::sync::Arc::new(portolan::serve::store::SqliteStore::memory().unwrap()),
        )
        .err()
        .expect("start-up must fail")
    };
    let good: Value =
        serde_json::from_str(&std::fs::read_to_string(key_file("jwks.json")).unwrap()).unwrap();
    let rsa = good["keys"][0].clone();
    let ec = good["keys"][1].clone();
    let with = |k: &Value, f: &dyn Fn(&mut Value)| {
        let mut k = k.clone();
        f(&mut k);
        json!({"keys": [k]}).to_string()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("\"RS256\"", "not json".into(), "not a JWK Set"),
        ("\"RS256\"", r#"{"keys": []}"#.into(), "no keys"),
        (
            "\"RS256\"",
            with(&rsa, &|k| {
                k.as_object_mut().unwrap().remove("kid");
            }),
            "key #0: has no `kid`",
        ),
        (
            "\"RS256\"",
            with(&rsa, &|k| k["alg"] = json!("RS512")),
            "key `rsa-1`: algorithm RS512 is not supported",
        ),
        (
            "\"RS256\"",
            with(&ec, &|_| {}),
            "key `ec-1`: its algorithm ES256 is not in auth.algorithms",
        ),
        (
            "\"ES256\"",
            with(&ec, &|k| k["x"] = json!("AAAA")),
            "key `ec-1`: not a usable public key",
        ),
        (
            "\"RS256\"",
            with(&rsa, &|k| k["n"] = json!("AQAB")),
            "key `rsa-1`: not a usable public key",
        ),
        (
            "\"RS256\"",
            with(&rsa, &|k| k["use"] = json!("enc")),
            "key `rsa-1`: its `use` is not `sig`",
        ),
        (
            "\"RS256\"",
            json!({"keys": [rsa.clone(), rsa.clone()]}).to_string(),
            "key `rsa-1`: its `kid` appears twice",
        ),
        (
            "\"HS256\"",
            json!({"keys": [rsa.clone()]}).to_string(),
            "not HS256",
        ),
    ];
    for (algs, text, says) in cases {
        let e = start(algs, &text);
        assert!(e.contains("auth.jwks_file"), "{says}: {e}");
        assert!(e.contains(says), "{says}: {e}");
    }
}
