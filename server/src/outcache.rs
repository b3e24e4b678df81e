//! Derived outputs kept next to the analyzer's cache: the bytes a verb
//! printed or wrote, under a key of the analysis inputs (every source file's
//! content hash, manifests, options), the emitter options and the verb. A
//! repeated `scan --json` or `build` on an unchanged tree copies them out
//! without analyzing or rendering again.
//!
//! Each output is one sealed record (see `analyzer::cachefile`) bound to its
//! slot's key: a damaged, truncated, foreign or other-version output is
//! discarded (and said under `--timings`), never copied out.
//!
//! Deliberately not captured: anything that reads the inventory in other
//! ways (the summary, `check`); a `--no-cache` run never reads or writes here.

use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Outputs kept at most (older ones are removed).
const KEEP: usize = 8;
/// The record kind and format version of a stored output.
const KIND: &[u8; 4] = b"OUTP";
const VERSION: u32 = 1;

/// What a verb produced.
#[derive(Serialize, Deserialize)]
pub(crate) struct Output {
    /// Files (relative path, bytes), in order.
    pub(crate) files: Vec<(String, Vec<u8>)>,
    /// The line the verb printed, if any.
    pub(crate) message: String,
    /// Warnings the verb printed.
    pub(crate) warnings: Vec<String>,
}

/// Where one verb's output for one input state lives.
pub(crate) struct Slot {
    path: PathBuf,
    /// The slot's key (the record is bound to it).
    key: String,
    /// Cache records found damaged while finding the slot or loading it.
    pub(crate) notes: std::cell::RefCell<Vec<String>>,
}

impl Slot {
    /// The slot for `verb` with these analysis and emitter options, or `None`
    /// when the cache is off or empty (nothing stored yet).
    pub(crate) fn find(
        project: &analyzer::Analyzer,
        spec: &specgen::SpecOptions,
        verb: &str,
    ) -> Result<Option<Slot>> {
        let opts = project.options();
        let (key, notes) = project.fingerprint()?;
        Ok(key.map(|input| {
            let slot = Slot::keyed(&input, opts, spec, verb);
            slot.notes.borrow_mut().extend(notes);
            slot
        }))
    }

    /// The slot to store what was derived from `inv` (keyed by the inputs the
    /// analysis read), or `None` when the cache is off.
    pub(crate) fn after(
        inv: &analyzer::Inventory,
        opts: &analyzer::AnalyzeOptions,
        spec: &specgen::SpecOptions,
        verb: &str,
    ) -> Option<Slot> {
        inv.input_key
            .as_deref()
            .map(|input| Slot::keyed(input, opts, spec, verb))
    }

    fn keyed(
        input: &str,
        opts: &analyzer::AnalyzeOptions,
        spec: &specgen::SpecOptions,
        verb: &str,
    ) -> Slot {
        let mut h = blake3::Hasher::new();
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update(input.as_bytes());
        h.update(format!("{spec:?}").as_bytes());
        h.update(verb.as_bytes());
        let dir = opts
            .cache_dir
            .clone()
            .unwrap_or_else(|| analyzer::default_cache_dir(&opts.root))
            .join("out");
        let key = h.finalize().to_hex().to_string();
        Slot {
            path: dir.join(format!("{key}.bin")),
            key,
            notes: Default::default(),
        }
    }

    /// The stored output, if any and intact (a damaged one is removed and noted).
    pub(crate) fn load(&self) -> Option<Output> {
        let bytes = std::fs::read(&self.path).ok()?;
        match decode(&self.key, &bytes) {
            Ok(out) => Some(out),
            Err(damage) => {
                self.notes.borrow_mut().push(format!(
                    "cache: stored output out/{}….bin discarded ({damage}); the documents were rendered again",
                    &self.key[..12]
                ));
                let _ = std::fs::remove_file(&self.path);
                None
            }
        }
    }

    /// Store an output (best effort: a cache that cannot be written is skipped).
    pub(crate) fn store(&self, out: &Output) {
        let Some(dir) = self.path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        if let Ok(rd) = std::fs::read_dir(dir) {
            let mut old: Vec<(std::time::SystemTime, PathBuf)> = rd
                .flatten()
                .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
                .collect();
            old.sort();
            while old.len() >= KEEP {
                let (_, p) = old.remove(0);
                let _ = std::fs::remove_file(p);
            }
        }
        if let Ok(body) = postcard::to_stdvec(out) {
            let sealed = analyzer::cachefile::seal(KIND, VERSION, self.key.as_bytes(), &body);
            let _ = analyzer::cachefile::write_atomic(&self.path, &sealed);
        }
    }
}

/// A stored output, checked against the slot key it is stored under.
fn decode(key: &str, bytes: &[u8]) -> Result<Output, analyzer::cachefile::Damage> {
    let body = analyzer::cachefile::open(KIND, VERSION, key.as_bytes(), bytes)?;
    postcard::from_bytes(body).map_err(|_| analyzer::cachefile::Damage::Undecodable)
}

/// Check (and with `repair`, remove the damaged of) every stored output in
/// `cache_dir/out`, for `portolan cache verify`.
pub(crate) fn verify(
    cache_dir: &std::path::Path,
    report: &mut analyzer::CacheReport,
    repair: bool,
) {
    let Ok(rd) = std::fs::read_dir(cache_dir.join("out")) else {
        return;
    };
    let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(key) = name.strip_suffix(".bin") else {
            continue;
        };
        let result = std::fs::read(&path)
            .map_err(|_| analyzer::cachefile::Damage::Truncated)
            .and_then(|bytes| decode(key, &bytes));
        match result {
            Ok(_) => report.ok.push(format!("out/{name}: intact")),
            Err(damage) => {
                report.damaged.push(format!("out/{name}: {damage}"));
                if repair && std::fs::remove_file(&path).is_ok() {
                    report.repaired.push(format!("removed out/{name}"));
                }
            }
        }
    }
}
