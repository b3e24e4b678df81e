//! `portolan check`: the inventory pinned as a readable text snapshot, and
//! the diff between two snapshots.
//!
//! Captures counts and content keys: each operation (method, path, app
//! file) with its declaring files, middleware, access class and whether a
//! contract is linked; each event (namespace, name) with its directions;
//! findings per code and file. Line numbers are left out on purpose, so
//! moving code around is not drift.
//!
//! Deliberately not captured: schemas and summaries (documents, not
//! inventory); use `portolan build` and diff the documents for those.

use std::collections::BTreeMap;

/// Render the snapshot text for an inventory.
pub(crate) fn render(
    inv: &analyzer::Inventory,
    opts: &specgen::SpecOptions,
) -> anyhow::Result<String> {
    let catalog = specgen::catalog_with(inv, opts)?;
    let mut lines = Vec::new();
    let api_events: Vec<&analyzer::Event> = inv.events.iter().filter(|e| !e.lifecycle).collect();
    let counts = [
        (
            "operations",
            catalog["stats"]["operations"].as_u64().unwrap_or(0) as usize,
        ),
        ("declarations", inv.stats.declarations),
        ("mounts", inv.stats.mounts),
        ("source-files", inv.stats.source_files),
        (
            "modeled",
            catalog["stats"]["modeled"].as_u64().unwrap_or(0) as usize,
        ),
        ("events", api_events.len()),
        ("lifecycle-events", inv.events.len() - api_events.len()),
        ("findings", inv.findings.len()),
    ];
    for (k, v) in counts {
        lines.push(format!("count {k} | {v}"));
    }
    let multi_app = inv.apps.len() > 1;
    if let Some(ops) = catalog["operations"].as_array() {
        for o in ops {
            let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
            let list = |k: &str| {
                o[k].as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str())
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default()
            };
            let app = if multi_app {
                format!(
                    " @{}",
                    s("app")
                        .rsplit_once(':')
                        .map(|(f, _)| f.to_string())
                        .unwrap_or_default()
                )
            } else {
                String::new()
            };
            lines.push(format!(
                "operation {} {}{app} | sources={} | middleware={} | access={} | modeled={}",
                s("method"),
                s("path"),
                list("sources"),
                list("middleware"),
                s("access"),
                if o["contractStatus"] == "modeled" {
                    "yes"
                } else {
                    "no"
                },
            ));
        }
    }
    for e in &inv.events {
        lines.push(format!(
            "{} {} {} | directions={}",
            if e.lifecycle { "lifecycle" } else { "event" },
            e.namespace,
            e.name,
            e.directions
                .iter()
                .map(|d| d.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    let mut findings: BTreeMap<(String, String), usize> = BTreeMap::new();
    for f in &inv.findings {
        *findings
            .entry((f.code.as_str().to_string(), f.at.file.clone()))
            .or_default() += 1;
    }
    for ((code, file), n) in findings {
        lines.push(format!("finding {code} {file} | {n}"));
    }
    let mut out = String::from(
        "# portolan check snapshot: counts and content keys, no line numbers.\n# Rewrite with `portolan check --snapshot FILE --update`.\n",
    );
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    Ok(out)
}

/// Entries of a snapshot: key (text before the first ` | `) → fields.
fn entries(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(" | ");
        let key = parts.next().unwrap_or("").to_string();
        out.insert(key, parts.map(str::to_string).collect());
    }
    out
}

/// The readable diff from `old` to `new`; empty when nothing drifted.
pub(crate) fn diff(old: &str, new: &str) -> String {
    let (a, b) = (entries(old), entries(new));
    let mut added = Vec::new();
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    for (k, v) in &b {
        match a.get(k) {
            None => added.push(format!("+ {k} | {}", v.join(" | "))),
            Some(old_v) if old_v != v => {
                let mut detail = format!("~ {k}");
                for (i, field) in v.iter().enumerate() {
                    let before = old_v.get(i).map(String::as_str).unwrap_or("");
                    if before != field {
                        let name = field.split_once('=').map(|(n, _)| n).unwrap_or("value");
                        let strip = |s: &str| {
                            s.split_once('=')
                                .map(|(_, v)| v.to_string())
                                .unwrap_or_else(|| s.to_string())
                        };
                        detail.push_str(&format!(
                            "\n    {name}: {} -> {}",
                            strip(before),
                            strip(field)
                        ));
                    }
                }
                changed.push(detail);
            }
            Some(_) => {}
        }
    }
    for (k, v) in &a {
        if !b.contains_key(k) {
            removed.push(format!("- {k} | {}", v.join(" | ")));
        }
    }
    if added.is_empty() && removed.is_empty() && changed.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "drift: {} added, {} removed, {} changed\n",
        added.len(),
        removed.len(),
        changed.len()
    );
    for l in added.iter().chain(&removed).chain(&changed) {
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_reports_added_removed_changed() {
        let old = "# c\ncount operations | 2\noperation GET /a | sources=a.js | access=public\noperation GET /b | sources=b.js | access=public\n";
        let new = "count operations | 2\noperation GET /a | sources=a.js | access=authenticated\noperation GET /c | sources=c.js | access=public\n";
        assert_eq!(
            diff(old, new),
            "drift: 1 added, 1 removed, 1 changed\n+ operation GET /c | sources=c.js | access=public\n- operation GET /b | sources=b.js | access=public\n~ operation GET /a\n    access: public -> authenticated\n"
        );
        assert_eq!(diff(old, old), "");
    }
}
