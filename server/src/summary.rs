//! What the verbs print besides documents: the summary, the coverage line,
//! the counts the documents state, timings and cache notes.

use anyhow::Result;
use std::io::Write;

/// The cache records a run found damaged and discarded, as `info` lines.
pub(crate) fn print_cache_notes(notes: &[String]) {
    for n in notes {
        eprintln!("info: {n}");
    }
}

/// Write the files the analysis parsed, one a line (`--parsed-list`, for the
/// bench's parse floor).
pub(crate) fn write_parsed_list(
    path: Option<&std::path::Path>,
    inv: &analyzer::Inventory,
) -> Result<()> {
    if let Some(path) = path {
        let mut text = inv.timings.parsed_files.join("\n");
        text.push('\n');
        std::fs::write(path, text)?;
    }
    Ok(())
}

pub(crate) fn print_timings(inv: &analyzer::Inventory, start: std::time::Instant) {
    let t = &inv.timings;
    print_cache_notes(&t.cache_notes);
    eprintln!(
        "timings: discover {:.1} ms ({} files), prefilter {:.1} ms, resolve {:.1} ms ({} parsed, {} from cache, {} loaded ahead; parser {:.0} ms + lowering {:.0} ms + census {:.0} ms of CPU), handlers and events {:.1} ms, inventory {:.1} ms (census accounting {:.1} ms){}, total {:.1} ms",
        t.discover_ms,
        t.files_discovered,
        t.prefilter_ms,
        t.resolve_ms,
        t.files_parsed,
        t.files_cached,
        t.files_ahead,
        t.parse_cpu_ms,
        t.lower_cpu_ms,
        t.census_cpu_ms,
        t.events_ms,
        t.inventory_ms,
        t.census_account_ms,
        if t.result_cached {
            " (inventory reused: no input changed)"
        } else {
            ""
        },
        start.elapsed().as_secs_f64() * 1000.0
    );
    if !t.phases.is_empty() {
        let passes: Vec<String> = t
            .phases
            .iter()
            .map(|p| {
                format!(
                    "{} {:.1} ms ({} parsed, {} modules run)",
                    p.name, p.ms, p.parsed, p.modules
                )
            })
            .collect();
        eprintln!("timings: passes: {}", passes.join(", "));
    }
}

/// The counts the documents state (catalog.json's and events.json's
/// `stats`), so the summary and `build`'s line say what the documents say.
pub(crate) struct DocumentCounts {
    /// catalog.json's operations (an `all` route is one per method).
    pub(crate) operations: u64,
    /// Routes declared with `all`.
    pub(crate) all_routes: usize,
    /// catalog.json's operations under the unknown prefix `{?}`, which
    /// `operations` leaves out.
    pub(crate) unknown_prefix: u64,
    /// catalog.json's domains (id, operations).
    pub(crate) domains: std::collections::BTreeMap<String, usize>,
    /// catalog.json's operations per app (`file:line`).
    pub(crate) per_app: std::collections::BTreeMap<String, usize>,
    /// events.json's stats.
    pub(crate) events: u64,
    pub(crate) client_to_server: u64,
    pub(crate) server_to_client: u64,
    pub(crate) bidirectional: u64,
    pub(crate) lifecycle: u64,
    pub(crate) namespaces: u64,
    pub(crate) event_files: u64,
    /// Every finding (catalog.json's plus events.json's).
    pub(crate) findings: usize,
}

impl DocumentCounts {
    pub(crate) fn of(inv: &analyzer::Inventory) -> DocumentCounts {
        let catalog = specgen::catalog(inv);
        let events = specgen::events(inv);
        let n = |v: &serde_json::Value, k: &str| v["stats"][k].as_u64().unwrap_or(0);
        DocumentCounts {
            operations: n(&catalog, "operations"),
            unknown_prefix: (catalog["operations"].as_array().map_or(0, Vec::len) as u64)
                .saturating_sub(n(&catalog, "operations")),
            all_routes: inv.operations.iter().filter(|o| o.method == "all").count(),
            domains: catalog["domains"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| {
                    (
                        d["id"].as_str().unwrap_or("").to_string(),
                        d["operations"].as_u64().unwrap_or(0) as usize,
                    )
                })
                .collect(),
            per_app: catalog["operations"].as_array().into_iter().flatten().fold(
                Default::default(),
                |mut m, o| {
                    *m.entry(o["app"].as_str().unwrap_or("").to_string())
                        .or_default() += 1;
                    m
                },
            ),
            events: n(&events, "events"),
            client_to_server: n(&events, "clientToServer"),
            server_to_client: n(&events, "serverToClient"),
            bidirectional: n(&events, "bidirectional"),
            lifecycle: n(&events, "lifecycle"),
            namespaces: n(&events, "namespaces"),
            event_files: n(&events, "sourceFiles"),
            findings: inv.findings.len(),
        }
    }
}

/// `HTTP: 312 of 318 registrations charted (6 unresolved, see findings); Socket.IO: 180 of 185 sites`
pub(crate) fn coverage_line(c: &analyzer::Coverage) -> String {
    let part = |charted: usize, total: usize, what: &str| {
        let missing = total.saturating_sub(charted);
        if missing == 0 {
            format!("{charted} of {total} {what} charted")
        } else {
            format!("{charted} of {total} {what} charted ({missing} unresolved, see findings)")
        }
    };
    format!(
        "HTTP: {}; Socket.IO: {}",
        part(c.http_charted, c.http_total, "registrations"),
        part(c.socket_charted, c.socket_total, "sites")
    )
}

pub(crate) fn print_summary(
    out: &mut impl Write,
    inv: &analyzer::Inventory,
    list: bool,
    level: analyzer::Severity,
) -> Result<()> {
    let s = &inv.stats;
    writeln!(out, "{}", coverage_line(&inv.coverage))?;
    let counts = DocumentCounts::of(inv);
    writeln!(
        out,
        "entries: {}",
        if inv.entries.is_empty() {
            "(none)".into()
        } else {
            inv.entries.join(", ")
        }
    )?;
    // Chosen automatically: say why each one.
    for e in &inv.entries {
        if let Some(why) = inv.entry_reasons.get(e) {
            writeln!(out, "  {e}: {why}")?;
        }
    }
    writeln!(
        out,
        "HTTP: {} operations{}{}, {} declarations, {} app-level mounts, {} source files{}",
        counts.operations,
        match counts.all_routes {
            0 => String::new(),
            n => format!(
                " ({n} `all` route{} counted once per method)",
                if n == 1 { "" } else { "s" }
            ),
        },
        // Said here, so that "0 operations" never reads as nothing found.
        match counts.unknown_prefix {
            0 => String::new(),
            n => format!(" and {n} under the unknown prefix `{{?}}` (see findings)"),
        },
        s.declarations,
        s.mounts,
        s.source_files,
        if s.salvaged > 0 {
            format!(
                "; {} salvaged from code no entry runs (marked reached; those under the unknown prefix `{{?}}` are not counted above)",
                s.salvaged
            )
        } else {
            String::new()
        }
    )?;
    for app in &inv.apps {
        writeln!(
            out,
            "  app {}:{}  {} operations{}",
            app.at.file,
            app.at.line,
            counts
                .per_app
                .get(&format!("{}:{}", app.at.file, app.at.line))
                .copied()
                .unwrap_or(0),
            app.reached
                .as_ref()
                .map(|r| format!("  (reached: {})", r.label()))
                .unwrap_or_default()
        )?;
    }
    let domains = &counts.domains;
    let mut top: Vec<_> = domains.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let shown: Vec<String> = top
        .iter()
        .take(12)
        .map(|(d, n)| format!("{d} {n}"))
        .collect();
    writeln!(
        out,
        "domains: {} ({}{})",
        domains.len(),
        shown.join(", "),
        if domains.len() > 12 { ", ..." } else { "" }
    )?;
    if list {
        for op in &inv.operations {
            let d = &op.declarations[0];
            writeln!(
                out,
                "  {:<7} {:<60} {}:{}{}{}",
                op.method.to_uppercase(),
                op.path.express,
                d.at.file,
                d.at.line,
                d.via
                    .as_ref()
                    .map(|v| format!(" (via {}:{})", v.file, v.line))
                    .unwrap_or_default(),
                op.conditional()
                    .map(|c| format!("  (if {c})"))
                    .unwrap_or_default()
                    + &op
                        .reached
                        .as_ref()
                        .map(|r| format!("  (reached: {})", r.label()))
                        .unwrap_or_default()
            )?;
        }
    }
    writeln!(
        out,
        "Socket.IO: {} events ({} client-to-server, {} server-to-client, {} both ways), {} lifecycle, {} namespaces, {} source files",
        counts.events,
        counts.client_to_server,
        counts.server_to_client,
        counts.bidirectional,
        counts.lifecycle,
        counts.namespaces,
        counts.event_files
    )?;
    // Findings grouped by severity (errors first), then cause, with counts.
    let mut groups: std::collections::BTreeMap<
        (analyzer::Severity, &str),
        Vec<&analyzer::Finding>,
    > = Default::default();
    for f in &inv.findings {
        groups.entry((f.severity(), f.cause())).or_default().push(f);
    }
    let count =
        |sev: analyzer::Severity| inv.findings.iter().filter(|f| f.severity() == sev).count();
    writeln!(
        out,
        "findings: {} ({} errors, {} warnings, {} info)",
        inv.findings.len(),
        count(analyzer::Severity::Error),
        count(analyzer::Severity::Warning),
        count(analyzer::Severity::Info)
    )?;
    for ((sev, cause), list) in &groups {
        if *sev > level {
            continue;
        }
        writeln!(out, "  {} {cause} ({})", sev.as_str(), list.len())?;
        for f in list {
            writeln!(
                out,
                "    {:<18} {}:{}  {}",
                f.code.as_str(),
                f.at.file,
                f.at.line,
                f.message
            )?;
        }
    }
    let c = &inv.coverage;
    if c.http_charted < c.http_total || c.socket_charted < c.socket_total {
        let mut causes: Vec<(&String, &usize)> = c
            .causes
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "not-a-router" | "not-a-socket"))
            .collect();
        causes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        writeln!(
            out,
            "coverage {:.1}%: {} registrations or sites not charted; top causes: {}",
            c.percent(),
            (c.http_total - c.http_charted) + (c.socket_total - c.socket_charted),
            causes
                .iter()
                .take(4)
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    Ok(())
}
