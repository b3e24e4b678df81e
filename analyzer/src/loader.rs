//! Facts loading: read a file, lower it (or take its facts from the cache),
//! and prefetch likely-needed files in parallel while the resolver runs.
//!
//! Captures: per-file needle flags (a cheap byte prefilter deciding which
//! files can matter), content-hash facts caching with a (size, mtime) index
//! so a warm run reads no unchanged source, read and encoding errors.
//!
//! Deliberately not captured: any analysis; this module only produces facts.

use crate::ir::FileFacts;
use crate::project::{FileId, Project};
use crate::syntax::{Grammar, SyntaxContext};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// Bumped whenever the IR or the lowering changes, so stale caches are ignored.
pub(crate) const FACTS_VERSION: u32 = 12;

/// Needle flags: which interesting words a file's bytes contain.
pub(crate) mod needle {
    /// The file calls `express()` in some form: a possible app entry.
    pub(crate) const APP: u8 = 1;
    /// Mentions `Router`.
    pub(crate) const ROUTER: u8 = 2;
    /// Mentions `express`.
    pub(crate) const EXPRESS: u8 = 4;
    /// Could register routes or mount routers (for following calls lazily).
    pub(crate) const ROUTING: u8 = 8;
    /// Mentions Socket.IO.
    pub(crate) const SOCKET: u8 = 16;
}

fn needles_of(bytes: &[u8]) -> u8 {
    use memchr::memmem::find;
    let has = |n: &str| find(bytes, n.as_bytes()).is_some();
    let mut flags = 0;
    let express = has("express");
    if express {
        flags |= needle::EXPRESS;
        if has("express()")
            || has("express')()")
            || has("express\")()")
            || has("new express")
            || has("express_1.default)()")
            || has("express.default()")
        {
            flags |= needle::APP;
        }
    }
    if has("Router") {
        flags |= needle::ROUTER;
    }
    if express || flags & needle::ROUTER != 0 || has("router") || has(".use(") || has(".route(") {
        flags |= needle::ROUTING;
    }
    if has("socket") || has("io.") {
        flags |= needle::SOCKET;
    }
    flags
}

/// What loading one file produced.
pub(crate) struct Loaded {
    pub(crate) facts: Arc<FileFacts>,
    /// blake3 of the bytes, hex.
    pub(crate) hash: String,
    /// A problem reading the file (unreadable, not UTF-8).
    pub(crate) problem: Option<(String, String)>,
    /// Whether the facts came from the cache.
    #[allow(
        dead_code,
        reason = "reported by --timings through the loader counters"
    )]
    pub(crate) cached: bool,
}

#[derive(Serialize, Deserialize, Clone, Copy, Default)]
struct IndexEntry {
    size: u64,
    mtime: u128,
    hash: [u8; 32],
    needles: u8,
}

#[derive(Serialize, Deserialize, Default)]
struct CacheIndex {
    version: u32,
    entries: HashMap<String, IndexEntry>,
}

/// The on-disk facts cache for one analyzed root.
pub(crate) struct Cache {
    dir: PathBuf,
    index: Mutex<CacheIndex>,
    dirty: std::sync::atomic::AtomicBool,
}

impl Cache {
    pub(crate) fn open(dir: PathBuf) -> Cache {
        let index = std::fs::read(dir.join("index.bin"))
            .ok()
            .and_then(|b| postcard::from_bytes::<CacheIndex>(&b).ok())
            .filter(|i| i.version == FACTS_VERSION)
            .unwrap_or(CacheIndex {
                version: FACTS_VERSION,
                entries: HashMap::new(),
            });
        Cache {
            dir,
            index: Mutex::new(index),
            dirty: Default::default(),
        }
    }

    fn lookup(&self, rel: &str, size: u64, mtime: u128) -> Option<IndexEntry> {
        let idx = self.index.lock().ok()?;
        let e = idx.entries.get(rel)?;
        (e.size == size && e.mtime == mtime && mtime != 0).then_some(*e)
    }

    fn record(&self, rel: &str, entry: IndexEntry) {
        if let Ok(mut idx) = self.index.lock() {
            idx.entries.insert(rel.to_string(), entry);
            self.dirty.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Index a file by its (size, mtime) with its content hash and needles.
    fn record_file(&self, f: &crate::project::SourceFile, hash: [u8; 32], needles: u8) {
        self.record(
            &f.rel,
            IndexEntry {
                size: f.size,
                mtime: f.mtime,
                hash,
                needles,
            },
        );
    }

    fn facts_path(&self, hash: &[u8; 32]) -> PathBuf {
        let hex = blake3::Hash::from_bytes(*hash).to_hex();
        self.dir
            .join("facts")
            .join(&hex[..2])
            .join(format!("{hex}.bin"))
    }

    fn read_facts(&self, hash: &[u8; 32]) -> Option<FileFacts> {
        let bytes = std::fs::read(self.facts_path(hash)).ok()?;
        postcard::from_bytes(&bytes).ok()
    }

    fn write_facts(&self, hash: &[u8; 32], facts: &FileFacts) {
        let path = self.facts_path(hash);
        if path.exists() {
            return;
        }
        if let Ok(bytes) = postcard::to_stdvec(facts)
            && let Some(parent) = path.parent()
            && std::fs::create_dir_all(parent).is_ok()
        {
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, bytes).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
    }

    /// A whole inventory stored under `key` by an earlier run.
    pub(crate) fn read_result(&self, key: &str) -> Option<Vec<u8>> {
        std::fs::read(self.dir.join(format!("result-{key}.json"))).ok()
    }

    /// Store the inventory for `key`, replacing any other stored result.
    pub(crate) fn write_result(&self, key: &str, bytes: &[u8]) {
        if let Ok(rd) = std::fs::read_dir(&self.dir) {
            for e in rd.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with("result-") && name.ends_with(".json") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        let _ = std::fs::create_dir_all(&self.dir);
        let tmp = self.dir.join(format!("result.tmp{}", std::process::id()));
        if std::fs::write(&tmp, bytes).is_ok() {
            let _ = std::fs::rename(&tmp, self.dir.join(format!("result-{key}.json")));
        }
    }

    /// Persist the index (called once at the end of a run).
    pub(crate) fn save(&self) {
        if !self.dirty.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        if let Ok(idx) = self.index.lock()
            && let Ok(bytes) = postcard::to_stdvec(&*idx)
        {
            let _ = std::fs::create_dir_all(&self.dir);
            let tmp = self
                .dir
                .join(format!("index.bin.tmp{}", std::process::id()));
            if std::fs::write(&tmp, bytes).is_ok() {
                let _ = std::fs::rename(&tmp, self.dir.join("index.bin"));
            }
        }
    }
}

thread_local! {
    static SYNTAX: RefCell<Option<SyntaxContext>> = const { RefCell::new(None) };
}

/// Parsing ahead runs on all cores but one: the evaluator keeps its own
/// core, and a parse it needs and nobody started happens on its thread.
fn prefetch_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores.saturating_sub(1).max(1))
            .thread_name(|i| format!("portolan-parse-{i}"))
            .stack_size(64 << 20)
            .build()
            .ok()
    })
    .as_ref()
}

/// Shared loader: facts per file, computed once, possibly in the background.
pub(crate) struct Loader {
    pub(crate) project: Arc<Project>,
    cache: Option<Arc<Cache>>,
    slots: Mutex<HashMap<FileId, Arc<OnceLock<Arc<Loaded>>>>>,
    /// Needle flags and content hash per file (`None` hash: unreadable).
    needles: Vec<OnceLock<(u8, Option<[u8; 32]>)>>,
    /// Files whose facts were produced by parsing in this run.
    pub(crate) parsed: std::sync::atomic::AtomicUsize,
    pub(crate) from_cache: std::sync::atomic::AtomicUsize,
}

impl Loader {
    pub(crate) fn new(project: Arc<Project>, cache: Option<Arc<Cache>>) -> Arc<Loader> {
        let n = project.files.len();
        Arc::new(Loader {
            project,
            cache,
            slots: Mutex::new(HashMap::new()),
            needles: (0..n).map(|_| OnceLock::new()).collect(),
            parsed: Default::default(),
            from_cache: Default::default(),
        })
    }

    pub(crate) fn cache(&self) -> Option<&Arc<Cache>> {
        self.cache.as_ref()
    }

    /// Needle flags for every file, computed in parallel (from the index when warm).
    pub(crate) fn scan_needles(self: &Arc<Self>) {
        use rayon::prelude::*;
        let n = self.project.files.len();
        (0..n).into_par_iter().for_each(|i| {
            self.needles_of(i as FileId);
        });
    }

    pub(crate) fn needles_of(&self, id: FileId) -> u8 {
        self.needle_entry(id).0
    }

    /// The content hash of a file (`None` when it cannot be read).
    pub(crate) fn hash_of(&self, id: FileId) -> Option<[u8; 32]> {
        self.needle_entry(id).1
    }

    fn needle_entry(&self, id: FileId) -> (u8, Option<[u8; 32]>) {
        *self.needles[id as usize].get_or_init(|| {
            let f = &self.project.files[id as usize];
            if let Some(c) = &self.cache
                && let Some(e) = c.lookup(&f.rel, f.size, f.mtime)
            {
                return (e.needles, Some(e.hash));
            }
            match std::fs::read(self.project.abs(id)) {
                Ok(bytes) => {
                    let needles = needles_of(&bytes);
                    let hash = *blake3::hash(&bytes).as_bytes();
                    if let Some(c) = &self.cache {
                        c.record_file(f, hash, needles);
                    }
                    (needles, Some(hash))
                }
                Err(_) => (0, None),
            }
        })
    }

    /// Start loading these files on the worker pool.
    pub(crate) fn prefetch(self: &Arc<Self>, ids: impl IntoIterator<Item = FileId>) {
        let mut fresh = Vec::new();
        if let Ok(mut slots) = self.slots.lock() {
            for id in ids {
                if let std::collections::hash_map::Entry::Vacant(v) = slots.entry(id) {
                    let slot = Arc::new(OnceLock::new());
                    v.insert(slot.clone());
                    fresh.push((id, slot));
                }
            }
        }
        let Some(pool) = prefetch_pool() else {
            return;
        };
        for (id, slot) in fresh {
            let me = Arc::clone(self);
            pool.spawn(move || {
                slot.get_or_init(|| Arc::new(me.compute(id)));
            });
        }
    }

    /// Facts for a file, computing them here if nobody has started yet.
    pub(crate) fn get(&self, id: FileId) -> Arc<Loaded> {
        let slot = {
            let mut slots = self.slots.lock().expect("loader lock poisoned");
            slots
                .entry(id)
                .or_insert_with(|| Arc::new(OnceLock::new()))
                .clone()
        };
        // If a worker owns it, `get_or_init` blocks until it is done.
        slot.get_or_init(|| Arc::new(self.compute(id))).clone()
    }

    fn compute(&self, id: FileId) -> Loaded {
        let f = &self.project.files[id as usize];
        if let Some(c) = &self.cache
            && let Some(e) = c.lookup(&f.rel, f.size, f.mtime)
            && let Some(facts) = c.read_facts(&e.hash)
        {
            self.from_cache
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let _ = self.needles[id as usize].set((e.needles, Some(e.hash)));
            return Loaded {
                facts: Arc::new(facts),
                hash: blake3::Hash::from_bytes(e.hash).to_hex().to_string(),
                problem: None,
                cached: true,
            };
        }
        let bytes = match std::fs::read(self.project.abs(id)) {
            Ok(b) => b,
            Err(e) => {
                return Loaded {
                    facts: Arc::new(FileFacts::default()),
                    hash: String::new(),
                    problem: Some((
                        "unreadable-file".into(),
                        format!("cannot read the file: {e}"),
                    )),
                    cached: false,
                };
            }
        };
        let hash = *blake3::hash(&bytes).as_bytes();
        let needles = needles_of(&bytes);
        let _ = self.needles[id as usize].set((needles, Some(hash)));
        let mut problem = None;
        let facts = self
            .cache
            .as_ref()
            .and_then(|c| c.read_facts(&hash))
            .inspect(|_| {
                self.from_cache
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
        let (facts, cached) = match facts {
            Some(f) => (f, true),
            None => {
                let text: std::borrow::Cow<[u8]> = match std::str::from_utf8(&bytes) {
                    Ok(_) => std::borrow::Cow::Borrowed(&bytes),
                    Err(e) => {
                        let line = bytes[..e.valid_up_to()]
                            .iter()
                            .filter(|b| **b == b'\n')
                            .count()
                            + 1;
                        problem = Some((
                            "invalid-utf8".into(),
                            format!(
                                "line {line}: the file is not valid UTF-8; invalid bytes were replaced"
                            ),
                        ));
                        std::borrow::Cow::Owned(
                            String::from_utf8_lossy(&bytes).into_owned().into_bytes(),
                        )
                    }
                };
                let mut grammar = Grammar::for_path(&f.rel).unwrap_or(Grammar::JavaScript);
                let text: std::borrow::Cow<[u8]> = if Grammar::is_markup(&f.rel) {
                    let (scripts, ts) = crate::syntax::markup_scripts(&text);
                    if ts {
                        grammar = Grammar::TypeScript;
                    }
                    std::borrow::Cow::Owned(scripts)
                } else {
                    text
                };
                let facts = SYNTAX.with(|s| {
                    let mut s = s.borrow_mut();
                    s.get_or_insert_with(SyntaxContext::new)
                        .lower(grammar, &text)
                });
                self.parsed
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if let Some(c) = &self.cache
                    && problem.is_none()
                {
                    c.write_facts(&hash, &facts);
                }
                (facts, false)
            }
        };
        if let Some(c) = &self.cache
            && problem.is_none()
        {
            c.record_file(f, hash, needles);
        }
        Loaded {
            facts: Arc::new(facts),
            hash: blake3::Hash::from_bytes(hash).to_hex().to_string(),
            problem,
            cached,
        }
    }
}
