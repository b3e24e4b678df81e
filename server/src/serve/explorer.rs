//! The Explorer page as `portolan serve` serves it: the page `build` writes,
//! changed in three places so its try-it panel can call the registry.
//!
//! Captures: the Content-Security-Policy's `connect-src 'none'` becomes
//! `connect-src 'self'` (requests to this server only); a
//! `<meta name="portolan-registry">` tells the try-it script where the
//! registry is; the embedded tools block gains the built-in tools
//! (`catalog.search`, …) so they can be tried too; and the try-it script
//! (`explorer-try.js`, with its style) is appended. It places a form generated
//! from the input schema under each open tool's example call, sends the call
//! envelope with a fresh requestId and shows the result or the error
//! envelope. Deliberately not done: changing the page's own script, which
//! stays free of network code; the file on disk stays offline with no panel.
//! A page whose template no longer has these anchors is served unchanged (no
//! panel) rather than broken.

use super::registry::{Adapter, Registry};
use serde_json::Value;

const CSP_NONE: &str = "connect-src 'none'";
const CHARSET: &str = "<meta charset=\"utf-8\">";
const TRY_SCRIPT: &str = include_str!("explorer-try.js");
const TRY_STYLE: &str = ".try { display: grid; gap: 6px; margin: 4px 0 8px; }\n.try-f { display: grid; grid-template-columns: minmax(160px, 30%) 1fr; gap: 8px; align-items: center; }\n.try-f input, .try-f select, .try-f textarea { font: inherit; padding: 4px 6px; border: 1px solid var(--line); border-radius: 6px; background: var(--card); color: inherit; }\n.try button { justify-self: start; }\n";
const TOOLS_OPEN: &str = "<script type=\"application/json\" id=\"tools-data\">";

/// JSON safe inside `<script>` (as specgen embeds it).
fn script_json(v: &Value) -> String {
    serde_json::to_string(v)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// The served variant of `index.html`.
pub fn served_page(page: &[u8], tools_doc: &Value, registry: &Registry) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(page) else {
        return page.to_vec();
    };
    if !text.contains(CSP_NONE) || !text.contains(CHARSET) {
        return page.to_vec();
    }
    let mut out = text.replacen(CSP_NONE, "connect-src 'self'", 1).replacen(
        CHARSET,
        &format!("{CHARSET}\n<meta name=\"portolan-registry\" content=\"/api/cos/tools\">"),
        1,
    );
    if let Some(start) = out.find(TOOLS_OPEN).map(|i| i + TOOLS_OPEN.len())
        && let Some(len) = out[start..].find("</script>")
    {
        let mut doc = if tools_doc.is_object() {
            tools_doc.clone()
        } else {
            serde_json::json!({"type": "portos_tool_resource", "schemaVersion": 1})
        };
        let mut tools: Vec<Value> = registry
            .tools
            .iter()
            .filter(|t| matches!(t.adapter, Adapter::Builtin(_)))
            .map(|t| {
                serde_json::json!({
                    "type": "portos_tool",
                    "name": t.name,
                    "version": t.version,
                    "providerName": t.provider_name,
                    "aliases": t.aliases,
                    "description": t.description,
                    "input_schema": t.input_schema,
                    "output_schema": t.output_schema,
                    "policy": {"sideEffect": t.side_effect, "async": t.is_async, "idempotent": t.idempotent},
                    "scopes": t.scopes,
                    "binding": {"protocol": "builtin"}
                })
            })
            .collect();
        if let Some(own) = doc.get("tools").and_then(Value::as_array) {
            tools.extend(own.iter().cloned());
        }
        doc["tools"] = Value::Array(tools);
        out.replace_range(start..start + len, &script_json(&doc));
    }
    if let Some(end) = out.rfind("</body>") {
        out.insert_str(
            end,
            &format!("<style>\n{TRY_STYLE}</style>\n<script>\n{TRY_SCRIPT}</script>\n"),
        );
    }
    out.into_bytes()
}
