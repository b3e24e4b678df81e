//! `--watch` reloads `[server]` with the documents: limits, upstream and
//! auth apply at once; a bad new configuration keeps the old one and names
//! the key; `listen` and `data_dir` are reported as needing a restart. And
//! the 304 answered before routing equals the router's.

use crate::util::*;
use axum::body::Body;
use axum::http::Request;
use portolan::serve::settings::ServerSettings;
use portolan::serve::{Derived, Rederive, fast_not_modified, watch};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn search(id: &str) -> Value {
    json!({"type": "portos_tool_call", "requestId": id, "name": "catalog.search", "arguments": {"query": "berths"}})
}

async fn call_status(s: &portolan::serve::AppState, id: &str) -> u16 {
    post_json(s, "/api/cos/tools/call", &search(id), &[])
        .await
        .status
        .as_u16()
}

async fn create_available(s: &portolan::serve::AppState) -> Value {
    let v = get(s, "/api/cos/tools", &[]).await.json();
    v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "berths.create")
        .unwrap()["availableInScope"]
        .clone()
}

#[tokio::test]
async fn a_reload_applies_limits_and_upstream_at_once() {
    let s = state_with(settings(
        "[server.limits]\nread_per_minute = 1\nread_burst = 1\n",
    ));
    assert_eq!(call_status(&s, "r-1").await, 200);
    assert_eq!(call_status(&s, "r-2").await, 429);
    assert_eq!(create_available(&s).await, false);

    let r = s
        .reload(
            derived(harbor()),
            settings(
                "[server]\nupstream = \"http://127.0.0.1:9\"\n[server.limits]\nread_per_minute = 600\nread_burst = 100\n",
            ),
        )
        .unwrap();
    assert_eq!(r.generation, 2);
    assert!(r.settings_changed && r.needs_restart.is_empty(), "{r:?}");
    assert_eq!(call_status(&s, "r-3").await, 200);
    assert_eq!(create_available(&s).await, true);
    assert_eq!(
        s.settings().settings.upstream.as_deref(),
        Some("http://127.0.0.1:9")
    );
}

#[tokio::test]
async fn unchanged_limits_keep_their_buckets_across_a_reload() {
    let text = "[server.limits]\nread_per_minute = 1\nread_burst = 1\n";
    let s = state_with(settings(text));
    assert_eq!(call_status(&s, "k-1").await, 200);
    // Another key changes; the spent bucket must not be refilled by the reload.
    let r = s
        .reload(
            derived(harbor()),
            settings(&format!("{text}[server.retention]\nmax_results = 5\n")),
        )
        .unwrap();
    assert!(r.settings_changed);
    assert_eq!(call_status(&s, "k-2").await, 429);
}

#[tokio::test]
async fn a_reload_that_fails_keeps_the_old_set_and_names_the_key() {
    let s = state();
    let dir = tempfile::tempdir().unwrap();
    let pem = dir.path().join("key.pem");
    std::fs::write(&pem, "not a key").unwrap();
    let bad = settings(&format!(
        "[server.auth]\nmode = \"jwt\"\nalgorithms = [\"RS256\"]\npublic_key_file = \"{}\"\n",
        pem.display()
    ));
    let e = s.reload(derived(harbor()), bad).unwrap_err();
    assert!(e.contains("auth.public_key_file"), "{e}");
    assert_eq!(s.current().generation, 1);
    // Still local mode: an anonymous read call is answered, not 401.
    assert_eq!(call_status(&s, "f-1").await, 200);

    // A registry the new settings refuse (a tool declaring the new tenant
    // field) is refused as a whole too.
    let e = s
        .reload(
            derived(harbor()),
            settings("[server.auth]\ntenant_field = \"harbor\"\n"),
        )
        .unwrap_err();
    assert!(e.contains("harbor"), "{e}");
    assert_eq!(s.settings().settings.tenant_field, "tenant");
}

#[tokio::test]
async fn listen_and_data_dir_changes_are_reported_as_needing_a_restart() {
    let s = state();
    let r = s
        .reload(
            derived(harbor()),
            settings("[server]\nlisten = \"127.0.0.1:6000\"\ndata_dir = \"/tmp/elsewhere\"\n"),
        )
        .unwrap();
    assert_eq!(r.needs_restart.len(), 2, "{r:?}");
    assert!(r.needs_restart[0].starts_with("listen (127.0.0.1:5555 -> 127.0.0.1:6000)"));
    assert!(r.needs_restart[1].starts_with("data_dir (default -> /tmp/elsewhere)"));
    // Unchanged settings: nothing to say.
    let r = s
        .reload(
            derived(harbor()),
            settings("[server]\nlisten = \"127.0.0.1:6000\"\ndata_dir = \"/tmp/elsewhere\"\n"),
        )
        .unwrap();
    assert!(!r.settings_changed && r.needs_restart.is_empty(), "{r:?}");
}

/// The watch thread on a real folder: an edit to `portolan.toml` that does
/// not parse is logged and kept as the last error, the old set stays; a
/// good edit applies.
#[test]
fn watch_reloads_server_settings_and_keeps_the_old_on_a_bad_edit() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let config = root.join("portolan.toml");
    std::fs::write(&config, "").unwrap();
    let s = state();
    let file = config.clone();
    let derive: Rederive = Arc::new(move || -> Result<(Derived, ServerSettings), String> {
        let text = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
        let t: toml::Table = toml::from_str(&text).map_err(|e| e.to_string())?;
        let settings = ServerSettings::from_toml(t.get("server").cloned(), &|_| None)?;
        Ok((derived(harbor()), settings))
    });
    watch(
        s.clone(),
        root.clone(),
        Some(config.clone()),
        vec![],
        derive,
    )
    .unwrap();
    let wait = |what: &str, done: &dyn Fn() -> bool| {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(30), "{what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };

    std::fs::write(&config, "[server.limits]\nread_burst = 0\n").unwrap();
    wait("the bad edit is reported", &|| {
        s.last_reload_error().is_some()
    });
    let e = s.last_reload_error().unwrap();
    assert!(e.contains("limits.read_burst"), "{e}");
    assert_eq!(s.current().generation, 1);

    std::fs::write(
        &config,
        "[server.limits]\nread_per_minute = 1\nread_burst = 1\n",
    )
    .unwrap();
    wait("the good edit applies", &|| s.current().generation == 2);
    assert_eq!(s.last_reload_error(), None);
    assert_eq!(s.settings().settings.read_limit, (1, 1));
    rt.block_on(async {
        assert_eq!(call_status(&s, "w-1").await, 200);
        assert_eq!(call_status(&s, "w-2").await, 429);
    });
}

#[tokio::test]
async fn the_304_before_routing_equals_the_routers() {
    let s = state();
    let url = "/api/api-docs/catalog.json";
    for accept in ["", "gzip", "br, gzip"] {
        let first = get(&s, url, &[("accept-encoding", accept)]).await;
        let etag = first.header("etag").unwrap();
        let req = |method: &str, uri: &str, inm: &str| {
            Request::builder()
                .method(method)
                .uri(uri)
                .header("if-none-match", inm)
                .header("accept-encoding", accept)
                .body(Body::empty())
                .unwrap()
        };
        let fast = fast_not_modified(&s, &req("GET", url, &etag)).expect("answered early");
        let mut routed = send(&s, req("GET", url, &etag)).await;
        assert_eq!(routed.status, 304);
        assert_eq!(fast.status(), routed.status);
        // axum adds `content-length: 0` to a 304; hyper sends none on either path.
        routed.headers.remove("content-length");
        assert_eq!(fast.headers(), &routed.headers);
        // Everything else goes to the router.
        assert!(fast_not_modified(&s, &req("GET", url, "\"other\"")).is_none());
        assert!(fast_not_modified(&s, &req("HEAD", url, &etag)).is_none());
        assert!(fast_not_modified(&s, &req("GET", "/api/api-docs/index.html", "*")).is_none());
        assert!(fast_not_modified(&s, &req("GET", "/api/cos/tools", "*")).is_none());
    }
}
