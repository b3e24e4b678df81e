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
use test_support::render::{Rendered, render};
use test_support::{project_copy, snapshot, staged_fixture, workspace};

/// A case analyzed (with `_node_modules/` installed), rendered as text.
fn run(case: &Path, cache: &Path) -> Rendered {
    let (_staged, root) = staged_fixture(case);
    let inv = analyzer::analyze(&analyzer::AnalyzeOptions {
        root,
        entries: Vec::new(),
        cache_dir: Some(cache.to_path_buf()),
        no_cache: false,
        skip_events: false,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{}: analyze failed: {e}", case.display()));
    // Every place a document names is a real line (1-based).
    for op in &inv.operations {
        for r in op.declarations.iter().flat_map(|d| &d.contract.responses) {
            assert!(
                r.at.line >= 1,
                "{}: the {} response of {} {} is at line 0 of {}",
                case.display(),
                r.status,
                op.method,
                op.path.express,
                r.at.file
            );
        }
    }
    render(&inv)
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
    let mut expected_reasons = BTreeSet::new();
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
        if line.starts_with("entry-reason ") {
            expected_reasons.insert(line.to_string());
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
    if !expected_reasons.is_empty() {
        for missing in expected_reasons.difference(&actual.entry_reasons) {
            problems.push(format!("  missing:    {missing}"));
        }
        for extra in actual.entry_reasons.difference(&expected_reasons) {
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
    if let Err(e) = snapshot::compare(&snapshot_of(&family, &name), actual.table.as_bytes()) {
        failures.push(format!("{family}/{name}: snapshot {e}"));
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
                if !wanted.contains(&f)
                    && let Err(e) = snapshot::stale(&f)
                {
                    failures.push(e);
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
    let (tmp, root) = project_copy("harbor");
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
