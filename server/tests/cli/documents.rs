//! `portolan build` on the sample projects, pinned byte for byte under
//! `snapshots/documents/<project>/<path>`. `UPDATE_SNAPSHOTS=1` rewrites
//! them; a pinned file the build no longer writes fails.

use crate::util::{portolan, workspace};
use std::collections::BTreeSet;
use test_support::snapshot;

fn build_and_compare(project: &str, extra: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let root = format!("tests/projects/{project}");
    let mut args = vec!["build", root.as_str(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let run = portolan(&args, &cache);
    assert_eq!(run.code, 0, "{run}");
    assert!(run.stdout.starts_with("wrote 7 documents"), "{run}");
    let pinned = workspace().join("snapshots/documents").join(project);
    let built = snapshot::files_under(&out);
    let expected_paths: BTreeSet<String> = [
        "asyncapi.json",
        "catalog.json",
        "events.json",
        "index.html",
        "internal/openapi.json",
        "openapi.json",
        "tools.min.json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(built, expected_paths);
    let mut stale = Vec::new();
    for rel in &built {
        let got = std::fs::read(out.join(rel)).unwrap();
        if let Err(e) = snapshot::compare(&pinned.join(rel), &got) {
            stale.push(e);
        }
    }
    for extra in snapshot::files_under(&pinned).difference(&built) {
        if let Err(e) = snapshot::stale(&pinned.join(extra)) {
            stale.push(e);
        }
    }
    assert!(
        stale.is_empty(),
        "{project}: documents differ from snapshots/documents/{project} (UPDATE_SNAPSHOTS=1 rewrites them):\n{}",
        stale.join("\n")
    );
}

/// The projects pinned here; a folder under snapshots/documents/ that is not one is stale.
const PINNED: &[&str] = &["harbor", "ts-tasks"];

#[test]
fn no_unreferenced_document_snapshots() {
    let dir = workspace().join("snapshots/documents");
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    assert_eq!(found, PINNED, "unreferenced folders in {}", dir.display());
}

#[test]
fn harbor_documents_match_snapshots() {
    build_and_compare("harbor", &["--config", "server/tests/data/harbor.toml"]);
}

#[test]
fn ts_tasks_documents_match_snapshots() {
    build_and_compare("ts-tasks", &[]);
}

#[test]
fn openapi31_switches_both_openapi_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = portolan(
        &[
            "build",
            "tests/projects/ts-tasks",
            "--openapi31",
            "--out",
            out.to_str().unwrap(),
        ],
        &tmp.path().join("cache"),
    );
    assert_eq!(run.code, 0, "{run}");
    for doc in ["openapi.json", "internal/openapi.json"] {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(doc)).unwrap()).unwrap();
        assert_eq!(v["openapi"], "3.1.0", "{doc}");
    }
}

#[test]
fn bad_config_and_bindings_fail_with_clear_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("portolan.toml");
    std::fs::write(&cfg, "[openapi]\ntitle = \"x\"\nservr = \"http://x\"\n").unwrap();
    let out = tmp.path().join("out");
    let args = [
        "build",
        "tests/projects/ts-tasks",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let run = portolan(&args, &tmp.path().join("cache"));
    assert_eq!(run.code, 2, "{run}");
    assert!(
        run.stderr.contains("portolan.toml") && run.stderr.contains("servr"),
        "{run}"
    );
    std::fs::write(
        &cfg,
        "[[tools]]\nname = \"tasks.purge\"\nbind = \"DELETE /api/v1/tasks\"\n",
    )
    .unwrap();
    let run = portolan(&args, &tmp.path().join("cache"));
    assert_eq!(run.code, 2, "{run}");
    assert!(
        run.stderr.contains("tool `tasks.purge` is bound to `DELETE /api/v1/tasks`, but no operation has that method and path"),
        "{run}"
    );
    assert!(!out.exists(), "nothing is written when the build fails");
}

#[test]
fn repeated_builds_reuse_documents_until_the_source_changes() {
    let (tmp, root) = test_support::project_copy("harbor");
    let cache = tmp.path().join("cache");
    let root_s = root.to_str().unwrap().to_string();
    let build = |out: &str| {
        let out = tmp.path().join(out);
        let run = portolan(
            &[
                "build",
                &root_s,
                "--out",
                out.to_str().unwrap(),
                "--timings",
            ],
            &cache,
        );
        assert_eq!(run.code, 0, "{run}");
        (run, std::fs::read(out.join("catalog.json")).unwrap())
    };
    let (first, a) = build("a");
    assert!(!first.stderr.contains("documents reused"), "{first}");
    let (second, b) = build("b");
    assert!(second.stderr.contains("documents reused"), "{second}");
    assert_eq!(a, b, "a reused build writes the same bytes");
    // Re-saving a file unchanged keeps the reuse; an edit does not.
    let reports = root.join("src/routes/reports.js");
    let text = std::fs::read_to_string(&reports).unwrap();
    std::fs::write(&reports, &text).unwrap();
    let (third, _) = build("c");
    assert!(third.stderr.contains("documents reused"), "{third}");
    std::fs::write(&reports, text.replace("'/occupancy'", "'/occupancy-now'")).unwrap();
    let (fourth, d) = build("d");
    assert!(!fourth.stderr.contains("documents reused"), "{fourth}");
    let d = String::from_utf8(d).unwrap();
    assert!(d.contains("/api/v1/reports/occupancy-now"));
}

#[test]
fn timings_name_every_pass_with_what_it_parsed() {
    let (tmp, root) = test_support::project_copy("harbor");
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("out");
    let args = [
        "build",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--timings",
    ];
    let run = portolan(&args, &cache);
    assert_eq!(run.code, 0, "{run}");
    let line = run
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("timings: passes: "))
        .unwrap_or_else(|| panic!("no passes line: {run}"));
    // `entries 12.3 ms (5 parsed, 4 modules run), unreached …`
    let passes: Vec<(&str, usize, usize)> = line
        .trim_end_matches(')')
        .split("), ")
        .map(|p| {
            let (name, rest) = p.split_once(' ').unwrap();
            let (_, counts) = rest.split_once('(').unwrap();
            let (parsed, modules) = counts.split_once(" parsed, ").unwrap();
            let modules = modules.strip_suffix(" modules run").unwrap();
            (name, parsed.parse().unwrap(), modules.parse().unwrap())
        })
        .collect();
    let names: Vec<&str> = passes.iter().map(|p| p.0).collect();
    assert_eq!(
        names,
        [
            "entries",
            "unreached",
            "contracts",
            "socket-modules",
            "uncalled",
            "settle"
        ],
        "{run}"
    );
    // The entries' pass runs the program's modules, and a cold run parses them.
    assert!(passes[0].1 > 0 && passes[0].2 > 0, "{run}");
    // A run with the documents reused analyzes nothing, so it names no pass.
    let again = portolan(&args, &cache);
    assert!(again.stderr.contains("documents reused"), "{again}");
    assert!(!again.stderr.contains("timings: passes:"), "{again}");
}
