//! Derived outputs kept next to the analyzer's cache: the bytes a verb
//! printed or wrote, under a key of the analysis inputs (every source file's
//! content hash, manifests, options), the emitter options and the verb. A
//! repeated `scan --json` or `build` on an unchanged tree copies them out
//! without analyzing or rendering again.
//!
//! Deliberately not captured: anything that reads the inventory in other
//! ways (the summary, `check`); a `--no-cache` run never reads or writes here.

use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Outputs kept at most (older ones are removed).
const KEEP: usize = 8;

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
}

impl Slot {
    /// The slot for `verb` with these analysis and emitter options, or `None`
    /// when the cache is off or empty (nothing stored yet).
    pub(crate) fn find(
        opts: &analyzer::AnalyzeOptions,
        spec: &specgen::SpecOptions,
        verb: &str,
    ) -> Result<Option<Slot>> {
        Ok(analyzer::fingerprint(opts)?.map(|input| Slot::keyed(&input, opts, spec, verb)))
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
        Slot {
            path: dir.join(format!("{}.bin", h.finalize().to_hex())),
        }
    }

    /// The stored output, if any.
    pub(crate) fn load(&self) -> Option<Output> {
        let bytes = std::fs::read(&self.path).ok()?;
        postcard::from_bytes(&bytes).ok()
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
        if let Ok(bytes) = postcard::to_stdvec(out) {
            let tmp = self
                .path
                .with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, bytes).is_ok() {
                let _ = std::fs::rename(&tmp, &self.path);
            }
        }
    }
}
