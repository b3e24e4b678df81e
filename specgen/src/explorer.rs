//! The Explorer page (`index.html`): one self-contained HTML file that browses
//! `catalog.json`, `events.json` and `tools.min.json`.
//!
//! Captures the three documents verbatim, embedded as JSON data blocks that the
//! page's hand-written script reads, and the summary cards computed here from
//! the documents' own stats and versions. The page makes no network request: its
//! CSS and JS are inline (`templates/explorer.css`, `templates/explorer.js`), and a
//! Content-Security-Policy forbids loading anything else, so it works opened from
//! disk and when served. [`page`] renders from the three values; [`document`]
//! renders from built [`Documents`] (what `portolan build` writes as `index.html`).
//!
//! Deliberately not done here: OpenAPI/AsyncAPI rendering (the page reads the
//! catalog documents, which carry the same facts plus provenance) and any
//! request execution ("try it"): the page prints a `curl` line instead.

use crate::{Document, Documents};
use askama::Template;
use serde_json::Value;

/// Why the Explorer page could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum ExplorerError {
    /// A document could not be serialized.
    #[error("explorer: a document could not be serialized: {0}")]
    Json(#[source] serde_json::Error),
    /// The template failed to render.
    #[error("explorer: the page template failed to render: {0}")]
    Render(#[source] askama::Error),
}

/// One summary card: a number (or version) with what it counts.
struct Card {
    value: String,
    label: &'static str,
    hint: String,
}

#[derive(Template)]
#[template(path = "explorer.html")]
struct ExplorerPage {
    cards: Vec<Card>,
    catalog_json: String,
    events_json: String,
    tools_json: String,
    style: &'static str,
    script: &'static str,
}

const STYLE: &str = include_str!("../../templates/explorer.css");
const SCRIPT: &str = include_str!("../../templates/explorer.js");

/// Render the Explorer page from the three documents.
///
/// `events` and `tools` may be `Value::Null` when those documents are not
/// produced; their tabs then say so. Output depends only on the inputs.
pub fn page(catalog: &Value, events: &Value, tools: &Value) -> Result<String, ExplorerError> {
    ExplorerPage {
        cards: cards(catalog, events, tools),
        catalog_json: script_json(catalog)?,
        events_json: script_json(events)?,
        tools_json: script_json(tools)?,
        style: STYLE,
        script: SCRIPT,
    }
    .render()
    .map_err(ExplorerError::Render)
}

/// The Explorer as the `index.html` [`Document`], from the JSON documents
/// already in `docs` (`catalog.json`, and `events.json` and `tools.min.json`
/// when present).
pub fn document(docs: &Documents) -> Result<Document, ExplorerError> {
    let parse = |path: &str| match docs.get(path) {
        Some(doc) => serde_json::from_slice(&doc.bytes).map_err(ExplorerError::Json),
        None => Ok(Value::Null),
    };
    let bytes = page(
        &parse("catalog.json")?,
        &parse("events.json")?,
        &parse("tools.min.json")?,
    )?
    .into_bytes();
    Ok(Document {
        path: String::from("index.html"),
        media_type: "text/html; charset=utf-8",
        hash: blake3::hash(&bytes).to_hex().to_string(),
        bytes,
    })
}

/// JSON safe inside `<script type="application/json">`: `<`, `>` and `&`
/// (so `</script>` and `<!--` cannot appear) and U+2028/U+2029 become `\u`
/// escapes. They only ever occur inside JSON strings, where the escape is
/// the same value.
fn script_json(doc: &Value) -> Result<String, ExplorerError> {
    let raw = serde_json::to_string(doc).map_err(ExplorerError::Json)?;
    let mut out = String::with_capacity(raw.len() + 64);
    for c in raw.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// The summary cards, every number read from the documents (their `stats`
/// when present, else counted), every version from the documents themselves.
fn cards(catalog: &Value, events: &Value, tools: &Value) -> Vec<Card> {
    let stat = |doc: &Value, key: &str| {
        doc.get("stats")
            .and_then(|s| s.get(key))
            .and_then(Value::as_u64)
    };
    let len = |doc: &Value, key: &str| {
        doc.get(key)
            .and_then(Value::as_array)
            .map(|a| a.len() as u64)
    };
    let count = |doc: &Value, stat_key: &str, list_key: &str| {
        stat(doc, stat_key).or_else(|| len(doc, list_key))
    };

    let mut cards = Vec::new();
    let operations = count(catalog, "operations", "operations").unwrap_or(0);
    cards.push(Card {
        value: thousands(operations),
        label: "HTTP operations",
        hint: match (stat(catalog, "declarations"), stat(catalog, "sourceFiles")) {
            (Some(d), Some(f)) => {
                format!("{} declarations in {} files", thousands(d), thousands(f))
            }
            _ => String::from("from catalog.json"),
        },
    });
    cards.push(Card {
        value: thousands(count(catalog, "domains", "domains").unwrap_or(0)),
        label: "Domains",
        hint: match stat(catalog, "mounts") {
            Some(m) => format!("{} mounts", thousands(m)),
            None => String::from("path groups"),
        },
    });
    if let (Some(modeled), Some(generated)) = (stat(catalog, "modeled"), stat(catalog, "generated"))
    {
        cards.push(Card {
            value: thousands(modeled),
            label: "Modeled contracts",
            hint: format!("{} generated", thousands(generated)),
        });
    }
    cards.push(match count(events, "events", "events") {
        Some(n) => Card {
            value: thousands(n),
            label: "Socket.IO events",
            hint: match (
                stat(events, "clientToServer"),
                stat(events, "serverToClient"),
            ) {
                (Some(c), Some(s)) => match stat(events, "lifecycle").filter(|n| *n > 0) {
                    // Listed in the Events tab too, counted apart (as in the summary).
                    Some(l) => format!(
                        "{} client→server · {} server→client · {} lifecycle apart",
                        thousands(c),
                        thousands(s),
                        thousands(l)
                    ),
                    None => format!(
                        "{} client→server · {} server→client",
                        thousands(c),
                        thousands(s)
                    ),
                },
                _ => String::from("from events.json"),
            },
        },
        None => Card {
            value: String::from("—"),
            label: "Socket.IO events",
            hint: String::from("no events.json"),
        },
    });
    cards.push(match len(tools, "tools") {
        Some(n) => Card {
            value: thousands(n),
            label: "Agent tools",
            hint: match (stat(tools, "read"), stat(tools, "write")) {
                (Some(r), Some(w)) => format!("{} read · {} write", thousands(r), thousands(w)),
                _ => String::from("from tools.min.json"),
            },
        },
        None => Card {
            value: String::from("—"),
            label: "Agent tools",
            hint: String::from("no tools.min.json"),
        },
    });
    // The census: registrations and sites in the source against what is charted.
    let coverage = |doc: &Value| {
        let c = doc.get("stats")?.get("coverage")?;
        Some((c.get("charted")?.as_u64()?, c.get("total")?.as_u64()?))
    };
    let (http, sio) = (coverage(catalog), coverage(events));
    if http.is_some() || sio.is_some() {
        let (http, sio) = (http.unwrap_or((0, 0)), sio.unwrap_or((0, 0)));
        let (charted, total) = (http.0 + sio.0, http.1 + sio.1);
        cards.push(Card {
            // Rounded down to a tenth: 99.96 % is not "100.0%".
            value: (charted * 1000)
                .checked_div(total)
                .map_or_else(|| String::from("—"), |t| format!("{:.1}%", t as f64 / 10.0)),
            label: "Coverage",
            hint: format!(
                "{} of {} registrations · {} of {} sites charted",
                thousands(http.0),
                thousands(http.1),
                thousands(sio.0),
                thousands(sio.1)
            ),
        });
    }
    let all_findings: Vec<&Value> = [catalog, events, tools]
        .iter()
        .filter_map(|doc| doc.get("findings").and_then(Value::as_array))
        .flatten()
        .collect();
    let by = |sev: &str| {
        all_findings
            .iter()
            .filter(|f| f.get("severity").and_then(Value::as_str) == Some(sev))
            .count() as u64
    };
    cards.push(Card {
        value: thousands(all_findings.len() as u64),
        label: "Findings",
        hint: if all_findings.iter().any(|f| f.get("severity").is_some()) {
            format!(
                "{} errors · {} warnings · {} info",
                thousands(by("error")),
                thousands(by("warning")),
                thousands(by("info"))
            )
        } else {
            String::from("what the analyzer could not resolve or match")
        },
    });
    cards.push(Card {
        value: versions(catalog, events, tools),
        label: "Documents",
        hint: String::from("schema versions"),
    });
    cards
}

/// "catalog v2 · events v2 · tools v1 (OpenAPI 3.0.3)", from the documents.
fn versions(catalog: &Value, events: &Value, tools: &Value) -> String {
    let version = |doc: &Value| {
        doc.get("schemaVersion")
            .map(|v| v.to_string().trim_matches('"').to_string())
    };
    let mut parts = Vec::new();
    for (name, doc) in [("catalog", catalog), ("events", events), ("tools", tools)] {
        if let Some(v) = version(doc) {
            let mut part = format!("{name} v{v}");
            if let Some(source) = doc.get("source") {
                let document = source
                    .get("document")
                    .and_then(Value::as_str)
                    .unwrap_or("source");
                if let Some(sv) = source.get("version").and_then(Value::as_str) {
                    let document = if document == "openapi" {
                        "OpenAPI"
                    } else {
                        document
                    };
                    part.push_str(&format!(" ({document} {sv})"));
                }
            }
            parts.push(part);
        }
    }
    if parts.is_empty() {
        String::from("—")
    } else {
        parts.join(" · ")
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample_catalog() -> Value {
        json!({
            "schemaVersion": 2,
            "stats": { "mounts": 3, "operations": 2, "declarations": 2, "sourceFiles": 2,
                       "domains": 1, "modeled": 0, "generated": 2 },
            "domains": [ { "id": "ships", "label": "Ships", "operations": 2 } ],
            "operations": [
                { "method": "GET", "path": "/api/ships/:id", "openApiPath": "/api/ships/{id}",
                  "domain": "ships", "domainLabel": "Ships", "summary": "Read Ships",
                  "access": "public", "sideEffect": "read", "contractStatus": "generated",
                  "locations": ["src/ships.js:4"], "middleware": ["cors()"],
                  "params": [ { "name": "id", "optional": false, "wildcard": false } ] },
                { "method": "DELETE", "path": "/api/ships/:id", "openApiPath": "/api/ships/{id}",
                  "domain": "ships", "domainLabel": "Ships", "summary": "Delete Ships",
                  "access": "authenticated", "sideEffect": "destructive", "contractStatus": "generated",
                  "locations": ["src/ships.js:9"], "middleware": ["cors()", "requireAuth"],
                  "params": [ { "name": "id", "optional": false, "wildcard": false } ] }
            ],
            "findings": [ { "code": "dynamic-path", "file": "src/x.js", "line": 3, "message": "path is a variable" } ]
        })
    }

    /// The JSON text of the `<script type="application/json" id=ID>` block.
    fn data_block<'a>(html: &'a str, id: &str) -> &'a str {
        let open = format!("<script type=\"application/json\" id=\"{id}\">");
        let start = html
            .find(&open)
            .unwrap_or_else(|| panic!("no data block {id}"))
            + open.len();
        let end = html[start..]
            .find("</script>")
            .expect("data block is closed")
            + start;
        &html[start..end]
    }

    /// Every value of `attr="…"` in the page.
    fn attribute_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
        let needle = format!(" {attr}=\"");
        html.match_indices(&needle)
            .map(|(i, _)| {
                let rest = &html[i + needle.len()..];
                &rest[..rest.find('"').unwrap_or(rest.len())]
            })
            .collect()
    }

    #[test]
    fn page_loads_nothing_from_the_network() {
        let html = page(&sample_catalog(), &Value::Null, &Value::Null).unwrap();
        assert!(!html.contains("<script src"), "no external scripts");
        assert!(
            !html.contains("<link rel=\"stylesheet\""),
            "no external stylesheets"
        );
        assert!(!html.contains("@import"), "no CSS imports");
        for attr in ["src", "href", "action", "srcset", "data"] {
            for value in attribute_values(&html, attr) {
                let v = value.trim_start().to_ascii_lowercase();
                assert!(
                    !(v.starts_with("http:") || v.starts_with("https:") || v.starts_with("//")),
                    "{attr}=\"{value}\" points off the page"
                );
            }
        }
        assert!(
            !html.contains("url(http") && !html.contains("url(//"),
            "no remote CSS urls"
        );
        // The CSP forbids any fetch the script might attempt.
        assert!(html.contains("default-src 'none'"));
        assert!(html.contains("connect-src 'none'"));
    }

    #[test]
    fn script_uses_no_network_api() {
        for api in [
            "fetch(",
            "XMLHttpRequest",
            "WebSocket",
            "EventSource",
            "sendBeacon",
            "import(",
            "new Worker",
            "<img",
            "<iframe",
        ] {
            assert!(!SCRIPT.contains(api), "explorer.js uses {api}");
        }
        assert!(
            !STYLE.contains("url(") && !STYLE.contains("@import") && !STYLE.contains("@font-face")
        );
    }

    #[test]
    fn hostile_strings_in_data_stay_inside_their_block() {
        let hostile = "</script><script>alert(1)</script><!-- & \u{2028}\u{2029}";
        let mut catalog = sample_catalog();
        catalog["operations"][0]["summary"] = json!(hostile);
        let events =
            json!({ "schemaVersion": 2, "events": [ { "event": hostile, "directions": [] } ] });
        let html = page(&catalog, &events, &Value::Null).unwrap();
        assert!(!html.contains("alert(1)</script>"));
        assert!(!html.contains("<script>alert"));
        assert!(!html.contains('\u{2028}') && !html.contains('\u{2029}'));
        // Exactly the page's own script elements: three data blocks and the program.
        assert_eq!(html.matches("<script").count(), 4);
        assert_eq!(html.matches("</script>").count(), 4);
        // The blocks still parse back to the documents, hostile string intact.
        let back: Value = serde_json::from_str(data_block(&html, "catalog-data")).unwrap();
        assert_eq!(back, catalog);
        assert_eq!(back["operations"][0]["summary"], json!(hostile));
        let back: Value = serde_json::from_str(data_block(&html, "events-data")).unwrap();
        assert_eq!(back, events);
        let back: Value = serde_json::from_str(data_block(&html, "tools-data")).unwrap();
        assert_eq!(back, Value::Null);
    }

    #[test]
    fn document_embeds_the_built_documents() {
        let json = |path: &str, v: &Value| Document {
            path: path.to_string(),
            media_type: "application/json",
            bytes: serde_json::to_vec_pretty(v).unwrap(),
            hash: String::new(),
        };
        let catalog = sample_catalog();
        let tools = json!({ "schemaVersion": 1, "tools": [ { "name": "ships.read" } ] });
        let docs = Documents {
            documents: vec![
                json("catalog.json", &catalog),
                json("tools.min.json", &tools),
            ],
            warnings: Vec::new(),
        };
        let doc = document(&docs).unwrap();
        assert_eq!(doc.path, "index.html");
        assert!(doc.media_type.starts_with("text/html"));
        assert_eq!(doc.hash, blake3::hash(&doc.bytes).to_hex().to_string());
        let html = String::from_utf8(doc.bytes).unwrap();
        assert_eq!(html, page(&catalog, &Value::Null, &tools).unwrap());
        let back: Value = serde_json::from_str(data_block(&html, "tools-data")).unwrap();
        assert_eq!(back, tools);
    }

    #[test]
    fn output_is_deterministic() {
        let a = page(&sample_catalog(), &Value::Null, &Value::Null).unwrap();
        let b = page(&sample_catalog(), &Value::Null, &Value::Null).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn cards_come_from_the_documents() {
        let tools = json!({ "schemaVersion": 1, "source": { "document": "openapi", "version": "3.0.3" },
                            "tools": [ {}, {}, {} ], "stats": { "total": 3, "read": 2, "write": 1 } });
        let events = json!({ "schemaVersion": 2, "events": [],
                             "stats": { "events": 1234, "clientToServer": 7, "serverToClient": 9 } });
        let html = page(&sample_catalog(), &events, &tools).unwrap();
        assert!(
            html.contains(">1,234<"),
            "event count from events.json stats"
        );
        assert!(html.contains("7 client→server · 9 server→client<"));
        assert!(html.contains("2 read · 1 write"));
        // Lifecycle events are named in the hint, not added to the count.
        let with_lifecycle = json!({ "schemaVersion": 2, "events": [],
            "stats": { "events": 12, "clientToServer": 7, "serverToClient": 5, "lifecycle": 2 } });
        let html2 = page(&sample_catalog(), &with_lifecycle, &tools).unwrap();
        assert!(html2.contains(">12<"), "the card counts API events only");
        assert!(html2.contains("7 client→server · 5 server→client · 2 lifecycle apart"));
        assert!(html.contains("catalog v2 · events v2 · tools v1 (OpenAPI 3.0.3)"));
        assert!(html.contains("2 declarations in 2 files"));
        assert!(html.contains("3 mounts"));
        assert!(
            !html.contains(">Coverage<"),
            "no coverage card without a census"
        );
        let mut counted = sample_catalog();
        counted["stats"]["coverage"] = json!({ "total": 318, "charted": 312, "uncharted": 6 });
        counted["findings"] = json!([{ "code": "uncharted-route", "severity": "error" },
                                     { "code": "regex-path", "severity": "info" }]);
        let events = json!({ "schemaVersion": 2, "events": [], "findings": [{ "code": "unheard-event", "severity": "warning" }],
                             "stats": { "events": 0, "coverage": { "total": 185, "charted": 180, "uncharted": 5 } } });
        let html = page(&counted, &events, &tools).unwrap();
        assert!(
            html.contains(">97.8%<"),
            "(312 + 180) of (318 + 185), rounded down"
        );
        assert!(html.contains("312 of 318 registrations · 180 of 185 sites charted"));
        assert!(html.contains("1 errors · 1 warnings · 1 info"));
        let without = page(&sample_catalog(), &Value::Null, &Value::Null).unwrap();
        assert!(without.contains("no events.json") && without.contains("no tools.min.json"));
        assert!(
            !without.contains("OpenAPI 3"),
            "no version is printed that no document states"
        );
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(2138), "2,138");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
