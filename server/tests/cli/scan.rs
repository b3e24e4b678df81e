//! `portolan scan`: the summary, `--json` and `--events` outputs.

use crate::util::portolan;

#[test]
fn scan_prints_summary_catalog_and_events() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let summary = portolan(&["scan", "tests/projects/ts-tasks"], &cache);
    assert_eq!(summary.code, 0, "{summary}");
    assert!(summary.stdout.contains("HTTP: 15 operations"), "{summary}");

    let json = portolan(&["scan", "tests/projects/ts-tasks", "--json"], &cache);
    assert_eq!(json.code, 0, "{json}");
    let catalog: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(catalog["schemaVersion"], 2);
    assert_eq!(catalog["stats"]["operations"], 15);

    let events = portolan(&["scan", "tests/projects/harbor", "--events"], &cache);
    assert_eq!(events.code, 0, "{events}");
    let doc: serde_json::Value = serde_json::from_str(&events.stdout).unwrap();
    assert_eq!(doc["schemaVersion"], 2);
    let api = doc["events"].as_array().unwrap();
    let lifecycle = doc["lifecycleEvents"].as_array().unwrap();
    assert_eq!(doc["stats"]["events"], api.len());
    assert!(
        api.iter()
            .all(|e| e["event"] != "connection" && e["event"] != "disconnect")
    );
    assert!(
        lifecycle.iter().any(|e| e["event"] == "disconnect"),
        "{}",
        events.stdout
    );
    assert!(
        api.iter()
            .any(|e| e["event"] == "ops:alert" && e["namespace"] == "/ops"),
        "{}",
        events.stdout
    );
}

/// `scan --json` prints exactly the bytes of `build`'s `catalog.json`, on
/// every fixture and sample project (it once analyzed the HTTP side only and
/// lost the findings of code read for the events).
#[test]
fn scan_json_is_builds_catalog_everywhere() {
    let ws = crate::util::workspace();
    let mut roots: Vec<String> = Vec::new();
    for base in ["tests/projects", "analyzer/tests/fixtures"] {
        let mut stack = vec![ws.join(base)];
        while let Some(dir) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            let is_case = dir.join("expected.txt").is_file() || dir.join("EXPECTED.md").is_file();
            if is_case {
                roots.push(
                    dir.strip_prefix(&ws)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
                continue;
            }
            stack.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    roots.sort();
    assert!(roots.len() > 100, "{} cases", roots.len());
    let tmp = tempfile::tempdir().unwrap();
    let differ = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in 0..2 {
            let (roots, differ, next) = (&roots, &differ, &next);
            let out = tmp.path().join(format!("out{w}"));
            let cache = tmp.path().join("unused");
            s.spawn(move || {
                while let Some(root) =
                    roots.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let o = out.to_str().unwrap();
                    let build = portolan(&["build", root, "--out", o, "--no-cache"], &cache);
                    let json = portolan(&["scan", root, "--json", "--no-cache"], &cache);
                    let catalog = std::fs::read_to_string(out.join("catalog.json"));
                    if build.code != 0
                        || json.code != 0
                        || catalog.ok().as_ref() != Some(&json.stdout)
                    {
                        differ.lock().unwrap().push(root.clone());
                    }
                }
            });
        }
    });
    let differ = differ.into_inner().unwrap();
    eprintln!(
        "scan --json vs build: {} projects, {} differ",
        roots.len(),
        differ.len()
    );
    assert!(
        differ.is_empty(),
        "scan --json differs from build's catalog.json on:\n  {}",
        differ.join("\n  ")
    );
}

/// The summary and `build`'s line state the counts the documents state:
/// operations (an `all` route is one per method), per app and per domain,
/// events with their directions, lifecycle events, namespaces, findings.
#[test]
fn summary_agrees_with_the_documents() {
    for root in [
        "tests/projects/harbor",
        "tests/projects/ts-tasks",
        "analyzer/tests/fixtures/findings/event-code-findings",
        "analyzer/tests/fixtures/findings/runtime-path",
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        let out = tmp.path().join("out");
        let build = portolan(&["build", root, "--out", out.to_str().unwrap()], &cache);
        assert_eq!(build.code, 0, "{build}");
        let summary = portolan(&["scan", root], &cache);
        assert_eq!(summary.code, 0, "{summary}");
        let read = |f: &str| -> serde_json::Value {
            serde_json::from_slice(&std::fs::read(out.join(f)).unwrap()).unwrap()
        };
        let (catalog, events) = (read("catalog.json"), read("events.json"));
        let c = &catalog["stats"];
        let e = &events["stats"];
        let findings = catalog["findings"].as_array().unwrap().len()
            + events["findings"].as_array().map_or(0, Vec::len);
        let text = &summary.stdout;
        let has = |want: String| {
            assert!(
                text.contains(&want),
                "{root}: the summary lacks `{want}`:\n{text}"
            );
        };
        has(format!("HTTP: {} operations", c["operations"]));
        // Operations under the unknown prefix are said beside the count
        // that leaves them out.
        let unknown = catalog["operations"].as_array().unwrap().len() as u64
            - c["operations"].as_u64().unwrap();
        if unknown > 0 {
            has(format!(
                " and {unknown} under the unknown prefix `{{?}}` (see findings), "
            ));
        } else {
            assert!(
                !text.contains("under the unknown prefix `{?}` (see findings)"),
                "{text}"
            );
        }
        has(format!(
            "{} declarations, {} app-level mounts, {} source files",
            c["declarations"], c["mounts"], c["sourceFiles"]
        ));
        has(format!("domains: {} (", c["domains"]));
        for d in catalog["domains"].as_array().unwrap().iter().take(12) {
            has(format!("{} {}", d["id"].as_str().unwrap(), d["operations"]));
        }
        for a in catalog["apps"].as_array().unwrap() {
            let at = a["at"].as_str().unwrap();
            let n = catalog["operations"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|o| o["app"] == at)
                .count();
            has(format!("  app {at}  {n} operations"));
        }
        has(format!(
            "Socket.IO: {} events ({} client-to-server, {} server-to-client, {} both ways), {} lifecycle, {} namespaces, {} source files",
            e["events"],
            e["clientToServer"],
            e["serverToClient"],
            e["bidirectional"],
            e["lifecycle"],
            e["namespaces"],
            e["sourceFiles"]
        ));
        has(format!("findings: {findings}"));
        assert!(
            build.stdout.contains(&format!(
                "({} operations, {} events, {findings} findings)",
                c["operations"], e["events"]
            )),
            "{root}: {build}"
        );
    }
}

#[test]
fn contracts_name_the_library_that_states_them() {
    // JSON Schema handed to Ajv or express-json-validator-middleware is
    // `json-schema`, a Zod schema `zod`, a Joi one `joi`.
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (fixture, want) in [
        (
            "analyzer/tests/fixtures/contracts/ajv-json-schema",
            "json-schema",
        ),
        (
            "analyzer/tests/fixtures/contracts/zod-middleware-esm-default",
            "zod",
        ),
        ("analyzer/tests/fixtures/contracts/joi-validate", "joi"),
    ] {
        let run = portolan(&["scan", fixture, "--json"], tmp.path());
        assert_eq!(run.code, 0, "{run}");
        let catalog: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let sources: Vec<String> = catalog["operations"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|o| {
                ["body", "query", "params"]
                    .into_iter()
                    .filter_map(|p| o["contract"][p]["source"].as_str().map(str::to_string))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(!sources.is_empty(), "{fixture} states no request schema");
        assert!(sources.iter().all(|s| s == want), "{fixture}: {sources:?}");
        seen.insert(want);
    }
    assert_eq!(seen.len(), 3);
}

/// A JSON file read as data is an input: a stored result is not reused once
/// its bytes change (the result's key covers only the source files).
#[test]
fn edited_json_data_is_read_again() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let root = tmp.path().join("app");
    crate::util::copy_tree(
        &crate::util::workspace().join("analyzer/tests/fixtures/modules/json-require"),
        &root,
    );
    let root_arg = root.to_str().unwrap();
    let first = portolan(&["scan", root_arg, "--list"], &cache);
    assert!(first.stdout.contains("/api/items"), "{first}");
    std::fs::write(
        root.join("constants.json"),
        r#"{ "PREFIX": "/v9", "VERSIONS": [] }"#,
    )
    .unwrap();
    let second = portolan(&["scan", root_arg, "--list"], &cache);
    assert!(second.stdout.contains("/v9/items"), "{second}");
    assert!(!second.stdout.contains("/api/items"), "{second}");
}

#[test]
fn an_import_of_an_ignored_file_says_the_file_is_there() {
    // `vendor/` is left out by the default ignore rules; a relative import of a
    // file there is unresolved, and the finding says why, instead of claiming
    // the file does not exist. A truly missing file keeps the old wording.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("app");
    std::fs::create_dir_all(root.join("vendor/router")).unwrap();
    std::fs::write(
        root.join("package.json"),
        r#"{ "name": "vendored", "main": "server.js", "dependencies": { "express": "^4.19.2" } }"#,
    )
    .unwrap();
    std::fs::write(
        root.join("server.js"),
        "const express = require('express');\nconst router = require('./vendor/router');\nconst gone = require('./lib/gone');\nconst query = require('./sql/users.sql');\nconst app = express();\napp.use('/api', router);\napp.listen(3000);\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("sql")).unwrap();
    std::fs::write(root.join("sql/users.sql"), "select * from users;\n").unwrap();
    std::fs::write(
        root.join("vendor/router/index.js"),
        "module.exports = require('express').Router();\n",
    )
    .unwrap();
    let run = portolan(
        &["scan", root.to_str().unwrap(), "--json", "--no-cache"],
        &tmp.path().join("cache"),
    );
    assert_eq!(run.code, 0, "{run}");
    let catalog: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let unresolved: Vec<(u64, String)> = catalog["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "unresolved-import")
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(unresolved.len(), 3, "{unresolved:?}");
    assert_eq!(unresolved[0].0, 2);
    assert!(
        unresolved[0]
            .1
            .contains("the file is there (`vendor/router/index.js`)"),
        "{unresolved:?}"
    );
    assert_eq!(unresolved[1].0, 3);
    assert!(
        unresolved[1].1.ends_with("no such file in the project"),
        "{unresolved:?}"
    );
    // A file that is no source (read through a loader hook) is there too, and
    // no ignore rule is to blame.
    assert_eq!(unresolved[2].0, 4);
    assert!(
        unresolved[2]
            .1
            .contains("the file is there (`sql/users.sql`)")
            && unresolved[2].1.contains("no JavaScript or TypeScript")
            && !unresolved[2].1.contains("ignore rules"),
        "{unresolved:?}"
    );
}
