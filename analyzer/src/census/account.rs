//! The census accounting: every census item matched against what the
//! evaluation charted, the rest accounted for with findings grouped per
//! file, cause and reason.

use super::imported::{imported_client, imported_own_function, imported_own_object};
use super::packages::{HTTP_CLIENTS, OTHER_FRAMEWORKS, routing_package};
use super::registering::{declared_function, function_registers, imported_export, local_of_export};
use super::sockets::{imports_socket_io, socket_site};
use super::{
    CallTarget, CensusItem, CensusKind, SocketShape, imports_client_framework, is_client_path,
};
use crate::inventory::{CensusEntry, Coverage, FindingCode, Inventory, Location};
use crate::ir::{FileFacts, Stmt};
use crate::loader::{Loader, needle};
use crate::machine::Interp;
use crate::machine::census_rec::Recv;
use crate::project::{FileId, Project};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// The files whose census counts: every non-test file the analysis read, and
/// the others whose bytes hold a registration-shaped call (client-side
/// files only when they mention sockets, for their event sites). A build
/// tool's configuration counts in neither case (its `devServer.app.get`
/// serves the tool's development server).
pub(crate) fn files(
    project: &Project,
    loader: &Arc<Loader>,
    touched: &BTreeSet<FileId>,
    events: bool,
) -> Vec<FileId> {
    (0..project.files.len() as FileId)
        .filter(|&i| {
            let rel = project.rel(i);
            if crate::is_test_path(rel) || crate::project::is_tool_config(rel) {
                return false;
            }
            touched.contains(&i)
                || counts_unread(rel, loader.needles_of(i), events)
                || crate::libs::file_router_path(project, i)
        })
        .collect()
}

/// Whether a non-test file's census counts although the analysis did not
/// read it (see [`files`]): its bytes hold a registration-shaped call, it is
/// no build tool's configuration (`project::is_tool_config`), and it is server code, or client code that mentions sockets when events are
/// analyzed.
pub(crate) fn counts_unread(rel: &str, needles: u8, events: bool) -> bool {
    needles & needle::CENSUS != 0
        && !crate::project::is_tool_config(rel)
        && (!is_client_path(rel) || (events && needles & needle::SOCKET != 0))
}

/// What the accounting needs of the run.
pub(crate) struct RunView<'a> {
    pub(crate) project: &'a Project,
    pub(crate) loader: &'a Arc<Loader>,
    pub(crate) interp: &'a Interp,
    /// Files the entries reached in the routing phase.
    pub(crate) reached: &'a BTreeSet<FileId>,
    /// Routers the mount walk reached from a root app.
    pub(crate) walked: &'a HashSet<u32>,
    /// Routes on walked routers that the route handing requests to them
    /// never lets through, with why (`mounts::WalkOut::unanswered`).
    pub(crate) unanswered: &'a BTreeMap<crate::mounts::Unanswered, String>,
    /// Files a reached file imports (loaded lazily, so possibly never read).
    pub(crate) imported: HashSet<FileId>,
    /// Whether events were analyzed.
    pub(crate) events: bool,
    /// The LoopBack 4 components of the packages asked about.
    pub(crate) lb4_components: crate::libs::loopback4_components::Components,
    /// The folders of the packages that can serve through what Portolan
    /// models (see `pipeline::server_packages`).
    pub(crate) server_packages: BTreeSet<&'a str>,
}

/// The files that the files in `reached` import (statically, at the top level or in a function).
pub(crate) fn imported_by(
    project: &Project,
    loader: &Arc<Loader>,
    reached: &BTreeSet<FileId>,
) -> HashSet<FileId> {
    let mut out = HashSet::new();
    for &f in reached {
        let facts = loader.get(f).facts.clone();
        let specs = facts
            .static_sources()
            .chain(facts.eager.iter().map(String::as_str))
            .chain(
                facts
                    .fn_imports
                    .iter()
                    .flat_map(|(_, v)| v.iter().map(String::as_str)),
            );
        for spec in specs {
            if let crate::project::Resolved::File(t) = project.resolve(f, spec) {
                out.insert(t);
            }
        }
    }
    out
}

/// A finding's group of items: (file, events?, cause, reason).
type GroupKey = (String, bool, &'static str, String);

/// Why an item is not charted, and where that is decided.
pub(super) struct Why {
    pub(super) cause: &'static str,
    /// The place that blocks it, in words (`the enclosing function `setup` (a.js:3)`).
    pub(super) reason: String,
}

/// Match every census item against what the inventory charted; account for
/// the rest with findings (grouped per file, cause and reason) and set the
/// coverage. Items an existing finding at their own line explains (a
/// dynamic path, method, mount, call or event name, or a package that adds routes the analysis cannot chart), and the routes an
/// `unmounted-router` finding lists, are accounted for by that finding.
pub(crate) fn account(run: &RunView, files: &[FileId], inv: &mut Inventory) {
    let project = run.project;
    let rec = &run.interp.rec.census;
    let loc = |f: FileId, l: u32| Location {
        file: project.rel(f).to_string(),
        line: l,
    };
    // What is charted, by (file, line).
    let mut http: HashSet<(FileId, u32)> = HashSet::new();
    for &r in run.walked {
        for reg in &run.interp.rec.routers[r as usize].regs {
            http.insert((reg.file, reg.line));
            // A route a decorator declared (see `machine/decorators.rs`).
            if let Some(at) = reg.declared {
                http.insert(at);
            }
        }
    }
    // Calls of the program's own functions that registered (on any router),
    // by the name of the function called.
    let through: HashSet<((FileId, u32), &str)> = rec
        .registered_through
        .iter()
        .map(|(at, callee, _)| (*at, &**callee))
        .collect();
    // Those that registered on a walked router (`this.get('/x', h)` calling
    // a base class's helper) are charted.
    let through_walked: HashSet<((FileId, u32), &str)> = rec
        .registered_through
        .iter()
        .filter(|(_, _, r)| run.walked.contains(r))
        .map(|(at, callee, _)| (*at, &**callee))
        .collect();
    // A call of the function named `method` at `at` that registered, on any
    // router or on a walked one (an anonymous function: any call there).
    let called = |set: &HashSet<((FileId, u32), &str)>, at: (FileId, u32), method: &str| {
        set.contains(&(at, method)) || set.contains(&(at, "<anonymous>"))
    };
    // Files a walked router holds a registration from: server code, whatever
    // their folder is called (FoalTS's `controllers/static/pages.controller.ts`).
    let serving: HashSet<FileId> = http
        .iter()
        .map(|(f, _)| *f)
        .chain(through_walked.iter().map(|((f, _), _)| *f))
        .collect();
    let mut sites: HashSet<(String, u32)> = HashSet::new();
    for e in &inv.events {
        for s in &e.sites {
            sites.insert((s.at.file.clone(), s.at.line));
        }
    }
    let at_line: HashMap<(String, u32), Vec<(FindingCode, String)>> = {
        let mut m: HashMap<(String, u32), Vec<(FindingCode, String)>> = HashMap::new();
        for f in &inv.findings {
            m.entry((f.at.file.clone(), f.at.line))
                .or_default()
                .push((f.code, f.message.clone()));
        }
        m
    };
    // Spent step budgets, by where they ran out (see `budget_for`).
    let budgets: HashMap<(&str, u32), &str> = inv
        .findings
        .iter()
        .filter(|f| {
            f.code == FindingCode::AnalysisBudget && f.message.contains("budget ran out entering")
        })
        .map(|f| ((f.at.file.as_str(), f.at.line), f.message.as_str()))
        .collect();
    // The spent budget that may have kept code of a file from running: its
    // own program's, or an entry's (`Interp::spent_budget_for`).
    let budget_for = |file: FileId| {
        let (f, l) = run.interp.spent_budget_for(file)?;
        let at = loc(f, l);
        let msg = budgets.get(&(at.file.as_str(), at.line))?.to_string();
        Some((at, msg))
    };
    // Recursion or call-depth limits, at the function that hit them.
    let depth: Vec<(Location, String)> = inv
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::AnalysisBudget && f.message.contains("nest deeper"))
        .map(|f| (f.at.clone(), f.message.clone()))
        .collect();
    let computed_imports: Vec<Computed> = inv
        .findings
        .iter()
        .filter(|f| {
            matches!(
                f.code,
                FindingCode::DynamicImport | FindingCode::DynamicLoop
            )
        })
        .map(|f| Computed {
            at: f.at.clone(),
            is_loop: f.code == FindingCode::DynamicLoop,
        })
        .collect();
    let unmounted: Vec<&crate::Finding> = inv
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::UnmountedRouter)
        .collect();

    // The `param` calls that ran on a router the mount walk reached: the same
    // code may build several routers (a salvaged run of the function that
    // makes it, then the one an app mounts), so the call site's first
    // receiver is not the one to judge by.
    let walked_params: HashSet<(FileId, u32)> = run
        .walked
        .iter()
        .flat_map(|&id| {
            run.interp.rec.routers[id as usize]
                .param_sites
                .iter()
                .copied()
        })
        .collect();
    // Calls of the program's functions being followed when an event site was made.
    let sited_under: HashSet<(FileId, u32)> = rec
        .sited_in
        .values()
        .flat_map(|calls| calls.iter().map(|(at, _)| *at))
        .collect();
    let rec_pages = &run.interp.js.pages;
    let mut entries: Vec<CensusEntry> = Vec::new();
    // (file, cause, reason) → items (line, description)
    let mut groups: BTreeMap<GroupKey, Vec<(u32, String)>> = BTreeMap::new();
    // (index in `entries`, its group)
    let mut grouped: Vec<(usize, GroupKey)> = Vec::new();
    let mut coverage = Coverage::default();
    // Per (file, events?): the functions enclosing a real registration
    // (charted, or lost for a cause other than not being on an app, router
    // or socket), by name and by id. Registering calls are judged against
    // them in the second pass: a call of a function whose only census
    // items turned out not to be registrations (`pm2.delete(...)`) is none.
    let mut real: HashMap<(FileId, bool), HashSet<String>> = HashMap::new();
    for pass in [false, true] {
        for &file in files {
            let loaded = run.loader.get(file);
            let facts = &loaded.facts;
            if facts.census.is_empty() {
                continue;
            }
            let rel = project.rel(file).to_string();
            let client = (is_client_path(&rel)
                || imports_client_framework(facts)
                || rec_pages.program_files.contains(&file))
                && !serving.contains(&file);
            let mut sio_package = None;
            // (Only HTTP items ask: a browser app's socket sites are its
            // client's, counted by the socket rules. A file an entry
            // reached is the program's, whatever its package depends on: a
            // studio package's server module run by its host.)
            let mut client_package = run.reached.contains(&file).then_some(false);
            let socket_file = run.loader.needles_of(file) & needle::SOCKET != 0
                && (imports_socket_io(facts)
                    || rec.event_sources.iter().any(|(f, _)| *f == file)
                    || rec.sites.iter().any(|((f, _), s)| {
                        *f == file
                            && (s.main == Some(Recv::Socket) || s.later == Some(Recv::Socket))
                    }));
            for item in &facts.census {
                if (item.kind == CensusKind::Call) != pass {
                    continue;
                }
                // A request handler exported as the default counts where a
                // file-based router serves it by its path.
                if item.kind == CensusKind::FileRoute
                    && item.method == "default"
                    && crate::libs::file_router(project, file).is_none()
                {
                    continue;
                }
                // A registering call counts as what its callee registers: HTTP
                // first, else events; not at all when it registers nothing real.
                let registers = |f: FileId, name: Option<&str>| {
                    let has = |ev: bool| {
                        real.get(&(f, ev)).is_some_and(|names| match name {
                            Some(n) => names.contains(n),
                            None => !names.is_empty(),
                        })
                    };
                    (has(false), has(true))
                };
                let call = match &item.target {
                    Some(CallTarget::Local) => Some(registers(file, Some(&item.method))),
                    // A function the module declares registers what is
                    // counted inside it (not a helper beside the module's
                    // registering function, nor one whose only
                    // registration-shaped calls are a request's `res.on('data')`);
                    // a wrapper, `(app) => addRoutes(app)`, what the
                    // functions it calls do); another export, what the module
                    // counts at all.
                    Some(CallTarget::Import(spec)) => Some(match run.project.resolve(file, spec) {
                        crate::project::Resolved::File(t) => {
                            match imported_export(facts, &item.method) {
                                Some(x) => {
                                    let facts = &run.loader.get(t).facts;
                                    let local = local_of_export(facts, &x);
                                    if declared_function(facts, &local) {
                                        let reg =
                                            |ev| function_registers(run, &real, t, &local, ev, 0);
                                        (reg(false), reg(true))
                                    } else {
                                        registers(t, None)
                                    }
                                }
                                None => registers(t, None),
                            }
                        }
                        _ => (false, false),
                    }),
                    // It registered when the evaluation saw a registration
                    // made while it ran; else by the base class's method.
                    Some(CallTarget::Inherited(_))
                        if called(&through, (file, item.line), &item.method) =>
                    {
                        Some((true, false))
                    }
                    Some(CallTarget::Inherited(spec)) => {
                        Some(match run.project.resolve(file, spec) {
                            crate::project::Resolved::File(t) => registers(t, Some(&item.method)),
                            _ => (false, false),
                        })
                    }
                    None => None,
                };
                if call == Some((false, false)) {
                    continue;
                }
                let event = item.kind == CensusKind::Event || call.is_some_and(|(h, _)| !h);
                let key = (file, item.line);
                let counted = if !event {
                    // (A module a file-based router serves is server code
                    // wherever it sits: `server/api/client/index.get.ts`.)
                    !(client
                        || *client_package
                            .get_or_insert_with(|| super::in_client_package(project, &rel)))
                        || item.kind == CensusKind::FileRoute
                } else if !run.events {
                    false
                } else if item.kind == CensusKind::Event {
                    socket_site(run, file, item, socket_file, client, &mut sio_package)
                } else {
                    socket_file
                };
                if !counted {
                    continue;
                }
                // A call of a helper that ran an event call on a receiver
                // only known at run time, and made no event site itself,
                // where another call of the same function charted that
                // event call.
                let lost_receiver = || {
                    if !event || sited_under.contains(&key) {
                        return None;
                    }
                    let under = rec.unknown_under.get(&key)?;
                    under.lines.iter().copied().find(|l| {
                        rec.sited_in.get(l).is_some_and(|calls| {
                            calls.iter().any(|(at, c)| *at != key && *c == under.callee)
                        })
                    })
                };
                let charted = if item.kind == CensusKind::Call {
                    // It ran: every function around it was entered (in the routing
                    // phase, or for events at all), in a file the analysis ran.
                    run.interp.rec.touched.contains(&file)
                        && item.enclosing.iter().all(|(id, _, _)| {
                            rec.entered.contains(&(file, *id))
                                || event && run.interp.deferred.called.contains(&(file, *id))
                        })
                        && lost_receiver().is_none()
                } else if event {
                    sites.contains(&(rel.clone(), item.line)) || rec.event_sources.contains(&key)
                } else if item.kind == CensusKind::Param {
                    walked_params.contains(&key)
                } else {
                    (http.contains(&key) || called(&through_walked, key, &item.method))
                        && (run.unanswered.is_empty()
                            || !run.unanswered.contains_key(&(
                                file,
                                item.line,
                                crate::mounts::method_name(&item.method),
                            )))
                };
                let kind = match item.kind {
                    CensusKind::Route => "route",
                    CensusKind::Use => "use",
                    CensusKind::Param => "param",
                    CensusKind::Event => "event",
                    CensusKind::Call => "call",
                    CensusKind::FileRoute => "file-route",
                };
                let mut entry = CensusEntry {
                    at: loc(file, item.line),
                    kind: kind.into(),
                    what: item.describe(),
                    charted,
                    cause: None,
                    finding: None,
                };
                if charted {
                    if event {
                        coverage.socket_total += 1;
                        coverage.socket_charted += 1;
                    } else {
                        coverage.http_total += 1;
                        coverage.http_charted += 1;
                    }
                    if !pass {
                        let names = real.entry((file, event)).or_default();
                        names.extend(item.enclosing.iter().map(|(_, n, _)| n.clone()));
                    }
                    entries.push(entry);
                    continue;
                }
                // An existing finding at the item's own line, or an unmounted-router
                // finding that lists it.
                // (A route decorator's class decorator counts as its own line:
                // a controller path only known at run time.)
                let own = std::iter::once(item.line)
                    .chain(item.controller)
                    .find_map(|l| {
                        let v = at_line.get(&(rel.clone(), l))?;
                        v.iter().map(|(c, _)| (*c, l)).find(|(c, _)| {
                            matches!(
                                c,
                                FindingCode::DynamicPath
                                    | FindingCode::DynamicMethod
                                    | FindingCode::DynamicMount
                                    | FindingCode::DynamicCall
                                    | FindingCode::DynamicEvent
                                    | FindingCode::DynamicImport
                                    | FindingCode::PackageRouter
                            )
                        })
                    });
                let in_loop = rec
                    .sites
                    .get(&key)
                    .and_then(|s| s.dyn_loop)
                    .map(|(f, l)| loc(f, l))
                    .filter(|l| {
                        at_line
                            .get(&(l.file.clone(), l.line))
                            .is_some_and(|v| v.iter().any(|(c, _)| *c == FindingCode::DynamicLoop))
                    });
                let listed = unmounted.iter().find(|f| {
                    f.message.contains(&format!("({rel}:{})", item.line))
                        || item
                            .controller
                            .is_some_and(|l| f.at.file == rel && f.at.line == l)
                        // A `param` handler of the file's unmounted router
                        // (the finding lists routes, not `param`s): it
                        // answers requests only once the router is mounted.
                        || (!event && item.method == "param" && f.at.file == rel)
                });
                // A receiver an installed package gives (`_.get(app, key)`
                // with lodash) makes no registration, whatever finding
                // stands at its line or its loop.
                let foreign = if event {
                    None
                } else {
                    package_receiver(run, file, item)
                };
                let (cause, finding_at) = if let (None, Some((code, line))) = (&foreign, own) {
                    (code.as_str(), Some(loc(file, line)))
                } else if let (None, Some(l)) = (&foreign, in_loop) {
                    ("dynamic-loop", Some(l))
                } else if let (None, Some(f)) = (&foreign, listed) {
                    ("unmounted-router", Some(f.at.clone()))
                } else {
                    let lost = (item.kind == CensusKind::Call)
                        .then(lost_receiver)
                        .flatten()
                        .map(|(f, l)| Why {
                            cause: "unknown-receiver",
                            reason: format!(
                                "the call runs the Socket.IO call at {}:{l}, charted for another caller, with a receiver only known at run time",
                                project.rel(f)
                            ),
                        });
                    let why = foreign.or(lost).unwrap_or_else(|| {
                        explain(
                            run,
                            file,
                            item,
                            event,
                            budget_for(file).as_ref(),
                            &depth,
                            &computed_imports,
                        )
                    });
                    let key = (rel.clone(), event, why.cause, why.reason);
                    groups
                        .entry(key.clone())
                        .or_default()
                        .push((item.line, item.describe()));
                    grouped.push((entries.len(), key));
                    (why.cause, None)
                };
                entry.cause = Some(cause.to_string());
                entry.finding = finding_at;
                let info = matches!(cause, "not-a-router" | "not-a-socket");
                if !info {
                    if event {
                        coverage.socket_total += 1;
                    } else {
                        coverage.http_total += 1;
                    }
                }
                if !pass && !info {
                    let names = real.entry((file, event)).or_default();
                    names.extend(item.enclosing.iter().map(|(_, n, _)| n.clone()));
                }
                *coverage.causes.entry(cause.to_string()).or_default() += 1;
                entries.push(entry);
            }
        }
    }
    // Routes the evaluation registered on a walked router that Express
    // answers past (see `mounts::settle_passed_on`), at a call the census's
    // syntax rule did not take for a registration (`app.delete(path,
    // adminOnly())` in a helper: a path in a name and a call for a handler,
    // the shape of an HTTP client's `get(url, options)`): accounted for all
    // the same, as the evaluation knows them to be routes.
    let listed: HashSet<(String, u32)> = entries
        .iter()
        .filter(|e| e.kind != "event")
        .map(|e| (e.at.file.clone(), e.at.line))
        .collect();
    let mut seen: HashSet<(FileId, u32)> = HashSet::new();
    for (&(file, line, _), why) in run.unanswered {
        let rel = project.rel(file).to_string();
        if files.binary_search(&file).is_err()
            || listed.contains(&(rel.clone(), line))
            || !seen.insert((file, line))
        {
            continue;
        }
        let what = unlisted_routes(run, (file, line));
        let key: GroupKey = (rel, false, "skipped", why.clone());
        groups
            .entry(key.clone())
            .or_default()
            .push((line, what.clone()));
        grouped.push((entries.len(), key));
        coverage.http_total += 1;
        *coverage.causes.entry("skipped".to_string()).or_default() += 1;
        entries.push(CensusEntry {
            at: loc(file, line),
            kind: "route".into(),
            what,
            charted: false,
            cause: Some("skipped".into()),
            finding: None,
        });
    }
    // One finding per (file, kind, cause, reason), at its first item.
    let mut placed: HashMap<GroupKey, Location> = HashMap::new();
    for ((rel, event, cause, reason), items) in groups {
        let first = items.iter().map(|(l, _)| *l).min().unwrap_or(1);
        let at = Location {
            file: rel.clone(),
            line: first,
        };
        let n = items.len();
        let what = if event {
            "Socket.IO site"
        } else {
            "registration"
        };
        let listed: Vec<String> = items
            .iter()
            .map(|(l, d)| format!("{d} (line {l})"))
            .collect();
        inv.findings.push(crate::Finding {
            code: if event {
                FindingCode::UnchartedEvent
            } else {
                FindingCode::UnchartedRoute
            },
            at: at.clone(),
            message: format!(
                "{n} {what}{} not charted: {}: {reason}",
                if n == 1 { " is" } else { "s are" },
                listed.join(", ")
            ),
            cause: Some(cause.to_string()),
        });
        placed.insert((rel, event, cause, reason), at);
    }
    // Point the entries at their findings.
    for (i, key) in grouped {
        entries[i].finding = placed.get(&key).cloned();
    }
    // A project whose routes are all file-routed handlers, or calls in
    // packages built on another framework, has no entry to pass: say what
    // its routes are rather than ask for one.
    let file_routes = entries.iter().filter(|e| e.kind == "file-route").count();
    let http_uncharted = || entries.iter().filter(|e| !e.charted && e.kind != "event");
    let unmodelled = http_uncharted()
        .filter(|e| e.cause.as_deref() == Some("unmodelled-framework"))
        .count();
    let message = if file_routes > 0 {
        Some(format!(
            "the project's {file_routes} route handlers are exported for a file-based router (the `unmodelled-framework` findings), which Portolan does not model, so no --entry would chart them"
        ))
    } else if unmodelled > 0
        && !http_uncharted().any(|e| {
            matches!(
                e.cause.as_deref(),
                Some("unreached-file" | "uncalled-function" | "dynamic-import")
            )
        })
    {
        Some(format!(
            "the project's {unmodelled} registration-shaped calls are in packages built on a server framework Portolan does not model (the `unmodelled-framework` findings), so no --entry would chart them"
        ))
    } else {
        None
    };
    if let Some(message) = message.filter(|_| coverage.http_charted == 0) {
        for f in inv
            .findings
            .iter_mut()
            .filter(|f| f.code == FindingCode::NoEntry && f.at.line == 0)
        {
            f.message = format!(
                "no entry found: no package.json main/start script and no file calls express(); {message}"
            );
        }
    }
    inv.findings
        .sort_by(|a, b| (&a.at, a.code, &a.message).cmp(&(&b.at, b.code, &b.message)));
    entries.sort();
    inv.census = entries;
    inv.coverage = coverage;
}

/// The routes walked routers hold at a call site, for a finding's list:
/// `the route DELETE /settings`.
fn unlisted_routes(run: &RunView, at: (FileId, u32)) -> String {
    let mut routes: BTreeSet<String> = BTreeSet::new();
    for &r in run.walked {
        for reg in &run.interp.rec.routers[r as usize].regs {
            if (reg.file, reg.line) != at {
                continue;
            }
            if let crate::machine::RegKind::Route { method, paths, .. } = &reg.kind {
                for p in paths {
                    let (crate::machine::PathArg::Str(p) | crate::machine::PathArg::Regex(p)) = p;
                    routes.insert(format!("{} {p}", method.to_uppercase()));
                }
            }
        }
    }
    let routes: Vec<String> = routes.into_iter().collect();
    format!("the route `{}`", routes.join("`, `"))
}

/// Why an HTTP item is not a registration when its receiver's root name is
/// an installed package's value (or what one makes) that is not a routing
/// package's, and the evaluation did not see an app or router there.
fn package_receiver(run: &RunView, file: FileId, item: &CensusItem) -> Option<Why> {
    let seen = run.interp.rec.census.sites.get(&(file, item.line));
    if !matches!(
        item.kind,
        CensusKind::Route | CensusKind::Use | CensusKind::Param
    ) || item.controller.is_some()
        || matches!(
            seen.and_then(|s| s.main),
            Some(Recv::Router(_) | Recv::Socket)
        )
    {
        return None;
    }
    let p = item
        .receiver_package
        .as_deref()
        .filter(|p| !routing_package(p))?;
    let receiver = &item.receiver;
    Some(Why {
        cause: "not-a-router",
        reason: if OTHER_FRAMEWORKS.contains(&p) {
            format!("`{receiver}` belongs to `{p}`, an HTTP framework other than Express")
        } else {
            format!("`{receiver}` comes from the package `{p}`, not Express")
        },
    })
}

/// A LoopBack 4 controller of a package with components, none of which an
/// application registers: served only once one does (see
/// `libs::loopback4_components`).
fn unregistered_component(run: &RunView, file: FileId, item: &CensusItem) -> Option<Why> {
    let facts = run.loader.get(file).facts.clone();
    let class = item.controller.and_then(|l| {
        facts.body.iter().find_map(|st| match st {
            Stmt::ExportDecl(inner, _) => match inner.as_ref() {
                Stmt::Class(n, c) if c.line == l => Some(n.clone()),
                _ => None,
            },
            Stmt::Class(n, c) if c.line == l => Some(n.clone()),
            _ => None,
        })
    });
    let (found, pkg) = run
        .lb4_components
        .of(run.project, run.loader, file, class.as_deref());
    let first = found.first()?;
    let at = |c: &crate::libs::loopback4_components::Component| {
        format!("{}:{}", run.project.rel(c.file), c.line)
    };
    if let Some(c) = found
        .iter()
        .find(|c| run.interp.libs.loopback4.registers(c.file, c.line))
    {
        return Some(Why {
            cause: "unmounted-router",
            reason: format!(
                "an application registers `{}` ({}), the component of `{pkg}` that would serve this controller, but the analysis found none of its booters selecting this file (by folder and file name ending) and no `controllers` list of it naming the class",
                c.name,
                at(c)
            ),
        });
    }
    Some(Why {
        cause: "unregistered-component",
        reason: format!(
            "LoopBack serves this controller only when an application registers a component of `{pkg}`, here `{}` ({}), with `app.component({})`; no application the analysis runs registers it",
            first.name,
            at(first),
            first.name
        ),
    })
}

/// The precise cause of an uncharted item (see the module doc).
fn explain(
    run: &RunView,
    file: FileId,
    item: &CensusItem,
    event: bool,
    budget: Option<&(Location, String)>,
    depth: &[(Location, String)],
    computed_imports: &[Computed],
) -> Why {
    let project = run.project;
    let rec = &run.interp.rec.census;
    let here = |f: FileId, l: u32| format!("{}:{l}", project.rel(f));
    let seen = rec.sites.get(&(file, item.line));
    let call = item.describe();
    let not_a = if event {
        "not-a-socket"
    } else {
        "not-a-router"
    };
    let receiver = &item.receiver;
    if let Some(why) =
        run.unanswered
            .get(&(file, item.line, crate::mounts::method_name(&item.method)))
    {
        return Why {
            cause: "skipped",
            reason: why.clone(),
        };
    }
    if item.kind == CensusKind::FileRoute
        && item.method == "default"
        && let Some(reason) = crate::libs::file_router(project, file)
    {
        return Why {
            cause: "unmodelled-framework",
            reason,
        };
    }
    if item.kind == CensusKind::FileRoute {
        match crate::libs::medusa::served(project, file) {
            Some(false) => {
                return Why {
                    cause: not_a,
                    reason: "Medusa's route loader serves only the files named `route` below `src/api` (none under a folder starting with `_`): this module's exports are not routes".into(),
                };
            }
            Some(true) => {
                return Why {
                    cause: "unmodelled-framework",
                    reason: "Medusa's route loader serves this export when its value is a function at run time; the analysis could not read it as one, so its route is not charted".into(),
                };
            }
            None => {}
        }
        return Why {
            cause: "unmodelled-framework",
            reason: "the module exports handlers named after HTTP methods for a file-based router Portolan does not model (Next.js's `route.ts`, SvelteKit's `+server.ts`; Medusa's only in a package that depends on `@medusajs/medusa` or `@medusajs/framework`); the routes its folder names are not charted".into(),
        };
    }
    if let (Some(l), Some(p)) = (item.controller, &item.framework)
        && !crate::libs::is_modelled(p)
    {
        return Why {
            cause: "unmodelled-framework",
            reason: if item.bare_class {
                format!(
                    "the class at {} declares its routes with the decorators of `{p}`, a framework Portolan does not model; its routes are not charted",
                    here(file, l)
                )
            } else {
                format!(
                    "the controller class at {} is declared with `{p}`, a framework Portolan does not model; its routes are not charted",
                    here(file, l)
                )
            },
        };
    }
    if seen.and_then(|s| s.main).is_none()
        && let Some(p) = item
            .receiver_package
            .as_deref()
            .filter(|p| !routing_package(p))
    {
        return Why {
            cause: not_a,
            reason: if OTHER_FRAMEWORKS.contains(&p) {
                format!("`{receiver}` belongs to `{p}`, an HTTP framework other than Express")
            } else {
                format!(
                    "`{receiver}` comes from the package `{p}`, not {}",
                    if event { "Socket.IO" } else { "Express" }
                )
            },
        };
    }
    if !event
        && seen.and_then(|s| s.main).is_none()
        && let Some(client) = receiver
            .split(['.', '(', '[', '?'])
            .find(|seg| HTTP_CLIENTS.contains(seg))
    {
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}` is an HTTP client (`{client}` sends requests; it does not serve them)"
            ),
        };
    }
    // Passport's `use(name?, strategy)` registers an authentication
    // strategy (`passport.use(new LocalStrategy(…))`); it mounts nothing.
    if !event
        && seen.and_then(|s| s.main).is_none()
        && item.method == "use"
        && receiver
            .split(['.', '(', '[', '?'])
            .any(|seg| seg == "passport")
    {
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}.use` registers a Passport authentication strategy; it mounts no middleware"
            ),
        };
    }
    // `md.use(abbr)` with `const abbr = require('markdown-it-abbr')`: an
    // Express middleware package gives its middleware by a call (`cors()`,
    // `helmet()`); the package's value itself handed to `use` is another
    // library's plugin.
    if !event
        && !matches!(
            seen.and_then(|s| s.main),
            Some(Recv::Router(_) | Recv::Socket)
        )
        && let Some((name, spec)) = &item.plugin
        && matches!(
            run.project.resolve(file, spec),
            crate::project::Resolved::External(_) | crate::project::Resolved::Known(_)
        )
    {
        let p = super::packages::package_of(spec);
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}.use` is handed `{name}`, the value of the package `{p}` itself, not called: an Express middleware package gives its middleware by a call (`cors()`), so this adds a plugin of another library"
            ),
        };
    }
    if !event
        && seen.and_then(|s| s.main).is_none()
        && let Some((from, client)) = imported_client(run, file, receiver)
    {
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}` is the `{client}` client that {from} exports (it sends requests; it does not serve them)"
            ),
        };
    }
    // A file no entry reaches (unrun, or run only by a later pass such as
    // the client modules that mention sockets), so no evaluation of the
    // server said what the receiver is: its binding in the file may still
    // say it is the program's own object.
    if (!run.reached.contains(&file) || !run.interp.rec.touched.contains(&file))
        && !receiver.contains(['.', '(', '['])
        && let Some(line) =
            super::packages::own_object_method(&run.loader.get(file).facts, receiver, &item.method)
    {
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}` is an object the file writes, whose `{}` is its own function ({})",
                item.method,
                here(file, line)
            ),
        };
    }
    // An HTTP item whose receiver no evaluation saw, or saw only as a value
    // known at run time: the program's own objects below may account for
    // it (their bindings say what the receiver is).
    let unseen_http = !event
        && item.kind != CensusKind::Call
        && matches!(
            seen.and_then(|s| s.main),
            None | Some(Recv::Dynamic | Recv::Param)
        );
    // (`authCache.get(name, remote.fetch, user)`, where `authCache` is a
    // module of the program whose exports define `get` themselves.)
    if unseen_http && let Some(from) = imported_own_function(run, file, receiver, &item.method) {
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}.{}` is the function {from} exports under that name, not an Express app's or router's method",
                item.method
            ),
        };
    }
    // (`Sessions.delete(env, id, cb)` with `const Sessions = module.exports`
    // and `Sessions.delete = (…) => {…}` in the same file.)
    if unseen_http
        && let Some(line) =
            super::packages::own_export_method(&run.loader.get(file).facts, receiver, &item.method)
    {
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}` is this module's exports object, whose `{}` is its own function ({})",
                item.method,
                here(file, line)
            ),
        };
    }
    // (`api.post(path, data)` with `import { api } from './client'`, whose
    // `api` is an object literal with its own `post`.)
    if unseen_http && let Some(at) = imported_own_object(run, file, receiver, &item.method) {
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}` is the object {at} exports, whose `{}` is its own function, not an Express app's or router's method",
                item.method
            ),
        };
    }
    // (`this.cache.get(ctx, key, make)` with `constructor(private cache:
    // CacheService)`: the receiver's declaration says what it is, when the
    // evaluation did not see an app or router there.)
    if !event
        && item.kind != CensusKind::Call
        && !matches!(
            seen.and_then(|s| s.main.or(s.later)),
            Some(Recv::Router(_) | Recv::Socket)
        )
        && let Some(reason) = super::declared::declared_not_express(run, file, item)
    {
        return Why {
            cause: not_a,
            reason,
        };
    }
    if !event
        && item.controller.is_some()
        && item
            .framework
            .as_deref()
            .is_some_and(crate::libs::loopback4_components::is_lb4_framework)
        && let Some(why) = unregistered_component(run, file, item)
    {
        return why;
    }
    if !event && !run.reached.contains(&file) && !run.imported.contains(&file) {
        if let Some(why) = super::loads::blocked_load(run, file) {
            return why;
        }
        let rel = project.rel(file);
        // A package built on another server framework (Hono, Koa, Fastify):
        // its `app.get(…)` calls are that framework's, and no entry would
        // chart them.
        if let Some((name, shown, manifest)) =
            crate::entry_advice::unmodelled_package_framework(project, &run.server_packages, rel)
        {
            return Why {
                cause: "unmodelled-framework",
                reason: format!(
                    "no entry reaches this file, and its package ({manifest}) is built on `{name}` ({shown}), which Portolan does not model, not on Express"
                ),
            };
        }
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        // (A browser script's computed import, `public/javascripts/x.js`,
        // loads no server module: it explains only unreached client files.)
        let client = super::is_client_path(rel);
        let computed_imports: Vec<Computed> = computed_imports
            .iter()
            .filter(|c| client || !super::is_client_path(&c.at.file))
            .cloned()
            .collect();
        let computed_imports = computed_imports.as_slice();
        let near = computed_imports.iter().find(|c| {
            let d = c.at.file.rsplit_once('/').map_or("", |(d, _)| d);
            d.is_empty() || dir == d || dir.starts_with(&format!("{d}/"))
        });
        return match near {
            Some(c) => Why {
                cause: "dynamic-import",
                reason: format!(
                    "no entry reaches this file; it may be the module {} at {}:{} loads",
                    if c.is_loop {
                        "the loop over values only known at run time"
                    } else {
                        "the computed import"
                    },
                    c.at.file,
                    c.at.line
                ),
            },
            // A file that creates an app itself (`express()`, then its
            // routes) is a program of its own, not a module a host loads:
            // the advice to pass it as an entry stands.
            None => match computed_elsewhere(computed_imports, dir)
                .filter(|_| run.loader.needles_of(file) & crate::loader::needle::APP == 0)
            {
                // An extension host in another package of the workspace
                // (`require(path.join(ext.directory, ext.main))` over
                // manifests it found at run time): `--entry` would not call
                // what the file exports; the unknown path is the cause.
                Some(list) => Why {
                    cause: "dynamic-import",
                    reason: format!(
                        "no entry reaches this file; it may be a module that a computed import loads from a path only known at run time: {list}"
                    ),
                },
                None => Why {
                    cause: "unreached-file",
                    reason: "no entry reaches this file (pass it with --entry if it is a program of its own)".into(),
                },
            },
        };
    }
    if let Some(l) = item.controller {
        return Why {
            cause: "unmounted-router",
            reason: format!(
                "the controller class at {} is not among the controllers the analysis found an application serving",
                here(file, l)
            ),
        };
    }
    if let Some(s) = seen {
        if let Some((f, l)) = s.dyn_loop {
            return Why {
                cause: "dynamic-loop",
                reason: format!("it runs in the loop over run-time values at {}", here(f, l)),
            };
        }
        let recv = if event {
            s.main.or(s.later)
        } else {
            s.main.or(match s.later {
                Some(r @ (Recv::Other | Recv::External | Recv::Socket)) => Some(r),
                _ => None,
            })
        };
        match recv {
            Some(Recv::Router(id)) if !event => {
                let r = &run.interp.rec.routers[id as usize];
                let what = if r.is_app { "app" } else { "router" };
                let at = here(r.file, r.line);
                return Why {
                    cause: "unmounted-router",
                    reason: match crate::mounts::unknown_mounts(project, run.interp) {
                        Some(u) => format!(
                            "it runs on the {what} created at {at}, which no mount the analysis resolved reaches ({u}, which may be it)"
                        ),
                        None => format!(
                            "it runs on the {what} created at {at}, which no entry's app mounts"
                        ),
                    },
                };
            }
            Some(Recv::Socket) if event && rec.host_listens.contains(&(file, item.line)) => {
                return Why {
                    cause: not_a,
                    reason: format!(
                        "{call} listens on a Socket.IO server or namespace for {}, which it never emits (a server or namespace emits `connection`; a client's events arrive on its socket): the listener never runs",
                        item.first
                    ),
                };
            }
            Some(Recv::Socket) if event => {
                return Why {
                    cause: "dynamic-event",
                    reason: format!(
                        "{call} runs on a Socket.IO object, but its event name is only known at run time"
                    ),
                };
            }
            Some(Recv::Socket) => {
                return Why {
                    cause: not_a,
                    reason: format!(
                        "`{receiver}` is a Socket.IO object (Socket.IO middleware, not HTTP)"
                    ),
                };
            }
            Some(Recv::Router(_)) | Some(Recv::Other) => {
                return Why {
                    cause: not_a,
                    reason: format!(
                        "`{receiver}` is a value the program builds that is not {}",
                        if event {
                            "a Socket.IO object"
                        } else {
                            "an Express app or router"
                        }
                    ),
                };
            }
            Some(Recv::External) => {
                return Why {
                    cause: not_a,
                    reason: format!(
                        "`{receiver}` comes from an installed package or the runtime, not {}",
                        if event { "Socket.IO" } else { "Express" }
                    ),
                };
            }
            Some(Recv::Dynamic | Recv::Param) => {
                // A callback handed to a package's function gets its values from that package.
                // (Not a value of an outer scope it closes over: `socket`
                // read from a component's props, used in a callback of
                // `$(el).checkbox({ onChecked() { socket.emit(…) } })`.)
                if let Some((id, name, line)) = item.enclosing.last()
                    && let Some(handed) = rec.handed.get(&(file, *id))
                    && handed.gives(receiver)
                {
                    let (f, l) = handed.at;
                    // (A receiver in Socket.IO's own vocabulary, `io.of(name)`,
                    // is taken for Socket.IO's, handed over like an HTTP host.)
                    return if event
                        && !matches!(item.socket_shape, SocketShape::Io | SocketShape::Connection)
                    {
                        Why {
                            cause: not_a,
                            reason: format!(
                                "`{receiver}` comes from the package function that calls `{name}` ({}) at {}, not from Socket.IO",
                                here(file, *line),
                                here(f, l)
                            ),
                        }
                    } else {
                        Why {
                            cause: "external-host",
                            reason: format!(
                                "`{receiver}` is what a package's function at {} hands to `{name}` ({}); what that package registers is not known",
                                here(f, l),
                                here(file, *line)
                            ),
                        }
                    };
                }
                // A receiver read from an outer scope in such a callback that
                // does not look like Socket.IO at all (`s.group[k].pamDiff.on('diff')`):
                // nothing says it is a socket.
                if event
                    && item.socket_shape == SocketShape::Plain
                    && let Some((id, name, line)) = item.enclosing.last()
                    && let Some(handed) = rec.handed.get(&(file, *id))
                {
                    return Why {
                        cause: not_a,
                        reason: format!(
                            "`{receiver}` is only known at run time in `{name}` ({}), a callback handed to a package's function at {}, and does not look like a Socket.IO object",
                            here(file, *line),
                            here(handed.at.0, handed.at.1)
                        ),
                    };
                }
                if event && (receiver.starts_with("this.props.") || receiver.starts_with("props."))
                {
                    return Why {
                        cause: "unknown-receiver",
                        reason: format!(
                            "{call} runs, but `{receiver}` is a prop of the component, and no rendering the analysis followed passes it a socket (a component wrapped by a package's higher-order component, or rendered by code the analysis did not run)"
                        ),
                    };
                }
                return Why {
                    cause: "unknown-receiver",
                    reason: format!("{call} runs, but `{receiver}` is only known at run time"),
                };
            }
            None => {}
        }
    }
    // Not run in the routing phase: the outermost enclosing function nobody called.
    let blocker = item
        .enclosing
        .iter()
        .find(|(id, _, _)| !rec.entered.contains(&(file, *id)));
    if let Some(why) = recursion_limit(project, item, file, depth) {
        return why;
    }
    if let (Some((b, msg)), true) = (budget, blocker.is_some() || seen.is_none()) {
        let inside = msg
            .split('`')
            .nth(1)
            .map(|n| format!(" entering `{n}`"))
            .unwrap_or_default();
        return Why {
            cause: "budget",
            reason: format!(
                "the analysis budget ran out{inside} ({}:{}); calls past that point were not followed",
                b.file, b.line
            ),
        };
    }
    if let Some((id, name, line)) = blocker {
        if let Some(&(f, l)) = rec
            .handed
            .get(&(file, *id))
            .map(|h| &h.at)
            .or_else(|| rec.handed_names.get(&(file, name.clone())))
        {
            return Why {
                cause: "external-host",
                reason: format!(
                    "the enclosing function `{name}` ({}) is handed to a package's function at {}, which is not followed",
                    here(file, *line),
                    here(f, l)
                ),
            };
        }
        // A route's handler, or a function only a handler calls: Express
        // runs it for each request, after start-up, which is when the
        // registrations the inventory charts are made.
        if rec.in_handlers.contains(&(file, *id)) {
            return Why {
                cause: "in-handler",
                reason: format!(
                    "the enclosing function `{name}` ({}) runs only while a route answers a request (Express calls route handlers for each request, not at start-up){}",
                    here(file, *line),
                    match seen.and_then(|s| s.later) {
                        Some(Recv::Dynamic | Recv::Param) => {
                            format!(", and `{receiver}` there is only known at run time")
                        }
                        _ => String::new(),
                    }
                ),
            };
        }
        // A Ts.ED hook (`$beforeRoutesInit`) in a module that imports Ts.ED:
        // the framework calls it, for a server it bootstraps with this class
        // as the server or among its providers.
        if crate::libs::tsed::HOOKS.contains(&name.as_str())
            && imports_tsed(&run.loader.get(file).facts)
        {
            return Why {
                cause: "uncalled-function",
                reason: format!(
                    "the enclosing function `{name}` ({}) is a Ts.ED hook, which Ts.ED calls while it bootstraps a server whose server class or providers include this class; no `bootstrap` the analysis ran serves it (Portolan calls the hooks of the server class only)",
                    here(file, *line)
                ),
            };
        }
        return Why {
            cause: "uncalled-function",
            reason: format!(
                "the enclosing function `{name}` ({}) is never called",
                here(file, *line)
            ),
        };
    }
    if !run.interp.rec.touched.contains(&file) {
        return if run.imported.contains(&file) {
            Why {
                cause: "skipped",
                reason: "a reached module imports this file, but the analysis never needed what it exports, so its top level did not run".into(),
            }
        } else {
            Why {
                cause: "unreached-file",
                reason: "no entry reaches this file".into(),
            }
        };
    }
    if let Some(why) = recursion_limit(project, item, file, depth) {
        return why;
    }
    // `router[method](…)`: no run the analysis followed named a method (a
    // loop over run-time values feeds it, or metadata it cannot read).
    if item.method.starts_with('[') {
        let rel = project.rel(file);
        let near = computed_imports
            .iter()
            .find(|c| c.at.file == rel && c.is_loop)
            .or_else(|| computed_imports.iter().find(|c| c.at.file == rel));
        return Why {
            cause: "dynamic-method",
            reason: match near.map(|c| (&c.at, c.is_loop)) {
                Some((l, is_loop)) => format!(
                    "its method is chosen at run time, and no run of it the analysis followed named one (see the {} at {}:{})",
                    if is_loop { "loop" } else { "computed import" },
                    l.file, l.line
                ),
                None => "its method is chosen at run time, and no run of it the analysis followed named one".into(),
            },
        };
    }
    Why {
        cause: "skipped",
        reason: match &item.condition {
            Some((test, line)) => format!(
                "the code around it runs, but this call is not reached: it is under `if ({test})` ({}), which the analysis decided, or after an early return",
                here(file, *line)
            ),
            None => "the code around it runs, but this call is not reached (an early return, or a condition the analysis decided)".into(),
        },
    }
}

/// An item inside a function whose calls hit the recursion or call-depth
/// limit: the registration may only run deeper than the analysis followed.
fn recursion_limit(
    project: &Project,
    item: &CensusItem,
    file: FileId,
    depth: &[(Location, String)],
) -> Option<Why> {
    let rel = project.rel(file);
    item.enclosing.iter().rev().find_map(|(_, name, line)| {
        let (at, msg) = depth.iter().find(|(l, _)| l.file == rel && l.line == *line)?;
        let limit = msg
            .split("deeper than ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .unwrap_or("the limit of");
        Some(Why {
            cause: "budget",
            reason: format!(
                "the recursion of `{name}` ({}:{}) was cut at {limit} levels (the analysis budget); this call may only run deeper than that",
                at.file, at.line
            ),
        })
    })
}

/// The computed imports of the run that share the most folders with `dir`
/// (the unreached file's folder), as `file:line` text: `None` when the run
/// has none. Three are named, then how many more.
fn computed_elsewhere(computed_imports: &[Computed], dir: &str) -> Option<String> {
    let shared = |c: &Computed| {
        let l = &c.at;
        let d = l.file.rsplit_once('/').map_or("", |(d, _)| d);
        d.split('/')
            .zip(dir.split('/'))
            .take_while(|(a, b)| a == b && !a.is_empty())
            .count()
    };
    let best = computed_imports.iter().map(shared).max()?;
    let mut at: Vec<String> = computed_imports
        .iter()
        .filter(|c| shared(c) == best)
        .map(|c| format!("{}:{}", c.at.file, c.at.line))
        .collect();
    at.sort();
    at.dedup();
    let more = at.len().saturating_sub(3);
    at.truncate(3);
    let s = if at.len() + more > 1 { "s" } else { "" };
    let mut list = format!("the one{s} at {}", at.join(", "));
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    Some(list)
}

/// A place that may load a module from a path only known at run time: a
/// computed import, or a loop over values only known at run time.
#[derive(Clone)]
struct Computed {
    at: Location,
    is_loop: bool,
}

/// Whether a module imports a Ts.ED package (`import { Module } from "@tsed/di"`).
fn imports_tsed(facts: &FileFacts) -> bool {
    facts
        .body
        .iter()
        .any(|st| matches!(st, Stmt::Import(i) if crate::libs::tsed::is_tsed(&i.source)))
        || facts
            .literal_requires
            .iter()
            .any(|r| crate::libs::tsed::is_tsed(r))
}
