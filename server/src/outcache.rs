//! Derived outputs kept next to the analyzer's cache: the bytes a verb
//! printed or wrote, under a key of the analysis inputs (every source file's
//! content hash, manifests, options), the emitter options' fingerprint
//! ([`spec_fingerprint`]) and the product (`build`, `scan --json`,
//! `scan --events`). A
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
/// Version 2: the key holds [`spec_fingerprint`] instead of the emitter
/// options' `Debug` text (version 1), so no old record is read as current.
const VERSION: u32 = 2;

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
        // The sources that write the documents (see `build.rs`).
        h.update(env!("PORTOLAN_OUTPUT_SOURCE").as_bytes());
        h.update(&VERSION.to_le_bytes());
        h.update(input.as_bytes());
        spec_fingerprint(&mut Fingerprint(&mut h), spec);
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

/// The emitter options' part of the key: each option that changes a
/// document, written explicitly, in this order, so the key changes exactly
/// when an output can (not when a `Debug` format or an unrelated field
/// does). The encoding, fed to blake3:
///
/// - an option's name, then its value (names keep two adjacent empty
///   values from reading like one);
/// - a string: its byte length as 8 little-endian bytes, then its bytes;
/// - `None`: `0`, `Some(v)`: `1` then `v`; a `bool`: `0` or `1`; a `u32`:
///   4 little-endian bytes;
/// - a list: its length, then each element (a struct's fields in the
///   order written below).
///
/// Every field is named in a destructuring, so a new field of
/// `SpecOptions` (or of the types in it) does not compile until it is
/// written here or deliberately ignored with `_`.
fn spec_fingerprint(f: &mut Fingerprint<'_>, spec: &specgen::SpecOptions) {
    let specgen::SpecOptions {
        title,
        version,
        license,
        server_url,
        socket_host,
        exposed,
        tools,
        access,
        side_effects,
        openapi31,
        auth,
    } = spec;
    f.name("title").str(title);
    f.name("version").str(version);
    f.name("license").opt(license.as_deref());
    f.name("server_url").opt(server_url.as_deref());
    f.name("socket_host").str(socket_host);
    f.name("exposed").len(exposed.len());
    for e in exposed {
        let specgen::ExposedApi {
            id,
            label,
            description,
            prefix,
            require_auth,
        } = e;
        f.str(id)
            .opt(label.as_deref())
            .opt(description.as_deref())
            .str(prefix)
            .bool(*require_auth);
    }
    f.name("tools").len(tools.len());
    for t in tools {
        let specgen::ToolBinding {
            name,
            method,
            path,
            side_effect,
            scopes,
            description,
            version,
        } = t;
        f.str(name)
            .str(method)
            .str(path)
            .opt(side_effect.as_deref())
            .strs(scopes)
            .opt(description.as_deref());
        match version {
            None => f.bool(false),
            Some(v) => f.bool(true).bytes(&v.to_le_bytes()),
        };
    }
    let specgen::AccessRules {
        auth: guards,
        loopback,
    } = access;
    f.name("access.auth").strs(guards);
    f.name("access.loopback").strs(loopback);
    f.name("side_effects").len(side_effects.len());
    for o in side_effects {
        let specgen::SideEffectOverride {
            method,
            path,
            side_effect,
        } = o;
        f.str(method).str(path).str(side_effect);
    }
    f.name("openapi31").bool(*openapi31);
    f.name("auth");
    match auth {
        specgen::AuthScheme::AssumedBearer => f.str("assumed-bearer"),
        specgen::AuthScheme::Bearer => f.str("bearer"),
        specgen::AuthScheme::Basic => f.str("basic"),
        specgen::AuthScheme::ApiKey(place, name) => f.str("api-key").str(place).str(name),
    };
}

/// The writer of [`spec_fingerprint`]'s encoding.
struct Fingerprint<'h>(&'h mut blake3::Hasher);

impl Fingerprint<'_> {
    fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.0.update(b);
        self
    }
    fn len(&mut self, n: usize) -> &mut Self {
        self.bytes(&(n as u64).to_le_bytes())
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.len(s.len()).bytes(s.as_bytes())
    }
    fn name(&mut self, name: &str) -> &mut Self {
        self.str(name)
    }
    fn bool(&mut self, b: bool) -> &mut Self {
        self.bytes(&[u8::from(b)])
    }
    fn opt(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            None => self.bool(false),
            Some(s) => self.bool(true).str(s),
        }
    }
    fn strs(&mut self, list: &[String]) -> &mut Self {
        self.len(list.len());
        for s in list {
            self.str(s);
        }
        self
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(spec: &specgen::SpecOptions) -> String {
        let mut h = blake3::Hasher::new();
        spec_fingerprint(&mut Fingerprint(&mut h), spec);
        h.finalize().to_hex().to_string()
    }

    #[test]
    fn the_fingerprint_encoding_is_pinned() {
        // A changed value here means every stored output is orphaned: bump
        // VERSION with the change and update the value.
        let spec = specgen::SpecOptions {
            title: "harbor".into(),
            version: "0.4.2".into(),
            ..Default::default()
        };
        assert_eq!(fingerprint(&spec), PINNED);
    }

    const PINNED: &str = "06abd9d28b6189618de652f65bc40ccc43e8d5126b69f0fc5e59be4a19cc0519";

    #[test]
    fn options_that_change_documents_change_the_fingerprint() {
        let base = specgen::SpecOptions::default();
        let mut seen = vec![fingerprint(&base)];
        let variants: Vec<fn(&mut specgen::SpecOptions)> = vec![
            |o| o.title = "a".into(),
            |o| o.version = "a".into(),
            |o| o.license = Some(String::new()),
            |o| o.server_url = Some("a".into()),
            |o| o.socket_host = "a".into(),
            |o| o.openapi31 = true,
            |o| o.auth = specgen::AuthScheme::Bearer,
            |o| o.auth = specgen::AuthScheme::ApiKey("header".into(), "x".into()),
            |o| o.auth = specgen::AuthScheme::ApiKey("headerx".into(), String::new()),
            |o| {
                o.exposed.push(specgen::ExposedApi {
                    id: "a".into(),
                    label: None,
                    description: None,
                    prefix: "/a".into(),
                    require_auth: false,
                })
            },
            |o| o.access.auth.push("a".into()),
            |o| o.access.loopback.push("a".into()),
            |o| {
                o.tools.push(specgen::ToolBinding {
                    version: Some(2),
                    ..Default::default()
                })
            },
            |o| o.tools.push(specgen::ToolBinding::default()),
            |o| {
                o.side_effects.push(specgen::SideEffectOverride {
                    method: "GET".into(),
                    path: "/a".into(),
                    side_effect: "read".into(),
                })
            },
        ];
        for change in variants {
            let mut o = base.clone();
            change(&mut o);
            let f = fingerprint(&o);
            assert!(!seen.contains(&f), "two option sets share a fingerprint");
            seen.push(f);
        }
    }
}
