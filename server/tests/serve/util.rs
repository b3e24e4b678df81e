//! Shared helpers: the harbor documents derived once, states, requests.

#![allow(dead_code)]

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use portolan::serve::settings::ServerSettings;
use portolan::serve::store::SqliteStore;
use portolan::serve::{AppState, Derived, app};
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use tower::ServiceExt;

pub(crate) use test_support::workspace;

/// The harbor example's documents, derived once per test binary.
pub(crate) fn harbor() -> specgen::Documents {
    static DOCS: OnceLock<specgen::Documents> = OnceLock::new();
    DOCS.get_or_init(|| {
        let opts = analyzer::AnalyzeOptions {
            root: workspace().join("tests/projects/harbor"),
            entries: vec![],
            cache_dir: None,
            no_cache: true,
            skip_events: false,
            server_dirs: vec![],
            client_dirs: vec![],
        };
        let inv = analyzer::analyze(&opts).expect("harbor analyzes");
        let spec = specgen::SpecOptions {
            title: "harbor".into(),
            version: "0.4.2".into(),
            ..Default::default()
        };
        specgen::documents(&inv, &spec).expect("harbor documents")
    })
    .clone()
}

pub(crate) fn derived(documents: specgen::Documents) -> Derived {
    Derived {
        documents,
        operations: 44,
        events: 20,
        findings: 0,
    }
}

/// Replace one document's bytes (and hash).
pub(crate) fn replace(docs: &mut specgen::Documents, path: &str, value: &Value) {
    let d = docs
        .documents
        .iter_mut()
        .find(|d| d.path == path)
        .expect("document");
    d.bytes = serde_json::to_vec(value).unwrap();
    d.hash = blake3::hash(&d.bytes).to_hex().to_string();
}

pub(crate) fn settings(toml_text: &str) -> ServerSettings {
    let t: toml::Table = toml::from_str(toml_text).unwrap();
    ServerSettings::from_toml(t.get("server").cloned(), &|_| None).unwrap()
}

pub(crate) fn state_with(settings: ServerSettings) -> AppState {
    AppState::new(
        derived(harbor()),
        settings,
        Arc::new(SqliteStore::memory().unwrap()),
    )
    .unwrap()
}

pub(crate) fn state() -> AppState {
    state_with(ServerSettings::default())
}

pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Vec<u8>,
}

impl Answer {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }
    /// An error envelope with this code.
    pub(crate) fn assert_error(&self, status: u16, code: &str) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "{}",
            String::from_utf8_lossy(&self.body)
        );
        let v = self.json();
        assert_eq!(v["code"], code, "{v}");
        assert!(v["error"].is_string() && v["timestamp"].is_i64(), "{v}");
        v
    }
}

pub(crate) async fn send(state: &AppState, req: Request<Body>) -> Answer {
    let resp = app(state.clone()).oneshot(req).await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap()
        .to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

pub(crate) async fn get(state: &AppState, uri: &str, headers: &[(&str, &str)]) -> Answer {
    let mut b = Request::builder().uri(uri);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    send(state, b.body(Body::empty()).unwrap()).await
}

pub(crate) async fn post_json(
    state: &AppState,
    uri: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> Answer {
    let mut b = Request::builder()
        .method("POST")
        .uri(uri)
        .header("content-type", "application/json");
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    send(state, b.body(Body::from(body.to_string())).unwrap()).await
}

/// A fresh, empty PostgreSQL database for one test, created on the server
/// named by `PORTOLAN_TEST_POSTGRES` (a `postgres://…/DB` URL; the test
/// command `bash tests/with-postgres cargo test …` starts a throwaway one and
/// sets it). Returns its URL, or None after printing that the test is
/// skipped; with `PORTOLAN_TEST_POSTGRES_REQUIRED=1` (CI) a missing server
/// fails the test instead.
pub(crate) fn postgres_database(test: &str) -> Option<String> {
    let Ok(base) = std::env::var("PORTOLAN_TEST_POSTGRES") else {
        assert!(
            std::env::var("PORTOLAN_TEST_POSTGRES_REQUIRED").as_deref() != Ok("1"),
            "{test}: PORTOLAN_TEST_POSTGRES is not set but PostgreSQL is required (run the tests through `bash tests/with-postgres`)"
        );
        eprintln!(
            "{test}: skipped: no PostgreSQL (PORTOLAN_TEST_POSTGRES unset; run the tests through `bash tests/with-postgres` with PostgreSQL installed)"
        );
        return None;
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let name = format!(
        "portolan_t_{}",
        &blake3::hash(format!("{test}:{}:{nanos}", std::process::id()).as_bytes()).to_hex()[..16]
    );
    postgres_query(&base, &format!("CREATE DATABASE {name}"));
    let (prefix, _) = base
        .rsplit_once('/')
        .expect("PORTOLAN_TEST_POSTGRES ends in /DATABASE");
    Some(format!("{prefix}/{name}"))
}

/// Run SQL on a test database and return the rows' text columns.
pub(crate) fn postgres_rows(url: &str, sql: &str) -> Vec<Vec<Option<String>>> {
    postgres_query(url, sql)
        .iter()
        .filter_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(r) => {
                Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
            }
            _ => None,
        })
        .collect()
}

/// Run SQL on a PostgreSQL server, on a thread and runtime of its own (the
/// caller may be inside a runtime).
fn postgres_query(url: &str, sql: &str) -> Vec<tokio_postgres::SimpleQueryMessage> {
    let (url, sql) = (url.to_string(), sql.to_string());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap_or_else(|e| panic!("cannot reach PostgreSQL: {e}"));
            tokio::spawn(conn);
            client.simple_query(&sql).await.unwrap()
        })
    })
    .join()
    .unwrap()
}
