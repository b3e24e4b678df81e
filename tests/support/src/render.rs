//! The one text rendering of an [`analyzer::Inventory`] the tests compare:
//! sortable lines (`METHOD PATH FILE:LINE …`, `finding CODE FILE:LINE`,
//! `event NAME DIRECTION NAMESPACE FILE:LINE SIDE …`, contracts, payloads,
//! guards, entries; the grammar `expected.txt` is written in, see
//! `analyzer/tests/fixtures/README.md`), the readable table pinned under
//! `snapshots/analyzer/`, and the census items nothing accounts for.
//!
//! Deliberately not here: the CLI's own renderings (the `scan` summary and
//! the `check` snapshot are outputs of the product, tested through the
//! binary).

use std::collections::BTreeSet;

/// An inventory as text.
pub struct Rendered {
    /// `METHOD PATH FILE:LINE [conditional]`, `finding CODE FILE:LINE`, and
    /// `event NAME DIRECTION NAMESPACE FILE:LINE SIDE [via=H] [ack] [assumed-namespace]`.
    pub lines: BTreeSet<String>,
    /// `METHOD PATH FILE:LINE` of every declaration, nothing appended.
    pub declarations: BTreeSet<String>,
    /// `contract METHOD PATH PART=...` lines (compared when expected.txt has any).
    pub contracts: BTreeSet<String>,
    /// `payload NAME DIRECTION NAMESPACE <json>` and `ack …` lines (compared when expected.txt has any).
    pub payloads: BTreeSet<String>,
    /// `guard METHOD PATH NAME STATUS FILE:LINE [credential=H]` lines (compared when expected.txt has any).
    pub guards: BTreeSet<String>,
    /// `entry FILE` lines (compared when expected.txt has any).
    pub entries: BTreeSet<String>,
    /// `entry-reason FILE: WHY` lines (compared when expected.txt has any).
    pub entry_reasons: BTreeSet<String>,
    /// Same operation lines with ` mw=a,b` appended.
    pub with_mw: BTreeSet<String>,
    /// `stats mounts=N operations=N declarations=N sourceFiles=N`.
    pub stats: String,
    /// `census charted=N total=N` (compared when expected.txt has one).
    pub census: String,
    /// Census items accounted for by nothing (must be empty for every case).
    pub unaccounted: Vec<String>,
    /// The readable table pinned under `snapshots/analyzer/`.
    pub table: String,
}

/// Render an inventory.
pub fn render(inv: &analyzer::Inventory) -> Rendered {
    let mut lines = BTreeSet::new();
    let mut declarations = BTreeSet::new();
    let mut with_mw = BTreeSet::new();
    let mut table = String::from(
        "METHOD   PATH                                     DECLARED AT                    HANDLER / MIDDLEWARE\n",
    );
    for op in &inv.operations {
        for d in &op.declarations {
            let mut l = format!(
                "{} {} {}:{}",
                op.method.to_uppercase(),
                op.path.express,
                d.at.file,
                d.at.line
            );
            declarations.insert(l.clone());
            if d.conditional.is_some() {
                l.push_str(" conditional");
            }
            if d.subpaths {
                l.push_str(" subpaths");
            }
            if let Some(v) = &d.via {
                l.push_str(&format!(" via={}:{}", v.file, v.line));
            }
            if let Some(r) = &op.reached {
                l.push_str(&format!(
                    " reached={}:{}@{}:{}",
                    r.how, r.via, r.at.file, r.at.line
                ));
            }
            with_mw.insert(format!("{l} mw={}", d.middleware.join(",")));
            lines.insert(l);
            table.push_str(&format!(
                "{:<8} {:<40} {:<30} {}{}{}\n",
                op.method.to_uppercase(),
                op.path.express,
                format!("{}:{}", d.at.file, d.at.line),
                d.handler.as_ref().map(|h| h.name.as_str()).unwrap_or("-"),
                if d.middleware.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", d.middleware.join(", "))
                },
                d.conditional
                    .as_ref()
                    .map(|c| format!(" if {c}"))
                    .unwrap_or_default()
                    + &op
                        .reached
                        .as_ref()
                        .map(|r| format!(" (reached: {})", r.label()))
                        .unwrap_or_default(),
            ));
        }
    }
    let mut contracts = BTreeSet::new();
    for op in &inv.operations {
        let head = format!("contract {} {}", op.method.to_uppercase(), op.path.express);
        for d in &op.declarations {
            let c = &d.contract;
            let j = |s: &serde_json::Value| serde_json::to_string(s).unwrap();
            if let Some(b) = &c.body {
                contracts.insert(format!("{head} body={}", j(&b.schema)));
            }
            if let Some(q) = &c.query {
                contracts.insert(format!("{head} query={}", j(&q.schema)));
            }
            if let Some(p) = &c.params {
                contracts.insert(format!("{head} params={}", j(&p.schema)));
            }
            if !c.query_read.is_empty() {
                contracts.insert(format!("{head} query-read={}", c.query_read.join(",")));
            }
            if !c.headers_read.is_empty() {
                contracts.insert(format!("{head} header-read={}", c.headers_read.join(",")));
            }
            if !c.body_read.is_empty() {
                contracts.insert(format!("{head} body-read={}", c.body_read.join(",")));
            }
            for r in &c.responses {
                contracts.insert(match &r.schema {
                    Some(s) => format!("{head} response={} {}", r.status, j(&s.schema)),
                    None => format!("{head} response={}", r.status),
                });
            }
        }
    }
    let mut guards = BTreeSet::new();
    for op in &inv.operations {
        for d in &op.declarations {
            if let Some(g) = &d.guard {
                let mut l = format!(
                    "guard {} {} {} {} {}:{}",
                    op.method.to_uppercase(),
                    op.path.express,
                    g.name,
                    g.status,
                    g.at.file,
                    g.at.line
                );
                if let Some(c) = &g.credential {
                    l.push_str(&format!(" credential={c}"));
                }
                guards.insert(l);
            }
        }
    }
    if !guards.is_empty() {
        table.push_str("\nGUARDS\n");
        for g in &guards {
            table.push_str(g);
            table.push('\n');
        }
    }
    if !contracts.is_empty() {
        table.push_str("\nCONTRACTS\n");
        for c in &contracts {
            table.push_str(c);
            table.push('\n');
        }
    }
    let mut payloads = BTreeSet::new();
    for e in &inv.events {
        for (part, map) in [("payload", &e.payload), ("ack", &e.ack)] {
            for (dir, schema) in map {
                payloads.insert(format!(
                    "{part} {} {} {} {}",
                    e.name,
                    dir.as_str(),
                    e.namespace,
                    serde_json::to_string(&schema.schema).unwrap()
                ));
            }
        }
    }
    if !inv.events.is_empty() {
        table.push_str("\nEVENTS\n");
    }
    for e in &inv.events {
        for site in &e.sites {
            let side = site.side.as_str();
            let mut l = format!(
                "event {} {} {} {}:{} {side}",
                e.name,
                site.direction.as_str(),
                e.namespace,
                site.at.file,
                site.at.line
            );
            if let Some(v) = &site.via {
                l.push_str(&format!(" via={v}"));
            }
            if site.ack {
                l.push_str(" ack");
            }
            if let Some(r) = &site.reached {
                l.push_str(&format!(" {}", r.how));
            }
            table.push_str(&format!(
                "{l}  kind={}{}{}{}\n",
                site.kind,
                if e.lifecycle { " lifecycle" } else { "" },
                if site.args.is_empty() {
                    String::new()
                } else {
                    format!(" args={}", site.args.join(","))
                },
                if site.rooms.is_empty() {
                    String::new()
                } else {
                    format!(" rooms={}", site.rooms.join(","))
                },
            ));
            lines.insert(l);
        }
    }
    if !inv.findings.is_empty() {
        table.push_str("\nFINDINGS\n");
    }
    for f in &inv.findings {
        lines.insert(match &f.cause {
            Some(c) => format!(
                "finding {} {}:{} cause={c}",
                f.code.as_str(),
                f.at.file,
                f.at.line
            ),
            None => format!("finding {} {}:{}", f.code.as_str(), f.at.file, f.at.line),
        });
        table.push_str(&format!(
            "{:<18} {}:{}  {}\n",
            f.code.as_str(),
            f.at.file,
            f.at.line,
            f.message
        ));
    }
    let s = &inv.stats;
    let stats = format!(
        "stats mounts={} operations={} declarations={} sourceFiles={}",
        s.mounts, s.operations, s.declarations, s.source_files
    );
    table.push_str(&format!("\n{stats}\n"));
    let c = &inv.coverage;
    let census = format!(
        "census charted={} total={}",
        c.http_charted + c.socket_charted,
        c.http_total + c.socket_total
    );
    let unaccounted = unaccounted(inv);
    if !payloads.is_empty() {
        table.push_str("\nPAYLOADS\n");
        for p in &payloads {
            table.push_str(p);
            table.push('\n');
        }
    }
    Rendered {
        lines,
        declarations,
        contracts,
        payloads,
        guards,
        entries: inv.entries.iter().map(|e| format!("entry {e}")).collect(),
        entry_reasons: inv
            .entry_reasons
            .iter()
            .map(|(e, why)| format!("entry-reason {e}: {why}"))
            .collect(),
        with_mw,
        stats,
        census,
        unaccounted,
        table,
    }
}

/// Census items neither charted nor accounted for by a finding at the place
/// their entry names (the promise: nothing is silently dropped).
pub fn unaccounted(inv: &analyzer::Inventory) -> Vec<String> {
    inv.census
        .iter()
        .filter(|e| !e.charted)
        .filter(|e| {
            let Some(at) = &e.finding else { return true };
            e.cause.is_none() || !inv.findings.iter().any(|f| &f.at == at)
        })
        .map(|e| format!("{}:{} {}", e.at.file, e.at.line, e.what))
        .collect()
}
