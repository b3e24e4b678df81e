//! Documents at PortOS's URLs: ETag, 304, encodings, redirects, health.

use crate::util::*;
use std::io::Read;

const URLS: &[(&str, &str)] = &[
    ("/api/api-docs/catalog.json", "catalog.json"),
    (
        "/api/api-docs/internal/openapi.json",
        "internal/openapi.json",
    ),
    ("/api/api-docs/openapi.json", "openapi.json"),
    ("/api/api-docs/events.json", "events.json"),
    ("/api/api-docs/asyncapi.json", "asyncapi.json"),
    ("/api/api-docs/tools.min.json", "tools.min.json"),
];

#[tokio::test]
async fn every_document_is_served_with_its_bytes_and_a_strong_etag() {
    let s = state();
    let docs = harbor();
    for (url, path) in URLS {
        let a = get(&s, url, &[]).await;
        assert_eq!(a.status, 200, "{url}");
        assert_eq!(a.body, docs.get(path).unwrap().bytes, "{url}");
        assert_eq!(a.header("content-type").unwrap(), "application/json");
        assert_eq!(a.header("cache-control").unwrap(), "no-cache");
        assert_eq!(a.header("vary").unwrap(), "Accept-Encoding");
        let etag = a.header("etag").unwrap();
        assert!(etag.starts_with('"') && !etag.starts_with("W/"), "{etag}");
        assert!(a.header("content-encoding").is_none());
    }
}

#[tokio::test]
async fn gzip_and_brotli_are_negotiated_from_q_values() {
    let s = state();
    let identity = harbor().get("internal/openapi.json").unwrap().bytes.clone();
    let url = "/api/api-docs/internal/openapi.json";
    let a = get(&s, url, &[("accept-encoding", "gzip;q=0.8, br")]).await;
    assert_eq!(a.header("content-encoding").as_deref(), Some("br"));
    assert!(a.header("etag").unwrap().ends_with("-br\""));
    let mut out = Vec::new();
    brotli::Decompressor::new(&a.body[..], 4096)
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, identity);
    assert!(a.body.len() < identity.len() / 3);

    let a = get(&s, url, &[("accept-encoding", "br;q=0.1, gzip;q=0.9")]).await;
    assert_eq!(a.header("content-encoding").as_deref(), Some("gzip"));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&a.body[..])
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, identity);

    let a = get(&s, url, &[("accept-encoding", "br;q=0, gzip;q=0")]).await;
    assert!(a.header("content-encoding").is_none());
    assert_eq!(a.body, identity);
}

#[tokio::test]
async fn if_none_match_lists_weak_tags_and_star_give_304() {
    let s = state();
    let url = "/api/api-docs/catalog.json";
    let etag = get(&s, url, &[]).await.header("etag").unwrap();
    for inm in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"nope\", {etag}"),
        "*".to_string(),
    ] {
        let a = get(&s, url, &[("if-none-match", &inm)]).await;
        assert_eq!(a.status, 304, "{inm}");
        assert!(a.body.is_empty());
        assert_eq!(a.header("etag").unwrap(), etag);
    }
    // The gzip variant's tag also validates the identity representation.
    let gz = get(&s, url, &[("accept-encoding", "gzip")]).await;
    let gz_tag = gz.header("etag").unwrap();
    assert_ne!(gz_tag, etag);
    let a = get(
        &s,
        url,
        &[("if-none-match", &gz_tag), ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(a.status, 304);
    let a = get(&s, url, &[("if-none-match", "\"other\"")]).await;
    assert_eq!(a.status, 200);
}

#[tokio::test]
async fn explorer_redirects_health_and_ready() {
    let s = state();
    let a = get(&s, "/", &[]).await;
    assert_eq!(a.status, 307);
    assert_eq!(a.header("location").unwrap(), "/api-docs/");
    let a = get(&s, "/api-docs", &[]).await;
    assert_eq!(a.status, 308);
    let a = get(&s, "/api-docs/", &[]).await;
    assert_eq!(a.status, 200);
    assert!(a.header("content-type").unwrap().starts_with("text/html"));
    let page = String::from_utf8_lossy(&a.body).to_string();
    assert!(page.contains("<html"));
    // Served: the try-it panel may call this server, and the built-ins are listed.
    assert!(page.contains("<meta name=\"portolan-registry\" content=\"/api/cos/tools\">"));
    assert!(page.contains("connect-src 'self'") && !page.contains("connect-src 'none'"));
    assert!(page.contains("\"name\":\"catalog.search\""));
    assert!(page.contains("form.try") && page.contains("fetch(REGISTRY"));
    // The file `build` writes stays offline and shows no panel.
    let file = String::from_utf8(harbor().get("index.html").unwrap().bytes.clone()).unwrap();
    assert!(
        file.contains("connect-src 'none'") && !file.contains("<meta name=\"portolan-registry\"")
    );
    assert!(!file.contains("\"name\":\"catalog.search\"") && !file.contains("fetch("));
    let a = get(&s, "/health", &[]).await;
    assert_eq!(a.json()["status"], "ok");
    let a = get(&s, "/ready", &[]).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.json()["status"], "ready");
}

#[tokio::test]
async fn unknown_routes_and_methods_are_error_envelopes() {
    let s = state();
    get(&s, "/api/api-docs/nope.json", &[])
        .await
        .assert_error(404, "NOT_FOUND");
    let a = post_json(
        &s,
        "/api/api-docs/catalog.json",
        &serde_json::json!({}),
        &[],
    )
    .await;
    a.assert_error(405, "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn a_swap_replaces_the_whole_set() {
    let s = state();
    let before = get(&s, "/api/api-docs/catalog.json", &[]).await;
    let mut docs = harbor();
    let mut catalog: serde_json::Value =
        serde_json::from_slice(&docs.get("catalog.json").unwrap().bytes).unwrap();
    catalog["operations"] = serde_json::json!([]);
    replace(&mut docs, "catalog.json", &catalog);
    assert_eq!(s.swap(derived(docs)).unwrap(), 2);
    let after = get(&s, "/api/api-docs/catalog.json", &[]).await;
    assert_ne!(before.header("etag"), after.header("etag"));
    assert_eq!(after.json()["operations"], serde_json::json!([]));
    // The old tag no longer validates.
    let a = get(
        &s,
        "/api/api-docs/catalog.json",
        &[("if-none-match", &before.header("etag").unwrap())],
    )
    .await;
    assert_eq!(a.status, 200);
    assert_eq!(get(&s, "/ready", &[]).await.json()["generation"], 2);
}
