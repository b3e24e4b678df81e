//! `portolan check`: pin, no drift, drift after an edit, update.

use crate::util::{copy_tree, portolan, workspace};

#[test]
fn check_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ts-tasks");
    copy_tree(&workspace().join("tests/projects/ts-tasks"), &root);
    let cache = tmp.path().join("cache");
    let snap = tmp.path().join("pins/ts-tasks.snapshot");
    let (r, s) = (root.to_str().unwrap(), snap.to_str().unwrap());

    let missing = portolan(&["check", r, "--snapshot", s], &cache);
    assert_eq!(missing.code, 2, "{missing}");
    assert!(
        missing.stderr.contains("does not exist") && missing.stderr.contains("--update"),
        "{missing}"
    );

    let pin = portolan(&["check", r, "--snapshot", s, "--update"], &cache);
    assert_eq!(pin.code, 0, "{pin}");
    let text = std::fs::read_to_string(&snap).unwrap();
    assert!(text.contains("count operations | 15\n"), "{text}");
    assert!(
        text.contains("operation GET /healthz/ready | sources=src/routes/health.ts | middleware="),
        "{text}"
    );
    assert!(!text.contains("health.ts:"), "no line numbers: {text}");

    let clean = portolan(&["check", r, "--snapshot", s], &cache);
    assert_eq!(clean.code, 0, "{clean}");
    assert!(clean.stdout.starts_with("no drift"), "{clean}");

    // Moving code around is not drift: add lines above the routes.
    let health = root.join("src/routes/health.ts");
    let original = std::fs::read_to_string(&health).unwrap();
    std::fs::write(&health, format!("// a comment\n\n{original}")).unwrap();
    let moved = portolan(&["check", r, "--snapshot", s], &cache);
    assert_eq!(moved.code, 0, "{moved}");

    // Renaming a route is.
    std::fs::write(&health, original.replace("'/ready'", "'/live'")).unwrap();
    let drift = portolan(&["check", r, "--snapshot", s], &cache);
    assert_eq!(drift.code, 1, "{drift}");
    assert!(
        drift
            .stdout
            .starts_with("drift: 1 added, 1 removed, 0 changed\n"),
        "{drift}"
    );
    assert!(
        drift
            .stdout
            .contains("\n+ operation GET /healthz/live | sources=src/routes/health.ts"),
        "{drift}"
    );
    assert!(
        drift
            .stdout
            .contains("\n- operation GET /healthz/ready | sources=src/routes/health.ts"),
        "{drift}"
    );

    // A middleware added to a route is a change of that operation.
    let guarded = original
        .replace(
            "const router = Router();",
            "const router = Router();\nconst noCache = (_req: any, res: any, next: any) => { res.set('Cache-Control', 'no-store'); next(); };",
        )
        .replace("router.get('/', (_req", "router.get('/', noCache, (_req");
    std::fs::write(&health, guarded).unwrap();
    let changed = portolan(&["check", r, "--snapshot", s], &cache);
    assert_eq!(changed.code, 1, "{changed}");
    assert!(
        changed.stdout.starts_with(
            "drift: 0 added, 0 removed, 1 changed\n~ operation GET /healthz\n    middleware: express.json() -> express.json() noCache\n"
        ),
        "{changed}"
    );

    // An update that cannot be written leaves the previous snapshot whole.
    let pinned = std::fs::read(&snap).unwrap();
    let failed = crate::util::portolan_with(
        &["check", r, "--snapshot", s, "--update"],
        &cache,
        &[("PORTOLAN_TEST_FAIL_WRITE", "ts-tasks.snapshot")],
    );
    assert_eq!(failed.code, 2, "{failed}");
    assert!(failed.stderr.contains("it was left as it was"), "{failed}");
    assert_eq!(std::fs::read(&snap).unwrap(), pinned);

    let update = portolan(&["check", r, "--snapshot", s, "--update"], &cache);
    assert_eq!(update.code, 0, "{update}");
    let after = portolan(&["check", r, "--snapshot", s], &cache);
    assert_eq!(after.code, 0, "{after}");
}

/// `--min-coverage N` fails below N percent of the census, with or without a snapshot;
/// `scan` starts with the coverage line and ends with the top causes below 100 %.
#[test]
fn coverage_gate_and_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let fixture = |name: &str| {
        let root = tmp.path().join(name);
        copy_tree(
            &workspace()
                .join("analyzer/tests/fixtures/census")
                .join(name),
            &root,
        );
        root
    };
    let half = fixture("uncalled-function");
    let r = half.to_str().unwrap();
    let below = portolan(&["check", r, "--min-coverage", "60"], &cache);
    assert_eq!(below.code, 1, "{below}");
    assert!(below.stdout.contains("below --min-coverage 60"), "{below}");
    let enough = portolan(&["check", r, "--min-coverage", "50"], &cache);
    assert_eq!(enough.code, 0, "{enough}");

    let scan = portolan(&["scan", r], &cache);
    assert_eq!(scan.code, 0, "{scan}");
    assert!(
        scan.stdout.starts_with(
            "HTTP: 1 of 2 registrations charted (1 unresolved, see findings); Socket.IO: 0 of 0 sites charted\n"
        ),
        "{scan}"
    );
    assert!(
        scan.stdout.contains("  error uncalled-function (1)\n"),
        "{scan}"
    );
    assert!(
        scan.stdout
            .trim_end()
            .ends_with("1 registrations or sites not charted; top causes: uncalled-function 1"),
        "{scan}"
    );

    // Info findings are listed by default and left out with --findings warning.
    let info = fixture("not-a-router");
    let i = info.to_str().unwrap();
    let all = portolan(&["scan", i], &cache);
    assert!(all.stdout.contains("  info not-a-router (2)\n"), "{all}");
    assert!(
        !all.stdout.contains("coverage "),
        "100 %: no closing line: {all}"
    );
    let errors = portolan(&["scan", i, "--findings", "warning"], &cache);
    assert!(!errors.stdout.contains("not-a-router"), "{errors}");
}
