//! `GET /api/cos/tools`: strict query, the four formats, grants, ETag.

use crate::util::*;
use serde_json::{Value, json};

fn names(v: &Value, key: &str) -> Vec<String> {
    v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.pointer(key).unwrap().as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn portos_format_lists_builtins_and_the_application_tools() {
    let s = state();
    let v = get(&s, "/api/cos/tools", &[]).await.json();
    assert_eq!(v["type"], "portos_tool_catalog");
    assert_eq!(v["scope"], "all");
    let n = names(&v, "/name");
    assert_eq!(
        &n[..3],
        ["catalog.search", "catalog.describe", "events.search"]
    );
    assert!(n.contains(&"berths.create".to_string()));
    let search = &v["tools"][0];
    assert_eq!(search["aliases"], json!(["catalog_lookup"]));
    assert_eq!(search["policy"]["sideEffect"], "read");
    assert_eq!(
        search["policy"]["requiredCapabilities"],
        json!(["readPortos"])
    );
    assert_eq!(search["availableInScope"], true);
    assert_eq!(search["granted"], Value::Null);
    assert!(search.get("adapter").is_none());
    // No upstream: HTTP tools are listed, unavailable, with a reason.
    let create = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "berths.create")
        .unwrap();
    assert_eq!(create["availableInScope"], false);
    assert!(
        create["unavailableReason"]
            .as_str()
            .unwrap()
            .contains("upstream")
    );
    assert_eq!(create["policy"]["confirmation"], "capability-grant");
    let total = v["stats"]["total"].as_u64().unwrap();
    assert_eq!(total as usize, n.len());
    assert_eq!(
        v["stats"]["read"].as_u64().unwrap() + v["stats"]["write"].as_u64().unwrap(),
        total
    );
}

#[tokio::test]
async fn scope_filters_and_grants_decide_provider_formats() {
    let s = state();
    let v = get(&s, "/api/cos/tools?scope=agent", &[]).await.json();
    // berths.create is ui-only.
    assert!(!names(&v, "/name").contains(&"berths.create".to_string()));
    let search = &v["tools"][0];
    assert_eq!(search["granted"], true);
    let write = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "bookings.create")
        .unwrap();
    assert_eq!(write["granted"], false);
    // openai drops granted == false.
    let o = get(&s, "/api/cos/tools?scope=agent&format=openai", &[])
        .await
        .json();
    assert_eq!(o["type"], "openai_tool_catalog");
    assert!(o.get("stats").is_none());
    let on = names(&o, "/function/name");
    assert!(on.contains(&"catalog_search".to_string()));
    assert!(!on.contains(&"bookings_create".to_string()));
    assert_eq!(o["tools"][0]["type"], "function");
    assert!(o["tools"][0]["function"]["parameters"]["properties"].is_object());

    let a = get(&s, "/api/cos/tools?format=anthropic", &[]).await.json();
    assert_eq!(a["type"], "anthropic_tool_catalog");
    assert_eq!(a["tools"][0]["name"], "catalog_search");
    assert!(a["tools"][0]["input_schema"].is_object());

    let m = get(&s, "/api/cos/tools?format=mcp&scope=ui", &[])
        .await
        .json();
    assert_eq!(m["type"], "mcp_tool_catalog");
    let t = &m["tools"][0];
    assert!(t["inputSchema"].is_object() && t["outputSchema"].is_object());
    assert_eq!(
        t["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
}

#[tokio::test]
async fn the_query_is_validated_strictly() {
    let s = state();
    for q in [
        "?bogus=1",
        "?scope=root",
        "?format=xml",
        "?scope=ui&scope=agent",
    ] {
        let a = get(&s, &format!("/api/cos/tools{q}"), &[]).await;
        let v = a.assert_error(400, "VALIDATION_ERROR");
        assert!(v["context"]["details"][0]["path"].is_string(), "{q}: {v}");
    }
    let long = "x".repeat(501);
    get(&s, &format!("/api/cos/tools?intent={long}"), &[])
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let ok = get(
        &s,
        &format!("/api/cos/tools?intent=%20{}%20", "x".repeat(500)),
        &[],
    )
    .await;
    assert_eq!(ok.status, 200);
}

#[tokio::test]
async fn catalog_etag_and_304() {
    let s = state();
    let a = get(&s, "/api/cos/tools?scope=ui", &[]).await;
    assert_eq!(a.header("cache-control").unwrap(), "private, no-cache");
    let etag = a.header("etag").unwrap();
    let b = get(
        &s,
        "/api/cos/tools?scope=ui",
        &[("if-none-match", &format!("W/{etag}"))],
    )
    .await;
    assert_eq!(b.status, 304);
    let c = get(
        &s,
        "/api/cos/tools?scope=agent",
        &[("if-none-match", &etag)],
    )
    .await;
    assert_eq!(c.status, 200);
}

#[tokio::test]
async fn a_tool_that_declares_the_tenant_field_fails_start_up() {
    let mut docs = harbor();
    let mut tools: Value =
        serde_json::from_slice(&docs.get("tools.min.json").unwrap().bytes).unwrap();
    tools["tools"][0]["input_schema"]["properties"]["tenant"] = json!({"type": "string"});
    replace(&mut docs, "tools.min.json", &tools);
    let err = portolan::serve::AppState::new(
        derived(docs),
        Default::default(),
        std::sync::Arc::new(portolan::serve::store::SqliteStore::memory().unwrap()),
    )
    .err()
    .expect("start-up must fail");
    assert!(
        err.contains("berths.search") && err.contains("`tenant`"),
        "{err}"
    );
}
