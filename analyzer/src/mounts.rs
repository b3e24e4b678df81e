//! The HTTP inventory from the evaluated routers: a walk of the mount graph
//! from every root app (full paths, middleware chains, conditions), the
//! operations grouped from their declarations, and each one's contract.
//!
//! Deliberately not here: evaluating the code (`machine`, `libs`) and the events.

use crate::events::build_events;
use crate::inventory::*;
use crate::libs::schemas::SchemaLabel;
use crate::loader::Loader;
use crate::machine::{self, Interp, PathArg, Reg, RegKind, RouterData, UseHandler};
use crate::paths::PathPattern;
use crate::project::{FileId, Project};
use crate::salvaged::{salvage_unmounted, salvage_walk, salvaged_pattern};
use crate::{AnalyzeOptions, census, paths};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;
use std::sync::Arc;

pub(crate) struct WalkOut {
    /// (app, method, full path, regex) → declarations
    pub(crate) ops: BTreeMap<(u32, String, String, bool), Vec<Declaration>>,
    pub(crate) mount_paths: BTreeMap<(u32, String, String, bool), String>,
    pub(crate) reached_routers: HashSet<u32>,
    pub(crate) decl_keys: BTreeSet<(FileId, u32, String, String)>,
    pub(crate) app_mounts: BTreeSet<String>,
    /// The route-handler dispatches (`app.all('/entries*', router)`) above
    /// the router being walked, outermost first: its routes answer only the
    /// requests each of them accepts.
    pub(crate) dispatches: Vec<RouteFilter>,
    /// Routes below a dispatch that it never hands a request to (its method
    /// or path pattern does not accept them), with why: Express never runs
    /// them there (`about.get('/more')` under `app.get('/about', about)`).
    /// Keyed by where and the method registered (the methods of a route
    /// chain share a line).
    pub(crate) unanswered: BTreeMap<Unanswered, String>,
    /// Routes registered only to pass requests on ([`passes_on`]): one that
    /// no later route or `use` took the requests from is accounted for by a
    /// finding ([`settle_passed_on`]).
    pub(crate) passed_on: Vec<PassedOn>,
    /// Why the router being walked never gets a request: a mount above it
    /// at a path Express never matches (`app.use('api', router)`), the
    /// innermost last.
    pub(crate) never: Vec<String>,
}

/// A route registration a walk never lets through: its file, line and
/// method (lower case, `delete` for `del`).
pub(crate) type Unanswered = (FileId, u32, String);

/// A route method's name as [`Unanswered`] keys it.
pub(crate) fn method_name(m: &str) -> String {
    let lower = m.to_ascii_lowercase();
    Method::parse(&lower).map_or(lower, |m| m.as_str().to_string())
}

/// A route registered only to pass requests on, kept in case nothing after
/// it answers (see [`WalkOut::passed_on`]).
pub(crate) struct PassedOn {
    /// Its (app, method, full path, regex), as an operation's key.
    key: (u32, String, String, bool),
    /// A later route or `use` ran it as middleware.
    used: Rc<Cell<bool>>,
    /// Where it is registered.
    at: (FileId, u32),
}

/// What a route that hands the request to a router accepts.
pub(crate) struct RouteFilter {
    /// The route's method (`all` for any).
    method: String,
    /// The route as written, and where (for findings).
    what: String,
    /// Its full path as a matcher; `None` when the pattern cannot be read
    /// (every route below is kept).
    matcher: Option<regex::Regex>,
    /// Its full path as written (`None` for a RegExp path).
    full: Option<String>,
    /// Where the route is registered.
    at: (FileId, u32),
}

impl RouteFilter {
    /// The method under which a route of `method` at `full` answers through
    /// this dispatch, if it can answer at all. The path rule: the route's
    /// path, each parameter standing for a neutral segment
    /// ([`paths::sample_request`]), must be a request the dispatching route
    /// accepts.
    fn admit(&self, method: &str, full: &str, regex: bool) -> Option<String> {
        let method = match (self.method.as_str(), method) {
            ("all", m) => m.to_string(),
            (d, "all") => d.to_string(),
            (d, m) if d == m => m.to_string(),
            _ => return None,
        };
        match &self.matcher {
            Some(m) if !regex && !m.is_match(&paths::sample_request(full)) => None,
            _ => Some(method),
        }
    }

    /// The method and path a function `use`d at `full` below this dispatch
    /// answers: Express hands the router the whole request path (a route does
    /// not strip it), and a `use` takes every path under its own, so a
    /// function `use`d at `/` (or at a prefix of the route's path) answers the
    /// route's own method and path (`app.get('/search', router)` over
    /// `router.use(reply)`). `None` when the `use` never takes the route's
    /// requests, or the route's path is a RegExp.
    fn answered_by_use(&self, full: &str) -> Option<(String, String)> {
        let own = self.full.as_ref()?;
        let request = paths::sample_request(own);
        let takes = |p: &str| paths::route_matcher(p).is_some_and(|m| m.is_match(&request));
        (takes(full) || takes(&paths::join(full, "*"))).then(|| (self.method.clone(), own.clone()))
    }
}

#[derive(Clone)]
pub(crate) struct ScopedMw {
    pub(crate) name: String,
    /// Applies only under this full prefix.
    pub(crate) scope: Option<String>,
    /// Applies only to the paths below this full prefix (the router's) that
    /// this `use` path, a regular expression, takes
    /// ([`paths::use_matcher`]).
    pub(crate) pattern: Option<Rc<(String, regex::Regex)>>,
    /// Applies only to routes at this method (`all`: any) whose path this
    /// full path matches (`/v1/*` matches `/v1/items`): a route registered
    /// only to pass requests on ([`passes_on`]).
    pub(crate) route: Option<RouteScope>,
    /// What it refuses with, when it is such a route that answers 401/403.
    pub(crate) guard: Option<Guard>,
}

/// The method and full path of a route registered only to pass requests on.
#[derive(Clone)]
pub(crate) struct RouteScope {
    method: String,
    path: String,
    matcher: Option<regex::Regex>,
    /// Where the route is registered, and its path as written.
    at: Option<(FileId, u32, String)>,
    /// A later route or `use` ran it as middleware.
    used: Rc<Cell<bool>>,
}

impl RouteScope {
    fn new(method: &str, path: String) -> RouteScope {
        RouteScope {
            method: method.to_ascii_lowercase(),
            matcher: paths::route_matcher(&path),
            path,
            at: None,
            used: Rc::default(),
        }
    }

    fn admits(&self, method: &str, full: &str) -> bool {
        (self.method == method || self.method == "all")
            && (self.path == full
                || self
                    .matcher
                    .as_ref()
                    .is_some_and(|m| m.is_match(&paths::sample_request(full))))
    }
}

impl ScopedMw {
    fn named(name: &str, scope: Option<String>) -> ScopedMw {
        ScopedMw {
            name: name.to_string(),
            scope,
            pattern: None,
            route: None,
            guard: None,
        }
    }

    /// Whether it runs before the route at `method` and `full`.
    fn applies(&self, method: &str, full: &str) -> bool {
        let under = |s: &str| {
            full == s || full.starts_with(&format!("{}/", s.trim_end_matches('/'))) || s == "/"
        };
        let scoped = match (&self.pattern, &self.scope) {
            (Some(p), _) => {
                let (base, m) = &**p;
                let base = base.trim_end_matches('/');
                under(base) && {
                    let rest = &full[base.len().min(full.len())..];
                    m.is_match(&paths::sample_request(if rest.is_empty() {
                        "/"
                    } else {
                        rest
                    }))
                }
            }
            (None, None) => true,
            (None, Some(s)) => under(s),
        };
        scoped && self.route.as_ref().is_none_or(|r| r.admits(method, full))
    }
}

/// Where an app or router is sited: its manifest when a framework made it
/// (see [`RouterData::manifest`]), else where it was created.
fn router_loc(project: &Project, r: &RouterData) -> Location {
    match &r.manifest {
        Some(m) => Location {
            file: m.to_string(),
            line: r.line,
        },
        None => loc(project, r.file, r.line),
    }
}

/// The `use` calls that mount a value only known at run time (the
/// `dynamic-mount` findings): a router that no mount the analysis resolved
/// reaches may be what one of them mounts, so it is not "never mounted".
/// `None` when there is none; else the first three places and how many more.
pub(crate) fn unknown_mounts(project: &Project, interp: &Interp) -> Option<String> {
    let sites: std::collections::BTreeSet<(String, u32)> = interp
        .rec
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::DynamicMount)
        .map(|f| (project.rel(f.file).to_string(), f.line))
        .collect();
    if sites.is_empty() {
        return None;
    }
    let mut text: Vec<String> = sites
        .iter()
        .take(3)
        .map(|(f, l)| format!("{f}:{l}"))
        .collect();
    if sites.len() > 3 {
        text.push(format!("{} more", sites.len() - 3));
    }
    Some(format!(
        "`use` at {} mount{} a value only known at run time",
        text.join(", "),
        if sites.len() == 1 { "s" } else { "" }
    ))
}

pub(crate) fn loc(project: &Project, file: FileId, line: u32) -> Location {
    Location {
        file: project.rel(file).to_string(),
        line,
    }
}

/// Whether Express never matches path `p` of registration `reg`: one given
/// to an app or router that does not start with `/` (see
/// `libs::express::never_matches`).
fn unmatchable(interp: &Interp, reg: &Reg, p: &str) -> bool {
    !interp.rec.unmatchable.is_empty()
        && interp
            .rec
            .unmatchable
            .contains(&(reg.file, reg.line, p.to_string()))
}

/// A route's full path under `prefix`. On a strict router a trailing slash
/// of the route's path is its own (Express matches `/game/` and `/game`
/// apart there); elsewhere it is dropped, as Express matches either.
fn route_path(prefix: &str, path: &str, strict: bool) -> String {
    let full = paths::join(prefix, path);
    if strict && path.ends_with('/') && full != "/" {
        format!("{full}/")
    } else {
        full
    }
}

pub(crate) fn walk(
    project: &Project,
    interp: &Interp,
    app: u32,
    router: u32,
    prefix: &str,
    inherited: &[ScopedMw],
    mounts: &[MountStep],
    cond: Option<&str>,
    stack: &mut Vec<u32>,
    out: &mut WalkOut,
) {
    if stack.contains(&router) || stack.len() > 64 {
        return;
    }
    stack.push(router);
    out.reached_routers.insert(router);
    let data = &interp.rec.routers[router as usize];
    let mut chain: Vec<ScopedMw> = inherited.to_vec();
    for reg in &data.regs {
        // The same condition above and here (a router made and mounted
        // under one `if`) is said once.
        let cond_here = crate::conditions::conjunction(cond.into_iter().chain(reg.cond.as_deref()));
        match &reg.kind {
            RegKind::Use { paths, handlers } => {
                // A `use` at paths Express never matches does nothing.
                if let Some(PathArg::Str(p)) = paths.first()
                    && paths
                        .iter()
                        .all(|q| matches!(q, PathArg::Str(q) if unmatchable(interp, reg, q)))
                {
                    out.unanswered
                        .entry((reg.file, reg.line, "use".into()))
                        .or_insert_with(|| format!(
                            "Express matches a mount path against the request's path, which always starts with `/`, so `{p}` never matches (`/{p}` would)"
                        ));
                }
                let mut local_mw: Vec<ScopedMw> = Vec::new();
                for h in handlers {
                    match h {
                        UseHandler::Router(child) => {
                            for p in paths {
                                let PathArg::Str(p) = p else { continue };
                                let never = unmatchable(interp, reg, p).then(|| {
                                    format!(
                                        "it is below `use('{p}', …)` at {}:{}, and Express never matches a mount path that does not start with `/` (the request's path always does)",
                                        project.rel(reg.file),
                                        reg.line
                                    )
                                });
                                let full = paths::join(prefix, p);
                                if stack.len() == 1 {
                                    out.app_mounts.insert(paths::join("", p));
                                }
                                let mut next_chain = chain.clone();
                                next_chain.extend(param_callbacks(data, p));
                                next_chain.extend(local_mw.iter().cloned());
                                let mut next_mounts = mounts.to_vec();
                                next_mounts.push(MountStep {
                                    prefix: p.clone(),
                                    at: loc(project, reg.file, reg.line),
                                });
                                let depth = out.never.len();
                                out.never.extend(never);
                                walk(
                                    project,
                                    interp,
                                    app,
                                    *child,
                                    &full,
                                    &next_chain,
                                    &next_mounts,
                                    cond_here.as_deref(),
                                    stack,
                                    out,
                                );
                                out.never.truncate(depth);
                            }
                        }
                        UseHandler::Middleware(name, anonymous) => local_mw.push(ScopedMw {
                            guard: anonymous.and_then(|k| {
                                interp.rec.anonymous_guards.get(&k).map(|g| Guard {
                                    name: name.clone(),
                                    status: g.status,
                                    at: loc(project, g.file, g.line),
                                    credential: g.credential.clone(),
                                })
                            }),
                            ..ScopedMw::named(name, None)
                        }),
                    }
                }
                // Middleware in a use() without routers applies to what follows.
                if !handlers.iter().any(|h| matches!(h, UseHandler::Router(_))) {
                    for p in paths {
                        // Middleware at a path Express never matches never runs.
                        if let PathArg::Str(s) = p
                            && unmatchable(interp, reg, s)
                        {
                            continue;
                        }
                        // A path written as a regular expression takes
                        // the paths it matches; one the regex engine cannot
                        // read is left out.
                        let pattern = match p {
                            PathArg::Str(s) => paths::use_matcher(s, false),
                            PathArg::Regex(r) => match paths::use_matcher(r, true) {
                                Some(m) => Some(m),
                                None => continue,
                            },
                        }
                        .map(|m| Rc::new((prefix.to_string(), m)));
                        let scope = match p {
                            PathArg::Str(s) if pattern.is_none() && paths::join("", s) != "/" => {
                                Some(paths::join(prefix, s))
                            }
                            _ => None,
                        };
                        for m in &local_mw {
                            chain.push(ScopedMw {
                                guard: m.guard.clone(),
                                pattern: pattern.clone(),
                                ..ScopedMw::named(&m.name, scope.clone())
                            });
                        }
                    }
                }
            }
            RegKind::Dispatch {
                method,
                paths: route_paths,
                middleware,
                routers,
            } => {
                // Scoped middleware above is kept as it is: the routes below
                // have their own full paths, which the scopes are matched against.
                let mut here = chain.clone();
                here.extend(middleware.iter().map(|n| ScopedMw::named(n, None)));
                for p in route_paths {
                    let full = match p {
                        PathArg::Str(s) => Some(paths::join(prefix, s)),
                        PathArg::Regex(_) => None,
                    };
                    let matcher = full.as_deref().and_then(paths::route_matcher);
                    for &child in routers {
                        out.dispatches.push(RouteFilter {
                            method: method.clone(),
                            what: format!(
                                "`{}` at {}:{}",
                                match p {
                                    PathArg::Str(s) => format!(
                                        "{} {}",
                                        method.to_uppercase(),
                                        paths::join(prefix, s)
                                    ),
                                    PathArg::Regex(r) => format!("{} {r}", method.to_uppercase()),
                                },
                                project.rel(reg.file),
                                reg.line
                            ),
                            matcher: matcher.clone(),
                            full: full.clone(),
                            at: (reg.file, reg.line),
                        });
                        walk(
                            project,
                            interp,
                            app,
                            child,
                            prefix,
                            &here,
                            mounts,
                            cond_here.as_deref(),
                            stack,
                            out,
                        );
                        out.dispatches.pop();
                    }
                }
            }
            RegKind::Route {
                method,
                paths: route_paths,
                middleware,
                handler,
                contract,
                subpaths,
                ..
            } => {
                // A function mounted with `use`, or a route at a catch-all
                // path (`app.all('*', …)`), that only ever answers 404 is the
                // fallback for what nothing under its path answered (`// API
                // 404s`), not an operation. (Its router is walked, so the
                // census counts it as charted.)
                if (*subpaths || route_paths.iter().all(catch_all)) && {
                    let c = contract.borrow();
                    !c.responses.is_empty() && c.responses.iter().all(|r| r.0 == 404)
                } {
                    continue;
                }
                // A `use`d function that may pass the request on is
                // middleware (its `use` is walked as such): an operation only
                // below a route that hands requests to its router (it answers
                // other than by refusing: `libs::answers::may_answer`).
                if dispatch_only(interp, reg) && out.dispatches.is_empty() {
                    continue;
                }
                // A route whose last handler passes the request on (`next()`)
                // and otherwise only refuses it is middleware for the routes
                // registered after it at the same method and path, not an
                // operation (`app.put(p, adminOnly)` before `app.put(p, save)`);
                // one that also answers in a callback is both.
                let mut passing: Vec<ScopedMw> = Vec::new();
                let only_passes = passes_on(&contract.borrow()).is_some();
                if let Some(refuses) = refuses_or_passes(&contract.borrow()) {
                    let name = handler
                        .as_ref()
                        .map_or_else(|| "<anonymous>".to_string(), |h| h.name.clone());
                    for p in route_paths {
                        let PathArg::Str(s) = p else { continue };
                        passing.push(ScopedMw {
                            name: name.clone(),
                            scope: None,
                            pattern: None,
                            route: Some(RouteScope {
                                at: Some((reg.file, reg.line, s.clone())),
                                ..RouteScope::new(method, route_path(prefix, s, data.strict))
                            }),
                            guard: refuses.map(|(status, f, l)| Guard {
                                name: name.clone(),
                                status,
                                at: loc(project, f, l),
                                credential: None,
                            }),
                        });
                    }
                }
                let raw_guard = contract.borrow().guard.clone();
                let contract = public_contract(project, &contract.borrow());
                for p in route_paths {
                    // A path Express never matches (`'api/x'`), or a route
                    // below a mount at one: no request reaches it.
                    let never = match p {
                        PathArg::Str(s) if unmatchable(interp, reg, s) => Some(format!(
                            "Express matches a route's path against the request's path, which always starts with `/`, so `{s}` never matches (`/{s}` would)"
                        )),
                        _ => out.never.last().cloned(),
                    };
                    if let Some(why) = never {
                        out.unanswered
                            .entry((reg.file, reg.line, method_name(method)))
                            .or_insert(why);
                        continue;
                    }
                    let (mut full, regex, own) = match p {
                        PathArg::Str(s) => (route_path(prefix, s, data.strict), false, s.clone()),
                        PathArg::Regex(r) => (paths::join_regex(prefix, r), true, r.clone()),
                    };
                    let mut method = method.clone();
                    // A function `use`d below a route that hands requests to its
                    // router answers that route's method and path, declared here
                    // via the route.
                    let mut subpaths = *subpaths;
                    let mut via = reg.via.map(|(f, l)| loc(project, f, l));
                    if subpaths
                        && !regex
                        && let Some(d) = out.dispatches.last()
                        && let Some((m, path)) = d.answered_by_use(&full)
                    {
                        via = Some(loc(project, d.at.0, d.at.1));
                        method = m;
                        full = path;
                        subpaths = false;
                    } else if dispatch_only(interp, reg) {
                        // A `use`d function that may pass the request on is
                        // middleware (its `use` is walked as such), an
                        // operation only below a dispatching route.
                        continue;
                    }
                    let subpaths = &subpaths;
                    if let Some(d) =
                        out.dispatches
                            .iter()
                            .find(|d| match d.admit(&method, &full, regex) {
                                Some(m) => {
                                    method = m;
                                    false
                                }
                                None => true,
                            })
                    {
                        let why = format!(
                            "the route {} hands requests to its router, and never one for {} {full}",
                            d.what,
                            method.to_uppercase()
                        );
                        out.unanswered
                            .entry((reg.file, reg.line, method_name(&method)))
                            .or_insert(why);
                        continue;
                    }
                    let method = &method;
                    let lower = method.to_ascii_lowercase();
                    let before: Vec<&ScopedMw> =
                        chain.iter().filter(|m| m.applies(&lower, &full)).collect();
                    if !only_passes {
                        for r in before.iter().filter_map(|m| m.route.as_ref()) {
                            r.used.set(true);
                        }
                    }
                    let mut mw: Vec<String> = before.iter().map(|m| m.name.clone()).collect();
                    if !regex {
                        mw.extend(param_callbacks(data, &own).map(|m| m.name));
                    }
                    mw.extend(middleware.iter().cloned());
                    let guard = mw
                        .iter()
                        .find_map(|n| {
                            interp.rec.guards.get(n).map(|g| Guard {
                                name: n.clone(),
                                status: g.status,
                                at: loc(project, g.file, g.line),
                                credential: g.credential.clone(),
                            })
                        })
                        .or_else(|| before.iter().find_map(|m| m.guard.clone()))
                        .or_else(|| {
                            // A route middleware the chain cannot name, seen answering 401/403.
                            raw_guard.as_ref().map(|(name, status, f, l)| Guard {
                                name: name.clone(),
                                status: *status,
                                at: loc(project, *f, *l),
                                credential: contract
                                    .headers_read
                                    .iter()
                                    .find(|h| {
                                        *h == "authorization"
                                            || h.contains("key")
                                            || h.contains("token")
                                    })
                                    .cloned(),
                            })
                        });
                    let decl = Declaration {
                        at: loc(project, reg.file, reg.line),
                        via,
                        route_path: own.clone(),
                        router: loc(project, data.file, data.line),
                        mounts: mounts.to_vec(),
                        middleware: mw,
                        handler: handler.as_ref().map(|h| Handler {
                            name: h.name.clone(),
                            at: h.at.map(|(f, l)| loc(project, f, l)),
                        }),
                        conditional: cond_here.clone(),
                        doc: reg.doc.clone(),
                        contract: contract.clone(),
                        guard,
                        subpaths: *subpaths,
                    };
                    let key = (app, method.clone(), full.clone(), regex);
                    out.mount_paths.entry(key.clone()).or_insert_with(|| {
                        mounts
                            .first()
                            .map(|m| paths::join("", &m.prefix))
                            .unwrap_or_default()
                    });
                    let mount_path = out.mount_paths.get(&key).cloned().unwrap_or_default();
                    if *subpaths && !regex {
                        // A route that only passes requests on below this
                        // answering `use` and that no route answered before
                        // it: Express hands its requests on to this one
                        // (`app.put('/:name/:id', validate)` then
                        // `app.use('/:name', reply)`), an operation at the
                        // route's own method and path.
                        for m in chain.iter() {
                            let Some(r) = &m.route else { continue };
                            let Some((f, l, own)) = &r.at else { continue };
                            if only_passes {
                                continue;
                            }
                            let under = if full == "/" {
                                r.path != "/"
                            } else {
                                r.path
                                    .starts_with(&format!("{}/", full.trim_end_matches('/')))
                            };
                            if under || r.path == full {
                                // The `use` takes its requests.
                                r.used.set(true);
                            }
                            let k = (app, r.method.clone(), r.path.clone(), false);
                            if !under || r.method == "all" || out.ops.contains_key(&k) {
                                continue;
                            }
                            let mut middleware = decl.middleware.clone();
                            middleware.push(m.name.clone());
                            let passed = Declaration {
                                at: loc(project, *f, *l),
                                via: None,
                                route_path: own.clone(),
                                middleware,
                                guard: decl.guard.clone().or_else(|| m.guard.clone()),
                                subpaths: false,
                                ..decl.clone()
                            };
                            out.mount_paths.insert(k.clone(), mount_path.clone());
                            out.ops.insert(k, vec![passed]);
                        }
                    }
                    if let Some(r) = passing.iter().filter(|_| only_passes).find_map(|m| {
                        m.route
                            .as_ref()
                            .filter(|r| r.at.as_ref().is_some_and(|(_, _, o)| *o == own))
                    }) {
                        out.passed_on.push(PassedOn {
                            key,
                            used: r.used.clone(),
                            at: (reg.file, reg.line),
                        });
                        continue;
                    }
                    let list = out.ops.entry(key).or_default();
                    // The same declaration reached again (a function called
                    // in both branches of an `if`): it runs when either
                    // path's conditions hold.
                    match list
                        .iter_mut()
                        .find(|d| d.at == decl.at && d.via == decl.via)
                    {
                        Some(d) => {
                            d.conditional = either(d.conditional.take(), decl.conditional);
                        }
                        None => list.push(decl),
                    }
                    let expanded: Vec<&str> = match Method::parse(method) {
                        Some(Method::All) => {
                            Method::ALL_ANSWERS.iter().map(|m| m.as_str()).collect()
                        }
                        _ => vec![method.as_str()],
                    };
                    for m in expanded {
                        out.decl_keys
                            .insert((reg.file, reg.line, m.to_string(), own.clone()));
                    }
                }
                // A route that passes requests on runs before the later
                // routes it matches, as their middleware.
                chain.extend(passing);
            }
        }
    }
    stack.pop();
}

/// The routes registered only to pass requests on that nothing after them
/// took the requests from (see [`WalkOut::passed_on`]): Express answers past
/// them with a 404, so they are no operation, and not charted either: the
/// census accounts for each with a `skipped` finding saying so (a handler
/// that answers in code the analysis did not run shows up there, instead of
/// vanishing). A declaration that some other run of it passed on to a route
/// (a helper guarding several paths) is left alone.
pub(crate) fn settle_passed_on(out: &mut WalkOut) {
    let passed = std::mem::take(&mut out.passed_on);
    let taken = |p: &PassedOn| p.used.get() || out.ops.contains_key(&p.key);
    // (A declaration reached again on another path is served when one of
    // its ways is; the other methods of a route chain on its line are not
    // it.)
    let served: HashSet<((FileId, u32), &str)> = passed
        .iter()
        .filter(|p| taken(p))
        .map(|p| (p.at, p.key.1.as_str()))
        .collect();
    for p in &passed {
        if taken(p) || served.contains(&(p.at, p.key.1.as_str())) {
            continue;
        }
        out.unanswered.entry((p.at.0, p.at.1, method_name(&p.key.1))).or_insert_with(|| {
            "it is registered only to pass requests on (its handlers refuse or call `next()`), and no later route or `use` at its method and path takes them: Express answers past it with 404 (if it answers in code the analysis did not run, that code is not charted)".to_string()
        });
    }
}

/// The `router.param(name, fn)` callbacks Express runs for a layer whose own
/// path is `own`: those of the router, for the parameters that path names.
fn param_callbacks<'a>(data: &'a RouterData, own: &str) -> impl Iterator<Item = ScopedMw> + 'a {
    let names: Vec<String> = if data.param_callbacks.is_empty() {
        Vec::new()
    } else {
        PathPattern::parse(own, false)
            .params
            .into_iter()
            .map(|p| p.name)
            .collect()
    };
    data.param_callbacks
        .iter()
        .filter(move |(n, _, _)| names.contains(n))
        .map(|(_, f, _)| ScopedMw::named(f, None))
}

pub(crate) fn build_inventory(
    project: &Project,
    loader: &Arc<Loader>,
    interp: &Interp,
    entries: &[FileId],
    reached: &BTreeSet<FileId>,
    http_files: &BTreeSet<FileId>,
    opts: &AnalyzeOptions,
    census_files: &[FileId],
) -> Inventory {
    let mut findings: Vec<Finding> = interp
        .rec
        .findings
        .iter()
        .map(|f| Finding {
            code: f.code,
            at: loc(project, f.file, f.line),
            message: f.message.clone(),
            cause: f.cause.map(str::to_string),
        })
        .collect();
    let mut out = WalkOut {
        ops: BTreeMap::new(),
        mount_paths: BTreeMap::new(),
        reached_routers: HashSet::new(),
        decl_keys: BTreeSet::new(),
        app_mounts: BTreeSet::new(),
        dispatches: Vec::new(),
        never: Vec::new(),
        unanswered: BTreeMap::new(),
        passed_on: Vec::new(),
    };
    let roots: Vec<u32> = interp
        .rec
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_app && !r.mounted && !r.unreached && r.salvage.is_none())
        .map(|(i, _)| i as u32)
        .collect();
    // An app factory that runs twice (two entries calling `createApp()`)
    // makes one app: what each instance serves is merged under the first.
    let canonical = |i: u32| -> u32 {
        let r = &interp.rec.routers[i as usize];
        roots
            .iter()
            .copied()
            .find(|&j| {
                let o = &interp.rec.routers[j as usize];
                o.file == r.file && o.line == r.line
            })
            .unwrap_or(i)
    };
    for &root in &roots {
        let app = canonical(root);
        walk(
            project,
            interp,
            app,
            root,
            "",
            &[],
            &[],
            None,
            &mut Vec::new(),
            &mut out,
        );
    }
    settle_passed_on(&mut out);
    let salvaged = salvage_walk(project, interp, &roots, &mut out);
    // A router that no root reaches may be one of several instances made by
    // the same code (a factory run twice, once mounted): its declarations
    // that another instance charted are not unmounted, and a finding that
    // listed them would contradict the catalog.
    let charted = crate::salvaged::charted_so_far(&out, &salvaged);
    // Routers with routes that no root reaches.
    let unknown = unknown_mounts(project, interp);
    for (i, r) in interp.rec.routers.iter().enumerate() {
        if out.reached_routers.contains(&(i as u32)) {
            continue;
        }
        let routes: Vec<String> = r
            .regs
            .iter()
            .filter_map(|reg| match &reg.kind {
                RegKind::Route { method, paths, .. } if !dispatch_only(interp, reg) => {
                    let at = loc(project, reg.file, reg.line);
                    let lost: Vec<&str> = paths
                        .iter()
                        .map(|p| match p {
                            PathArg::Str(s) | PathArg::Regex(s) => s.as_str(),
                        })
                        .filter(|p| {
                            !charted.contains_key(&(at.clone(), method.clone(), p.to_string()))
                        })
                        .collect();
                    (!lost.is_empty()).then(|| {
                        format!(
                            "{} {} ({}:{})",
                            method.to_uppercase(),
                            lost.join(", "),
                            project.rel(reg.file),
                            reg.line
                        )
                    })
                }
                _ => None,
            })
            .collect();
        if r.is_app && r.unreached && !r.mounted && !r.in_event_pass && r.salvage.is_none() {
            findings.push(Finding {
                code: FindingCode::UnreachedApp,
                at: loc(project, r.file, r.line),
                message: format!(
                    "an Express app in a file no entry reaches ({} route declarations); name it with --entry to include it",
                    routes.len()
                ),
                cause: None,
            });
            continue;
        }
        if routes.is_empty() || r.mounted || (r.is_app && r.salvage.is_some()) {
            continue;
        }
        let message = match &r.salvage {
            Some(s) if s.kind == machine::SalvageKind::Unregistered => format!(
                "`{}` registers routes on its parameter but nothing calls it (or only code known at run time does); they are charted under the unknown prefix `{UNKNOWN_PREFIX}`, marked reached: unregistered, left out of the public OpenAPI: {}",
                s.func,
                routes.join("; ")
            ),
            _ => match &unknown {
                Some(u) => format!(
                    "router declares routes but no mount the analysis resolved reaches it; {u}, which may be it (charted under the unknown prefix `{UNKNOWN_PREFIX}`, marked reached: unmounted, left out of the public OpenAPI): {}",
                    routes.join("; ")
                ),
                None => format!(
                    "router declares routes but is never mounted (charted under the unknown prefix `{UNKNOWN_PREFIX}`, marked reached: unmounted, left out of the public OpenAPI): {}",
                    routes.join("; ")
                ),
            },
        };
        // A router made by a function that ran several times (once per
        // plug-in) is one finding.
        let at = loc(project, r.file, r.line);
        if findings
            .iter()
            .any(|f| f.code == FindingCode::UnmountedRouter && f.at == at && f.message == message)
        {
            continue;
        }
        findings.push(Finding {
            code: FindingCode::UnmountedRouter,
            at,
            message,
            cause: None,
        });
    }
    let salvaged = salvage_unmounted(project, interp, &out, salvaged);
    if entries.is_empty()
        && roots.is_empty()
        && interp.rec.sio_servers.is_empty()
        && interp.rec.sites.is_empty()
    {
        findings.push(Finding {
            code: FindingCode::NoEntry,
            at: Location {
                file: String::new(),
                line: 0,
            },
            message: "no entry found: no package.json main/start script and no file calls express(); pass --entry FILE".into(),
            cause: None,
        });
    }
    let (socket_servers, events, event_stats) =
        // The entries are a program (not, say, a process-manager config) when they build an app.
        build_events(project, interp, !roots.is_empty(), reached, opts, &mut findings);
    findings.sort_by(|a, b| (&a.at, a.code, &a.message).cmp(&(&b.at, b.code, &b.message)));

    let mut app_counts: BTreeMap<u32, usize> = BTreeMap::new();
    let mut operations: Vec<Operation> = Vec::new();
    let mut salvaged_ops: BTreeSet<(String, String, bool)> = BTreeSet::new();
    for op in salvaged.ops {
        let mut decls = op.decls;
        decls.sort_by(|a, b| a.at.cmp(&b.at));
        *app_counts.entry(op.app).or_default() += 1;
        salvaged_ops.insert((op.method.clone(), op.full.clone(), op.regex));
        let r = &interp.rec.routers[op.app as usize];
        operations.push(Operation {
            method: op.method,
            path: salvaged_pattern(&op.full, op.regex),
            app: router_loc(project, r),
            mount_path: op.mount_path,
            declarations: decls,
            reached: Some(op.reached),
        });
    }
    for ((app, method, full, regex), mut decls) in out.ops {
        decls.sort_by(|a, b| a.at.cmp(&b.at));
        *app_counts.entry(app).or_default() += 1;
        let r = &interp.rec.routers[app as usize];
        let mount_path = out
            .mount_paths
            .get(&(app, method.clone(), full.clone(), regex))
            .cloned()
            .unwrap_or_default();
        // A path whose start is only known at run time (`${base}/users`,
        // possibly under known mount prefixes): the unknown prefix absorbs
        // everything before it.
        let path = match full.find(&format!("/{UNKNOWN_PREFIX}")) {
            Some(k) if !regex => salvaged_pattern(&full[k..], false),
            _ => PathPattern::parse(&full, regex),
        };
        operations.push(Operation {
            method,
            path,
            app: router_loc(project, r),
            mount_path,
            declarations: decls,
            reached: None,
        });
    }
    operations.sort_by(|a, b| {
        (a.path.express.as_bytes(), &a.method, &a.app).cmp(&(
            b.path.express.as_bytes(),
            &b.method,
            &b.app,
        ))
    });
    let apps: Vec<App> = roots
        .iter()
        .filter(|&&a| canonical(a) == a)
        .map(|&a| {
            let r = &interp.rec.routers[a as usize];
            App {
                at: router_loc(project, r),
                operations: app_counts.get(&a).copied().unwrap_or(0),
                reached: None,
            }
        })
        .chain(salvaged.apps.iter().map(|(a, reached)| {
            let a = *a;
            let r = &interp.rec.routers[a as usize];
            App {
                at: router_loc(project, r),
                operations: app_counts.get(&a).copied().unwrap_or(0),
                reached: Some(reached.clone()),
            }
        }))
        .collect();
    let canon: Vec<u32> = roots
        .iter()
        .copied()
        .filter(|&a| canonical(a) == a)
        .collect();
    findings.extend(crate::opaque::opaque_middleware(
        project,
        interp,
        &canon,
        &app_counts,
    ));
    findings.sort_by(|a, b| (&a.at, a.code, &a.message).cmp(&(&b.at, b.code, &b.message)));
    let entry_set: HashSet<FileId> = entries.iter().copied().collect();
    let source_files: Vec<SourceFile> = interp
        .rec
        .touched
        .iter()
        .map(|&f| SourceFile {
            file: project.rel(f).to_string(),
            hash: loader.get(f).hash.clone(),
            http: http_files.contains(&f),
        })
        .chain(
            interp
                .rec
                .data_modules
                .iter()
                .filter(|(_, d)| !d.hash.is_empty())
                .map(|(rel, d)| SourceFile {
                    file: rel.clone(),
                    hash: d.hash.clone(),
                    http: d.http,
                }),
        )
        .collect();
    let mut source_files = source_files;
    source_files.sort_by(|a, b| a.file.cmp(&b.file));
    // Operations under the unknown prefix are counted in `salvaged` only.
    let unique_ops: BTreeSet<(String, String, bool)> = operations
        .iter()
        .filter(|o| !o.path.express.starts_with(UNKNOWN_PREFIX))
        .map(|o| (o.method.clone(), o.path.express.clone(), o.path.regex))
        .collect();
    let stats = Stats {
        mounts: out.app_mounts.len(),
        operations: unique_ops.len(),
        declarations: out.decl_keys.len(),
        source_files: reached.iter().filter(|f| !entry_set.contains(f)).count(),
        salvaged: salvaged_ops.len(),
    };
    let mut inv = Inventory {
        entries: entries
            .iter()
            .map(|&e| project.rel(e).to_string())
            .collect(),
        entry_reasons: BTreeMap::new(),
        apps,
        operations,
        mounts: out.app_mounts.into_iter().collect(),
        findings,
        source_files,
        stats,
        socket_servers,
        events,
        event_stats,
        coverage: Coverage::default(),
        census: Vec::new(),
        timings: Timings::default(),
        input_key: None,
    };
    // A route a dispatch turned away is charted when another way reaches it.
    // (An `all` route's declaration keys are its methods, each.)
    if !out.unanswered.is_empty() {
        for (file, line, m, _) in &out.decl_keys {
            out.unanswered.remove(&(*file, *line, m.clone()));
            out.unanswered.remove(&(*file, *line, "all".to_string()));
        }
    }
    let run = census::RunView {
        project,
        loader,
        interp,
        reached,
        walked: &out.reached_routers,
        unanswered: &out.unanswered,
        imported: census::imported_by(project, loader, reached),
        events: !opts.skip_events,
        lb4_components: Default::default(),
        server_packages: crate::pipeline::server_packages(project),
    };
    let t = std::time::Instant::now();
    census::account(&run, census_files, &mut inv);
    inv.timings.census_account_ms = t.elapsed().as_secs_f64() * 1000.0;
    inv
}

/// A route path that matches every path under its mount: `*`, `/*`,
/// `/(.*)`, Express 5's `/*splat` and `/{*splat}`.
/// A 401/403 a route-level middleware refuses with: (status, file, line).
type Refusal = (u16, FileId, u32);

/// A route's handlers only pass the request on: they refuse it or pass it on
/// ([`refuses_or_passes`]) and answer nothing in a callback either.
fn passes_on(c: &crate::libs::schemas::RawContract) -> Option<Option<Refusal>> {
    if c.answered {
        return None;
    }
    refuses_or_passes(c)
}

/// A route's handlers, as the run saw them, pass the request on: the last
/// one called `next()`, and every response they gave refuses it (4xx/5xx; at
/// least one). `Some` with the 401/403 it refuses with, if any. The routes
/// after it at its method and path get what it passes on, behind its refusals.
fn refuses_or_passes(c: &crate::libs::schemas::RawContract) -> Option<Option<Refusal>> {
    if !c.passes || c.responses.is_empty() || c.responses.iter().any(|r| r.0 < 400) {
        return None;
    }
    Some(
        c.responses
            .iter()
            .filter(|r| r.0 == 401 || r.0 == 403)
            .min_by_key(|r| (r.0, r.2, r.3))
            .map(|r| (r.0, r.2, r.3)),
    )
}

/// A route recorded for a `use`d function that may pass the request on
/// (see `Recorder::dispatch_answers`): an operation only below a route that
/// hands requests to its router.
pub(crate) fn dispatch_only(interp: &Interp, reg: &crate::machine::Reg) -> bool {
    matches!(&reg.kind, RegKind::Route { subpaths: true, handler: Some(h), .. }
        if h.at.is_some_and(|at| interp.rec.dispatch_answers.contains(&(at, (reg.file, reg.line)))))
}

fn catch_all(p: &PathArg) -> bool {
    let PathArg::Str(s) = p else { return false };
    let t = s.trim_start_matches('/');
    let named = |rest: &str| {
        rest.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    t == "(.*)"
        || t.strip_prefix('*').is_some_and(named)
        || t.strip_prefix("{*")
            .and_then(|r| r.strip_suffix('}'))
            .is_some_and(named)
}

fn public_contract(project: &Project, c: &machine::RawContract) -> Contract {
    let info = |_: &str, x: &Option<(serde_json::Value, SchemaLabel, FileId, u32)>| {
        x.as_ref().map(|(schema, label, f, l)| SchemaInfo {
            schema: schema.clone(),
            source: label.source.as_str().into(),
            name: label.name.clone(),
            at: loc(project, *f, *l),
        })
    };
    let mut responses: Vec<ResponseInfo> = c
        .responses
        .iter()
        .map(|(status, schema, f, l)| ResponseInfo {
            status: *status,
            schema: schema.as_ref().map(|s| SchemaInfo {
                schema: s.clone(),
                source: "literal".into(),
                name: None,
                at: loc(project, *f, *l),
            }),
            at: loc(project, *f, *l),
        })
        .collect();
    responses.sort_by(|a, b| (a.status, &a.at).cmp(&(b.status, &b.at)));
    Contract {
        body: info("zod", &c.body),
        query: info("zod", &c.query),
        params: info("zod", &c.params),
        query_read: c.query_read.iter().cloned().collect(),
        headers_read: c.headers_read.iter().cloned().collect(),
        body_read: c.body_read.iter().cloned().collect(),
        responses,
    }
}

/// The condition of a declaration reached under conditions `a` and under
/// `b`: none when they are each other's negation (`x` and `!(x)`, the two
/// branches of one `if`), else `a || b`; none when either is none: a
/// declaration also reached without a test is always registered, whichever
/// way came first (`if (A) start(); start();`), and so is one that some
/// entry's program registers without a test (mockoon's command-line tool
/// starts the server its desktop app starts under tests).
fn either(a: Option<String>, b: Option<String>) -> Option<String> {
    let (Some(a), Some(b)) = (a, b) else {
        return None;
    };
    if a == b {
        return Some(a);
    }
    if b == format!("!({a})") || a == format!("!({b})") {
        return None;
    }
    Some(format!(
        "{} || {}",
        crate::conditions::and_operand(&a),
        crate::conditions::and_operand(&b)
    ))
}
