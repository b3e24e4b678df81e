//! Whole-process timings of the `portolan` binary on one project, each set
//! beside the floor measured in the same run: the two-thread tree-sitter
//! parse of the files that matter ([`analyzer::parse_floor`]), so the ratios
//! hold on any machine, busy or not.
//!
//! `cargo bench -p portolan --bench scan -- ROOT [ENTRY...] [--runs=N] [--scale=1,2,4,8]`
//! (default ROOT: tests/projects/harbor; 3 runs; no scaling series).
//!
//! Per round (one fresh cache each): `scan --json`, `scan --events` and
//! `build` cold (empty cache), warm (nothing changed) and after an edit
//! (a comment appended to the file of the catalog's first operation, put
//! back after; the runs read a hard-linked copy of ROOT, the edited file a
//! copy of its own), then the floors, parsed just after:
//! - *parsed*: every file the cold `build` parsed (`--parsed-list`);
//! - *catalog*: the files catalog.json lists (`sourceHashes`), the floor for
//!   `scan --json`;
//! - *catalog+events*: those and the files holding an event site, the floor
//!   for `scan --events` and `build`.
//!
//! Each ratio is taken within its round (cold time / that round's floor)
//! and the median over rounds is printed. Peak memory is `/usr/bin/time`'s
//! maximum resident set. The scaling series builds K copies of ROOT placed
//! side by side as one root (hard links; entries `copy-I/ENTRY`), cold, and
//! prints time, time per copy, the ratio to that root's *parsed* floor and
//! peak memory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// One process run: wall milliseconds and peak KB.
#[derive(Clone, Copy)]
struct Sample {
    ms: f64,
    kb: Option<u64>,
}

fn run(bin: &Path, args: &[String]) -> Sample {
    let time = Path::new("/usr/bin/time");
    let start = Instant::now();
    let out = if time.exists() {
        Command::new(time)
            .arg("-f")
            .arg("%M")
            .arg(bin)
            .args(args)
            .output()
    } else {
        Command::new(bin).args(args).output()
    }
    .expect("portolan runs");
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    assert!(
        out.status.success(),
        "portolan {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kb = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok());
    Sample { ms, kb }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn report(name: &str, samples: &[Sample], floors: &[f64]) {
    let mut ms: Vec<f64> = samples.iter().map(|s| s.ms).collect();
    let ratio = (!floors.is_empty())
        .then(|| median(samples.iter().zip(floors).map(|(s, f)| s.ms / f).collect()));
    ms.sort_by(f64::total_cmp);
    let peak = samples.iter().filter_map(|s| s.kb).max();
    println!(
        "{name:<30} {:>9.1} {:>9.1} {:>9.1} {:>7} {:>10}",
        ms[0],
        ms[ms.len() / 2],
        ms[ms.len() - 1],
        ratio.map(|r| format!("{r:.2}x")).unwrap_or_default(),
        peak.map(|k| format!("{} MB", k / 1024)).unwrap_or_default()
    );
}

/// The verbs timed, with the floor each is divided by.
const CASES: [(&str, &[&str], Floor); 3] = [
    ("scan --json", &["scan", "--json"], Floor::Catalog),
    ("scan --events", &["scan", "--events"], Floor::CatalogEvents),
    ("build", &["build"], Floor::CatalogEvents),
];

#[derive(Clone, Copy, PartialEq)]
enum Floor {
    Parsed,
    Catalog,
    CatalogEvents,
}

struct Options {
    root: String,
    entries: Vec<String>,
    runs: usize,
    scale: Vec<usize>,
}

fn options() -> Options {
    let mut positional = Vec::new();
    let mut runs = 3;
    let mut scale = Vec::new();
    for a in std::env::args().skip(1) {
        if let Some(n) = a.strip_prefix("--runs=") {
            runs = n.parse().expect("--runs=N");
        } else if let Some(list) = a.strip_prefix("--scale=") {
            scale = list
                .split(',')
                .map(|k| k.parse().expect("--scale=1,2,4,8"))
                .collect();
        } else if !a.starts_with("--") {
            positional.push(a);
        }
    }
    let root = if positional.is_empty() {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/projects/harbor")
            .display()
            .to_string()
    } else {
        positional.remove(0)
    };
    Options {
        root,
        entries: positional,
        runs: runs.max(1),
        scale,
    }
}

fn main() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_portolan"));
    let opts = options();
    let entry_args: Vec<String> = opts
        .entries
        .iter()
        .flat_map(|e| ["--entry".to_string(), e.clone()])
        .collect();
    let scratch = tempfile::tempdir().expect("a temporary folder");
    // The runs read a private copy (hard links): the edit must not touch
    // the project itself, which others may be reading.
    let work = scratch.path().join("root");
    link_tree(Path::new(&opts.root), &work);
    let root = work.display().to_string();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "root {}; {} runs; load average {}",
        opts.root,
        opts.runs,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );

    // One untimed build: the documents say which files matter and which
    // file to edit (and the page cache is warm for every timed run).
    let first = scratch.path().join("first");
    let list = scratch.path().join("parsed.txt");
    let mut a = vec!["build".to_string(), root.clone(), "--no-cache".into()];
    a.extend(["--out".into(), first.display().to_string()]);
    a.extend(["--parsed-list".into(), list.display().to_string()]);
    a.extend(entry_args.iter().cloned());
    run(&bin, &a);
    let catalog = read_json(&first.join("catalog.json"));
    let events = read_json(&first.join("events.json"));
    let catalog_files = catalog_files(&catalog);
    let mut catalog_events = catalog_files.clone();
    catalog_events.extend(event_files(&events));
    catalog_events.sort();
    catalog_events.dedup();
    let edited = catalog["operations"][0]["locations"][0]
        .as_str()
        .and_then(|l| l.rsplit_once(':'))
        .map(|(f, _)| {
            // Its own bytes, no longer a link to the project's file.
            let path = work.join(f);
            let bytes = std::fs::read(&path).expect("readable");
            std::fs::remove_file(&path).expect("removable");
            std::fs::write(&path, bytes).expect("writable");
            path
        });

    let threads = 2;
    let mut cold: Vec<Vec<Sample>> = vec![Vec::new(); CASES.len()];
    let mut warm: Vec<Vec<Sample>> = vec![Vec::new(); CASES.len()];
    let mut edit: Vec<Vec<Sample>> = vec![Vec::new(); CASES.len()];
    let mut floors: Vec<(Floor, Vec<f64>)> = vec![
        (Floor::Parsed, Vec::new()),
        (Floor::Catalog, Vec::new()),
        (Floor::CatalogEvents, Vec::new()),
    ];
    let mut sizes = [(0usize, 0u64); 3];
    for i in 0..opts.runs {
        let mut parsed = Vec::new();
        for (c, (name, verb, _)) in CASES.iter().enumerate() {
            let cache = scratch.path().join(format!("cache-{c}-{i}"));
            let out = scratch.path().join(format!("out-{c}-{i}"));
            let mut a: Vec<String> = vec![verb[0].to_string(), root.clone()];
            a.extend(verb[1..].iter().map(|s| s.to_string()));
            if verb[0] == "build" {
                a.extend(["--out".to_string(), out.display().to_string()]);
            }
            a.extend(entry_args.iter().cloned());
            a.extend(["--cache-dir".to_string(), cache.display().to_string()]);
            let mut first_run = a.clone();
            if *name == "build" {
                first_run.extend(["--parsed-list".into(), list.display().to_string()]);
            }
            cold[c].push(run(&bin, &first_run));
            if *name == "build" {
                parsed = std::fs::read_to_string(&list)
                    .expect("the parsed list")
                    .lines()
                    .map(str::to_string)
                    .collect();
            }
            warm[c].push(run(&bin, &a));
            if let Some(f) = &edited {
                let bytes = std::fs::read(f).expect("readable");
                let mut changed = bytes.clone();
                changed.extend_from_slice(b"\n// edited by the bench\n");
                std::fs::write(f, &changed).expect("writable");
                edit[c].push(run(&bin, &a));
                std::fs::write(f, bytes).expect("writable");
            }
        }
        for (k, (floor, times)) in floors.iter_mut().enumerate() {
            let files = match floor {
                Floor::Parsed => &parsed,
                Floor::Catalog => &catalog_files,
                Floor::CatalogEvents => &catalog_events,
            };
            let f = analyzer::parse_floor(Path::new(&root), files, threads);
            times.push(f.elapsed.as_secs_f64() * 1000.0);
            sizes[k] = (f.files, f.bytes);
        }
    }

    println!();
    for ((floor, times), (files, bytes)) in floors.iter().zip(sizes) {
        let name = match floor {
            Floor::Parsed => "floor: parsed by the run",
            Floor::Catalog => "floor: catalog's files",
            Floor::CatalogEvents => "floor: catalog + event sites",
        };
        println!(
            "{name:<30} {files:>5} files {:>6.1} MB, {threads} threads: median {:.1} ms",
            bytes as f64 / 1e6,
            median(times.clone())
        );
    }
    println!();
    println!(
        "{:<30} {:>9} {:>9} {:>9} {:>7} {:>10}",
        "case", "min ms", "median", "max", "/floor", "peak"
    );
    let parsed_floor = &floors[0].1;
    for (c, (name, _, floor)) in CASES.iter().enumerate() {
        let times = &floors.iter().find(|(f, _)| f == floor).expect("a floor").1;
        report(&format!("{name} cold"), &cold[c], times);
        report(&format!("{name} cold / parsed"), &cold[c], parsed_floor);
        report(&format!("{name} warm"), &warm[c], &[]);
        if !edit[c].is_empty() {
            report(&format!("{name} 1 file edited"), &edit[c], &[]);
        }
    }
    if let Some(f) = &edited {
        println!("(edited: {})", f.strip_prefix(&work).unwrap_or(f).display());
    }

    if !opts.scale.is_empty() {
        println!();
        println!(
            "{:<30} {:>9} {:>9} {:>7} {:>10}",
            "build --no-cache, K copies", "ms", "ms/copy", "/floor", "peak"
        );
    }
    for &k in &opts.scale {
        let side = scratch.path().join(format!("scale-{k}"));
        let mut a = vec!["build".to_string(), side.display().to_string()];
        a.extend(["--no-cache".into(), "--out".into()]);
        a.push(scratch.path().join("scale-out").display().to_string());
        a.extend(["--parsed-list".into(), list.display().to_string()]);
        for i in 0..k {
            link_tree(Path::new(&root), &side.join(format!("copy-{i}")));
            for e in &opts.entries {
                a.extend(["--entry".to_string(), format!("copy-{i}/{e}")]);
            }
        }
        let s = run(&bin, &a);
        let parsed: Vec<String> = std::fs::read_to_string(&list)
            .expect("the parsed list")
            .lines()
            .map(str::to_string)
            .collect();
        let f = analyzer::parse_floor(&side, &parsed, threads);
        println!(
            "{:<30} {:>9.1} {:>9.1} {:>6.2}x {:>10}",
            format!("{k}x"),
            s.ms,
            s.ms / k as f64,
            s.ms / (f.elapsed.as_secs_f64() * 1000.0),
            s.kb.map(|k| format!("{} MB", k / 1024)).unwrap_or_default()
        );
        let _ = std::fs::remove_dir_all(&side);
    }
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("a document")).expect("JSON")
}

/// The source files catalog.json lists (`sourceHashes`).
fn catalog_files(catalog: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = catalog["sourceHashes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["file"].as_str().map(str::to_string))
        .collect();
    out.sort();
    out
}

/// The files holding an event site in events.json.
fn event_files(events: &serde_json::Value) -> Vec<String> {
    ["events", "lifecycleEvents"]
        .iter()
        .flat_map(|k| events[*k].as_array().into_iter().flatten())
        .flat_map(|e| e["sites"].as_array().into_iter().flatten())
        .filter_map(|s| s["file"].as_str().map(str::to_string))
        .collect()
}

/// `to` as a copy of `from` made of hard links (copies where a link fails),
/// without `.git` and `node_modules`.
fn link_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for e in std::fs::read_dir(from).expect("readable").flatten() {
        let name = e.file_name();
        if name == ".git" || name == "node_modules" {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        match e.file_type() {
            Ok(t) if t.is_dir() => link_tree(&src, &dst),
            Ok(t) if t.is_file() && std::fs::hard_link(&src, &dst).is_err() => {
                let _ = std::fs::copy(&src, &dst);
            }
            _ => {}
        }
    }
}
