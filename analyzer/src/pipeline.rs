//! The run of one analysis: discover the project, prefilter and load the
//! facts, evaluate from the entries (HTTP, then the events), and assemble the
//! inventory with its timings and input key.
//!
//! The evaluation takes the passes of [`Phase`] in order (`passes.rs`):
//! entries, unreached routers and salvage, contracts, socket modules,
//! uncalled code, settling.
//!
//! Deliberately not here: the mount-graph walk (`mounts`) and the event
//! grouping (`events`), which this calls.

use crate::inventory::*;
use crate::loader::{Cache, Loader, needle};
use crate::machine::Interp;
use crate::machine::budget::Share;
use crate::mounts::build_inventory;
use crate::passes::{Phase, PhaseClock};
use crate::project::{FileId, Project};
use crate::{AnalyzeError, AnalyzeOptions, census, entries, loader, project};
use crate::{default_cache_dir, is_test_path, syntax};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Instant;

/// A key over every input of an analysis: each source file's content hash,
/// the manifests, the options and the analyzer's version. Equal keys give
/// equal inventories.
fn input_key(opts: &AnalyzeOptions, project: &Project, loader: &Arc<Loader>) -> String {
    input_key_of(BUILD, opts, project, loader)
}

/// The analyzer's source fingerprint (see `build.rs`): an inventory stored
/// by a build of other sources is not this build's.
const BUILD: &str = env!("PORTOLAN_ANALYZER_SOURCE");

/// [`input_key`] for the analyzer build `build`.
fn input_key_of(
    build: &str,
    opts: &AnalyzeOptions,
    project: &Project,
    loader: &Arc<Loader>,
) -> String {
    loader.scan_needles();
    let mut h = blake3::Hasher::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(build.as_bytes());
    h.update(&loader::FACTS_VERSION.to_le_bytes());
    h.update(if opts.skip_events { b"http" } else { b"full" });
    for d in opts.server_dirs.iter().chain(&opts.client_dirs) {
        h.update(d.as_bytes());
        h.update(b"\0");
    }
    h.update(format!("{}/{}", opts.server_dirs.len(), opts.client_dirs.len()).as_bytes());
    for e in &opts.entries {
        h.update(e.as_bytes());
        h.update(b"\0");
    }
    h.update(b"\x01");
    for (i, f) in project.files.iter().enumerate() {
        h.update(f.rel.as_bytes());
        h.update(
            loader
                .hash_of(i as FileId)
                .as_ref()
                .map(|x| &x[..])
                .unwrap_or(b"-"),
        );
    }
    h.update(project.config_fingerprint().as_bytes());
    h.finalize().to_hex().to_string()
}

/// [`fingerprint`], with the cache records it found damaged and discarded
/// (one line each, as in [`Timings::cache_notes`]).
pub(crate) fn fingerprint_noting(
    opts: &AnalyzeOptions,
) -> Result<(Option<String>, Vec<String>), AnalyzeError> {
    if opts.no_cache {
        return Ok((None, Vec::new()));
    }
    let cache_dir = opts
        .cache_dir
        .clone()
        .unwrap_or_else(|| default_cache_dir(&opts.root));
    if !cache_dir.join("index.bin").is_file() {
        return Ok((None, Vec::new()));
    }
    std::fs::create_dir_all(&cache_dir)
        .map_err(|e| AnalyzeError::Cache(cache_dir.display().to_string(), e.to_string()))?;
    let project = Arc::new(Project::discover(&opts.root, &cache_dir, true)?);
    let cache = Arc::new(Cache::open(cache_dir, &project.root));
    let loader = Loader::new(project.clone(), Some(cache.clone()), None);
    let key = input_key(opts, &project, &loader);
    cache.save();
    Ok((Some(key), cache_notes(&project, &cache)))
}

/// One analysis, on the calling thread (a worker of the [`crate::Analyzer`]'s
/// pool, so parallel steps use that pool), parsing ahead on `prefetch`.
pub(crate) fn analyze_here(
    opts: &AnalyzeOptions,
    prefetch: Option<Arc<rayon::ThreadPool>>,
) -> Result<Inventory, AnalyzeError> {
    let t0 = Instant::now();
    let cache_dir = opts
        .cache_dir
        .clone()
        .unwrap_or_else(|| default_cache_dir(&opts.root));
    let scratch = if opts.no_cache {
        std::env::temp_dir().join("portolan-scratch")
    } else {
        cache_dir.clone()
    };
    let project = Arc::new(Project::discover(&opts.root, &scratch, !opts.no_cache)?);
    let cache = if opts.no_cache {
        None
    } else {
        std::fs::create_dir_all(&cache_dir)
            .map_err(|e| AnalyzeError::Cache(cache_dir.display().to_string(), e.to_string()))?;
        Some(Arc::new(Cache::open(cache_dir, &project.root)))
    };
    let loader = Loader::new(project.clone(), cache.clone(), prefetch);
    let mut timings = Timings {
        discover_ms: ms(t0),
        files_discovered: project.files.len(),
        ..Timings::default()
    };

    // A whole earlier result, when no input changed (every file's content
    // hash, the manifests, the options and the analyzer's version).
    // (An empty cache holds no result: the key is then computed at the end,
    // once the analysis has read the files it needs, so it does not wait on
    // reading every file first.)
    let result_key = cache
        .as_ref()
        .filter(|c| !c.is_empty())
        .map(|_| input_key(opts, &project, &loader));
    if let (Some(c), Some(key)) = (&cache, &result_key)
        && let Some(bytes) = c.read_result(key)
        && let Ok(mut inv) = serde_json::from_slice::<Inventory>(&bytes)
        && data_files_unchanged(&project, &inv)
    {
        timings.prefilter_ms = ms(t0) - timings.discover_ms;
        timings.files_cached = project.files.len();
        timings.result_cached = true;
        c.save();
        timings.cache_notes = cache_notes(&project, c);
        inv.timings = timings;
        inv.input_key = Some(key.clone());
        return Ok(inv);
    }

    // Entries: named, else package.json main/start, then files calling express() (or the programs above them).
    let t1 = Instant::now();
    let mut entries: Vec<FileId> = Vec::new();
    // Entries a manifest names that are not in the project: (manifest, path,
    // the source started from instead).
    let mut missing_entries: Vec<(String, String, Option<FileId>)> = Vec::new();
    // Why each automatically chosen entry was chosen (for the summary).
    let mut reasons: BTreeMap<FileId, String> = BTreeMap::new();
    if !opts.entries.is_empty() {
        for e in &opts.entries {
            let rel = project::normalize(&e.replace('\\', "/"));
            match project.file_id(&rel).or_else(|| project.resolve_path(&rel)) {
                Some(id) => entries.push(id),
                None => return Err(AnalyzeError::Entry(e.clone())),
            }
        }
    }
    // Files that create an app, for auto-detection: of the program, and of
    // folders outside it (see `Project::outside_workspaces`).
    let mut app_files: Vec<FileId> = Vec::new();
    // Entries of packages outside the program (run after the program's).
    let mut fallback: BTreeSet<FileId> = BTreeSet::new();
    // What the manifests name as how the program starts (also with --entry:
    // the `missed-entry` finding proposes them).
    let manifest = manifest_entries(opts, &project);
    let launched: BTreeMap<FileId, String> = manifest.reasons.clone();
    if opts.entries.is_empty() {
        loader.scan_needles();
        let set = manifest.program;
        fallback = manifest.fallback;
        reasons = manifest.reasons;
        missing_entries = manifest.missing;
        for (i, f) in project.files.iter().enumerate() {
            // An app handed to a test client (a `utils/setup.js` making the
            // app for `request(app)`) is the tests', not a program; one a
            // build tool's configuration makes (a gulpfile's live-reload
            // server) is the tool's.
            let needles = loader.needles_of(i as FileId);
            if needles & needle::APP != 0
                && needles & needle::TEST_CLIENT == 0
                && !is_test_path(&f.rel)
                && !crate::project::is_tool_config(&f.rel)
            {
                let dir = f.rel.rsplit_once('/').map_or("", |(d, _)| d);
                if project.outside_workspaces(dir) {
                    fallback.insert(i as FileId);
                } else {
                    app_files.push(i as FileId);
                }
                reasons
                    .entry(i as FileId)
                    .or_insert_with(|| APP_REASON.into());
            }
        }
        entries = set.into_iter().collect();
    }
    timings.prefilter_ms = ms(t1);

    // The folder the programs' processes start in (`process.cwd()`): that of
    // the package.json naming an entry, else of the nearest one above it,
    // when every entry and app file has the same one. Programs of several
    // packages share the modules they load (each loaded once), so a module's
    // value cannot depend on which program loaded it first: they start in
    // the root, as before.
    let started_in = |e: FileId| -> String {
        manifest.started_in.get(&e).cloned().unwrap_or_else(|| {
            let rel = project.rel(e);
            let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
            project.package_dir_of(dir).to_string()
        })
    };
    let program_dirs: BTreeSet<String> = entries
        .iter()
        .chain(&app_files)
        .map(|&e| started_in(e))
        .collect();
    let cwd: std::rc::Rc<str> = match program_dirs.len() {
        1 => std::rc::Rc::from(program_dirs.first().map_or("", String::as_str)),
        _ => std::rc::Rc::from(""),
    };
    let t2 = Instant::now();
    let mut interp = Interp::new(loader.clone());
    let mut clock = PhaseClock::default();
    clock.enter(&mut interp, Phase::Entries);
    loader.prefetch(entries.iter().copied());
    let events = !opts.skip_events;
    loader.prefetch_where(move |rel, n| read_by_every_run(rel, n, events));
    // Entries that create or receive nothing a server is made of (an app, a
    // router, a Socket.IO server) are not reported as entries when others do.
    let mut productive: BTreeSet<FileId> = BTreeSet::new();
    let run_entry = |interp: &mut Interp, productive: &mut BTreeSet<FileId>, e: FileId| {
        let before = (interp.rec.routers.len(), interp.rec.sio_servers.len());
        // Each program has its own budget (see `machine/budget.rs`).
        interp.as_program(e, Share::Entry, |interp| {
            interp.js.main = Some(e);
            interp.js.cwd = Some(cwd.clone());
            interp.run_module(e);
            interp.run_handed();
            interp.js.main = None;
            interp.js.cwd = None;
        });
        if (interp.rec.routers.len(), interp.rec.sio_servers.len()) != before {
            productive.insert(e);
        }
    };
    for &e in &entries {
        run_entry(&mut interp, &mut productive, e);
    }
    // A file that creates an app and that no entry loaded is an entry. When
    // it made an app or router as it loaded and other files import it, it is
    // a module of the programs above it (`app.js` → `src/start.js` →
    // `src/webserver.js`, whose exported `listen()` adds the routes): those
    // programs are the entries instead. (It runs first: a file that only
    // defines an app factory, or that the byte prefilter picked wrongly,
    // makes nothing; its programs replace it only when running them makes
    // an app, a router or a Socket.IO server.)
    // App files that only a program tried above another app file loaded (one
    // that made nothing) are still looked at on their own.
    let mut loaded_by_tries: BTreeSet<FileId> = BTreeSet::new();
    for &app in &app_files {
        if interp.is_loaded(app) && !loaded_by_tries.contains(&app) {
            continue;
        }
        let since = made_so_far(&interp);
        run_entry(&mut interp, &mut productive, app);
        entries.push(app);
        if reasons.get(&app).is_some_and(|why| why == APP_REASON) {
            reasons.insert(app, made_reason(&interp, &project, app, since));
        }
        // A file that made nothing as it loaded may still be a program's
        // module whose app-making function the program calls (`server.js`
        // → `app.start()` → `express.init()`): its programs are the entries
        // when running them makes something.
        // Those programs are tried nearest the package's folder first, and
        // the first that makes something ends the search.
        let made_on_load = productive.contains(&app);
        let mut above = false;
        let package_of = |f: FileId| {
            let rel = project.rel(f);
            project
                .package_dir_of(rel.rsplit_once('/').map_or("", |(d, _)| d))
                .to_string()
        };
        let mut tries = 0;
        for (root, chain) in entries::import_roots(&loader, app, !made_on_load) {
            if entries.contains(&root) || interp.is_loaded(root) || (above && !made_on_load) {
                continue;
            }
            // A module that made nothing is tried only from the programs of
            // its own package (a library's file that other packages of a
            // workspace import is none of theirs), at most a few of them.
            if !made_on_load {
                if package_of(root) != package_of(app) || tries == MAX_ROOT_TRIES {
                    continue;
                }
                tries += 1;
            }
            let since = made_so_far(&interp);
            // (Only a try that may make nothing needs to know what it loaded.)
            let unloaded: Vec<FileId> = if made_on_load {
                Vec::new()
            } else {
                app_files
                    .iter()
                    .copied()
                    .filter(|&f| !interp.is_loaded(f))
                    .collect()
            };
            interp.as_program(root, Share::Entry, |interp| {
                interp.js.main = Some(root);
                interp.js.cwd = Some(cwd.clone());
                interp.run_module(root);
                interp.js.main = None;
                interp.js.cwd = None;
            });
            if !made_on_load && made_so_far(&interp) == since {
                loaded_by_tries.extend(unloaded.into_iter().filter(|&f| interp.is_loaded(f)));
                continue;
            }
            entries.push(root);
            productive.insert(root);
            above = true;
            let through: Vec<&str> = chain.iter().map(|&f| project.rel(f)).collect();
            let which = if made_on_load {
                reasons
                    .get(&app)
                    .map_or(APP_REASON, String::as_str)
                    .to_string()
            } else {
                format!(
                    "makes nothing as it loads; running this program {}",
                    made_text(&interp, &project, since)
                )
            };
            reasons.insert(
                root,
                format!(
                    "no file imports it, and it imports {} ({}), which {which}",
                    project.rel(app),
                    through.join(" → "),
                ),
            );
        }
        if above {
            entries.retain(|&e| e != app);
            productive.remove(&app);
            reasons.remove(&app);
        }
    }
    // Apps of test servers, tools and examples with manifests of their own
    // run after the program's: they are programs of their own, and they are
    // listed beside the program's entries, never instead of them.
    let program_entries: BTreeSet<FileId> = entries.iter().copied().collect();
    for e in fallback {
        if entries.contains(&e) || interp.is_loaded(e) {
            continue;
        }
        let since = made_so_far(&interp);
        run_entry(&mut interp, &mut productive, e);
        entries.push(e);
        if reasons.get(&e).is_some_and(|why| why == APP_REASON) {
            reasons.insert(e, made_reason(&interp, &project, e, since));
        }
        if let Some(why) = reasons.get_mut(&e) {
            why.push_str("; a program of its own (a package outside the root's workspaces or in a test folder)");
        }
    }
    // Modules the entries start with `child_process.fork` are programs of their own.
    if opts.entries.is_empty() {
        let mut i = 0;
        while let Some(&(target, file, line, how)) = interp.forked().get(i) {
            i += 1;
            if entries.contains(&target) {
                continue;
            }
            run_entry(&mut interp, &mut productive, target);
            entries.push(target);
            reasons.entry(target).or_insert(format!(
                "started with {how} at {}:{line}",
                project.rel(file)
            ));
        }
    }
    interp.finish_nest_apps();
    // Apps a framework makes from the repository's route files (Medusa).
    interp.medusa_file_routes();
    // The app Keystone 6's CLI makes from keystone.ts.
    interp.keystone_apps();
    // The app `sails.lift()` makes from config/routes.js.
    interp.sails_apps();
    // Node-RED node packages: the modules their manifests list, called with
    // the runtime's API (its two apps).
    if opts.entries.is_empty() {
        for (file, why) in interp.node_red_nodes() {
            if !entries.contains(&file) {
                entries.push(file);
                productive.insert(file);
                reasons.entry(file).or_insert(why);
            }
        }
    }
    // awilix-express controllers nothing served.
    interp.awilix_unserved();
    // Routers that middleware hands the request to, read once start-up is done.
    interp.forwarded_mounts();
    let reached: BTreeSet<FileId> = interp.rec.touched.clone();
    // Files that declare Express routers but that no entry reaches.
    if opts.entries.is_empty() {
        // (needles already scanned)
    } else {
        loader.scan_needles();
    }
    clock.enter(&mut interp, Phase::Unreached);
    let extra: Vec<FileId> = (0..project.files.len() as FileId)
        .filter(|&i| {
            declares_router(loader.needles_of(i))
                && !interp.is_loaded(i)
                && !is_test_path(project.rel(i))
                && !crate::project::is_tool_config(project.rel(i))
        })
        .collect();
    loader.prefetch(extra.iter().copied());
    for i in extra {
        interp.as_program(i, Share::Secondary, |interp| interp.run_module(i));
    }
    // Apps and routers built by code no entry runs (see `machine/salvage.rs`).
    interp.salvage_uncalled();
    interp.forwarded_mounts();
    timings.resolve_ms = ms(t2);

    // Events: modules that mention sockets and nobody loaded (client code,
    // handlers' helpers), then every function nobody called.
    let t4 = Instant::now();
    clock.enter(&mut interp, Phase::Contracts);
    // Route handlers run once with a request and a response: the contracts.
    interp.mark_route_handlers_called();
    interp.run_route_handlers(true);
    interp.probe_guards();
    let http_files = interp.rec.touched.clone();
    let sock: Vec<FileId> = (0..project.files.len() as FileId)
        .filter(|&i| {
            !opts.skip_events
                && mentions_sockets(loader.needles_of(i))
                && !interp.is_loaded(i)
                && !is_test_path(project.rel(i))
                && !crate::project::is_tool_config(project.rel(i))
        })
        .collect();
    loader.prefetch(sock.iter().copied());
    clock.enter(&mut interp, Phase::SocketModules);
    // A browser client's modules run from the top of its program (the
    // script that renders the React root and imports, through components,
    // the module that makes the socket), so that what a component is given
    // (props, context, state) is what its parents give it; then the
    // modules no such program loaded, on their own.
    // A page's module scripts are such programs too when the page loads the
    // Socket.IO client: their imports connect with the page's `io`.
    let page_programs = if opts.skip_events {
        Vec::new()
    } else {
        interp.page_module_programs()
    };
    let before = interp.rec.touched.clone();
    for &p in &page_programs {
        if !interp.is_loaded(p) && !is_test_path(project.rel(p)) {
            interp.as_program(p, Share::Secondary, |interp| interp.run_client_program(p));
        }
    }
    interp.js.pages.program_files = interp.rec.touched.difference(&before).copied().collect();
    let mut climbed = 0;
    for &i in &sock {
        if interp.is_loaded(i) || climbed >= MAX_CLIENT_CLIMBS {
            continue;
        }
        let facts = loader.get(i).facts.clone();
        if !facts.static_sources().any(|s| s == "socket.io-client")
            && !facts.eager.iter().any(|s| s == "socket.io-client")
        {
            continue;
        }
        climbed += 1;
        for (root, _) in entries::import_roots(&loader, i, false) {
            if !interp.is_loaded(root) && !is_test_path(project.rel(root)) {
                interp.as_program(root, Share::Secondary, |interp| interp.run_module(root));
            }
        }
    }
    for i in sock {
        if !interp.is_loaded(i) {
            interp.as_program(i, Share::Secondary, |interp| interp.run_module(i));
        }
    }
    clock.enter(&mut interp, Phase::Uncalled);
    if !opts.skip_events {
        interp.mount_vue_components();
        interp.run_dispatched();
        interp.run_uncalled(24);
        // Again after start-up code, for the events handlers emit.
        interp.run_route_handlers(false);
    }
    if opts.skip_events {
        interp.rec.sites.clear();
        interp.rec.sio_servers.clear();
    } else {
        interp.replay_emitters();
        interp.mount_vue_components();
        interp.run_dispatched();
        interp.run_uncalled(12);
        interp.run_dispatched();
    }
    clock.enter(&mut interp, Phase::Settle);
    interp.settle_catch_alls();
    interp.settle_relays();
    timings.events_ms = ms(t4);
    timings.phases = clock.finish(&interp);

    let t3 = Instant::now();
    // The census: every file the analysis read, and the others that hold
    // registration-shaped calls.
    let census_files = census::files(&project, &loader, &interp.rec.touched, !opts.skip_events);
    loader.prefetch(census_files.iter().copied());
    let mut inv = build_inventory(
        &project,
        &loader,
        &interp,
        &entries,
        &reached,
        &http_files,
        opts,
        &census_files,
    );
    inv.bound_schemas();
    if opts.entries.is_empty() && !productive.is_empty() {
        // The program's entries stay listed when only outside ones produced
        // something (saltcorn's server builds its app in a factory that a
        // CLI command calls; its mock OAuth server is not the program).
        let program_made_nothing = productive.is_disjoint(&program_entries);
        let keep: BTreeSet<String> = productive
            .iter()
            .chain(program_entries.iter().filter(|_| program_made_nothing))
            .map(|&e| project.rel(e).to_string())
            .collect();
        inv.entries.retain(|e| keep.contains(e));
    }
    if opts.entries.is_empty() {
        // Found in the order they ran; listed in byte order.
        inv.entries.sort();
    }
    inv.entry_reasons = reasons
        .into_iter()
        .filter(|(id, _)| inv.entries.iter().any(|e| e == project.rel(*id)))
        .map(|(id, why)| (project.rel(id).to_string(), why))
        .collect();
    missing_entries.sort();
    missing_entries.dedup();
    for (manifest, rel, source) in missing_entries {
        // The line that names it (`"main": "lib/index.js"`).
        let name = rel.rsplit('/').next().unwrap_or(&rel).to_string();
        let line = crate::entry_advice::manifest_line(&opts.root, &manifest, &name);
        inv.findings.push(Finding {
            code: FindingCode::NoEntry,
            at: Location {
                file: manifest,
                line,
            },
            message: match source {
                Some(src) => format!(
                    "the entry `{rel}` it names is not in the project (build output not checked in?); the analysis started from its source `{}`; pass --entry FILE to choose",
                    project.rel(src)
                ),
                None => format!(
                    "the entry `{rel}` it names is not in the project (build output not checked in?); the analysis started from the other entries; pass --entry FILE to choose"
                ),
            },
            cause: None,
        });
    }
    inv.findings
        .extend(crate::generated::findings(&project.generated));
    inv.findings
        .extend(crate::entry_advice::unmodelled_framework(
            &project, &entries, &inv,
        ));
    inv.findings.extend(crate::entry_advice::missed_entry(
        &loader, &reached, &entries, &launched, &inv,
    ));
    inv.findings
        .sort_by(|a, b| (&a.at, a.code, &a.message).cmp(&(&b.at, b.code, &b.message)));
    timings.inventory_ms = ms(t3);
    if let Ok(parsed) = loader.parsed.lock() {
        timings.files_parsed = parsed.len();
        timings.parsed_files = parsed.iter().map(|&f| project.rel(f).to_string()).collect();
        timings.parsed_files.sort();
    }
    timings.files_cached = loader.from_cache.load(std::sync::atomic::Ordering::Relaxed);
    timings.files_ahead = loader.ahead.load(std::sync::atomic::Ordering::Relaxed);
    timings.parse_cpu_ms = syntax::PARSE_NS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6;
    timings.lower_cpu_ms = syntax::LOWER_NS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6;
    timings.census_cpu_ms =
        syntax::CENSUS_NS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6;
    timings.census_account_ms = inv.timings.census_account_ms;
    let result_key = match (result_key, loader.cache()) {
        (None, Some(_)) => Some(input_key(opts, &project, &loader)),
        (k, _) => k,
    };
    if let Some(c) = loader.cache() {
        c.save();
        if let Some(key) = &result_key
            && let Ok(bytes) = serde_json::to_vec(&inv)
        {
            c.write_result(key, &bytes);
        }
        timings.cache_notes = cache_notes(&project, c);
    }
    inv.timings = timings;
    inv.input_key = result_key;
    Ok(inv)
}

/// A file that may declare Express routers: one no entry loaded runs as a
/// module (phase `Unreached`).
fn declares_router(needles: u8) -> bool {
    needles & needle::ROUTER != 0 && needles & needle::EXPRESS != 0
}

/// A file that mentions sockets: one nobody loaded runs as a module when
/// events are analyzed (phase `SocketModules`).
fn mentions_sockets(needles: u8) -> bool {
    needles & needle::SOCKET != 0
}

/// How many client modules that make a socket have the programs above them
/// looked for (phase `SocketModules`).
const MAX_CLIENT_CLIMBS: usize = 16;

/// Whether a run reads a file whatever the evaluation loads: a non-test file
/// that declares routers or (with events) mentions sockets, or whose census
/// counts unread (see [`census::counts_unread`]). Such files are parsed
/// ahead from the start of a run.
fn read_by_every_run(rel: &str, needles: u8, events: bool) -> bool {
    !is_test_path(rel)
        && (declares_router(needles)
            || (events && mentions_sockets(needles))
            || census::counts_unread(rel, needles, events))
}

/// The entries package manifests name (see [`entries::package_hints`]).
#[derive(Default)]
struct ManifestEntries {
    /// Of the program.
    program: BTreeSet<FileId>,
    /// Of packages outside the program (run after the program's).
    fallback: BTreeSet<FileId>,
    /// Why each was chosen (for the summary).
    reasons: BTreeMap<FileId, String>,
    /// Named but not in the project: (manifest, path, the source started from instead).
    missing: Vec<(String, String, Option<FileId>)>,
    /// The folder of the package.json that names each (its scripts run there).
    started_in: BTreeMap<FileId, String>,
}

/// The root package's `main`/start script, and those of packages in
/// sub-folders that depend on Express, Socket.IO or Nest (a `server/` app
/// whose entry calls an app factory another file defines).
fn manifest_entries(opts: &AnalyzeOptions, project: &Project) -> ManifestEntries {
    let mut out = ManifestEntries::default();
    let servers = server_packages(project);
    for p in &project.packages {
        if !p.dir.is_empty() && !servers.contains(p.dir.as_str()) {
            continue;
        }
        let outside = project.outside_workspaces(&p.dir) || is_test_path(&format!("{}/", p.dir));
        let in_package = |f: &str| project::normalize(&format!("{}/{f}", p.dir));
        let manifest = in_package("package.json");
        // Launchers, nest-cli.json and workspace project files, read in the package's folder.
        let read = |f: &str| {
            let rel = in_package(f);
            let path = opts.root.join(&rel);
            (!rel.starts_with("..") && path.metadata().is_ok_and(|m| m.len() <= 256 << 10))
                .then(|| std::fs::read_to_string(path).ok())
                .flatten()
        };
        // A `main` naming no file, in a manifest whose scripts or bins name
        // an entry that is here: what `npm start` runs is known, and `main`
        // (only read by `require` of the package or `node .`) loses nothing.
        let mut stale_main = None;
        let mut started = false;
        for hint in entries::package_hints(&p.json, &read) {
            let rel = in_package(&hint.path);
            let checked_in = project.resolve_checked_in(&rel);
            let (found, why) = match checked_in {
                Some(id) => (Some(id), format!("{manifest} {}", hint.reason)),
                None => (
                    // Built output not checked in: start from its source.
                    project
                        .source_of_output(&rel, 0)
                        .or_else(|| {
                            // A bundle: the entry its bundler's configuration names.
                            entries::BUNDLER_CONFIGS
                                .iter()
                                .filter_map(|c| read(c))
                                .flat_map(|text| entries::bundler_entries(&text))
                                .find_map(|s| project.resolve_checked_in(&in_package(&s)))
                        })
                        .or_else(|| {
                            entries::source_of_built(&hint.path)
                                .into_iter()
                                .find_map(|s| project.resolve_path(&in_package(&s)))
                        }),
                    format!(
                        "{manifest} {} names build output; this is its source",
                        hint.reason
                    ),
                ),
            };
            if let Some(id) = found {
                if outside {
                    out.fallback.insert(id);
                } else {
                    out.program.insert(id);
                }
                out.reasons.entry(id).or_insert(why);
                out.started_in.entry(id).or_insert_with(|| p.dir.clone());
            }
            // `main: lib/index.js` of a package whose build output is
            // not checked in and whose source is not found either: say so
            // rather than start elsewhere silently. (Found, the entry's
            // reason says it is the source of that build output.)
            started |= found.is_some();
            if found.is_none()
                && checked_in.is_none()
                && hint.firm
                && !opts.root.join(&rel).exists()
            {
                if hint.reason == "main" {
                    stale_main = Some((manifest.clone(), rel, found));
                } else {
                    out.missing.push((manifest.clone(), rel, found));
                }
            }
        }
        if let Some(missing) = stale_main.filter(|_| !started) {
            out.missing.push(missing);
        }
    }
    out
}

/// What the cache layers found damaged and discarded, one line each.
fn cache_notes(project: &Project, cache: &Cache) -> Vec<String> {
    project
        .cache_note
        .iter()
        .cloned()
        .chain(cache.notes())
        .collect()
}

/// Why a file that creates an app is an entry: what its bytes say (an
/// `express()` call, `NestFactory.create`, `createExpressServer`), until its
/// run says what it made ([`made_reason`]).
const APP_REASON: &str = "creates an app (express(), NestFactory.create, createExpressServer)";

/// How many apps, routers and Socket.IO servers the run has made so far.
/// The most programs tried above one app-making file that made nothing as
/// it loaded (see the entries' loop in [`analyze_here`]).
const MAX_ROOT_TRIES: usize = 4;

fn made_so_far(interp: &Interp) -> (usize, usize) {
    (interp.rec.routers.len(), interp.rec.sio_servers.len())
}

/// What was made `since` ([`made_so_far`]): the first app, else the first
/// router, else the first Socket.IO server, with where.
fn made_text(interp: &Interp, project: &Project, since: (usize, usize)) -> String {
    let routers = &interp.rec.routers[since.0..];
    let at = |f: FileId, line: u32| format!("{}:{line}", project.rel(f));
    if let Some(r) = routers.iter().find(|r| r.is_app) {
        format!("makes an app (at {})", at(r.file, r.line))
    } else if let Some(r) = routers.first() {
        format!("makes an Express router (at {})", at(r.file, r.line))
    } else if let Some(s) = interp.rec.sio_servers[since.1..].first() {
        format!("makes a Socket.IO server (at {})", at(s.file, s.line))
    } else {
        "makes no app, router or Socket.IO server".to_string()
    }
}

/// Why a file picked for its app-making call is an entry, by what running it
/// made `since` ([`made_so_far`]): an app of its own ([`APP_REASON`]), an app
/// code of another file makes for it, or only a router or a Socket.IO server
/// (its `express()` sits in code its top level does not run: a helper, a
/// comment), or nothing.
fn made_reason(interp: &Interp, project: &Project, file: FileId, since: (usize, usize)) -> String {
    let routers = &interp.rec.routers[since.0..];
    let at = |f: FileId, line: u32| format!("{}:{line}", project.rel(f));
    if routers.iter().any(|r| r.is_app && r.file == file) {
        return APP_REASON.to_string();
    }
    if let Some(r) = routers.iter().find(|r| r.is_app) {
        return format!(
            "creates an app as it loads, by code at {}",
            at(r.file, r.line)
        );
    }
    let what = made_text(interp, project, since);
    format!(
        "{what} as it loads, and no other file loads it (its app-making call, express() or the like, is in code that did not run)"
    )
}

/// Whether the JSON files an earlier result read as data (its source files
/// that are not source) still hold the same bytes: the result's key covers
/// only the source files.
fn data_files_unchanged(project: &Project, inv: &Inventory) -> bool {
    inv.source_files
        .iter()
        .filter(|f| project.file_id(&f.file).is_none())
        .all(|f| {
            std::fs::read(project.root.join(&f.file))
                .is_ok_and(|b| blake3::hash(&b).to_hex().as_str() == f.hash)
        })
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Whether a package.json lists one of `names` among its dependencies.
fn depends_on(json: &serde_json::Value, names: &BTreeSet<&str>) -> bool {
    ["dependencies", "devDependencies"].iter().any(|k| {
        json.get(k)
            .and_then(|d| d.as_object())
            .is_some_and(|d| d.keys().any(|p| names.contains(p.as_str())))
    })
}

/// The folders of the packages whose manifests can start a server: those
/// that depend on a package that serves ([`crate::libs::SERVER_PACKAGES`]),
/// and those that depend on such
/// a package of the repository by its name (a bot program on the framework
/// package beside it, `testbot` → `botkit` → `express`), transitively.
pub(crate) fn server_packages(project: &Project) -> BTreeSet<&str> {
    let mut names: BTreeSet<&str> = crate::libs::SERVER_PACKAGES.iter().copied().collect();
    let mut dirs: BTreeSet<&str> = BTreeSet::new();
    loop {
        let before = dirs.len();
        for p in &project.packages {
            if !dirs.contains(p.dir.as_str()) && depends_on(&p.json, &names) {
                dirs.insert(&p.dir);
                if let Some(name) = p.json.get("name").and_then(|n| n.as_str()) {
                    names.insert(name);
                }
            }
        }
        if dirs.len() == before {
            return dirs;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inventory_is_keyed_on_the_analyzer_build() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("app.js"), "require('express')().get('/', h)\n").unwrap();
        let project = Arc::new(Project::discover(&root, &dir.path().join("s"), false).unwrap());
        let loader = Loader::new(project.clone(), None, None);
        let opts = AnalyzeOptions {
            root,
            ..AnalyzeOptions::default()
        };
        let key = |build: &str| input_key_of(build, &opts, &project, &loader);
        assert_eq!(input_key(&opts, &project, &loader), key(BUILD));
        assert_eq!(key("a"), key("a"), "the same build and tree: the same key");
        assert_ne!(
            key("a"),
            key("b"),
            "another build's inventory is not reused"
        );
        assert_eq!(BUILD.len(), 16, "{BUILD}");
    }
}
