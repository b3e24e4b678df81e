//! The bundled example projects (`tests/projects/*`): every HTTP operation
//! listed by hand in `EXPECTED.md` (`METHOD PATH FILE:LINE` lines) must be
//! found at that location, and nothing else.

use std::collections::BTreeSet;
use test_support::render::render;
use test_support::workspace;

fn check(name: &str) {
    let root = workspace().join("tests/projects").join(name);
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
    let rendered = render(&inv);
    let actual = rendered.declarations;
    // Every census item is charted or accounted for by a finding.
    assert!(
        rendered.unaccounted.is_empty(),
        "{name}: census items accounted for by nothing: {:#?}",
        rendered.unaccounted
    );
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

/// Event sites listed in EXPECTED.md's Socket.IO section
/// (`event direction namespace FILE:LINE [side=client]`), lifecycle ones included.
fn expected_sites(md: &str) -> BTreeSet<String> {
    let section = md.split("## Socket.IO events").nth(1).unwrap_or("");
    let section = section.split("## Must NOT").next().unwrap_or(section);
    section
        .lines()
        .map(str::trim)
        .filter(|l| l.contains(" client-to-server ") || l.contains(" server-to-client "))
        .filter(|l| !l.starts_with('-') && !l.starts_with('`'))
        .map(|l| {
            let side = if l.contains("side=client") {
                "client"
            } else {
                "server"
            };
            let w: Vec<&str> = l.split_whitespace().take(4).collect();
            format!("{} {side}", w.join(" "))
        })
        .collect()
}

#[test]
fn harbor_events_match_expected() {
    let root = workspace().join("tests/projects/harbor");
    let md = std::fs::read_to_string(root.join("EXPECTED.md")).unwrap();
    let expected = expected_sites(&md);
    assert!(
        expected.len() >= 30,
        "EXPECTED.md lists {} sites",
        expected.len()
    );
    let inv = analyzer::analyze(&analyzer::AnalyzeOptions {
        root,
        no_cache: true,
        ..Default::default()
    })
    .unwrap();
    let actual: BTreeSet<String> = inv
        .events
        .iter()
        .flat_map(|e| {
            e.sites.iter().map(move |s| {
                format!(
                    "{} {} {} {}:{} {}",
                    e.name,
                    s.direction.as_str(),
                    e.namespace,
                    s.at.file,
                    s.at.line,
                    s.side.as_str()
                )
            })
        })
        .collect();
    let missing: Vec<_> = expected.difference(&actual).collect();
    let extra: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:#?}\nunexpected {extra:#?}"
    );
    // Lifecycle events are flagged and not counted.
    let lifecycle: BTreeSet<&str> = inv
        .events
        .iter()
        .filter(|e| e.lifecycle)
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        lifecycle,
        BTreeSet::from(["connect", "connection", "disconnect"])
    );
    assert_eq!(inv.event_stats.events, 20);
    // Helper-forwarded names are attributed to the caller, through the helper.
    let closed = inv
        .events
        .iter()
        .find(|e| e.name == "harbor:closed")
        .unwrap();
    assert_eq!(closed.sites[0].via.as_deref(), Some("broadcastTo"));
    // Acknowledgements.
    let acked: BTreeSet<&str> = inv
        .events
        .iter()
        .filter(|e| {
            e.sites
                .iter()
                .any(|s| s.ack && s.side == analyzer::Side::Server)
        })
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        acked,
        BTreeSet::from([
            "berth:subscribe",
            "booking:hold",
            "chat:message",
            "ping:check"
        ])
    );
    // The client emits chat:typing, which no server handler receives.
    assert!(
        inv.findings
            .iter()
            .any(|f| f.code == analyzer::FindingCode::UnhandledEvent
                && f.message.contains("chat:typing"))
    );
}

#[test]
fn configured_folders_decide_the_side() {
    let root = workspace().join("tests/projects/harbor");
    let run = |server_dirs: Vec<String>| {
        analyzer::analyze(&analyzer::AnalyzeOptions {
            root: root.clone(),
            no_cache: true,
            server_dirs,
            ..Default::default()
        })
        .unwrap()
    };
    let site = |inv: &analyzer::Inventory, name: &str| {
        inv.events
            .iter()
            .filter(|e| e.name == name)
            .flat_map(|e| e.sites.iter().cloned())
            .find(|s| s.at.file.starts_with("client/"))
            .unwrap()
    };
    // By value: client/src/socket.js uses socket.io-client.
    let inferred = run(Vec::new());
    let s = site(&inferred, "chat:typing");
    assert_eq!(s.side, analyzer::Side::Client);
    assert_eq!(s.direction, analyzer::Direction::ClientToServer);
    // Named as server code: the same emit is now a server emit.
    let forced = run(vec!["client".into()]);
    let s = site(&forced, "chat:typing");
    assert_eq!(s.side, analyzer::Side::Server);
    assert_eq!(s.direction, analyzer::Direction::ServerToClient);
}

/// With the entry given by hand, a file that creates an app of its own and
/// that no entry reaches keeps the advice to pass it with `--entry`, even
/// when the run has a computed import (which accounts for an extension a host
/// loads, a module that makes no app).
#[test]
fn an_unreached_program_keeps_the_entry_advice_beside_computed_imports() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| write_file(dir.path(), rel, text);
    write(
        "package.json",
        r#"{ "name": "host", "private": true, "dependencies": { "express": "^4.18.2" } }"#,
    );
    write(
        "server.js",
        "const express = require('express')\nconst load = require('./core/load')\nconst app = express()\napp.get('/health', (req, res) => res.send('ok'))\nload(app, JSON.parse(process.env.EXTENSIONS || '[]'))\napp.listen(3000)\n",
    );
    write(
        "core/load.js",
        "const path = require('path')\nmodule.exports = (app, exts) => {\n  for (const e of exts) require(path.join(e.dir, e.main))(app)\n}\n",
    );
    write(
        "ext/items.js",
        "module.exports = (app) => {\n  app.get('/items', (req, res) => res.json([]))\n}\n",
    );
    write(
        "tools/admin.js",
        "const express = require('express')\nconst app = express()\napp.get('/admin/status', (req, res) => res.json({}))\napp.listen(4000)\n",
    );
    let inv = analyzer::analyze(&analyzer::AnalyzeOptions {
        root: dir.path().to_path_buf(),
        entries: vec!["server.js".into()],
        no_cache: true,
        ..Default::default()
    })
    .unwrap();
    let of = |file: &str| {
        inv.findings
            .iter()
            .find(|f| f.at.file == file && f.cause.is_some())
            .unwrap_or_else(|| panic!("no finding with a cause at {file}: {:#?}", inv.findings))
    };
    let admin = of("tools/admin.js");
    assert_eq!(admin.cause(), "unreached-file", "{}", admin.message);
    assert!(admin.message.contains("--entry"), "{}", admin.message);
    let ext = of("ext/items.js");
    assert_eq!(ext.cause(), "dynamic-import", "{}", ext.message);
    assert!(ext.message.contains("core/load.js:3"), "{}", ext.message);
}

/// In a git checkout, an ignore file never hides a file git tracks: a
/// `.gitignore` that says `*.js` (each script added with `git add -f`)
/// leaves the tracked scripts in, and keeps the untracked build output out.
#[test]
fn tracked_files_an_ignore_file_matches_are_analyzed() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| write_file(dir.path(), rel, text);
    write(".gitignore", "# add scripts with git add -f\n*.js\n");
    write(
        "package.json",
        r#"{ "name": "tracked", "private": true, "main": "start.js", "dependencies": { "express": "^4.18.2" } }"#,
    );
    write(
        "start.js",
        "const express = require('express')\nconst app = express()\napp.use('/moves', require('./app/moves'))\napp.listen(3000)\n",
    );
    write(
        "app/moves.js",
        "const router = require('express').Router()\nrouter.get('/:id', (req, res) => res.json({}))\nmodule.exports = router\n",
    );
    // Build output nobody added: ignored.
    write(
        "app/stale.js",
        "const express = require('express')\nconst app = express()\napp.get('/stale', (req, res) => res.end())\napp.listen(4000)\n",
    );
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&[
        "add",
        "-f",
        ".gitignore",
        "package.json",
        "start.js",
        "app/moves.js",
    ]);
    let inv = analyzer::analyze(&analyzer::AnalyzeOptions {
        root: dir.path().to_path_buf(),
        no_cache: true,
        ..Default::default()
    })
    .unwrap();
    let ops = render(&inv).declarations;
    assert_eq!(
        ops.into_iter().collect::<Vec<_>>(),
        vec!["GET /moves/:id app/moves.js:2".to_string()]
    );
    // Exported from git (no `.git`): the tree holds only what was tracked;
    // the ignore file hides `main`, so it is not believed.
    std::fs::remove_dir_all(dir.path().join(".git")).unwrap();
    std::fs::remove_file(dir.path().join("app/stale.js")).unwrap();
    let inv = analyzer::analyze(&analyzer::AnalyzeOptions {
        root: dir.path().to_path_buf(),
        no_cache: true,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        render(&inv).declarations.into_iter().collect::<Vec<_>>(),
        vec!["GET /moves/:id app/moves.js:2".to_string()]
    );
}

/// Write `text` to `rel` under `root`, making its folders.
fn write_file(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}
