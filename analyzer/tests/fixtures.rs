//! Fixture tests: each folder under `tests/fixtures/<family>/<case>/` is a tiny
//! project with a hand-written `expected.txt` (see `tests/fixtures/README.md`).
//! The analyzer's operations and findings must equal it exactly, every census
//! item must be charted or accounted for by a finding, and the readable table
//! in `snapshots/analyzer/<family>/<case>.txt` must match.
//! `UPDATE_SNAPSHOTS=1` rewrites the tables and removes stale ones; otherwise a
//! stale table (one with no fixture) fails the `stale_snapshots` test. A case
//! folder named `*.skip` is a known gap: it is listed after the run, and it
//! must still fail. A case's `_node_modules/` folder is installed as
//! `node_modules/` in a temporary copy (so the repository tracks no
//! `node_modules/`).
//!
//! This target has its own harness (`harness = false`, `libtest-mimic`): every
//! case folder is one test named `<family>/<case>`, with its own temporary copy
//! and cache folder, and the tests run in parallel like `#[test]` functions do.
//! The whole-project cache tests below are tests of the same list. Arguments
//! are libtest's: `cargo test -p portolan-analyzer --test fixtures -- express/concat`
//! runs the cases whose name contains `express/concat` (`--exact` for that one
//! name), `-- sockets/` one family, `-- --list` lists them all.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use libtest_mimic::{Arguments, Failed, Trial};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

struct Actual {
    /// `METHOD PATH FILE:LINE [conditional]`, `finding CODE FILE:LINE`, and
    /// `event NAME DIRECTION NAMESPACE FILE:LINE SIDE [via=H] [ack] [assumed-namespace]`.
    lines: BTreeSet<String>,
    /// `contract METHOD PATH PART=...` lines (compared when expected.txt has any).
    contracts: BTreeSet<String>,
    /// `payload NAME DIRECTION NAMESPACE <json>` and `ack …` lines (compared when expected.txt has any).
    payloads: BTreeSet<String>,
    /// `guard METHOD PATH NAME STATUS FILE:LINE [credential=H]` lines (compared when expected.txt has any).
    guards: BTreeSet<String>,
    /// `entry FILE` lines (compared when expected.txt has any).
    entries: BTreeSet<String>,
    /// Same operation lines with ` mw=a,b` appended.
    with_mw: BTreeSet<String>,
    stats: String,
    /// `census charted=N total=N` (compared when expected.txt has one).
    census: String,
    /// Census items accounted for by nothing (must be empty for every case).
    unaccounted: Vec<String>,
    table: String,
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name = if name == "_node_modules" {
            "node_modules".into()
        } else {
            name
        };
        let target = to.join(name);
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn run(case: &Path, cache: &Path) -> Actual {
    // Materialize `_node_modules/` as `node_modules/` in a temporary copy.
    let staged = tempfile::tempdir().unwrap();
    let root = if case.join("_node_modules").is_dir() {
        let root = staged.path().join(case.file_name().unwrap());
        copy_tree(case, &root);
        root
    } else {
        case.to_path_buf()
    };
    let inv = analyzer::analyze(&analyzer::AnalyzeOptions {
        root,
        entries: Vec::new(),
        cache_dir: Some(cache.to_path_buf()),
        no_cache: false,
        skip_events: false,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{}: analyze failed: {e}", case.display()));
    let mut lines = BTreeSet::new();
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
    let unaccounted = unaccounted(&inv);
    if !payloads.is_empty() {
        table.push_str("\nPAYLOADS\n");
        for p in &payloads {
            table.push_str(p);
            table.push('\n');
        }
    }
    Actual {
        lines,
        contracts,
        payloads,
        guards,
        entries: inv.entries.iter().map(|e| format!("entry {e}")).collect(),
        with_mw,
        stats,
        census,
        unaccounted,
        table,
    }
}

/// Census items neither charted nor accounted for by a finding at the place
/// their entry names (the promise: nothing is silently dropped).
fn unaccounted(inv: &analyzer::Inventory) -> Vec<String> {
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

fn cases() -> Vec<PathBuf> {
    let root = workspace().join("analyzer/tests/fixtures");
    let mut out = Vec::new();
    for family in std::fs::read_dir(&root).unwrap() {
        let family = family.unwrap().path();
        if !family.is_dir() {
            continue;
        }
        for case in std::fs::read_dir(&family).unwrap() {
            let case = case.unwrap().path();
            if case.is_dir() {
                out.push(case);
            }
        }
    }
    out.sort();
    out
}

/// Whether `UPDATE_SNAPSHOTS` is set: tables are rewritten and stale ones removed.
fn updating() -> bool {
    std::env::var_os("UPDATE_SNAPSHOTS").is_some()
}

fn snap_root() -> PathBuf {
    workspace().join("snapshots/analyzer")
}

/// `(family, case)` of a case folder, as its trial is named: `family/case`.
fn family_and_name(case: &Path) -> (String, String) {
    let name = case.file_name().unwrap().to_string_lossy().to_string();
    let family = case
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    (family, name)
}

/// The readable table a case's analysis is pinned to.
fn snapshot_of(family: &str, name: &str) -> PathBuf {
    snap_root().join(family).join(format!("{name}.txt"))
}

/// Cases named `*.skip` that failed as they should (printed after the run).
static KNOWN_GAPS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// One fixture case: its own temporary copy and cache, its `expected.txt`,
/// the census accounting and its snapshot table.
fn check_case(case: &Path) -> Result<(), Failed> {
    let (family, name) = family_and_name(case);
    let skip = name.ends_with(".skip");
    let expected_text = std::fs::read_to_string(case.join("expected.txt"))
        .unwrap_or_else(|_| panic!("{} has no expected.txt", case.display()));
    let cache = tempfile::tempdir().unwrap();
    let actual = run(case, cache.path());
    let mut expected = BTreeSet::new();
    let mut expected_mw = Vec::new();
    let mut expected_stats = None;
    let mut expected_census = None;
    let mut expected_contracts = BTreeSet::new();
    let mut expected_payloads = BTreeSet::new();
    let mut expected_guards = BTreeSet::new();
    let mut expected_entries = BTreeSet::new();
    for line in expected_text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("contract ") {
            expected_contracts.insert(line.to_string());
            continue;
        }
        if line.starts_with("entry ") {
            expected_entries.insert(line.to_string());
            continue;
        }
        if line.starts_with("guard ") {
            expected_guards.insert(line.to_string());
            continue;
        }
        if line.starts_with("payload ") || line.starts_with("ack ") {
            expected_payloads.insert(line.to_string());
            continue;
        }
        if line.starts_with("stats ") {
            expected_stats = Some(line.to_string());
            continue;
        }
        if line.starts_with("census ") {
            expected_census = Some(line.to_string());
            continue;
        }
        match line.split_once(" mw=") {
            Some((base, _)) => {
                expected.insert(base.to_string());
                expected_mw.push(line.to_string());
            }
            None => {
                expected.insert(line.to_string());
            }
        }
    }
    let mut problems = Vec::new();
    for missing in expected.difference(&actual.lines) {
        problems.push(format!("  missing:    {missing}"));
    }
    for extra in actual.lines.difference(&expected) {
        problems.push(format!("  unexpected: {extra}"));
    }
    if !expected_contracts.is_empty() {
        for missing in expected_contracts.difference(&actual.contracts) {
            problems.push(format!("  missing:    {missing}"));
        }
        for extra in actual.contracts.difference(&expected_contracts) {
            problems.push(format!("  unexpected: {extra}"));
        }
    }
    if !expected_entries.is_empty() {
        for missing in expected_entries.difference(&actual.entries) {
            problems.push(format!("  missing:    {missing}"));
        }
        for extra in actual.entries.difference(&expected_entries) {
            problems.push(format!("  unexpected: {extra}"));
        }
    }
    if !expected_guards.is_empty() {
        for missing in expected_guards.difference(&actual.guards) {
            problems.push(format!("  missing:    {missing}"));
        }
        for extra in actual.guards.difference(&expected_guards) {
            problems.push(format!("  unexpected: {extra}"));
        }
    }
    if !expected_payloads.is_empty() {
        for missing in expected_payloads.difference(&actual.payloads) {
            problems.push(format!("  missing:    {missing}"));
        }
        for extra in actual.payloads.difference(&expected_payloads) {
            problems.push(format!("  unexpected: {extra}"));
        }
    }
    for mw in &expected_mw {
        if !actual.with_mw.contains(mw) {
            let base = mw.split_once(" mw=").unwrap().0;
            let got = actual
                .with_mw
                .iter()
                .find(|l| l.starts_with(&format!("{base} mw=")))
                .cloned()
                .unwrap_or_else(|| "(no such operation)".into());
            problems.push(format!("  middleware: want {mw}\n              got  {got}"));
        }
    }
    if let Some(s) = &expected_stats
        && *s != actual.stats
    {
        problems.push(format!("  stats: want {s}\n         got  {}", actual.stats));
    }
    if let Some(s) = &expected_census
        && *s != actual.census
    {
        problems.push(format!(
            "  census: want {s}\n          got  {}",
            actual.census
        ));
    }
    for u in &actual.unaccounted {
        problems.push(format!("  census item accounted for by nothing: {u}"));
    }
    if skip {
        if problems.is_empty() {
            return Err(
                format!("{family}/{name}: marked .skip but now passes; drop the suffix").into(),
            );
        }
        KNOWN_GAPS.lock().unwrap().push(format!("{family}/{name}"));
        return Ok(());
    }
    let mut failures = Vec::new();
    if !problems.is_empty() {
        failures.push(format!(
            "{family}/{name}:\n{}\n--- analyzer table ---\n{}",
            problems.join("\n"),
            actual.table
        ));
    }
    let snap = snapshot_of(&family, &name);
    let current = std::fs::read_to_string(&snap).ok();
    if current.as_deref() != Some(actual.table.as_str()) {
        if updating() {
            std::fs::create_dir_all(snap.parent().unwrap()).unwrap();
            std::fs::write(&snap, &actual.table).unwrap();
        } else {
            failures.push(format!(
                "{family}/{name}: snapshot {} differs (run with UPDATE_SNAPSHOTS=1 after checking):\n--- want ---\n{}\n--- got ---\n{}",
                snap.display(),
                current.unwrap_or_default(),
                actual.table
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n").into())
    }
}

/// Stale snapshots: a table with no fixture behind it (a `*.skip` case has no table).
fn check_stale_snapshots(all: &[PathBuf]) -> Result<(), Failed> {
    let wanted: BTreeSet<PathBuf> = all
        .iter()
        .map(|case| family_and_name(case))
        .filter(|(_, name)| !name.ends_with(".skip"))
        .map(|(family, name)| snapshot_of(&family, &name))
        .collect();
    let snap_root = snap_root();
    let mut failures = Vec::new();
    if snap_root.exists() {
        for family in std::fs::read_dir(&snap_root).unwrap() {
            for f in std::fs::read_dir(family.unwrap().path()).unwrap() {
                let f = f.unwrap().path();
                if !wanted.contains(&f) {
                    if updating() {
                        std::fs::remove_file(&f).unwrap();
                    } else {
                        failures.push(format!("stale snapshot with no fixture: {}", f.display()));
                    }
                }
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        failures.sort();
        Err(format!(
            "{} stale snapshot(s):\n\n{}",
            failures.len(),
            failures.join("\n")
        )
        .into())
    }
}

/// Runs `f` as a trial: an assertion that panics fails the trial with its message.
fn trial(name: &str, f: fn()) -> Trial {
    Trial::test(name, move || {
        f();
        Ok(())
    })
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let all = cases();
    assert!(
        all.len() >= 30,
        "expected at least 30 fixture cases, found {}",
        all.len()
    );
    // The three whole-project tests take longest: they start first.
    let mut trials = vec![
        trial(
            "analysis_is_deterministic_across_runs_and_cache_states",
            analysis_is_deterministic_across_runs_and_cache_states,
        ),
        trial(
            "warm_runs_reuse_the_result_until_a_file_changes",
            warm_runs_reuse_the_result_until_a_file_changes,
        ),
        trial(
            "a_damaged_facts_pack_is_a_cache_miss_not_wrong_facts",
            a_damaged_facts_pack_is_a_cache_miss_not_wrong_facts,
        ),
    ];
    let stale_cases = all.clone();
    trials.push(Trial::test("stale_snapshots", move || {
        check_stale_snapshots(&stale_cases)
    }));
    for case in all {
        let (family, name) = family_and_name(&case);
        trials.push(Trial::test(format!("{family}/{name}"), move || {
            check_case(&case)
        }));
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let gaps = KNOWN_GAPS.lock().unwrap();
    if !gaps.is_empty() {
        eprintln!("known gaps (.skip): {}", gaps.join(", "));
    }
    conclusion.exit_code()
}

/// A copy of harbor we can edit (kept while the first folder lives), and an empty cache folder.
fn editable_harbor() -> (tempfile::TempDir, PathBuf, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("harbor");
    copy_tree(&workspace().join("tests/projects/harbor"), &root);
    (tmp, root, tempfile::tempdir().unwrap())
}

/// Analysis of a whole project (both inventories) with this cache folder.
fn options(root: &Path, cache: &Path, no_cache: bool) -> analyzer::AnalyzeOptions {
    analyzer::AnalyzeOptions {
        root: root.to_path_buf(),
        entries: Vec::new(),
        cache_dir: Some(cache.to_path_buf()),
        no_cache,
        skip_events: false,
        ..Default::default()
    }
}

fn analysis_is_deterministic_across_runs_and_cache_states() {
    let case = workspace().join("tests/projects/harbor");
    let cold = tempfile::tempdir().unwrap();
    let opts = |dir: &Path, no_cache: bool| options(&case, dir, no_cache);
    let a = analyzer::analyze(&opts(cold.path(), false)).unwrap();
    let b = analyzer::analyze(&opts(cold.path(), false)).unwrap();
    let c = analyzer::analyze(&opts(cold.path(), true)).unwrap();
    assert_eq!(b.timings.files_parsed, 0, "a warm run must parse nothing");
    let ja = serde_json::to_string(&a).unwrap();
    assert_eq!(ja, serde_json::to_string(&b).unwrap());
    assert_eq!(ja, serde_json::to_string(&c).unwrap());
    assert!(
        a.operations.len() > 20,
        "harbor has dozens of operations, got {}",
        a.operations.len()
    );
}

fn warm_runs_reuse_the_result_until_a_file_changes() {
    let (_tmp, root, cache) = editable_harbor();
    let opts = options(&root, cache.path(), false);
    let first = analyzer::analyze(&opts).unwrap();
    assert!(!first.timings.result_cached);
    let second = analyzer::analyze(&opts).unwrap();
    assert!(
        second.timings.result_cached,
        "nothing changed: the stored result is used"
    );
    assert_eq!(
        serde_json::to_string(&first).unwrap(),
        serde_json::to_string(&second).unwrap()
    );
    // Rewriting a file with the same bytes keeps the result (content hashes decide).
    let reports = root.join("src/routes/reports.js");
    let text = std::fs::read_to_string(&reports).unwrap();
    std::fs::write(&reports, &text).unwrap();
    assert!(analyzer::analyze(&opts).unwrap().timings.result_cached);
    // An edit re-analyzes, re-parsing only the edited file.
    std::fs::write(&reports, text.replace("'/occupancy'", "'/occupancy-now'")).unwrap();
    let edited = analyzer::analyze(&opts).unwrap();
    assert!(!edited.timings.result_cached);
    assert_eq!(edited.timings.files_parsed, 1);
    let paths: Vec<&str> = edited
        .operations
        .iter()
        .map(|o| o.path.express.as_str())
        .collect();
    assert!(
        paths.contains(&"/api/v1/reports/occupancy-now"),
        "{paths:?}"
    );
    assert!(!paths.contains(&"/api/v1/reports/occupancy"));
}

fn a_damaged_facts_pack_is_a_cache_miss_not_wrong_facts() {
    let (_tmp, root, cache) = editable_harbor();
    let opts = |no_cache: bool| options(&root, cache.path(), no_cache);
    let first = analyzer::analyze(&opts(false)).unwrap();
    assert!(first.timings.files_parsed > 5);
    // The facts of every file sit in one pack; cut it in half and scramble the rest.
    let pack = cache.path().join("facts.pack");
    let mut bytes = std::fs::read(&pack).expect("the cold run wrote facts.pack");
    assert!(bytes.len() > 1000, "pack too small: {}", bytes.len());
    bytes.truncate(bytes.len() / 2);
    let quarter = bytes.len() / 2;
    for b in &mut bytes[quarter..] {
        *b = b.wrapping_add(1);
    }
    std::fs::write(&pack, &bytes).unwrap();
    // An edit, so the stored result cannot answer.
    let reports = root.join("src/routes/reports.js");
    let text = std::fs::read_to_string(&reports).unwrap();
    std::fs::write(&reports, format!("{text}\n// edited\n")).unwrap();
    let damaged = analyzer::analyze(&opts(false)).unwrap();
    assert!(
        damaged.timings.files_parsed > 1,
        "records past the damage are parsed again, got {}",
        damaged.timings.files_parsed
    );
    let fresh = analyzer::analyze(&opts(true)).unwrap();
    assert_eq!(
        serde_json::to_string(&damaged).unwrap(),
        serde_json::to_string(&fresh).unwrap()
    );
}
