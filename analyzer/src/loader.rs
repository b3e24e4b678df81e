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
pub(crate) const FACTS_VERSION: u32 = 19;

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
    // `this.$root.getSocket()`: Vue components reach the socket through the root.
    if has("socket") || has("io.") || has("io?.") || has("$root.") || has("$parent.") {
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
    /// Where each content hash's facts are in `facts.pack`: (offset, length).
    packed: HashMap<[u8; 32], (u64, u32)>,
}

/// The on-disk facts cache for one analyzed root: `index.bin` (files by
/// path, size and mtime, with their hash and needles; facts by hash) and
/// `facts.pack`, where each record is the content hash, a checksum of the
/// facts, and the facts. One append-only file: a cold run creates one file, not one per
/// source file, and a warm run reads each record with one read.
pub(crate) struct Cache {
    dir: PathBuf,
    index: Mutex<CacheIndex>,
    dirty: std::sync::atomic::AtomicBool,
    /// The pack, opened for reading on first use.
    reader: Mutex<Option<std::fs::File>>,
    /// Facts to store, appended by a background thread so parsing never
    /// waits on the file system; [`Cache::save`] waits for it.
    writer: Mutex<Option<FactsWriter>>,
}

/// Where a record went: content hash, (offset, length).
type Stored = Vec<([u8; 32], (u64, u32))>;

struct FactsWriter {
    send: std::sync::mpsc::Sender<([u8; 32], Arc<FileFacts>)>,
    done: std::thread::JoinHandle<Stored>,
}

impl FactsWriter {
    fn start(pack: PathBuf) -> Option<FactsWriter> {
        let (send, recv) = std::sync::mpsc::channel::<([u8; 32], Arc<FileFacts>)>();
        let done = std::thread::Builder::new()
            .name("portolan-cache".into())
            .spawn(move || {
                let mut stored = Stored::new();
                let Ok(mut file) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&pack)
                else {
                    return stored;
                };
                for (hash, facts) in recv {
                    if let Some(at) = append_record(&mut file, &hash, &facts) {
                        stored.push((hash, at));
                    }
                }
                stored
            })
            .ok()?;
        Some(FactsWriter { send, done })
    }
}

/// Append one record; its (offset, length) when written whole.
fn append_record(
    file: &mut std::fs::File,
    hash: &[u8; 32],
    facts: &FileFacts,
) -> Option<(u64, u32)> {
    use std::io::{Seek, Write};
    let body = postcard::to_stdvec(facts).ok()?;
    let mut rec = Vec::with_capacity(32 + 8 + body.len());
    rec.extend_from_slice(hash);
    rec.extend_from_slice(&blake3::hash(&body).as_bytes()[..8]);
    rec.extend_from_slice(&body);
    let len = u32::try_from(rec.len()).ok()?;
    // One write in append mode: records from processes sharing the cache do
    // not interleave, and the position after it is this record's end.
    file.write_all(&rec).ok()?;
    let end = file.stream_position().ok()?;
    Some((end.checked_sub(u64::from(len))?, len))
}

impl Cache {
    pub(crate) fn open(dir: PathBuf) -> Cache {
        let index = std::fs::read(dir.join("index.bin"))
            .ok()
            .and_then(|b| postcard::from_bytes::<CacheIndex>(&b).ok())
            .filter(|i| i.version == FACTS_VERSION);
        let index = index.unwrap_or_else(|| {
            // A cache of another version (or none): its pack is garbage, and
            // older versions kept one file per source file.
            let _ = std::fs::remove_file(dir.join("facts.pack"));
            let _ = std::fs::remove_dir_all(dir.join("facts"));
            CacheIndex {
                version: FACTS_VERSION,
                ..CacheIndex::default()
            }
        });
        Cache {
            dir,
            index: Mutex::new(index),
            dirty: Default::default(),
            reader: Mutex::new(None),
            writer: Mutex::new(None),
        }
    }

    /// Nothing indexed yet (a first run in this cache directory).
    pub(crate) fn is_empty(&self) -> bool {
        self.index.lock().map_or(true, |i| i.entries.is_empty())
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

    fn read_facts(&self, hash: &[u8; 32]) -> Option<FileFacts> {
        use std::io::{Read, Seek, SeekFrom};
        let (at, len) = *self.index.lock().ok()?.packed.get(hash)?;
        let mut rec = vec![0u8; len as usize];
        {
            let mut reader = self.reader.lock().ok()?;
            if reader.is_none() {
                *reader = std::fs::File::open(self.dir.join("facts.pack")).ok();
            }
            let file = reader.as_mut()?;
            file.seek(SeekFrom::Start(at)).ok()?;
            file.read_exact(&mut rec).ok()?;
        }
        // The record names its hash and checks its body: a damaged pack, or
        // one rewritten under us, is a miss, never wrong facts.
        if rec.len() < 40
            || rec[..32] != hash[..]
            || blake3::hash(&rec[40..]).as_bytes()[..8] != rec[32..40]
        {
            return None;
        }
        postcard::from_bytes(&rec[40..]).ok()
    }

    fn write_facts(&self, hash: &[u8; 32], facts: &Arc<FileFacts>) {
        if self
            .index
            .lock()
            .map_or(true, |i| i.packed.contains_key(hash))
        {
            return;
        }
        if let Ok(mut w) = self.writer.lock() {
            if w.is_none() && std::fs::create_dir_all(&self.dir).is_ok() {
                *w = FactsWriter::start(self.dir.join("facts.pack"));
            }
            if let Some(w) = w.as_ref() {
                let _ = w.send.send((*hash, facts.clone()));
            }
        }
    }

    /// Forget facts no indexed file has any more, and rewrite the pack with
    /// the live records once most of it is dead.
    fn prune(&self, idx: &mut CacheIndex) {
        use std::io::{Read, Seek, SeekFrom, Write};
        let live: std::collections::HashSet<[u8; 32]> =
            idx.entries.values().map(|e| e.hash).collect();
        idx.packed.retain(|h, _| live.contains(h));
        let live_bytes: u64 = idx.packed.values().map(|(_, l)| u64::from(*l)).sum();
        let path = self.dir.join("facts.pack");
        let Ok(len) = std::fs::metadata(&path).map(|m| m.len()) else {
            return;
        };
        if len < (8 << 20) || len < 2 * live_bytes {
            return;
        }
        let tmp = self
            .dir
            .join(format!("facts.pack.tmp{}", std::process::id()));
        let (Ok(mut old), Ok(mut new)) = (std::fs::File::open(&path), std::fs::File::create(&tmp))
        else {
            return;
        };
        let mut moved = HashMap::new();
        let mut at = 0u64;
        let mut items: Vec<([u8; 32], (u64, u32))> =
            idx.packed.iter().map(|(h, p)| (*h, *p)).collect();
        items.sort_by_key(|(_, (o, _))| *o);
        for (hash, (o, l)) in items {
            let mut rec = vec![0u8; l as usize];
            if old.seek(SeekFrom::Start(o)).is_err()
                || old.read_exact(&mut rec).is_err()
                || rec.get(..32) != Some(&hash[..])
                || new.write_all(&rec).is_err()
            {
                continue;
            }
            moved.insert(hash, (at, l));
            at += u64::from(l);
        }
        if new.flush().is_ok() && std::fs::rename(&tmp, &path).is_ok() {
            idx.packed = moved;
            if let Ok(mut r) = self.reader.lock() {
                *r = None;
            }
        } else {
            let _ = std::fs::remove_file(&tmp);
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

    /// Persist the index and wait for the facts being written (called once at
    /// the end of a run).
    pub(crate) fn save(&self) {
        if let Some(w) = self.writer.lock().ok().and_then(|mut w| w.take()) {
            drop(w.send);
            if let Ok(stored) = w.done.join()
                && !stored.is_empty()
                && let Ok(mut idx) = self.index.lock()
            {
                idx.packed.extend(stored);
                self.dirty.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        if !self.dirty.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        if let Ok(mut idx) = self.index.lock() {
            self.prune(&mut idx);
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
    /// The bytes of modules a barrel's `export *` names (see [`Loader::may_export`]).
    barrel_texts: Mutex<HashMap<FileId, Arc<[u8]>>>,
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
            barrel_texts: Mutex::new(HashMap::new()),
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

    /// Whether a module could export `name`, judged from its bytes: it
    /// mentions the name, or re-exports what it does not name (`export *`,
    /// CommonJS). Unreadable files say yes (loading reports them).
    pub(crate) fn may_export(&self, id: FileId, name: &str) -> bool {
        use memchr::memmem::find;
        // A barrel is searched once per name read through it: keep its
        // modules' bytes rather than reading them again each time.
        let bytes = {
            let Ok(mut texts) = self.barrel_texts.lock() else {
                return true;
            };
            match texts.get(&id) {
                Some(b) => b.clone(),
                None => {
                    let Ok(b) = std::fs::read(self.project.abs(id)) else {
                        return true;
                    };
                    let b: Arc<[u8]> = b.into();
                    texts.insert(id, b.clone());
                    b
                }
            }
        };
        let has = |n: &[u8]| find(&bytes, n).is_some();
        name == "default"
            || has(name.as_bytes())
            || has(b"export *")
            || has(b"export*")
            || has(b"require(")
            || has(b"exports")
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
                let mut fresh = false;
                slot.get_or_init(|| {
                    fresh = true;
                    Arc::new(me.compute(id))
                });
                if fresh && let Some(l) = slot.get() {
                    me.prefetch_eager(id, l);
                }
            });
        }
    }

    /// What a module's top level uses at once is needed as soon as the module
    /// runs: start on it now, ahead of the evaluator.
    fn prefetch_eager(self: &Arc<Self>, id: FileId, loaded: &Loaded) {
        let next: Vec<FileId> = loaded
            .facts
            .eager
            .iter()
            .filter_map(|src| match self.project.resolve(id, src) {
                crate::project::Resolved::File(t) => Some(t),
                _ => None,
            })
            .collect();
        if !next.is_empty() {
            self.prefetch(next);
        }
    }

    /// Facts for a file, computing them here if nobody has started yet.
    pub(crate) fn get(self: &Arc<Self>, id: FileId) -> Arc<Loaded> {
        let slot = {
            let mut slots = self.slots.lock().expect("loader lock poisoned");
            slots
                .entry(id)
                .or_insert_with(|| Arc::new(OnceLock::new()))
                .clone()
        };
        // If a worker owns it, `get_or_init` blocks until it is done.
        let mut fresh = false;
        let l = slot
            .get_or_init(|| {
                fresh = true;
                Arc::new(self.compute(id))
            })
            .clone();
        if fresh {
            self.prefetch_eager(id, &l);
        }
        l
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
            Some(f) => (Arc::new(f), true),
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
                let facts = Arc::new(SYNTAX.with(|s| {
                    let mut s = s.borrow_mut();
                    s.get_or_insert_with(SyntaxContext::new)
                        .lower(grammar, &text)
                }));
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
            facts,
            hash: blake3::Hash::from_bytes(hash).to_hex().to_string(),
            problem,
            cached,
        }
    }
}
