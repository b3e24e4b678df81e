//! Facts loading: read a file, lower it (or take its facts from the cache),
//! and prefetch likely-needed files in parallel while the resolver runs.
//!
//! Captures: per-file needle flags (a cheap byte prefilter deciding which
//! files can matter), content-hash facts caching with a (size, mtime) index
//! so a warm run reads no unchanged source, read and encoding errors.
//!
//! The prefilter never cuts the import chain from a program's entry to its
//! app ([`Loader::may_route`]): a call into a file whose bytes mention
//! nothing that routes is still followed when a file it imports,
//! transitively, creates an app (`express()`, `NestFactory.create`), so
//! `entry.ts` → `main.ts` (no framework word) → `app.ts` (`express()`) is
//! one chain. The imports are read from the bytes (`import … from '…'`,
//! `export … from '…'`, `import('…')`, `require('…')`, literal specifiers
//! only), over-approximating (a specifier in a comment counts). Not
//! followed: a chain that ends at a file that only names Express or a
//! router (`init()` → `addRoutes()` on a router another module made and
//! mounts): almost every utility of a large program imports such a file,
//! and calls with no app, router or socket among their arguments are
//! deferred on purpose.
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

/// How a file the lowering failed on is reported (a bug; see `load`).
pub const INTERNAL_ERROR: &str =
    "internal error while reading this file (a bug in portolan; please report it)";

/// Bumped whenever the IR, the lowering or the prefilter's needles (kept in
/// the index) change, so stale caches are ignored.
pub(crate) const FACTS_VERSION: u32 = 96;

/// Needle flags: which interesting words a file's bytes contain.
pub(crate) mod needle {
    /// The file calls `express()` in some form (or makes an app another way:
    /// `NestFactory.create`, overnight's `addControllers`): a possible app entry.
    pub(crate) const APP: u8 = 1;
    /// Mentions `Router`.
    pub(crate) const ROUTER: u8 = 2;
    /// Mentions `express`.
    pub(crate) const EXPRESS: u8 = 4;
    /// Could register routes or mount routers (for following calls lazily).
    pub(crate) const ROUTING: u8 = 8;
    /// Mentions Socket.IO.
    pub(crate) const SOCKET: u8 = 16;
    /// Declares a decorated controller class (NestJS, routing-controllers,
    /// inversify-express-utils' `@controller(`, tsoa's `@Route(`).
    pub(crate) const CONTROLLER: u8 = 32;
    /// Has a registration-shaped call (`.get('`, `.use(`, `.on(`, …): read
    /// for the census even when nothing reaches it.
    pub(crate) const CENSUS: u8 = 64;
    /// Loads the test client supertest (`request(app).get('/x')`): an app
    /// such a file makes is one for tests to request, not a program.
    pub(crate) const TEST_CLIENT: u8 = 128;
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
            || express_names(bytes).any(|n| {
                let mut call = n.to_vec();
                call.extend_from_slice(b"()");
                find(bytes, &call).is_some()
            })
        {
            flags |= needle::APP;
        }
    }
    // Apps and controllers of the modelled frameworks: their words are listed
    // beside the packages in `libs/mod.rs`.
    if crate::libs::APP_WORDS.iter().any(|w| has(w)) {
        flags |= needle::APP;
    }
    if crate::libs::CONTROLLER_WORDS.iter().any(|w| has(w)) {
        flags |= needle::CONTROLLER;
    }
    if has("Router") {
        flags |= needle::ROUTER;
    }
    if express || flags & needle::ROUTER != 0 || has("router") || has(".use(") || has(".route(") {
        flags |= needle::ROUTING;
    }
    if crate::libs::SOCKET_WORDS.iter().any(|w| has(w)) {
        flags |= needle::SOCKET;
    }
    if has("'supertest'") || has("\"supertest\"") {
        flags |= needle::TEST_CLIENT;
    }
    // LoopBack 4's verb decorators on plain controller classes (`@get('/x')`).
    let lb4_verbs = [
        "@get(",
        "@post(",
        "@put(",
        "@patch(",
        "@del(",
        "@operation(",
    ];
    if flags & needle::CONTROLLER != 0
        || lb4_verbs.iter().any(|v| has(v))
        || census_shaped(bytes, flags & needle::SOCKET != 0)
        || exports_http_method(bytes)
    {
        flags |= needle::CENSUS;
    }
    flags
}

/// The names Express's default export is bound to under another name
/// (`import Express from 'express'`, `import createApp, { Router } from
/// "express"`, `const server = require('express')`): calling one makes an app.
fn express_names(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    use memchr::memmem::{find_iter, rfind};
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let imports = [&b"from 'express'"[..], b"from \"express\""]
        .into_iter()
        .flat_map(move |needle| find_iter(bytes, needle).map(move |at| (at, needle)))
        .filter_map(move |(at, _)| {
            // The `import` that starts this statement, within a line or two.
            let from = at.saturating_sub(200);
            let start = from + rfind(&bytes[from..at], b"import ")? + 7;
            let rest = &bytes[start..at];
            let len = rest.iter().position(|&c| !ident(c)).unwrap_or(rest.len());
            let name = &rest[..len];
            (!name.is_empty() && name != b"type").then_some(name)
        });
    let requires = [&b"require('express')"[..], b"require(\"express\")"]
        .into_iter()
        .flat_map(move |needle| find_iter(bytes, needle).map(move |at| (at, needle)))
        .filter_map(move |(at, needle)| {
            // Directly assigned: `NAME = require('express')` (not `require('express')()`).
            if bytes.get(at + needle.len()) == Some(&b'(') {
                return None;
            }
            let mut end = at;
            while end > 0 && bytes[end - 1] == b' ' {
                end -= 1;
            }
            if end == 0 || bytes[end - 1] != b'=' {
                return None;
            }
            end -= 1;
            while end > 0 && bytes[end - 1] == b' ' {
                end -= 1;
            }
            let mut start = end;
            while start > 0 && ident(bytes[start - 1]) {
                start -= 1;
            }
            (start < end).then(|| &bytes[start..end])
        });
    imports.chain(requires)
}

/// Whether the bytes export a name a file-based router takes as a method's
/// handler: `export const GET`, `export async function POST`, `export let PUT`.
fn exports_http_method(bytes: &[u8]) -> bool {
    use memchr::memmem::find_iter;
    find_iter(bytes, b"export ").any(|at| {
        let mut rest = &bytes[at + 7..];
        for word in [&b"async "[..], b"function ", b"const ", b"let ", b"var "] {
            if let Some(r) = rest.strip_prefix(word) {
                rest = r;
            }
        }
        crate::census::FILE_ROUTE_METHODS.iter().any(|m| {
            rest.strip_prefix(m.as_bytes()).is_some_and(|r| {
                !r.first()
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            })
        })
    })
}

/// Whether the bytes hold a call the census would count: a verb called with
/// a literal path (`.get('/`, `.post("*`, `` .put(`${ ``, `.all(['/`,
/// `.get(/regex/`), `.use(`, `.route(`, `.param(`, or, in files that mention
/// sockets, `.on(`, `.once(`, `.emit(`. (A verb whose path is a name is
/// counted only in files the analysis reads anyway.)
fn census_shaped(bytes: &[u8], socket: bool) -> bool {
    use memchr::memmem::find_iter;
    const VERBS: &[&[u8]] = &[
        b".get(",
        b".post(",
        b".put(",
        b".patch(",
        b".delete(",
        b".del(",
        b".head(",
        b".options(",
        b".all(",
    ];
    for v in VERBS {
        for at in find_iter(bytes, v) {
            let rest = &bytes[at + v.len()..];
            let mut it = rest.iter().copied().filter(|b| !b.is_ascii_whitespace());
            let (a, b, c) = (it.next(), it.next(), it.next());
            let quote = |x: Option<u8>| matches!(x, Some(b'\'' | b'"' | b'`'));
            let path_start = |x: Option<u8>| matches!(x, Some(b'/' | b'*' | b'$'));
            // `'/x'`, `` `${base}/x` ``, `/regex/`, `['/a', '/b']`
            if (quote(a) && path_start(b))
                || a == Some(b'/')
                || (a == Some(b'[') && quote(b) && path_start(c))
            {
                return true;
            }
        }
    }
    let has = |n: &[u8]| memchr::memmem::find(bytes, n).is_some();
    has(b".use(")
        || has(b".route(")
        || has(b".resource(")
        || has(b".param(")
        || (socket && (has(b".on(") || has(b".once(") || has(b".emit(")))
}

/// The literal module specifiers in a file's bytes: the string after
/// `from`, `import`, `import(` or `require(` (spaces allowed between).
/// Over-approximates (comments, `Array.from('x')`); what does not resolve
/// to a project file is dropped by the caller.
fn literal_specifiers(bytes: &[u8]) -> impl Iterator<Item = &str> {
    const WORDS: &[&[u8]] = &[b"from", b"import", b"require"];
    WORDS.iter().flat_map(move |w| {
        memchr::memmem::find_iter(bytes, w).filter_map(move |at| {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$') {
                return None;
            }
            let mut i = at + w.len();
            let skip_space = |i: &mut usize| {
                while bytes.get(*i).is_some_and(u8::is_ascii_whitespace) {
                    *i += 1;
                }
            };
            skip_space(&mut i);
            if bytes.get(i) == Some(&b'(') {
                i += 1;
                skip_space(&mut i);
            }
            let quote = *bytes.get(i).filter(|q| matches!(q, b'\'' | b'"' | b'`'))?;
            let start = i + 1;
            let len = bytes[start..]
                .iter()
                .take(512)
                .position(|&b| b == quote || b == b'\n')?;
            let spec = std::str::from_utf8(&bytes[start..start + len]).ok()?;
            (bytes[start + len] == quote && !spec.is_empty() && !spec.contains("${"))
                .then_some(spec)
        })
    })
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
/// `facts.pack`, one append-only file of facts records. Every record (the
/// index, each facts record, a stored inventory) is sealed with its format
/// version and a checksum bound to what it is for (see [`crate::cachefile`]):
/// a damaged or foreign record is discarded, noted for `--timings`, and
/// recomputed. One append-only file: a cold run creates one file, not one per
/// source file, and a warm run reads each record with one read.
pub(crate) struct Cache {
    dir: PathBuf,
    /// The analyzed root (canonical): the index is only valid for it.
    root: Vec<u8>,
    index: Mutex<CacheIndex>,
    dirty: std::sync::atomic::AtomicBool,
    /// The pack, opened for reading on first use.
    reader: Mutex<Option<std::fs::File>>,
    /// Facts to store, appended by a background thread so parsing never
    /// waits on the file system; [`Cache::save`] waits for it.
    writer: Mutex<Option<FactsWriter>>,
    /// What was found damaged and discarded in this run (for `--timings`).
    notes: Mutex<Vec<String>>,
    /// Facts records found damaged in this run.
    damaged_facts: std::sync::atomic::AtomicUsize,
    /// The pack the loaded index points into.
    pack_at_open: FileIdentity,
}

/// Record kinds (see [`crate::cachefile`]).
pub(crate) const INDEX_KIND: &[u8; 4] = b"INDX";
pub(crate) const FACTS_KIND: &[u8; 4] = b"FACT";
pub(crate) const RESULT_KIND: &[u8; 4] = b"RSLT";

/// Where a record went: content hash, (offset, length).
type Stored = Vec<([u8; 32], (u64, u32))>;

/// Which file a path names (device and inode): another process replacing
/// the pack (a rewrite, or a run that found no index) shows here.
type FileIdentity = Option<(u64, u64)>;

fn identity(meta: std::io::Result<std::fs::Metadata>) -> FileIdentity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        meta.ok().map(|_| (0, 0))
    }
}

struct FactsWriter {
    send: std::sync::mpsc::Sender<([u8; 32], Arc<FileFacts>)>,
    /// The records written, and the file they went to.
    done: std::thread::JoinHandle<(Stored, FileIdentity)>,
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
                    return (stored, None);
                };
                let written_to = identity(file.metadata());
                for (hash, facts) in recv {
                    if let Some(at) = append_record(&mut file, &hash, &facts) {
                        stored.push((hash, at));
                    }
                }
                (stored, written_to)
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
    let rec = crate::cachefile::seal(FACTS_KIND, FACTS_VERSION, hash, &body);
    let len = u32::try_from(rec.len()).ok()?;
    // One write in append mode: records from processes sharing the cache do
    // not interleave, and the position after it is this record's end.
    file.write_all(&rec).ok()?;
    let end = file.stream_position().ok()?;
    Some((end.checked_sub(u64::from(len))?, len))
}

/// The facts in one sealed record for `hash`.
fn decode_facts(hash: &[u8; 32], rec: &[u8]) -> Result<FileFacts, crate::cachefile::Damage> {
    let body = crate::cachefile::open(FACTS_KIND, FACTS_VERSION, hash, rec)?;
    postcard::from_bytes(body).map_err(|_| crate::cachefile::Damage::Undecodable)
}

/// The index stored in `dir` for `root`: `Ok(None)` when there is none.
fn read_index(
    dir: &std::path::Path,
    root: &[u8],
) -> Result<Option<CacheIndex>, crate::cachefile::Damage> {
    let Ok(bytes) = std::fs::read(dir.join("index.bin")) else {
        return Ok(None);
    };
    let body = crate::cachefile::open(INDEX_KIND, FACTS_VERSION, root, &bytes)?;
    let index: CacheIndex =
        postcard::from_bytes(body).map_err(|_| crate::cachefile::Damage::Undecodable)?;
    if index.version != FACTS_VERSION {
        return Err(crate::cachefile::Damage::OtherVersion(index.version));
    }
    Ok(Some(index))
}

/// The stored inventory for `key` in `dir`: `Ok(None)` when there is none.
fn read_result_file(
    dir: &std::path::Path,
    key: &str,
) -> Result<Option<Vec<u8>>, crate::cachefile::Damage> {
    let Ok(bytes) = std::fs::read(dir.join(format!("result-{key}.bin"))) else {
        return Ok(None);
    };
    crate::cachefile::open(RESULT_KIND, FACTS_VERSION, key.as_bytes(), &bytes)
        .map(|b| Some(b.to_vec()))
}

impl Cache {
    /// The cache in `dir` for the (canonical) `root`.
    pub(crate) fn open(dir: PathBuf, root: &std::path::Path) -> Cache {
        let root = root.to_string_lossy().as_bytes().to_vec();
        let mut notes = Vec::new();
        let index = match read_index(&dir, &root) {
            Ok(i) => i,
            Err(damage) => {
                notes.push(format!(
                    "cache: index.bin discarded ({damage}); file facts are read again"
                ));
                None
            }
        };
        let index = index.unwrap_or_else(|| {
            // No index (or an unusable one): the pack's records cannot be
            // found, and older versions kept one file per source file.
            let _ = std::fs::remove_file(dir.join("facts.pack"));
            let _ = std::fs::remove_dir_all(dir.join("facts"));
            CacheIndex {
                version: FACTS_VERSION,
                ..CacheIndex::default()
            }
        });
        let pack_at_open = identity(std::fs::metadata(dir.join("facts.pack")));
        Cache {
            pack_at_open,
            dir,
            root,
            index: Mutex::new(index),
            dirty: Default::default(),
            reader: Mutex::new(None),
            writer: Mutex::new(None),
            notes: Mutex::new(notes),
            damaged_facts: Default::default(),
        }
    }

    /// What this run found damaged and discarded, one line each.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut out = self.notes.lock().map(|n| n.clone()).unwrap_or_default();
        let n = self
            .damaged_facts
            .load(std::sync::atomic::Ordering::Relaxed);
        if n > 0 {
            out.push(format!(
                "cache: {n} damaged facts record{} in facts.pack discarded; {} parsed again",
                if n == 1 { "" } else { "s" },
                if n == 1 {
                    "its file was"
                } else {
                    "their files were"
                }
            ));
        }
        out
    }

    fn note(&self, line: String) {
        if let Ok(mut n) = self.notes.lock() {
            n.push(line);
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
        let read = {
            let mut reader = self.reader.lock().ok()?;
            if reader.is_none() {
                *reader = std::fs::File::open(self.dir.join("facts.pack")).ok();
            }
            reader.as_mut().is_some_and(|file| {
                file.seek(SeekFrom::Start(at)).is_ok() && file.read_exact(&mut rec).is_ok()
            })
        };
        // The record names its hash, version and checksum: a damaged pack,
        // or one rewritten under us, is a miss, never wrong facts. The
        // record is forgotten so this run stores it again.
        match read.then(|| decode_facts(hash, &rec)) {
            Some(Ok(facts)) => Some(facts),
            _ => {
                self.damaged_facts
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if let Ok(mut idx) = self.index.lock() {
                    idx.packed.remove(hash);
                    self.dirty.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                None
            }
        }
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
    /// the live, intact records once most of it is dead.
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
            .join(format!(".facts.pack.tmp-{}", std::process::id()));
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
                || decode_facts(&hash, &rec).is_err()
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
        match read_result_file(&self.dir, key) {
            Ok(bytes) => bytes,
            Err(damage) => {
                self.note(format!(
                    "cache: stored inventory result-{}….bin discarded ({damage}); the project was analyzed again",
                    &key[..key.len().min(12)]
                ));
                let _ = std::fs::remove_file(self.dir.join(format!("result-{key}.bin")));
                None
            }
        }
    }

    /// Store the inventory for `key`, replacing any other stored result.
    pub(crate) fn write_result(&self, key: &str, bytes: &[u8]) {
        if let Ok(rd) = std::fs::read_dir(&self.dir) {
            for e in rd.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with("result-")
                    && (name.ends_with(".bin") || name.ends_with(".json"))
                {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        let _ = std::fs::create_dir_all(&self.dir);
        let sealed = crate::cachefile::seal(RESULT_KIND, FACTS_VERSION, key.as_bytes(), bytes);
        let _ =
            crate::cachefile::write_atomic(&self.dir.join(format!("result-{key}.bin")), &sealed);
    }

    /// Persist the index and wait for the facts being written (called once at
    /// the end of a run).
    pub(crate) fn save(&self) {
        let mut appended = (Stored::new(), None);
        if let Some(w) = self.writer.lock().ok().and_then(|mut w| w.take()) {
            drop(w.send);
            if let Ok(done) = w.done.join() {
                if !done.0.is_empty() {
                    self.dirty.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                appended = done;
            }
        }
        if !self.dirty.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let _ = std::fs::create_dir_all(&self.dir);
        // One process at a time rewrites the pack and the index (two CI jobs
        // sharing a cache folder); readers never need the lock, since every
        // record they read is checked.
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("lock"));
        let _guard = lock.as_ref().ok().filter(|f| f.lock().is_ok());
        if let Ok(mut idx) = self.index.lock() {
            // Point only into the pack that is there now: another process
            // may have replaced it since the index was read or since this
            // run appended (its records would be misses, and verify would
            // call them damaged).
            let now = identity(std::fs::metadata(self.dir.join("facts.pack")));
            if now != self.pack_at_open {
                idx.packed.clear();
            }
            let (stored, written_to) = std::mem::take(&mut appended);
            if written_to.is_some() && written_to == now {
                idx.packed.extend(stored);
            }
            self.prune(&mut idx);
        }
        if let Ok(idx) = self.index.lock()
            && let Ok(body) = postcard::to_stdvec(&*idx)
        {
            let sealed = crate::cachefile::seal(INDEX_KIND, FACTS_VERSION, &self.root, &body);
            let _ = crate::cachefile::write_atomic(&self.dir.join("index.bin"), &sealed);
        }
    }
}

/// What `verify_cache` found in one facts cache folder.
pub(crate) fn verify_facts(
    dir: &std::path::Path,
    root: &std::path::Path,
    report: &mut crate::CacheReport,
    repair: bool,
) {
    let root_bytes = root.to_string_lossy().as_bytes().to_vec();
    let mut damaged_pack = false;
    match read_index(dir, &root_bytes) {
        Ok(None) => {}
        Ok(Some(index)) => {
            report.ok.push(format!(
                "index.bin: {} files, {} facts records",
                index.entries.len(),
                index.packed.len()
            ));
            if let Ok(pack) = std::fs::read(dir.join("facts.pack")) {
                let mut bad = 0usize;
                for (hash, (at, len)) in &index.packed {
                    let rec = usize::try_from(*at)
                        .ok()
                        .and_then(|a| pack.get(a..a.checked_add(*len as usize)?));
                    if rec.is_none_or(|r| decode_facts(hash, r).is_err()) {
                        bad += 1;
                    }
                }
                if bad > 0 {
                    damaged_pack = true;
                    report.damaged.push(format!(
                        "facts.pack: {bad} of {} indexed records damaged",
                        index.packed.len()
                    ));
                } else {
                    report
                        .ok
                        .push(format!("facts.pack: {} records intact", index.packed.len()));
                }
            } else if !index.packed.is_empty() {
                damaged_pack = true;
                report
                    .damaged
                    .push("facts.pack: missing, but the index names records in it".into());
            }
        }
        Err(damage) => {
            damaged_pack = true;
            report.damaged.push(format!("index.bin: {damage}"));
        }
    }
    if damaged_pack && repair {
        let _ = std::fs::remove_file(dir.join("index.bin"));
        let _ = std::fs::remove_file(dir.join("facts.pack"));
        report
            .repaired
            .push("removed index.bin and facts.pack (the next run parses again)".into());
    }
    if let Ok(rd) = std::fs::read_dir(dir) {
        let mut names: Vec<String> = rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            let Some(key) = name
                .strip_prefix("result-")
                .and_then(|n| n.strip_suffix(".bin"))
            else {
                continue;
            };
            match read_result_file(dir, key) {
                Ok(_) => report.ok.push(format!("{name}: intact")),
                Err(damage) => {
                    report.damaged.push(format!("{name}: {damage}"));
                    if repair && std::fs::remove_file(dir.join(&name)).is_ok() {
                        report.repaired.push(format!("removed {name}"));
                    }
                }
            }
        }
    }
}

thread_local! {
    static SYNTAX: RefCell<Option<SyntaxContext>> = const { RefCell::new(None) };
}

/// Parsing ahead runs on all cores but one: the evaluator keeps its own
/// core, and a parse it needs and nobody started happens on its thread.
/// Built by each [`crate::Analyzer`] (a long-lived host owns its threads).
pub(crate) fn prefetch_pool() -> Option<Arc<rayon::ThreadPool>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    rayon::ThreadPoolBuilder::new()
        .num_threads(cores.saturating_sub(1).max(1))
        .thread_name(|i| format!("portolan-parse-{i}"))
        .stack_size(64 << 20)
        .build()
        .ok()
        .map(Arc::new)
}

/// One file's facts, computed once by whoever comes first.
#[derive(Default)]
struct Slot {
    /// The evaluator or a pool thread started on it: a pool thread then
    /// leaves it (it never waits on another's work).
    claimed: std::sync::atomic::AtomicBool,
    facts: OnceLock<Arc<Loaded>>,
}

/// Files waiting for the pool. Each is taken by the next free pool thread,
/// `soon` before `later`: what the evaluator needs next (the entries, the
/// top-level imports of a module just loaded, a pass about to run) goes
/// ahead of the files a run reads at some point (see
/// [`Loader::prefetch_where`]).
#[derive(Default)]
struct Queue {
    soon: std::collections::VecDeque<FileId>,
    later: std::collections::VecDeque<FileId>,
}

/// Shared loader: facts per file, computed once, possibly in the background.
pub(crate) struct Loader {
    pub(crate) project: Arc<Project>,
    cache: Option<Arc<Cache>>,
    /// Where files are parsed ahead of the evaluator (`None`: on demand only).
    prefetch: Option<Arc<rayon::ThreadPool>>,
    slots: Mutex<HashMap<FileId, Arc<Slot>>>,
    /// Files waiting for the pool, the evaluator's next needs first.
    queue: Mutex<Queue>,
    /// Needle flags per file (0: unreadable).
    needles: Vec<OnceLock<u8>>,
    /// Content hash per file (`None`: unreadable). Without a cache only the
    /// files loaded are hashed; with one, every file is (the index and the
    /// input key need them), while its needles are read.
    hashes: Vec<OnceLock<Option<[u8; 32]>>>,
    /// The bytes of modules a barrel's `export *` names (see [`Loader::may_export`]).
    barrel_texts: Mutex<HashMap<FileId, Arc<[u8]>>>,
    /// The project files each file's bytes import (see [`Loader::may_route`]).
    byte_imports: Vec<OnceLock<Box<[FileId]>>>,
    /// The reverse of `byte_imports` over every file (see [`Loader::byte_importers`]).
    byte_importers: OnceLock<Vec<Box<[FileId]>>>,
    /// Files known to lead, or not, to one that routes (see [`Loader::may_route`]).
    routes_below: Mutex<HashMap<FileId, bool>>,
    /// Files whose facts were produced by parsing in this run, in the order parsed.
    pub(crate) parsed: Mutex<Vec<FileId>>,
    pub(crate) from_cache: std::sync::atomic::AtomicUsize,
    /// Files loaded (parsed or read from the cache) by the pool, ahead of
    /// the evaluator; the others it loaded itself when it needed them.
    pub(crate) ahead: std::sync::atomic::AtomicUsize,
}

impl Loader {
    pub(crate) fn new(
        project: Arc<Project>,
        cache: Option<Arc<Cache>>,
        prefetch: Option<Arc<rayon::ThreadPool>>,
    ) -> Arc<Loader> {
        let n = project.files.len();
        Arc::new(Loader {
            project,
            cache,
            prefetch,
            slots: Mutex::new(HashMap::new()),
            queue: Mutex::new(Queue::default()),
            needles: (0..n).map(|_| OnceLock::new()).collect(),
            hashes: (0..n).map(|_| OnceLock::new()).collect(),
            barrel_texts: Mutex::new(HashMap::new()),
            byte_imports: (0..n).map(|_| OnceLock::new()).collect(),
            byte_importers: OnceLock::new(),
            routes_below: Mutex::new(HashMap::new()),
            parsed: Default::default(),
            from_cache: Default::default(),
            ahead: Default::default(),
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
        *self.needles[id as usize].get_or_init(|| {
            let f = &self.project.files[id as usize];
            if let Some(c) = &self.cache
                && let Some(e) = c.lookup(&f.rel, f.size, f.mtime)
            {
                let _ = self.hashes[id as usize].set(Some(e.hash));
                return e.needles;
            }
            match std::fs::read(self.project.abs(id)) {
                Ok(bytes) => {
                    let needles = needles_of(&bytes);
                    if let Some(c) = &self.cache {
                        let hash = *blake3::hash(&bytes).as_bytes();
                        let _ = self.hashes[id as usize].set(Some(hash));
                        c.record_file(f, hash, needles);
                    }
                    needles
                }
                Err(_) => {
                    let _ = self.hashes[id as usize].set(None);
                    0
                }
            }
        })
    }

    /// The content hash of a file (`None` when it cannot be read).
    pub(crate) fn hash_of(&self, id: FileId) -> Option<[u8; 32]> {
        if self.cache.is_some() {
            self.needles_of(id);
        }
        *self.hashes[id as usize].get_or_init(|| {
            std::fs::read(self.project.abs(id))
                .ok()
                .map(|b| *blake3::hash(&b).as_bytes())
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

    /// Whether calling into this file can lead to a route registration or
    /// mount: its bytes pass the routing prefilter (`needle::ROUTING`, or
    /// it creates an app), or a file it imports, transitively, creates an
    /// app. A breadth-first walk over the
    /// imports read from the bytes; a walk that finds nothing marks every
    /// file it saw (their imports are all inside it), one that finds a
    /// routing file marks the chain down to it.
    pub(crate) fn may_route(&self, id: FileId) -> bool {
        if self.needles_of(id) & (needle::ROUTING | needle::APP) != 0 {
            return true;
        }
        // Below it, a call with nothing tracked reaches a registration
        // through code that creates an app (`express()`, `NestFactory.create`):
        // the chain from a program's entry to its app. (Files that only
        // mention Express, `.use(` or "router" would pull in most of a large
        // program's utilities, whose calls are deferred on purpose.)
        self.leads_to(id, &self.routes_below, |f| {
            self.needles_of(f) & needle::APP != 0
        })
    }

    /// Whether a file `id` imports, transitively (by its bytes, see
    /// [`Loader::byte_imports`]), is one `hit` picks. A breadth-first walk;
    /// a walk that finds nothing marks every file it saw in `memo` (their
    /// imports are all inside it), one that finds a file marks the chain
    /// down to it.
    fn leads_to(
        &self,
        id: FileId,
        memo: &Mutex<HashMap<FileId, bool>>,
        hit: impl Fn(FileId) -> bool,
    ) -> bool {
        let known = |f: FileId| memo.lock().ok().and_then(|m| m.get(&f).copied());
        if let Some(k) = known(id) {
            return k;
        }
        let mut parent: HashMap<FileId, FileId> = HashMap::from([(id, id)]);
        let mut queue = std::collections::VecDeque::from([id]);
        let mut found = None;
        'walk: while let Some(f) = queue.pop_front() {
            for &t in self.byte_imports(f) {
                if parent.contains_key(&t) {
                    continue;
                }
                parent.insert(t, f);
                match known(t) {
                    Some(true) => {
                        found = Some(t);
                        break 'walk;
                    }
                    Some(false) => {}
                    None if hit(t) => {
                        found = Some(t);
                        break 'walk;
                    }
                    None => queue.push_back(t),
                }
            }
        }
        let Ok(mut memo) = memo.lock() else {
            return true;
        };
        match found {
            Some(mut at) => {
                while at != id {
                    at = parent[&at];
                    memo.insert(at, true);
                }
                true
            }
            None => {
                for f in parent.into_keys() {
                    memo.insert(f, false);
                }
                false
            }
        }
    }

    /// The project files a file's bytes import (see the module doc).
    pub(crate) fn byte_imports(&self, id: FileId) -> &[FileId] {
        self.byte_imports[id as usize].get_or_init(|| {
            let Ok(bytes) = std::fs::read(self.project.abs(id)) else {
                return Box::default();
            };
            let mut out: Vec<FileId> = literal_specifiers(&bytes)
                .filter_map(|spec| match self.project.resolve(id, spec) {
                    crate::project::Resolved::File(t) if t != id => Some(t),
                    _ => None,
                })
                .collect();
            out.sort_unstable();
            out.dedup();
            out.into_boxed_slice()
        })
    }

    /// The project files whose bytes import `id` (see [`Loader::byte_imports`]):
    /// the first call reads every file's imports, in parallel, and keeps the
    /// reverse index, so that climbing from a module to the roots of its
    /// programs costs one read of the project however many levels it climbs.
    pub(crate) fn byte_importers(&self, id: FileId) -> &[FileId] {
        let index = self.byte_importers.get_or_init(|| {
            use rayon::prelude::*;
            let n = self.project.files.len();
            let imports: Vec<&[FileId]> = (0..n as FileId)
                .into_par_iter()
                .map(|f| self.byte_imports(f))
                .collect();
            let mut index: Vec<Vec<FileId>> = vec![Vec::new(); n];
            for (f, targets) in imports.into_iter().enumerate() {
                for &t in targets {
                    index[t as usize].push(f as FileId);
                }
            }
            index.into_iter().map(Vec::into_boxed_slice).collect()
        });
        &index[id as usize]
    }

    /// Start loading these files on the worker pool, ahead of what was
    /// queued for later.
    pub(crate) fn prefetch(self: &Arc<Self>, ids: impl IntoIterator<Item = FileId>) {
        self.enqueue(ids, true);
    }

    /// Start loading, on the worker pool, every file `wanted` picks by its
    /// path and needle flags, behind what the evaluator needs sooner. It
    /// runs in the background: the needles of files not read yet are read
    /// there too, so the caller does not wait. For files a run reads
    /// whatever the evaluation loads (see `pipeline::read_by_every_run`):
    /// the pool parses them while the evaluator works, instead of idling
    /// until a later pass asks for them.
    pub(crate) fn prefetch_where(
        self: &Arc<Self>,
        wanted: impl Fn(&str, u8) -> bool + Send + 'static,
    ) {
        let Some(pool) = &self.prefetch else {
            return;
        };
        let me = Arc::clone(self);
        pool.spawn(move || {
            let ids: Vec<FileId> = (0..me.project.files.len() as FileId)
                .filter(|&i| wanted(me.project.rel(i), me.needles_of(i)))
                .collect();
            me.enqueue(ids, false);
        });
    }

    /// The slot of a file, made when first asked for.
    fn slot(&self, id: FileId) -> Arc<Slot> {
        let mut slots = self.slots.lock().expect("loader lock poisoned");
        slots.entry(id).or_default().clone()
    }

    /// Queue the files nobody started on (`soon` or `later`), one pool task
    /// each.
    fn enqueue(self: &Arc<Self>, ids: impl IntoIterator<Item = FileId>, soon: bool) {
        use std::sync::atomic::Ordering;
        let Some(pool) = &self.prefetch else {
            return;
        };
        let mut n = 0;
        {
            let mut slots = self.slots.lock().expect("loader lock poisoned");
            let mut queue = self.queue.lock().expect("loader lock poisoned");
            for id in ids {
                if slots.entry(id).or_default().claimed.load(Ordering::Relaxed) {
                    continue;
                }
                match soon {
                    true => queue.soon.push_back(id),
                    false => queue.later.push_back(id),
                }
                n += 1;
            }
        }
        for _ in 0..n {
            let me = Arc::clone(self);
            pool.spawn(move || me.load_next());
        }
    }

    /// A pool task: load the first queued file nobody started on.
    fn load_next(self: &Arc<Self>) {
        use std::sync::atomic::Ordering;
        let next = {
            let mut queue = self.queue.lock().expect("loader lock poisoned");
            queue.soon.pop_front().or_else(|| queue.later.pop_front())
        };
        let Some(id) = next else {
            return;
        };
        let slot = self.slot(id);
        if slot.claimed.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut fresh = false;
        let l = slot.facts.get_or_init(|| {
            fresh = true;
            Arc::new(self.compute(id))
        });
        if fresh {
            self.ahead.fetch_add(1, Ordering::Relaxed);
            self.prefetch_eager(id, l);
        }
    }

    /// A module the evaluator runs reads its imports when its code uses
    /// them (an ES import is a binding read on use; a component's imports
    /// are read when it renders): start on them on the pool, behind what is
    /// needed at once. Type-only imports are left out (the compiler erases
    /// them), and so are `require` calls inside functions, which many
    /// modules never make.
    pub(crate) fn prefetch_imports(self: &Arc<Self>, id: FileId, loaded: &Loaded) {
        let next: Vec<FileId> = loaded
            .facts
            .value_imports()
            .filter_map(|src| match self.project.resolve(id, src) {
                crate::project::Resolved::File(t) if t != id => Some(t),
                _ => None,
            })
            .collect();
        if !next.is_empty() {
            self.enqueue(next, false);
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
        let slot = self.slot(id);
        if let Some(l) = slot.facts.get() {
            return l.clone();
        }
        // If a pool thread is on it, `get_or_init` waits until it is done.
        slot.claimed
            .store(true, std::sync::atomic::Ordering::Release);
        let mut fresh = false;
        let l = slot
            .facts
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
            let _ = self.needles[id as usize].set(e.needles);
            let _ = self.hashes[id as usize].set(Some(e.hash));
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
        let _ = self.needles[id as usize].set(needles);
        let _ = self.hashes[id as usize].set(Some(hash));
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
                    let (scripts, ts) = crate::syntax::markup_scripts(&text, &f.rel);
                    if ts {
                        grammar = Grammar::TypeScript;
                    }
                    std::borrow::Cow::Owned(scripts)
                } else {
                    text
                };
                // A bug in the lowering must not take the run down (it may
                // run on a pool thread, where a panic aborts the process): the
                // file is reported as not read, and nothing is cached for it.
                let mut failed = false;
                let facts = Arc::new(SYNTAX.with(|s| {
                    let mut s = s.borrow_mut();
                    let ctx = s.get_or_insert_with(SyntaxContext::new);
                    let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        // Test hook: the lowering fails on this file.
                        if std::env::var_os("PORTOLAN_TEST_LOWER_PANIC")
                            .is_some_and(|v| v == f.rel.as_str())
                        {
                            panic!("PORTOLAN_TEST_LOWER_PANIC names this file");
                        }
                        ctx.lower(grammar, &text)
                    }));
                    lowered.unwrap_or_else(|panic| {
                        failed = true;
                        *s = None;
                        let why = panic
                            .downcast_ref::<&str>()
                            .map(|m| m.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        FileFacts {
                            parse_errors: vec![(
                                1,
                                format!("{INTERNAL_ERROR} ({why}); no registration in it was read"),
                            )],
                            ..Default::default()
                        }
                    })
                }));
                if let Ok(mut p) = self.parsed.lock() {
                    p.push(id);
                }
                if let Some(c) = &self.cache
                    && problem.is_none()
                    && !failed
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

#[cfg(test)]
mod tests {
    use super::{Loader, express_names, literal_specifiers, needle, needles_of};
    use std::sync::Arc;

    #[test]
    fn a_running_modules_value_imports_are_queued_for_the_pool() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir_all(&root).unwrap();
        let files = [
            (
                "a.ts",
                "import b from './b'\nimport type { T } from './t'\nexport * from './c'\n\
                 import { type U } from './u'\nfunction f() { return require('./d') }\n",
            ),
            ("b.ts", "export default 1\n"),
            ("c.ts", "export const c = 1\n"),
            ("d.ts", "module.exports = 1\n"),
            ("t.ts", "export type T = number\n"),
            ("u.ts", "export type U = number\n"),
        ];
        for (name, text) in files {
            std::fs::write(root.join(name), text).unwrap();
        }
        let project = Arc::new(
            crate::project::Project::discover(&root, &dir.path().join("s"), false).unwrap(),
        );
        let id = |rel: &str| project.files.iter().position(|f| f.rel == rel).unwrap() as u32;
        // The pool's one thread waits, so what is queued stays in the queue.
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap(),
        );
        let (release, wait) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            let _ = wait.recv();
        });
        let loader = Loader::new(project.clone(), None, Some(pool));
        let a = id("a.ts");
        let loaded = loader.get(a);
        loader.prefetch_imports(a, &loaded);
        let queued: Vec<u32> = loader.queue.lock().unwrap().later.iter().copied().collect();
        release.send(()).unwrap();
        // `u` is imported for its type only too (`{ type U }` names nothing
        // else), and `d` only inside a function.
        assert_eq!(queued, [id("b.ts"), id("c.ts")]);
    }

    #[test]
    fn an_app_made_by_express_under_another_name_is_a_possible_entry() {
        let src = b"import Express, { Router } from 'express';\nconst app = Express();\n";
        let names: Vec<&[u8]> = express_names(src).collect();
        assert_eq!(names, [&b"Express"[..]]);
        assert_ne!(needles_of(src) & needle::APP, 0);
        let src = b"const createServer = require(\"express\")\nconst app = createServer()\n";
        assert_ne!(needles_of(src) & needle::APP, 0);
        // Bound but never called, or only its Router used: no app here.
        let src = b"import Express from 'express';\nexport const r = Express.Router();\n";
        assert_eq!(needles_of(src) & needle::APP, 0);
        let src = b"import type { Request } from 'express';\n";
        assert_eq!(express_names(src).count(), 0);
    }

    #[test]
    fn specifiers_are_read_from_the_bytes() {
        let src = br#"import { a } from './a'
import './side'
export * from "../b"
const c = require ( './c' ), d = await import(`./d`)
const e = import(`./${name}`) // computed: not a specifier
reimport('./no'); Array.from('xyz')
"#;
        let specs: Vec<&str> = literal_specifiers(src).collect();
        assert_eq!(specs, ["./a", "../b", "xyz", "./side", "./d", "./c"]);
    }
}
