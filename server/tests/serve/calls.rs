//! `POST /api/cos/tools/call`, `GET /api/cos/tools/calls/{id}`, audit,
//! idempotency, durability and the built-in tools.

use crate::util::*;
use portolan::serve::AppState;
use portolan::serve::store::{CallRecord, CallState, SqliteStore};
use serde_json::{Value, json};
use std::sync::Arc;

const CALL: &str = "/api/cos/tools/call";

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"type": "portos_tool_call", "requestId": id, "name": name, "version": 1, "arguments": args})
}

#[tokio::test]
async fn catalog_search_completes_and_replays_with_duplicate_true() {
    let s = state();
    let a = post_json(
        &s,
        CALL,
        &call("r-1", "catalog.search", json!({"query": "berths"})),
        &[],
    )
    .await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!(v["type"], "portos_tool_result");
    assert_eq!(v["state"], "completed");
    assert_eq!(v["duplicate"], false);
    assert!(v["result"]["count"].as_u64().unwrap() > 0);
    let hit = &v["result"]["hits"][0];
    assert!(hit["path"].as_str().unwrap().contains("berths"), "{hit}");
    assert!(hit["method"].is_string() && hit["access"].is_string());
    // Same id, same arguments (through the alias): the retained result.
    let b = post_json(
        &s,
        CALL,
        &call("r-1", "catalog_lookup", json!({"query": "berths"})),
        &[],
    )
    .await;
    assert_eq!(b.status, 200);
    let w = b.json();
    assert_eq!(w["duplicate"], true);
    assert_eq!(w["result"], v["result"]);
    assert_eq!(w["name"], "catalog.search");
    assert_eq!(s.executions(), 1);
    // Same id, other arguments.
    post_json(
        &s,
        CALL,
        &call("r-1", "catalog.search", json!({"query": "ships"})),
        &[],
    )
    .await
    .assert_error(409, "TOOL_IDEMPOTENCY_CONFLICT");
    // GET returns it, with the original's duplicate flag.
    let g = get(&s, "/api/cos/tools/calls/r-1", &[]).await;
    assert_eq!(g.status, 200);
    assert_eq!(g.json()["duplicate"], false);
    assert_eq!(g.json()["result"], v["result"]);
}

#[tokio::test]
async fn describe_and_events_search() {
    let s = state();
    let v = post_json(
        &s,
        CALL,
        &call(
            "d-1",
            "catalog.describe",
            json!({"method": "post", "path": "/admin/maintenance"}),
        ),
        &[],
    )
    .await
    .json();
    assert_eq!(v["state"], "completed", "{v}");
    let op = &v["result"]["operation"];
    assert_eq!(op["method"], "POST");
    assert!(op["middleware"].as_array().unwrap().len() > 1);
    assert!(
        op["locations"][0]
            .as_str()
            .unwrap()
            .starts_with("src/admin/app.ts:")
    );
    assert!(
        op["responses"].is_object() && op["requestBody"].is_object(),
        "{op}"
    );
    // Unknown operation: a failed call (422), with the adapter's error.
    let a = post_json(
        &s,
        CALL,
        &call(
            "d-2",
            "catalog.describe",
            json!({"method": "GET", "path": "/nowhere"}),
        ),
        &[],
    )
    .await;
    assert_eq!(a.status, 422);
    assert_eq!(a.json()["state"], "failed");
    assert!(a.json()["error"].as_str().unwrap().contains("/nowhere"));
    let e = post_json(
        &s,
        CALL,
        &call(
            "e-1",
            "events.search",
            json!({"query": "berth", "direction": "server-to-client", "limit": 2}),
        ),
        &[],
    )
    .await
    .json();
    assert_eq!(e["state"], "completed");
    assert!(e["result"]["count"].as_u64().unwrap() <= 2);
    assert!(
        e["result"]["hits"][0]["event"]
            .as_str()
            .unwrap()
            .contains("berth")
    );
}

#[tokio::test]
async fn the_envelope_is_strict() {
    let s = state();
    let cases = [
        (
            json!({"requestId": "a", "name": "catalog.search", "scope": "mind"}),
            "scope",
        ),
        (
            json!({"requestId": "a", "name": "catalog.search", "tenant": "t"}),
            "tenant",
        ),
        (
            json!({"requestId": "a", "name": "catalog.search", "capabilities": {"writePortos": true}}),
            "capabilities",
        ),
        (
            json!({"requestId": "a b", "name": "catalog.search"}),
            "requestId",
        ),
        (
            json!({"requestId": "x".repeat(201), "name": "catalog.search"}),
            "requestId",
        ),
        (json!({"name": "catalog.search"}), "requestId"),
        (json!({"requestId": "a", "name": "catalog/search"}), "name"),
        (
            json!({"requestId": "a", "name": "catalog.search", "version": 2}),
            "version",
        ),
        (
            json!({"requestId": "a", "name": "catalog.search", "type": "other"}),
            "type",
        ),
        (
            json!({"requestId": "a", "name": "catalog.search", "arguments": [1]}),
            "arguments",
        ),
    ];
    for (body, path) in cases {
        let v = post_json(&s, CALL, &body, &[])
            .await
            .assert_error(400, "VALIDATION_ERROR");
        let details = v["context"]["details"].as_array().unwrap();
        assert!(details.iter().any(|d| d["path"] == path), "{path}: {v}");
    }
    let a = send(
        &s,
        axum::http::Request::post(CALL)
            .body(axum::body::Body::from("not json"))
            .unwrap(),
    )
    .await;
    a.assert_error(400, "VALIDATION_ERROR");
    // type and version default; requestId is trimmed.
    let ok = post_json(
        &s,
        CALL,
        &json!({"requestId": " t-1 ", "name": "catalog.search", "arguments": {"query": "x"}}),
        &[],
    )
    .await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json()["requestId"], "t-1");
    assert_eq!(s.executions(), 1);
}

#[tokio::test]
async fn idempotency_key_unknown_tool_and_argument_validation() {
    let s = state();
    let body = call("k-1", "catalog.search", json!({"query": "x"}));
    post_json(&s, CALL, &body, &[("idempotency-key", "k-2")])
        .await
        .assert_error(400, "TOOL_IDEMPOTENCY_MISMATCH");
    assert_eq!(
        post_json(&s, CALL, &body, &[("idempotency-key", "k-1")])
            .await
            .status,
        200
    );
    post_json(&s, CALL, &call("k-3", "nope.tool", json!({})), &[])
        .await
        .assert_error(404, "TOOL_NOT_FOUND");
    let v = post_json(
        &s,
        CALL,
        &call(
            "k-4",
            "catalog.search",
            json!({"query": 5, "limit": 0, "tenant": "t"}),
        ),
        &[],
    )
    .await
    .assert_error(400, "TOOL_VALIDATION_ERROR");
    let paths: Vec<&str> = v["context"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"/query") && paths.contains(&"/limit") && paths.contains(&""),
        "{v}"
    );
    assert!(v["error"].as_str().unwrap().contains("/query"));
}

#[tokio::test]
async fn local_mode_authority() {
    let s = state();
    // A write tool without an authenticated session.
    post_json(&s, CALL, &call("w-1", "berths.create", json!({})), &[])
        .await
        .assert_error(403, "TOOL_AUTH_REQUIRED");
    // Scope ui cannot call an agent-only tool.
    post_json(
        &s,
        CALL,
        &call("w-2", "berths.availability", json!({"berthId": "1"})),
        &[],
    )
    .await
    .assert_error(403, "TOOL_SCOPE_DENIED");
    // A read tool with no upstream configured.
    let v = post_json(&s, CALL, &call("w-3", "berths.search", json!({})), &[])
        .await
        .assert_error(503, "TOOL_UNAVAILABLE");
    assert!(v["error"].as_str().unwrap().contains("upstream"));
}

#[tokio::test]
async fn get_call_errors() {
    let s = state();
    get(&s, "/api/cos/tools/calls/none-such", &[])
        .await
        .assert_error(404, "TOOL_CALL_NOT_FOUND");
    get(&s, "/api/cos/tools/calls/bad%20id", &[])
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn rate_limits_answer_429_with_retry_after() {
    let s = state_with(settings(
        "[server.limits]\nread_per_minute = 1\nread_burst = 2\n",
    ));
    for i in 0..2 {
        let a = post_json(
            &s,
            CALL,
            &call(&format!("l-{i}"), "catalog.search", json!({"query": "x"})),
            &[],
        )
        .await;
        assert_eq!(a.status, 200);
    }
    let a = post_json(
        &s,
        CALL,
        &call("l-3", "catalog.search", json!({"query": "x"})),
        &[],
    )
    .await;
    a.assert_error(429, "RATE_LIMITED");
    let retry: u64 = a.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
}

#[tokio::test]
async fn audit_records_shapes_never_values_and_needs_the_admin_grant() {
    let s = state();
    post_json(
        &s,
        CALL,
        &call("a-1", "catalog.search", json!({"query": "secret words"})),
        &[],
    )
    .await;
    get(&s, "/api/cos/tools/audit", &[])
        .await
        .assert_error(403, "FORBIDDEN");
    let admin = state_with(settings(
        "[server.auth]\nlocal_grants = [\"readPortos\", \"admin\"]\n",
    ));
    post_json(
        &admin,
        CALL,
        &call("a-1", "catalog.search", json!({"query": "secret words"})),
        &[],
    )
    .await;
    post_json(
        &admin,
        CALL,
        &call("a-1", "catalog.search", json!({"query": "secret words"})),
        &[],
    )
    .await;
    post_json(&admin, CALL, &call("a-2", "nope", json!({})), &[]).await;
    let a = get(&admin, "/api/cos/tools/audit?since=0&limit=10", &[]).await;
    assert_eq!(a.status, 200);
    let text = String::from_utf8_lossy(&a.body).to_string();
    assert!(!text.contains("secret words"), "{text}");
    let v = a.json();
    let outcomes: Vec<&str> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["completed", "replayed", "TOOL_NOT_FOUND"]);
    assert_eq!(v["entries"][0]["arguments"], json!({"query": "string"}));
    assert_eq!(v["entries"][0]["principal"], "local");
    assert!(v["entries"][0]["latencyMs"].is_i64());
    get(&admin, "/api/cos/tools/audit?limit=0", &[])
        .await
        .assert_error(400, "VALIDATION_ERROR");
    get(&admin, "/api/cos/tools/audit?who=me", &[])
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

fn file_state(path: &std::path::Path, toml: &str) -> AppState {
    AppState::new(
        derived(harbor()),
        settings(toml),
        Arc::new(SqliteStore::open(path).unwrap()),
    )
    .unwrap()
}

#[tokio::test]
async fn a_restart_keeps_results_idempotency_and_audit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("portolan.db");
    let admin = "[server.auth]\nlocal_grants = [\"readPortos\", \"admin\"]\n";
    let first = {
        let s = file_state(&db, admin);
        let v = post_json(
            &s,
            CALL,
            &call("p-1", "catalog.search", json!({"query": "berths"})),
            &[],
        )
        .await
        .json();
        // A call that was running when the process died.
        s.store()
            .claim(&CallRecord {
                principal: "local".into(),
                request_id: "p-2".into(),
                name: "catalog.search".into(),
                version: 1,
                fingerprint: "f".into(),
                state: CallState::Pending,
                result: None,
                error: None,
                code: None,
                status: 202,
                created_ms: portolan::serve::error::now_ms(),
                finished_ms: None,
            })
            .unwrap();
        v
    };
    let s = file_state(&db, admin);
    let again = post_json(
        &s,
        CALL,
        &call("p-1", "catalog.search", json!({"query": "berths"})),
        &[],
    )
    .await
    .json();
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["result"], first["result"]);
    assert_eq!(s.executions(), 0);
    post_json(
        &s,
        CALL,
        &call("p-1", "catalog.search", json!({"query": "other"})),
        &[],
    )
    .await
    .assert_error(409, "TOOL_IDEMPOTENCY_CONFLICT");
    let g = get(&s, "/api/cos/tools/calls/p-2", &[]).await;
    assert_eq!(g.status, 422);
    assert_eq!(g.json()["state"], "failed");
    assert_eq!(g.json()["error"], "interrupted");
    let audit = get(&s, "/api/cos/tools/audit", &[]).await.json();
    assert_eq!(audit["entries"][0]["requestId"], "p-1");
    assert_eq!(audit["entries"][0]["outcome"], "completed");
}

#[tokio::test]
async fn retention_expires_results_without_re_executing() {
    let s = state_with(settings("[server.retention]\nmax_results = 1\n"));
    for id in ["x-1", "x-2"] {
        post_json(
            &s,
            CALL,
            &call(id, "catalog.search", json!({"query": "berths"})),
            &[],
        )
        .await;
    }
    assert_eq!(s.prune().unwrap(), (1, 0));
    post_json(
        &s,
        CALL,
        &call("x-1", "catalog.search", json!({"query": "berths"})),
        &[],
    )
    .await
    .assert_error(409, "TOOL_IDEMPOTENCY_EXPIRED");
    post_json(
        &s,
        CALL,
        &call("x-1", "catalog.search", json!({"query": "other"})),
        &[],
    )
    .await
    .assert_error(409, "TOOL_IDEMPOTENCY_CONFLICT");
    get(&s, "/api/cos/tools/calls/x-1", &[])
        .await
        .assert_error(404, "TOOL_CALL_NOT_FOUND");
    assert_eq!(get(&s, "/api/cos/tools/calls/x-2", &[]).await.status, 200);
    assert_eq!(s.executions(), 2);
}
