//! Whole-process timings of the `portolan` binary on one project:
//! cold (empty cache), warm (cache filled), warm after touching one file,
//! for `scan --json` (HTTP inventory), `scan --events` (both inventories)
//! and `build` (every document); peak memory from `/usr/bin/time` when present.
//!
//! `cargo bench -p portolan --bench scan -- ROOT [ENTRY...]`
//! (default ROOT: tests/projects/harbor). Prints one line per case:
//! `case  min ms  median ms  max ms  [peak KB]`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const RUNS: usize = 5;

fn run(bin: &Path, args: &[String]) -> (f64, Option<u64>) {
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
    (ms, kb)
}

fn report(name: &str, samples: &mut [(f64, Option<u64>)]) {
    samples.sort_by(|a, b| a.0.total_cmp(&b.0));
    let peak = samples.iter().filter_map(|s| s.1).max();
    println!(
        "{name:<28} {:>9.1} {:>9.1} {:>9.1}  {}",
        samples[0].0,
        samples[samples.len() / 2].0,
        samples[samples.len() - 1].0,
        peak.map(|k| format!("{k} KB")).unwrap_or_default()
    );
}

fn main() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_portolan"));
    let mut args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let root = if args.is_empty() {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/projects/harbor")
            .display()
            .to_string()
    } else {
        args.remove(0)
    };
    let entries: Vec<String> = args
        .iter()
        .flat_map(|e| ["--entry".to_string(), e.clone()])
        .collect();
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let files: Vec<PathBuf> = walk_sources(Path::new(&root));
    let touched = files.first().cloned();
    println!("root {root} ({} source files)", files.len());
    println!(
        "{:<28} {:>9} {:>9} {:>9}  peak",
        "case", "min ms", "median", "max"
    );
    for (name, verb) in [
        ("scan --json", vec!["scan", "--json"]),
        ("scan --events", vec!["scan", "--events"]),
        ("build", vec!["build"]),
    ] {
        let mut cold = Vec::new();
        let mut warm = Vec::new();
        let mut touch = Vec::new();
        for i in 0..RUNS {
            let cache = scratch.path().join(format!("{name}-{i}"));
            let out = scratch.path().join(format!("out-{i}"));
            let mut a: Vec<String> = vec![verb[0].to_string(), root.clone()];
            a.extend(verb[1..].iter().map(|s| s.to_string()));
            if verb[0] == "build" {
                a.extend(["--out".to_string(), out.display().to_string()]);
            }
            a.extend(entries.iter().cloned());
            a.extend(["--cache-dir".to_string(), cache.display().to_string()]);
            cold.push(run(&bin, &a));
            warm.push(run(&bin, &a));
            if let Some(f) = &touched {
                let bytes = std::fs::read(f).expect("readable");
                std::fs::write(f, bytes).expect("writable");
            }
            touch.push(run(&bin, &a));
        }
        report(&format!("{name} cold"), &mut cold);
        report(&format!("{name} warm"), &mut warm);
        report(&format!("{name} warm, 1 touched"), &mut touch);
    }
}

fn walk_sources(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "node_modules" || name == "dist" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".js") || name.ends_with(".ts") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
