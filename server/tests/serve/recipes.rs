//! Saved read recipes (`[[recipes]]`): start-up checks naming the recipe
//! and step, the `recipe` block in every catalog format, and calls that run
//! each step through the registry path.

use crate::jwt::{jwt_settings, token};
use crate::util::*;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use portolan::serve::settings::ServerSettings;
use portolan::serve::store::SqliteStore;
use portolan::serve::{AppState, recipes};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;

const NAME: &str = "recipe.berths-overview";

/// Search for operations, then describe one; `limit` is a constant.
const OVERVIEW: &str = r#"
[[recipes]]
name = "recipe.berths-overview"
description = "Find berth operations and describe one."
input_schema = { type = "object", properties = { query = { type = "string", minLength = 1 }, path = { type = "string" } }, required = ["query", "path"], additionalProperties = false }
[[recipes.steps]]
tool = "catalog.search"
arguments = { query = { pointer = "/query" }, limit = { value = 3 } }
[[recipes.steps]]
tool = "catalog.describe"
arguments = { method = { value = "GET" }, path = { pointer = "/path" } }
"#;

fn recipe_settings(text: &str) -> Result<ServerSettings, String> {
    let t: toml::Table = toml::from_str(text).unwrap();
    let mut s = ServerSettings::from_toml(t.get("server").cloned(), &|_| None)?;
    s.recipes = recipes::parse(t.get("recipes").cloned())?;
    Ok(s)
}

fn start(text: &str) -> Result<AppState, String> {
    AppState::new(
        derived(harbor()),
        recipe_settings(text)?,
        Arc::new(SqliteStore::memory().unwrap()),
    )
}

/// The start-up error for a configuration that must be refused.
fn refused(text: &str) -> String {
    match start(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

fn admin_local() -> String {
    format!("[server.auth]\nlocal_grants = [\"readPortos\", \"admin\"]\n{OVERVIEW}")
}

fn find<'a>(catalog: &'a Value, key: &str, name: &str) -> &'a Value {
    catalog["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t[key] == name)
        .unwrap_or_else(|| panic!("{name} not in {catalog}"))
}

async fn call(s: &AppState, id: &str, args: Value) -> Answer {
    post_json(
        s,
        "/api/cos/tools/call",
        &json!({"requestId": id, "name": NAME, "arguments": args}),
        &[],
    )
    .await
}

#[tokio::test]
async fn a_recipe_is_listed_in_every_catalog_format_with_its_block() {
    let s = start(OVERVIEW).unwrap();
    let portos = get(&s, "/api/cos/tools?scope=agent", &[]).await.json();
    let r = find(&portos, "name", NAME);
    let revision = r["recipe"]["revision"].as_str().unwrap().to_string();
    assert_eq!(revision.len(), 16);
    assert!(revision.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(
        r["recipe"]["underlyingTools"],
        json!(["catalog.search", "catalog.describe"])
    );
    assert!(r["recipe"].get("disabledReason").is_none(), "{r}");
    assert_eq!(r["policy"]["sideEffect"], "read");
    assert_eq!(r["policy"]["requiredCapabilities"], json!(["readPortos"]));
    assert_eq!(r["input_schema"]["required"], json!(["query", "path"]));
    assert_eq!(r["granted"], true);
    // Ordinary tools carry no block.
    assert!(
        find(&portos, "name", "catalog.search")
            .get("recipe")
            .is_none()
    );

    let openai = get(&s, "/api/cos/tools?scope=agent&format=openai", &[])
        .await
        .json();
    let o = openai["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "recipe_berths_overview")
        .expect("openai lists the recipe");
    assert!(
        o["function"]["description"]
            .as_str()
            .unwrap()
            .contains(&revision)
    );
    let anthropic = get(&s, "/api/cos/tools?scope=agent&format=anthropic", &[])
        .await
        .json();
    let a = find(&anthropic, "name", "recipe_berths_overview");
    assert!(a["description"].as_str().unwrap().contains(&revision));
    let mcp = get(&s, "/api/cos/tools?scope=agent&format=mcp", &[])
        .await
        .json();
    let m = find(&mcp, "name", "recipe_berths_overview");
    assert_eq!(m["_meta"]["recipe"], r["recipe"]);
    assert_eq!(m["annotations"]["readOnlyHint"], true);

    // MCP tools/list (loopback agent) lists it with the same block.
    let mut req = Request::builder()
        .method("POST")
        .uri("/api/agent-context/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string(),
        ))
        .unwrap();
    req.extensions_mut().insert(ConnectInfo(
        "127.0.0.1:50000".parse::<SocketAddr>().unwrap(),
    ));
    let listed = send(&s, req).await.json();
    let l = find(&listed["result"], "name", "recipe_berths_overview");
    assert_eq!(l["_meta"]["recipe"]["revision"], json!(revision));
}

#[tokio::test]
async fn v1_tools_lists_a_recipe_with_its_block() {
    let s = start(&format!("{}{OVERVIEW}", jwt_settings(""))).unwrap();
    let t = format!("Bearer {}", token(json!({})));
    let v = get(&s, "/v1/tools", &[("authorization", &t)]).await.json();
    let r = find(&v, "name", NAME);
    assert_eq!(r["kind"], "read");
    assert_eq!(
        r["recipe"]["underlyingTools"],
        json!(["catalog.search", "catalog.describe"])
    );
    assert!(r["recipe"]["revision"].is_string());
}

#[test]
fn the_revision_is_a_hash_of_the_definition() {
    let revision = |text: &str| {
        let s = start(text).unwrap();
        let set = s.current();
        let t = set.registry.resolve(NAME).unwrap();
        set.registry.recipe_block(t, "all", &[]).unwrap()["revision"].clone()
    };
    let a = revision(OVERVIEW);
    assert_eq!(a, revision(OVERVIEW));
    assert_ne!(a, revision(&OVERVIEW.replace("value = 3", "value = 4")));
    assert_ne!(
        a,
        revision(&OVERVIEW.replace("describe one", "describe it"))
    );
}

#[tokio::test]
async fn a_recipe_call_runs_each_step_through_the_registry_and_replays_whole() {
    let s = start(&admin_local()).unwrap();
    let args = json!({"query": "berths", "path": "/api/berths"});
    let first = call(&s, "r-1", args.clone()).await;
    assert_eq!(
        first.status,
        200,
        "{}",
        String::from_utf8_lossy(&first.body)
    );
    let f = first.json();
    assert_eq!(f["state"], "completed");
    assert_eq!(f["name"], NAME);
    let steps = f["result"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["step"], 1);
    assert_eq!(steps[0]["tool"], "catalog.search");
    assert_eq!(steps[0]["requestId"], "r-1#1");
    assert_eq!(steps[0]["state"], "completed");
    let hits = steps[0]["result"]["hits"].as_array().unwrap();
    assert!(
        !hits.is_empty() && hits.len() <= 3,
        "the constant limit applies: {f}"
    );
    assert_eq!(steps[1]["tool"], "catalog.describe");
    assert_eq!(steps[1]["requestId"], "r-1#2");
    assert_eq!(steps[1]["state"], "completed");
    assert_eq!(s.executions(), 3, "the recipe and its two steps");

    let again = call(&s, "r-1", args.clone()).await;
    assert_eq!(again.status, 200);
    let g = again.json();
    assert_eq!(g["duplicate"], true);
    assert_eq!(g["result"], f["result"]);
    assert_eq!(s.executions(), 3, "a replay runs no step again");
    call(&s, "r-1", json!({"query": "other", "path": "/api/berths"}))
        .await
        .assert_error(409, "TOOL_IDEMPOTENCY_CONFLICT");

    let audit = get(&s, "/api/cos/tools/audit?limit=100", &[]).await.json();
    let rows: Vec<(String, String, String)> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["requestId"].as_str().unwrap().to_string(),
                e["tool"].as_str().unwrap().to_string(),
                e["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let row = |id: &str, tool: &str, outcome: &str| (id.into(), tool.into(), outcome.into());
    assert_eq!(
        rows,
        vec![
            row("r-1#1", "catalog.search", "completed"),
            row("r-1#2", "catalog.describe", "completed"),
            row("r-1", NAME, "completed"),
            row("r-1", NAME, "replayed"),
            row("r-1", NAME, "TOOL_IDEMPOTENCY_CONFLICT"),
        ]
    );
}

#[tokio::test]
async fn a_failing_step_fails_the_recipe_with_the_steps_so_far() {
    let s = start(OVERVIEW).unwrap();
    let a = call(
        &s,
        "r-2",
        json!({"query": "berths", "path": "/no/such/path"}),
    )
    .await;
    assert_eq!(a.status, 422, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!(v["state"], "failed");
    assert_eq!(v["code"], "RECIPE_STEP_FAILED");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("step 2 (catalog.describe)"),
        "{v}"
    );
    let steps = v["result"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["state"], "completed");
    assert_eq!(steps[1]["state"], "failed");
}

#[tokio::test]
async fn recipe_input_is_validated_before_any_step_runs() {
    let s = start(OVERVIEW).unwrap();
    call(&s, "r-3", json!({"query": "berths"}))
        .await
        .assert_error(400, "TOOL_VALIDATION_ERROR");
    call(
        &s,
        "r-4",
        json!({"query": "b", "path": "/x", "tenant": "t-2"}),
    )
    .await
    .assert_error(400, "TOOL_VALIDATION_ERROR");
    assert_eq!(s.executions(), 0);
}

#[tokio::test]
async fn disabled_reason_names_the_step_not_granted_or_unavailable() {
    // No grants: the agent-scope catalog says which step is not granted.
    let s = start(&format!("[server.auth]\nlocal_grants = []\n{OVERVIEW}")).unwrap();
    let c = get(&s, "/api/cos/tools?scope=agent", &[]).await.json();
    let r = find(&c, "name", NAME);
    assert_eq!(r["granted"], false);
    let why = r["recipe"]["disabledReason"].as_str().unwrap();
    assert!(
        why.starts_with("step 1: catalog.search needs the grant readPortos"),
        "{why}"
    );

    // A step on an HTTP tool without an upstream: unavailable, and said so.
    let text = OVERVIEW.replace(
        "tool = \"catalog.describe\"\narguments = { method = { value = \"GET\" }, path = { pointer = \"/path\" } }",
        "tool = \"berths.get\"\narguments = { berthId = { pointer = \"/path\" } }",
    );
    let s = start(&text).unwrap();
    let c = get(&s, "/api/cos/tools?scope=agent", &[]).await.json();
    let r = find(&c, "name", NAME);
    assert_eq!(r["availableInScope"], false);
    let why = r["recipe"]["disabledReason"].as_str().unwrap();
    assert!(
        why.starts_with("step 2: berths.get cannot be called here: no upstream"),
        "{why}"
    );
    call(&s, "r-5", json!({"query": "berths", "path": "b-1"}))
        .await
        .assert_error(503, "TOOL_UNAVAILABLE");
    assert_eq!(s.executions(), 0);
}

/// A recipe with these steps (TOML `[[recipes.steps]]` bodies).
fn with_steps(name: &str, steps: &[&str]) -> String {
    let mut t = format!(
        "[[recipes]]\nname = \"{name}\"\ninput_schema = {{ type = \"object\", properties = {{ query = {{ type = \"string\" }} }} }}\n"
    );
    for s in steps {
        t.push_str(&format!("[[recipes.steps]]\n{s}\n"));
    }
    t
}

const SEARCH: &str = "tool = \"catalog.search\"\narguments = { query = { pointer = \"/query\" } }";

#[test]
fn start_up_refuses_a_write_step() {
    let e = refused(&with_steps(
        "recipe.w",
        &[SEARCH, "tool = \"berths.create\""],
    ));
    assert!(e.contains("`recipe.w` step 2 (`berths.create`)"), "{e}");
    assert!(e.contains("read-only"), "{e}");
}

#[test]
fn start_up_refuses_a_recipe_calling_a_recipe() {
    let two = format!(
        "{}{}",
        with_steps("recipe.a", &[SEARCH, "tool = \"recipe.b\""]),
        with_steps("recipe.b", &[SEARCH])
    );
    let e = refused(&two);
    assert!(e.contains("`recipe.a` step 2 (`recipe.b`)"), "{e}");
    assert!(e.contains("cycles"), "{e}");
    let own = refused(&with_steps("recipe.self", &["tool = \"recipe.self\""]));
    assert!(own.contains("`recipe.self` step 1"), "{own}");
}

#[test]
fn start_up_refuses_more_than_five_steps() {
    let e = refused(&with_steps("recipe.long", &[SEARCH; 6]));
    assert!(e.contains("`recipe.long` step 6"), "{e}");
    assert!(e.contains("at most 5 steps"), "{e}");
    assert!(start(&with_steps("recipe.five", &[SEARCH; 5])).is_ok());
}

#[test]
fn start_up_refuses_an_unknown_tool() {
    let e = refused(&with_steps(
        "recipe.u",
        &[SEARCH, "tool = \"no.such.tool\""],
    ));
    assert!(
        e.contains("`recipe.u` step 2 (`no.such.tool`): no tool has this name"),
        "{e}"
    );
}

#[test]
fn start_up_refuses_bad_pointers_and_arguments() {
    let cases = [
        (
            "tool = \"catalog.search\"\narguments = { query = { pointer = \"/missing\" } }",
            "names nothing",
        ),
        (
            "tool = \"catalog.search\"\narguments = { query = { pointer = \"query\" } }",
            "starting with `/`",
        ),
        (
            "tool = \"catalog.search\"\narguments = { query = { pointer = \"/q~2\" } }",
            "`~` must be followed",
        ),
        (
            "tool = \"catalog.search\"\narguments = { query = { pointer = \"/query\", value = \"x\" } }",
            "exactly one of",
        ),
        (
            "tool = \"catalog.search\"\narguments = { words = { pointer = \"/query\" } }",
            "takes no argument `words`",
        ),
    ];
    for (step, why) in cases {
        let e = refused(&with_steps("recipe.p", &[SEARCH, step]));
        assert!(e.contains("`recipe.p` step 2"), "{step}: {e}");
        assert!(e.contains(why), "{step}: {e}");
    }
}

#[test]
fn start_up_refuses_names_taken_and_tenant_inputs() {
    let e = refused(&with_steps("catalog.search", &[SEARCH]));
    assert!(e.contains("already the tool"), "{e}");
    let tenant = with_steps("recipe.t", &[SEARCH]).replace(
        "properties = { query",
        "properties = { tenant = { type = \"string\" }, query",
    );
    let e = refused(&tenant);
    assert!(e.contains("`recipe.t`") && e.contains("tenant"), "{e}");
    let e = refused(&format!(
        "{}{}",
        with_steps("recipe.d", &[SEARCH]),
        with_steps("recipe.d", &[SEARCH])
    ));
    assert!(e.contains("used by another recipe"), "{e}");
}

#[tokio::test]
async fn a_reload_with_a_bad_recipe_keeps_the_previous_set() {
    let s = start(OVERVIEW).unwrap();
    let before = s.current().generation;
    let bad = recipe_settings(&with_steps("recipe.w", &["tool = \"berths.create\""])).unwrap();
    let e = s.reload(derived(harbor()), bad).unwrap_err();
    assert!(e.contains("`recipe.w` step 1"), "{e}");
    assert_eq!(s.current().generation, before);
    assert!(s.current().registry.resolve(NAME).is_some());
    // A good one applies: the recipe list follows the file.
    let good = recipe_settings(&with_steps("recipe.new", &[SEARCH])).unwrap();
    s.reload(derived(harbor()), good).unwrap();
    assert!(s.current().registry.resolve("recipe.new").is_some());
    assert!(s.current().registry.resolve(NAME).is_none());
}

#[tokio::test]
async fn mcp_and_v1_calls_of_a_recipe_take_the_same_path() {
    let args = json!({"query": "berths", "path": "/api/berths"});
    // MCP: the request id is agent-mcp:KEY and the steps hang under it.
    let s = start(OVERVIEW).unwrap();
    let mut req = Request::builder()
        .method("POST")
        .uri("/api/agent-context/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("idempotency-key", "m-1")
        .body(Body::from(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "recipe_berths_overview", "arguments": args}}).to_string(),
        ))
        .unwrap();
    req.extensions_mut().insert(ConnectInfo(
        "127.0.0.1:50000".parse::<SocketAddr>().unwrap(),
    ));
    let r = send(&s, req).await.json();
    assert_eq!(r["result"]["isError"], false, "{r}");
    let content = &r["result"]["structuredContent"];
    assert_eq!(content["requestId"], "agent-mcp:m-1");
    assert_eq!(
        content["result"]["steps"][1]["requestId"],
        "agent-mcp:m-1#2"
    );
    assert_eq!(s.executions(), 3);

    // /v1: the body is the recipe's input; the steps run under v1:KEY#N.
    let s = start(&format!("{}{OVERVIEW}", jwt_settings(""))).unwrap();
    let t = format!("Bearer {}", token(json!({})));
    let a = post_json(
        &s,
        &format!("/v1/tools/{NAME}"),
        &args,
        &[("authorization", &t), ("idempotency-key", "k-1")],
    )
    .await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!(v["result"]["steps"][0]["requestId"], "v1:k-1#1");
    assert_eq!(v["result"]["steps"][0]["state"], "completed");
    assert_eq!(s.executions(), 3);
}
