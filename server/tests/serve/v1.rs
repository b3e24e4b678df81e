//! The platform tools API: `GET /v1/tools` and `POST /v1/tools/{name}`
//! (bearer JWT only, tenant from the token, the registry's call path).

use crate::jwt::{jwt_settings, token};
use crate::util::*;
use portolan::serve::AppState;
use serde_json::{Value, json};

fn jwt_state() -> AppState {
    state_with(settings(&jwt_settings("")))
}

fn bearer(t: &str) -> String {
    format!("Bearer {t}")
}

/// The audit rows, read with an admin token.
async fn audit(s: &AppState) -> Vec<Value> {
    let admin = bearer(&token(json!({"sub": "auditor", "capabilities": ["admin"]})));
    let a = get(
        s,
        "/api/cos/tools/audit?limit=1000",
        &[("authorization", &admin)],
    )
    .await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    a.json()["entries"].as_array().unwrap().clone()
}

#[tokio::test]
async fn local_mode_answers_401_on_every_v1_route() {
    let s = state();
    let a = get(&s, "/v1/tools", &[]).await;
    let v = a.assert_error(401, "UNAUTHORIZED");
    assert!(
        v["error"].as_str().unwrap().contains("mode = \"jwt\""),
        "{v}"
    );
    post_json(
        &s,
        "/v1/tools/catalog.search",
        &json!({"query": "berths"}),
        &[],
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    assert_eq!(s.executions(), 0);
}

#[tokio::test]
async fn a_missing_or_bad_token_is_401() {
    let s = jwt_state();
    get(&s, "/v1/tools", &[])
        .await
        .assert_error(401, "UNAUTHORIZED");
    post_json(
        &s,
        "/v1/tools/catalog.search",
        &json!({"query": "berths"}),
        &[("authorization", "Bearer not-a-token")],
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    assert_eq!(s.executions(), 0);
}

#[tokio::test]
async fn v1_lists_name_kind_role_and_schema_of_the_tokens_scope() {
    let s = jwt_state();
    let t = bearer(&token(json!({})));
    let a = get(&s, "/v1/tools", &[("authorization", &t)]).await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!(v["scope"], "ui");
    let tools = v["tools"].as_array().unwrap();
    let search = tools
        .iter()
        .find(|t| t["name"] == "catalog.search")
        .expect("catalog.search listed");
    assert_eq!(search["kind"], "read");
    assert_eq!(search["role"], "readPortos");
    assert_eq!(search["granted"], true);
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));
    assert_eq!(search["inputSchema"]["additionalProperties"], false);
    // harbor's HTTP tools: write ones are listed as such, unavailable without an upstream.
    let write = tools
        .iter()
        .find(|t| t["kind"] == "write")
        .expect("a write tool");
    assert_eq!(write["role"], "writePortos");
    assert_eq!(write["available"], false);
    assert!(write["unavailableReason"].is_string());
    // Only the token's scope: berths.availability is an agent-scope tool.
    assert!(!tools.iter().any(|t| t["name"] == "berths.availability"));
    // Same set as the registry's catalog for scope ui.
    let catalog = get(&s, "/api/cos/tools?scope=ui", &[("authorization", &t)])
        .await
        .json();
    let names = |l: &Value, k: &str| -> Vec<String> {
        l.as_array()
            .unwrap()
            .iter()
            .map(|t| t[k].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&v["tools"], "name"), names(&catalog["tools"], "name"));
}

#[tokio::test]
async fn v1_call_is_idempotent_under_its_key_and_audited_with_the_tokens_tenant() {
    let s = jwt_state();
    let t = bearer(&token(json!({})));
    let h = [
        ("authorization", t.as_str()),
        ("idempotency-key", "berths-1"),
    ];
    let input = json!({"query": "berths", "limit": 2});
    let first = post_json(&s, "/v1/tools/catalog.search", &input, &h).await;
    assert_eq!(
        first.status,
        200,
        "{}",
        String::from_utf8_lossy(&first.body)
    );
    let f = first.json();
    assert_eq!(f["type"], "portos_tool_result");
    assert_eq!(f["requestId"], "v1:berths-1");
    assert_eq!(f["state"], "completed");
    assert_eq!(f["duplicate"], false);
    assert!(!f["result"]["hits"].as_array().unwrap().is_empty(), "{f}");
    assert_eq!(s.executions(), 1);

    let again = post_json(&s, "/v1/tools/catalog.search", &input, &h).await;
    assert_eq!(again.status, 200);
    let g = again.json();
    assert_eq!(g["duplicate"], true);
    assert_eq!(g["result"], f["result"]);
    assert_eq!(s.executions(), 1, "a replay does not run the tool again");

    post_json(
        &s,
        "/v1/tools/catalog.search",
        &json!({"query": "other"}),
        &h,
    )
    .await
    .assert_error(409, "TOOL_IDEMPOTENCY_CONFLICT");

    // The retained result is the registry's, under the same id.
    let kept = get(
        &s,
        "/api/cos/tools/calls/v1:berths-1",
        &[("authorization", &t)],
    )
    .await;
    assert_eq!(kept.status, 200);
    assert_eq!(kept.json()["result"], f["result"]);

    let rows = audit(&s).await;
    let mine: Vec<&Value> = rows
        .iter()
        .filter(|r| r["requestId"] == "v1:berths-1")
        .collect();
    assert_eq!(mine.len(), 3, "{rows:?}");
    assert_eq!(mine[0]["outcome"], "completed");
    assert_eq!(mine[0]["principal"], "alice");
    assert_eq!(mine[0]["tenant"], "t-1");
    assert_eq!(mine[0]["tool"], "catalog.search");
    assert_eq!(
        mine[0]["arguments"],
        json!({"query": "string", "limit": "integer"})
    );
    assert_eq!(mine[1]["outcome"], "replayed");
    assert_eq!(mine[2]["outcome"], "TOOL_IDEMPOTENCY_CONFLICT");
}

#[tokio::test]
async fn v1_refuses_a_tenant_in_the_body_and_bad_input_with_the_envelope() {
    let s = jwt_state();
    let t = bearer(&token(json!({})));
    let h = [("authorization", t.as_str())];
    let v = post_json(
        &s,
        "/v1/tools/catalog.search",
        &json!({"query": "berths", "tenant": "t-2"}),
        &h,
    )
    .await
    .assert_error(400, "TOOL_VALIDATION_ERROR");
    let paths: Vec<&Value> = v["context"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["path"])
        .collect();
    assert!(paths.contains(&&json!("/tenant")), "{v}");
    post_json(&s, "/v1/tools/no.such.tool", &json!({}), &h)
        .await
        .assert_error(404, "TOOL_NOT_FOUND");
    post_json(&s, "/v1/tools/catalog.search", &json!(["query"]), &h)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    post_json(
        &s,
        "/v1/tools/catalog.search",
        &json!({"query": "x"}),
        &[
            ("authorization", t.as_str()),
            ("idempotency-key", "bad key!"),
        ],
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    assert_eq!(s.executions(), 0);
    // Refusals are audited like the registry's own.
    let rows = audit(&s).await;
    assert!(
        rows.iter()
            .any(|r| r["outcome"] == "TOOL_VALIDATION_ERROR" && r["principal"] == "alice"),
        "{rows:?}"
    );
}

#[tokio::test]
async fn v1_write_tools_keep_the_registry_checks() {
    // A ui-scope token may call a write tool; without an upstream it is 503,
    // the same answer as /api/cos/tools/call.
    let s = jwt_state();
    let t = bearer(&token(json!({})));
    post_json(
        &s,
        "/v1/tools/bookings.create",
        &json!({"berthId": "6f1c1b1e-2b4c-4c1a-9a7e-1b2c3d4e5f60", "shipId": "s-1", "arrival": "2026-01-01T10:00:00Z", "nights": 2}),
        &[("authorization", &t)],
    )
    .await
    .assert_error(503, "TOOL_UNAVAILABLE");
    // An agent token without grants is refused by capability.
    let agent = bearer(&token(json!({"scope": "agent", "capabilities": []})));
    post_json(
        &s,
        "/v1/tools/catalog.search",
        &json!({"query": "berths"}),
        &[("authorization", &agent)],
    )
    .await
    .assert_error(403, "TOOL_CAPABILITY_DENIED");
}
