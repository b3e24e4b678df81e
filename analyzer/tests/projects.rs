//! The bundled example projects (`tests/projects/*`): every HTTP operation
//! listed by hand in `EXPECTED.md` (`METHOD PATH FILE:LINE` lines) must be
//! found at that location, and nothing else.

use std::collections::BTreeSet;
use std::path::Path;

fn check(name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/projects")
        .join(name);
    let expected_md = std::fs::read_to_string(root.join("EXPECTED.md")).unwrap();
    let verbs = [
        "GET ", "POST ", "PUT ", "PATCH ", "DELETE ", "ALL ", "HEAD ", "OPTIONS ",
    ];
    let expected: BTreeSet<String> = expected_md
        .lines()
        .map(|l| l.trim().trim_start_matches('`'))
        .filter(|l| verbs.iter().any(|v| l.starts_with(v)))
        .map(|l| {
            l.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
                .trim_end_matches('`')
                .to_string()
        })
        .collect();
    assert!(
        !expected.is_empty(),
        "{name}: EXPECTED.md lists no operations"
    );
    let inv = analyzer::analyze(&analyzer::AnalyzeOptions {
        root: root.clone(),
        no_cache: true,
        ..Default::default()
    })
    .unwrap();
    let actual: BTreeSet<String> = inv
        .operations
        .iter()
        .flat_map(|op| {
            op.declarations.iter().map(move |d| {
                format!(
                    "{} {} {}:{}",
                    op.method.to_uppercase(),
                    op.path.express,
                    d.at.file,
                    d.at.line
                )
            })
        })
        .collect();
    let missing: Vec<_> = expected.difference(&actual).collect();
    let extra: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{name}:\nmissing {missing:#?}\nunexpected {extra:#?}"
    );
}

#[test]
fn harbor_operations_match_expected() {
    check("harbor");
}

#[test]
fn ts_tasks_operations_match_expected() {
    check("ts-tasks");
}
