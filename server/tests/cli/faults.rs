//! Fault injection: every cache file, and every record of the facts pack,
//! truncated, emptied, zeroed, bit-flipped and swapped with the same file
//! of another project's cache; each run's outputs (`build`'s documents,
//! `scan --json`, `scan --events`) must be byte-identical to a clean run's,
//! and the run says under `--timings` what it discarded. Each case runs
//! twice: with the rest of the cache intact, and with the layers above the
//! damaged one removed (so the damaged record is really read).
//!
//! Also here: two processes sharing one cache folder, the cache folder's
//! XDG resolution, and a failed output folder that keeps its previous set.
//!
//! `PORTOLAN_BIN=/path/to/older/portolan cargo test -p portolan --test cli faults`
//! runs the same checks against another binary.

use crate::util::{binary, copy_tree, portolan, portolan_with, workspace};
use std::collections::BTreeMap;
use std::path::Path;

/// What the three output-producing verbs printed or wrote.
#[derive(PartialEq, Eq, Debug)]
struct Outputs {
    documents: BTreeMap<String, Vec<u8>>,
    json: String,
    events: String,
}

fn read_tree(dir: &Path, base: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            read_tree(&p, base, out);
        } else if let Ok(rel) = p.strip_prefix(base) {
            out.insert(
                rel.to_string_lossy().replace('\\', "/"),
                std::fs::read(&p).unwrap(),
            );
        }
    }
}

/// Run the three verbs on `root` with `cache` (`None`: `--no-cache`);
/// the outputs and everything printed to stderr.
fn outputs(root: &str, cache: &Path, no_cache: bool, scratch: &Path) -> (Outputs, String) {
    let out = scratch.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let extra: &[&str] = if no_cache {
        &["--no-cache"]
    } else {
        &["--timings"]
    };
    let o = out.to_str().unwrap();
    let mut stderr = String::new();
    let mut run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(extra);
        let r = portolan(&all, cache);
        assert_eq!(r.code, 0, "{r}");
        stderr.push_str(&r.stderr);
        r.stdout
    };
    run(&["build", root, "--out", o]);
    let json = run(&["scan", root, "--json"]);
    let events = run(&["scan", root, "--events"]);
    let mut documents = BTreeMap::new();
    read_tree(&out, &out, &mut documents);
    (
        Outputs {
            documents,
            json,
            events,
        },
        stderr,
    )
}

/// Every cache file, relative to the cache folder, sorted.
fn cache_files(cache: &Path) -> Vec<String> {
    let mut all = BTreeMap::new();
    read_tree(cache, cache, &mut all);
    all.into_keys()
        .filter(|f| f != "lock" && f != "default.ignore")
        .collect()
}

/// The same layer's file in another project's cache.
fn counterpart(other: &Path, rel: &str) -> Vec<u8> {
    let files = cache_files(other);
    let pick = |pred: &dyn Fn(&str) -> bool| {
        files
            .iter()
            .find(|f| pred(f))
            .map(|f| std::fs::read(other.join(f)).unwrap())
            .unwrap_or_else(|| panic!("the other cache has no counterpart of {rel}: {files:?}"))
    };
    if rel.starts_with("out/") {
        pick(&|f| f.starts_with("out/"))
    } else if rel.starts_with("result-") {
        pick(&|f| f.starts_with("result-"))
    } else {
        pick(&|f| f == rel)
    }
}

/// The ways a file is damaged: (name, damaged bytes).
fn mutations(bytes: &[u8], other: Vec<u8>) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        (
            "truncated to half".to_string(),
            bytes[..bytes.len() / 2].to_vec(),
        ),
        (
            "truncated by one byte".into(),
            bytes[..bytes.len() - 1].to_vec(),
        ),
        ("emptied".into(), Vec::new()),
        ("zero-filled".into(), vec![0; bytes.len()]),
        ("swapped with another project's".into(), other),
    ];
    for at in [0, 9, 14, 30, bytes.len() / 2, bytes.len() - 1] {
        if at < bytes.len() {
            let mut b = bytes.to_vec();
            b[at] ^= 0x10;
            out.push((format!("bit flipped at byte {at}"), b));
        }
    }
    out
}

/// The (start, length) of every record in a facts pack.
/// (None for an older binary's pack, which has no record headers.)
fn pack_records(pack: &[u8]) -> Option<Vec<(usize, usize)>> {
    if !pack.starts_with(b"PTLN") {
        return None;
    }
    let mut out = Vec::new();
    let mut at = 0;
    while at + 52 <= pack.len() {
        let len = u64::from_le_bytes(pack[at + 12..at + 20].try_into().unwrap()) as usize + 52;
        out.push((at, len));
        at += len;
    }
    assert_eq!(at, pack.len(), "the pack is a sequence of whole records");
    Some(out)
}

/// One damaged cache: a name, the file, its damaged bytes, whether the
/// layers above it are removed.
struct Case {
    name: String,
    file: String,
    bytes: Vec<u8>,
    deep: bool,
}

#[test]
fn damaged_cache_never_changes_an_output() {
    let tmp = tempfile::tempdir().unwrap();
    let root = "tests/projects/harbor";
    let (clean, _) = outputs(
        root,
        &tmp.path().join("none"),
        true,
        &tmp.path().join("ref"),
    );
    assert_eq!(clean.documents.len(), 7);

    // A warm cache for the project, and one for another project.
    let pristine = tmp.path().join("pristine");
    let (warm, _) = outputs(root, &pristine, false, &tmp.path().join("warm"));
    assert_eq!(warm, clean, "a warm run differs from a clean one");
    outputs(root, &pristine, false, &tmp.path().join("warm"));
    let other = tmp.path().join("other");
    outputs(
        "tests/projects/ts-tasks",
        &other,
        false,
        &tmp.path().join("o"),
    );

    let files = cache_files(&pristine);
    for layer in ["index.bin", "walk.bin", "facts.pack"] {
        assert!(files.iter().any(|f| f == layer), "{layer} in {files:?}");
    }
    assert!(files.iter().any(|f| f.starts_with("result-")), "{files:?}");
    assert_eq!(files.iter().filter(|f| f.starts_with("out/")).count(), 3);

    let mut cases = Vec::new();
    for file in &files {
        let bytes = std::fs::read(pristine.join(file)).unwrap();
        let above_outputs = !file.starts_with("out/");
        for (how, damaged) in mutations(&bytes, counterpart(&other, file)) {
            for deep in [false, true] {
                if deep && !above_outputs {
                    continue;
                }
                cases.push(Case {
                    name: format!("{file} {how}"),
                    file: file.clone(),
                    bytes: damaged.clone(),
                    deep,
                });
            }
        }
    }
    // Every record of the pack, one at a time.
    let pack = std::fs::read(pristine.join("facts.pack")).unwrap();
    let records = pack_records(&pack).unwrap_or_else(|| {
        eprintln!("facts.pack has no record headers (an older binary): per-record cases skipped");
        Vec::new()
    });
    assert!(
        records.len() > 10 || std::env::var_os("PORTOLAN_BIN").is_some(),
        "{} records",
        records.len()
    );
    for (i, (at, len)) in records.iter().enumerate() {
        for (how, pos) in [("header", at + 20), ("body", at + len - 1 - (len - 52) / 2)] {
            let mut b = pack.clone();
            b[pos] ^= 0x01;
            cases.push(Case {
                name: format!("facts.pack record {i} ({how} bit flipped)"),
                file: "facts.pack".into(),
                bytes: b,
                deep: true,
            });
        }
    }

    // Two workers (the machine's cores), each case in its own folder.
    let failures = std::sync::Mutex::new(Vec::new());
    let silent = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in 0..2 {
            let (cases, clean, failures, silent, next) =
                (&cases, &clean, &failures, &silent, &next);
            let (pristine, base) = (&pristine, tmp.path().join(format!("w{w}")));
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let cache = base.join("cache");
                    let _ = std::fs::remove_dir_all(&cache);
                    copy_tree(pristine, &cache);
                    if case.deep {
                        let _ = std::fs::remove_dir_all(cache.join("out"));
                        for f in cache_files(&cache) {
                            if f.starts_with("result-") && !case.file.starts_with("result-") {
                                std::fs::remove_file(cache.join(f)).unwrap();
                            }
                        }
                    }
                    std::fs::write(cache.join(&case.file), &case.bytes).unwrap();
                    let label = format!(
                        "{}{}",
                        case.name,
                        if case.deep {
                            " (layers above removed)"
                        } else {
                            ""
                        }
                    );
                    let (got, stderr) = outputs(root, &cache, false, &base);
                    if &got != clean {
                        failures.lock().unwrap().push(label.clone());
                    }
                    // A damaged record that was read is said.
                    if case.deep && !stderr.contains("info: cache:") {
                        silent.lock().unwrap().push(label.clone());
                    }
                    // And the damage does not outlive the run.
                    let (again, stderr) = outputs(root, &cache, false, &base);
                    if &again != clean || stderr.contains("info: cache:") {
                        failures.lock().unwrap().push(format!("{label}, next run"));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let silent = silent.into_inner().unwrap();
    eprintln!(
        "fault injection: {} cases over {} cache files and {} pack records, {} failures",
        cases.len(),
        files.len(),
        records.len(),
        failures.len() + silent.len()
    );
    assert!(
        failures.is_empty(),
        "outputs differ from a clean run's after:\n  {}",
        failures.join("\n  ")
    );
    assert!(
        silent.is_empty(),
        "no `info: cache:` line under --timings after:\n  {}",
        silent.join("\n  ")
    );
}

#[test]
fn processes_sharing_a_cache_never_corrupt_it() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let root = "tests/projects/harbor";
    let (clean, _) = outputs(root, &cache, true, &tmp.path().join("ref"));
    for round in 0..4 {
        // Cold starts race hardest (a run that finds no index starts a new pack).
        if round % 2 == 0 {
            let _ = std::fs::remove_dir_all(&cache);
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|i| {
                    let scratch = tmp.path().join(format!("r{round}-{i}"));
                    let cache = &cache;
                    s.spawn(move || outputs(root, cache, false, &scratch).0)
                })
                .collect();
            for h in handles {
                assert_eq!(h.join().unwrap(), clean, "round {round}");
            }
        });
        let verify = portolan(&["cache", "verify", root], &cache);
        assert_eq!(verify.code, 0, "round {round}: {verify}");
        assert!(verify.stdout.contains(" 0 damaged"), "{verify}");
    }
}

/// `portolan scan ROOT` from `cwd` with exactly these cache variables.
fn scan_with_env(cwd: &Path, vars: &[(&str, &Path)], empty: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(binary());
    cmd.arg("scan")
        .arg(workspace().join("tests/projects/ts-tasks"))
        .current_dir(cwd)
        .env_remove("PORTOLAN_CACHE_DIR")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HOME");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    for k in empty {
        cmd.env(k, "");
    }
    cmd.output().unwrap()
}

#[test]
fn cache_folder_follows_xdg_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("cwd");
    let home = tmp.path().join("home");
    let temp = tmp.path().join("temp");
    for d in [&cwd, &home, &temp] {
        std::fs::create_dir_all(d).unwrap();
    }
    let has_cache = |p: &Path| p.join("portolan").is_dir();

    // Empty XDG_CACHE_HOME is unset: $HOME/.cache.
    let r = scan_with_env(
        &cwd,
        &[("HOME", &home)],
        &["XDG_CACHE_HOME", "PORTOLAN_CACHE_DIR"],
    );
    assert!(r.status.success(), "{r:?}");
    assert!(
        !has_cache(&cwd),
        "an empty XDG_CACHE_HOME put the cache in the current folder"
    );
    assert!(has_cache(&home.join(".cache")));

    // A relative XDG_CACHE_HOME is invalid and ignored.
    let _ = std::fs::remove_dir_all(home.join(".cache"));
    let r = scan_with_env(
        &cwd,
        &[("HOME", &home), ("XDG_CACHE_HOME", Path::new("rel"))],
        &[],
    );
    assert!(r.status.success(), "{r:?}");
    assert!(
        !cwd.join("rel").exists(),
        "a relative XDG_CACHE_HOME was used"
    );
    assert!(has_cache(&home.join(".cache")));

    // An absolute one is used.
    let xdg = tmp.path().join("xdg");
    let r = scan_with_env(&cwd, &[("HOME", &home), ("XDG_CACHE_HOME", &xdg)], &[]);
    assert!(r.status.success(), "{r:?}");
    assert!(has_cache(&xdg));

    // No usable HOME either: the temporary folder, never the current one.
    let r = scan_with_env(&cwd, &[("TMPDIR", &temp)], &["HOME", "XDG_CACHE_HOME"]);
    assert!(r.status.success(), "{r:?}");
    assert!(
        has_cache(&temp),
        "{:?}",
        std::fs::read_dir(&temp).unwrap().count()
    );
    assert_eq!(
        std::fs::read_dir(&cwd).unwrap().count(),
        0,
        "the current folder stays empty"
    );
}

/// Each file under `dir` with the blake3 of its bytes (readable when a test fails).
fn snapshot_of(dir: &Path) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    read_tree(dir, dir, &mut m);
    m.into_iter()
        .map(|(k, v)| (k, blake3::hash(&v).to_hex()[..16].to_string()))
        .collect()
}

#[test]
fn failed_build_keeps_the_previous_set() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("docs");
    let o = out.to_str().unwrap();

    // A first complete set, from the other sample project.
    let first = portolan(
        &["build", "tests/projects/ts-tasks", "--out", o, "--no-cache"],
        &cache,
    );
    assert_eq!(first.code, 0, "{first}");
    let before = snapshot_of(&out);
    assert_eq!(before.len(), 7);

    // A path in the way of one document (`internal` is a file): the error
    // names it, and the previous set is whole.
    let internal = out.join("internal");
    std::fs::rename(&internal, tmp.path().join("internal-aside")).unwrap();
    std::fs::write(&internal, b"in the way").unwrap();
    let blocked_before = snapshot_of(&out);
    let blocked = portolan(&["build", "tests/projects/harbor", "--out", o], &cache);
    assert_eq!(blocked.code, 2, "{blocked}");
    assert!(
        blocked
            .stderr
            .contains(&out.join("internal").display().to_string()),
        "{blocked}"
    );
    assert_eq!(
        snapshot_of(&out),
        blocked_before,
        "a failed build left a mix of old and new documents"
    );
    std::fs::remove_file(&internal).unwrap();
    std::fs::rename(tmp.path().join("internal-aside"), &internal).unwrap();

    // One document cannot be written (as on a full disk): nothing changes.
    let failed = portolan_with(
        &["build", "tests/projects/harbor", "--out", o, "--no-cache"],
        &cache,
        &[("PORTOLAN_TEST_FAIL_WRITE", "internal/openapi.json")],
    );
    assert_ne!(failed.code, 0, "{failed}");
    assert!(failed.stderr.contains("internal/openapi.json"), "{failed}");
    assert!(
        failed.stderr.contains("previous documents are kept"),
        "{failed}"
    );
    assert_eq!(
        snapshot_of(&out),
        before,
        "a failed build changed the folder"
    );

    // A new folder that cannot be completed is not left behind.
    let fresh = tmp.path().join("fresh");
    let failed = portolan_with(
        &[
            "build",
            "tests/projects/harbor",
            "--out",
            fresh.to_str().unwrap(),
        ],
        &cache,
        &[("PORTOLAN_TEST_FAIL_WRITE", "events.json")],
    );
    assert_ne!(failed.code, 0, "{failed}");
    assert!(
        failed.stderr.contains("no document was written"),
        "{failed}"
    );
    assert!(!fresh.exists(), "a partial set was left in a new folder");

    // A read-only folder (when permissions apply to this user): a clear
    // error naming it, nothing changed.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let before = snapshot_of(&out);
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o555)).unwrap();
        let enforced = std::fs::write(out.join("probe"), b"").is_err();
        if enforced {
            let ro = portolan(&["build", "tests/projects/harbor", "--out", o], &cache);
            assert_eq!(ro.code, 2, "{ro}");
            assert!(ro.stderr.contains(o), "{ro}");
            assert_eq!(snapshot_of(&out), before);
        } else {
            let _ = std::fs::remove_file(out.join("probe"));
        }
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    // And a build that succeeds replaces the set.
    let ok = portolan(&["build", "tests/projects/harbor", "--out", o], &cache);
    assert_eq!(ok.code, 0, "{ok}");
    let after = snapshot_of(&out);
    assert_eq!(after.len(), 7, "{:?}", after.keys());
    assert_ne!(after, before);
}

#[test]
fn killed_build_is_repaired_by_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("docs");
    let o = out.to_str().unwrap();
    let first = portolan(&["build", "tests/projects/ts-tasks", "--out", o], &cache);
    assert_eq!(first.code, 0, "{first}");
    let before = snapshot_of(&out);

    // Killed after three of the seven documents were swapped in: the folder
    // holds a mix and the staging folder is left behind.
    let killed = portolan_with(
        &["build", "tests/projects/harbor", "--out", o],
        &cache,
        &[("PORTOLAN_TEST_ABORT_AFTER", "3")],
    );
    assert_ne!(killed.code, 0, "{killed}");
    let staged: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".portolan-staging-"))
        .collect();
    assert_eq!(staged.len(), 1, "{staged:?}");
    assert_ne!(snapshot_of(&out), before, "the abort came before any swap");

    // The next run repairs first: here it then fails to write, so the
    // folder must hold exactly the set from before the killed run.
    let next = portolan_with(
        &["build", "tests/projects/harbor", "--out", o, "--no-cache"],
        &cache,
        &[("PORTOLAN_TEST_FAIL_WRITE", "events.json")],
    );
    assert_ne!(next.code, 0, "{next}");
    assert!(
        next.stderr.contains("stopped part way") && next.stderr.contains("restored 3"),
        "{next}"
    );
    assert_eq!(snapshot_of(&out), before, "the killed run was not undone");

    // A staging folder of a killed run that never swapped is just removed.
    std::fs::create_dir_all(out.join(".portolan-staging-4000000000/internal")).unwrap();
    std::fs::write(out.join(".portolan-staging-4000000000/catalog.json"), b"{").unwrap();
    let ok = portolan(&["build", "tests/projects/harbor", "--out", o], &cache);
    assert_eq!(ok.code, 0, "{ok}");
    assert!(ok.stderr.contains("before it changed any document"), "{ok}");
    assert!(!out.join(".portolan-staging-4000000000").exists());
    assert_eq!(snapshot_of(&out).len(), 7);
}

#[test]
fn a_lowering_bug_is_a_finding_not_a_crash() {
    // The lowering panics on one file (a test hook; it runs on a pool thread,
    // where an uncaught panic aborts the process): the run goes on, the file is
    // named in a finding, the other files' routes are charted.
    let tmp = tempfile::tempdir().unwrap();
    let run = portolan_with(
        &["scan", "tests/projects/harbor", "--json", "--no-cache"],
        tmp.path(),
        &[("PORTOLAN_TEST_LOWER_PANIC", "src/routes/auth.js")],
    );
    assert_eq!(run.code, 0, "{run}");
    let catalog: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = catalog["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["file"] == "src/routes/auth.js"
            && f["message"]
                .as_str()
                .unwrap()
                .contains(analyzer::INTERNAL_ERROR)),
        "{findings:?}"
    );
    let ops = catalog["operations"].as_array().unwrap().len();
    assert!(ops > 40 && ops < 56, "{ops} operations");
}

#[test]
fn exit_codes_are_consistent() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let ok = portolan(&["scan", "tests/projects/ts-tasks"], &cache);
    assert_eq!(ok.code, 0, "{ok}");
    let usage = portolan(&["scan", "--no-such-flag"], &cache);
    assert_eq!(usage.code, 2, "{usage}");
    let missing = portolan(&["scan", "tests/projects/no-such-project"], &cache);
    assert_eq!(missing.code, 2, "{missing}");
    let entry = portolan(
        &["scan", "tests/projects/ts-tasks", "--entry", "nope.js"],
        &cache,
    );
    assert_eq!(entry.code, 2, "{entry}");
    // Findings at or above --fail-on: 1 (harbor has only warning-level cross-checks).
    let harbor = "tests/projects/harbor";
    for (level, code) in [("error", 0), ("warning", 1), ("info", 1)] {
        let r = portolan(&["scan", harbor, "--fail-on", level], &cache);
        assert_eq!(r.code, code, "--fail-on {level}: {r}");
    }
    let out = tmp.path().join("out");
    let r = portolan(
        &[
            "build",
            harbor,
            "--out",
            out.to_str().unwrap(),
            "--fail-on",
            "info",
        ],
        &cache,
    );
    assert_eq!(r.code, 1, "{r}");
    assert!(
        out.join("catalog.json").is_file(),
        "the documents are written anyway"
    );
    let r = portolan(
        &[
            "scan",
            "analyzer/tests/fixtures/findings/parse-truncated-file",
            "--json",
            "--fail-on",
            "error",
        ],
        &cache,
    );
    assert_eq!(r.code, 1, "{r}");
    assert!(
        r.stderr.contains("1 finding at or above --fail-on error"),
        "{r}"
    );
    let internal = portolan_with(
        &["scan", "tests/projects/ts-tasks", "--no-cache"],
        &cache,
        &[("PORTOLAN_TEST_PANIC", "1")],
    );
    assert_eq!(internal.code, 3, "{internal}");
    assert!(internal.stderr.contains("internal error"), "{internal}");
}

#[test]
fn cache_verbs_show_verify_and_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let root = "tests/projects/ts-tasks";
    let dir = portolan(&["cache", "dir", root], &cache);
    assert_eq!(dir.code, 0, "{dir}");
    assert_eq!(dir.stdout.trim(), cache.display().to_string());
    assert_eq!(portolan(&["scan", root, "--json"], &cache).code, 0);
    let verify = portolan(&["cache", "verify", root], &cache);
    assert_eq!(verify.code, 0, "{verify}");
    assert!(verify.stdout.contains("ok       index.bin"), "{verify}");

    let mut index = std::fs::read(cache.join("index.bin")).unwrap();
    let mid = index.len() / 2;
    index[mid] ^= 1;
    std::fs::write(cache.join("index.bin"), index).unwrap();
    let damaged = portolan(&["cache", "verify", root], &cache);
    assert_eq!(damaged.code, 1, "{damaged}");
    assert!(
        damaged
            .stdout
            .contains("damaged  index.bin: checksum mismatch"),
        "{damaged}"
    );
    let repaired = portolan(&["cache", "verify", root, "--repair"], &cache);
    assert_eq!(repaired.code, 0, "{repaired}");
    assert!(!cache.join("index.bin").exists());
    assert_eq!(portolan(&["cache", "verify", root], &cache).code, 0);

    let clean = portolan(&["cache", "clean", root], &cache);
    assert_eq!(clean.code, 0, "{clean}");
    assert!(!cache.exists());
}
