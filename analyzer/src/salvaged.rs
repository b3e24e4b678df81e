//! Charting what the salvage pass reached (see `machine/salvage.rs`): apps built
//! by code nobody called, walked like the entries' apps, and routers with
//! routes that nothing mounts, walked under the unknown prefix `{?}`.
//!
//! Captures: every operation under those roots with every mount prefix joined
//! inside the salvaged code, tagged with a [`Reached`]. A declaration the
//! entries' apps already chart is never charted again (an app both reached and
//! salvaged is the entries'), and salvaged apps created at one site are one app.
//!
//! Deliberately not captured: where an unmounted router would really be
//! mounted (its prefix stays `{?}`; the `unmounted-router` finding stays too).

use crate::inventory::*;
use crate::machine::Salvage;
use crate::machine::{self, Interp, RegKind};
use crate::mounts::{WalkOut, loc, walk};
use crate::paths::{PathParam, PathPattern};
use crate::project::{FileId, Project};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// One salvaged operation.
pub(crate) struct SalvagedOp {
    pub(crate) reached: Reached,
    pub(crate) app: u32,
    pub(crate) method: String,
    pub(crate) full: String,
    pub(crate) regex: bool,
    pub(crate) mount_path: String,
    pub(crate) decls: Vec<Declaration>,
}

/// What the salvage pass charts: apps (root router, how) and operations.
#[derive(Default)]
pub(crate) struct Salvaged {
    pub(crate) apps: Vec<(u32, Reached)>,
    pub(crate) ops: Vec<SalvagedOp>,
}

fn reached_of(project: &Project, s: &Salvage) -> Reached {
    Reached {
        how: s.kind.as_str().to_string(),
        via: s.func.clone(),
        at: loc(project, s.file, s.line),
    }
}

fn new_out() -> WalkOut {
    WalkOut {
        ops: BTreeMap::new(),
        mount_paths: BTreeMap::new(),
        reached_routers: HashSet::new(),
        decl_keys: BTreeSet::new(),
        app_mounts: BTreeSet::new(),
        dispatches: Vec::new(),
        unanswered: BTreeMap::new(),
        passed_on: Vec::new(),
        never: Vec::new(),
    }
}

/// A declaration: (site, method, route path).
pub(crate) type DeclKey = (Location, String, String);

/// The declarations `ops` charts, as charted by no salvaged app (`u32::MAX`).
fn charted(
    ops: &BTreeMap<(u32, String, String, bool), Vec<Declaration>>,
) -> BTreeMap<DeclKey, u32> {
    ops.iter()
        .flat_map(|((_, m, _, _), ds)| {
            ds.iter()
                .map(move |d| ((d.at.clone(), m.clone(), d.route_path.clone()), u32::MAX))
        })
        .collect()
}

/// The declarations charted from the roots (`out`) and by the salvaged apps
/// (`found`), as charted by no salvaged router (`u32::MAX`): an unmounted
/// router's declaration among them is charted already (by another instance
/// the same code made, which was mounted).
pub(crate) fn charted_so_far(out: &WalkOut, found: &Salvaged) -> BTreeMap<DeclKey, u32> {
    let mut seen = charted(&out.ops);
    for op in &found.ops {
        for d in &op.decls {
            seen.insert(
                (d.at.clone(), op.method.clone(), d.route_path.clone()),
                u32::MAX,
            );
        }
    }
    seen
}

/// Keep the operations of `sout` whose declarations nothing charted yet.
fn keep_new(
    sout: WalkOut,
    seen: &mut BTreeMap<DeclKey, u32>,
    reached: impl Fn(u32) -> Reached,
    mount_path: impl Fn(&str) -> String,
    into: &mut Vec<SalvagedOp>,
) {
    // In walk order (apps in creation order): the first app to chart a
    // declaration keeps it (under each prefix it mounts it at).
    for ((app, method, full, regex), decls) in sout.ops {
        let decls: Vec<Declaration> = decls
            .into_iter()
            .filter(|d| {
                let key = (d.at.clone(), method.clone(), d.route_path.clone());
                *seen.entry(key).or_insert(app) == app
            })
            .collect();
        if decls.is_empty() {
            continue;
        }
        let mp = sout
            .mount_paths
            .get(&(app, method.clone(), full.clone(), regex))
            .cloned()
            .unwrap_or_default();
        into.push(SalvagedOp {
            reached: reached(app),
            app,
            method,
            mount_path: mount_path(&mp),
            full,
            regex,
            decls,
        });
    }
}

/// Walk the apps the salvage pass built (not those the entries reach).
pub(crate) fn salvage_walk(
    project: &Project,
    interp: &Interp,
    roots: &[u32],
    out: &mut WalkOut,
) -> Salvaged {
    let mut found = Salvaged::default();
    // An app created where an entry's app is created is that app: what the
    // salvaged code adds to it is charted there, the rest is already.
    let mut canon: BTreeMap<(FileId, u32), u32> = roots
        .iter()
        .map(|&i| {
            let r = &interp.rec.routers[i as usize];
            ((r.file, r.line), i)
        })
        .collect();
    let mut tags: BTreeMap<u32, Reached> = BTreeMap::new();
    let mut sout = new_out();
    for (i, r) in interp.rec.routers.iter().enumerate() {
        let Some(tag) = &r.salvage else { continue };
        if !r.is_app || r.mounted {
            continue;
        }
        let root = i as u32;
        let app = *canon.entry((r.file, r.line)).or_insert(root);
        if app == root {
            found.apps.push((root, reached_of(project, tag)));
        }
        tags.entry(app).or_insert_with(|| reached_of(project, tag));
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
            &mut sout,
        );
    }
    crate::mounts::settle_passed_on(&mut sout);
    // Salvaged apps count like the entries' (what is under the unknown prefix does not).
    out.reached_routers
        .extend(sout.reached_routers.iter().copied());
    out.decl_keys.extend(sout.decl_keys.iter().cloned());
    out.app_mounts.extend(sout.app_mounts.iter().cloned());
    let mut seen = charted(&out.ops);
    keep_new(
        sout,
        &mut seen,
        |app| tags[&app].clone(),
        |mp| mp.to_string(),
        &mut found.ops,
    );
    found
}

/// Walk, under the unknown prefix, the routers with routes that nothing mounts.
pub(crate) fn salvage_unmounted(
    project: &Project,
    interp: &Interp,
    out: &WalkOut,
    mut found: Salvaged,
) -> Salvaged {
    let mut uout = new_out();
    let mut tags: BTreeMap<u32, Reached> = BTreeMap::new();
    for (i, r) in interp.rec.routers.iter().enumerate() {
        let i = i as u32;
        if out.reached_routers.contains(&i) || uout.reached_routers.contains(&i) || r.mounted {
            continue;
        }
        // An app in a file no entry reaches is an `unreached-app` finding;
        // a salvaged app is walked as an app.
        if r.is_app && (r.unreached || r.salvage.is_some()) {
            continue;
        }
        if !r.regs.iter().any(|g| {
            matches!(g.kind, RegKind::Route { .. }) && !crate::mounts::dispatch_only(interp, g)
        }) {
            continue;
        }
        tags.insert(
            i,
            Reached {
                how: match &r.salvage {
                    Some(s) if s.kind == machine::SalvageKind::Unregistered => s.kind.as_str(),
                    _ => machine::SalvageKind::Unmounted.as_str(),
                }
                .to_string(),
                via: r
                    .salvage
                    .as_ref()
                    .map_or_else(|| "router".to_string(), |s| s.func.clone()),
                at: match &r.salvage {
                    Some(s) => loc(project, s.file, s.line),
                    None => loc(project, r.file, r.line),
                },
            },
        );
        walk(
            project,
            interp,
            i,
            i,
            UNKNOWN_PREFIX,
            &[],
            &[],
            None,
            &mut Vec::new(),
            &mut uout,
        );
    }
    crate::mounts::settle_passed_on(&mut uout);
    let mut seen = charted_so_far(out, &found);
    keep_new(
        uout,
        &mut seen,
        |app| tags[&app].clone(),
        |_| UNKNOWN_PREFIX.to_string(),
        &mut found.ops,
    );
    found
}

/// The path of a salvaged operation: under the unknown prefix, `{?}/users/:id`
/// in Express form and `/{unknownPrefix}/users/{id}` in OpenAPI form (a path
/// parameter, so that the template stays a valid OpenAPI path).
pub(crate) fn salvaged_pattern(full: &str, regex: bool) -> PathPattern {
    let marked = format!("/{UNKNOWN_PREFIX}");
    let Some(rest) = full.strip_prefix(&marked) else {
        return PathPattern::parse(full, regex);
    };
    if regex {
        return PathPattern {
            express: format!("{UNKNOWN_PREFIX}{rest}"),
            openapi: format!("{UNKNOWN_PREFIX}{rest}"),
            params: Vec::new(),
            regex: true,
        };
    }
    let inner = PathPattern::parse(if rest.is_empty() { "/" } else { rest }, false);
    let tail = |s: &str| {
        if s == "/" {
            String::new()
        } else {
            s.to_string()
        }
    };
    let mut params = vec![PathParam {
        name: UNKNOWN_PREFIX_PARAM.into(),
        optional: false,
        wildcard: false,
        pattern: None,
    }];
    params.extend(inner.params);
    PathPattern {
        express: format!("{UNKNOWN_PREFIX}{}", tail(&inner.express)),
        openapi: format!("/{{{UNKNOWN_PREFIX_PARAM}}}{}", tail(&inner.openapi)),
        params,
        regex: false,
    }
}
