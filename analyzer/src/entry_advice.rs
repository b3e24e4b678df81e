//! The `missed-entry` finding: when the entries leave many of the census's
//! registrations in code they never run, and another file of the program
//! starts a server and imports the files that hold them, the entry is
//! probably wrong; the finding names that file and the `--entry` to try.
//!
//! Example: auto-detection starts from `src/bootstrap.ts` (it calls
//! `NestFactory.create` inside an exported function); `src/main.ts` calls
//! that function with the root module and no file imports it. With 40 of 50
//! registrations `uncalled-function`, the finding says "`src/main.ts` starts
//! a server … try --entry src/main.ts".
//!
//! A candidate starts a server by its bytes (`.listen(`,
//! `NestFactory.create`, `createExpressServer(`) or is named by a manifest's
//! start script; running the entries did not load it (`reached`, before
//! the passes that run code nobody calls); it is not a test or browser
//! file. It "would reach" an item when the item's file is in its static
//! import closure (imports, re-exports, literal `require`/`import()`, read
//! from the bytes as the prefilter does). That is an over-approximation
//! (importing is not calling), which is why this is a warning that names a
//! remedy, not a change of entries.
//!
//! The `unmodelled-framework` finding: a program that charts no operation
//! while its entries' packages (or the root's) depend on a server framework
//! the analyzer does not model ([`UNMODELLED`]) is built on that framework;
//! the finding names it at the manifest line that depends on it, so "0
//! operations" never stands unexplained (unless census items of the
//! framework's own shape already say so). Charted Socket.IO events do not
//! explain it: a Koa or Fastify server with a Socket.IO server beside it
//! still serves HTTP routes that are not charted.
//!
//! Deliberately not here: choosing the entries (`pipeline.rs`, `entries.rs`).

use crate::census::is_client_path;
use crate::inventory::{Finding, FindingCode, Inventory, Location};
use crate::is_test_path;
use crate::loader::Loader;
use crate::project::FileId;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The census causes that mean "no entry runs this code".
const UNRUN: &[&str] = &["uncalled-function", "unreached-file"];

/// Fewer unrun registrations than this are not "many".
const MIN_UNRUN: usize = 5;

/// The most candidates named in the finding.
const MAX_NAMED: usize = 3;

/// Calls by which a file starts a server.
const STARTS: &[&str] = &[".listen(", "NestFactory.create", "createExpressServer("];

/// The finding, when the entries chart little of what the census found (at
/// least [`MIN_UNRUN`] HTTP registrations and a quarter of them unrun) and
/// a candidate (see the module doc) imports the files of at least half of
/// those. `launched` are files manifests name as how the program starts,
/// with why.
pub(crate) fn missed_entry(
    loader: &Arc<Loader>,
    reached: &BTreeSet<FileId>,
    entries: &[FileId],
    launched: &BTreeMap<FileId, String>,
    inv: &Inventory,
) -> Option<Finding> {
    let project = &loader.project;
    let mut unrun: BTreeMap<FileId, usize> = BTreeMap::new();
    let mut total = 0;
    for item in inv.census.iter().filter(|c| c.kind != "event") {
        let cause = item.cause.as_deref();
        if matches!(cause, Some("not-a-router")) {
            continue;
        }
        total += 1;
        if cause.is_some_and(|c| UNRUN.contains(&c))
            && let Some(f) = project.file_id(&item.at.file)
        {
            *unrun.entry(f).or_default() += 1;
        }
    }
    let n: usize = unrun.values().sum();
    if n < MIN_UNRUN || n * 4 < total {
        return None;
    }
    let eligible = |f: FileId| {
        let rel = project.rel(f);
        !entries.contains(&f) && !reached.contains(&f) && !is_test_path(rel) && !is_client_path(rel)
    };
    let mut candidates: BTreeMap<FileId, (u32, String)> = launched
        .iter()
        .filter(|(f, _)| eligible(**f))
        .map(|(&f, why)| (f, (1, why.clone())))
        .collect();
    candidates.extend(
        starting_files(loader)
            .into_iter()
            .filter(|(f, _)| eligible(*f)),
    );
    let mut reach: Vec<(usize, FileId)> = candidates
        .keys()
        .map(|&c| {
            let k: usize = import_closure(loader, c)
                .iter()
                .filter_map(|f| unrun.get(f))
                .sum();
            (k, c)
        })
        .filter(|&(k, _)| k >= MIN_UNRUN && k * 2 >= n)
        .collect();
    // Most reached first, then those a start script names, then in path order.
    reach.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(
                launched
                    .contains_key(&b.1)
                    .cmp(&launched.contains_key(&a.1)),
            )
            .then(project.rel(a.1).cmp(project.rel(b.1)))
    });
    reach.truncate(MAX_NAMED);
    let &(_, best) = reach.first()?;
    let named: Vec<String> = reach
        .iter()
        .map(|&(k, c)| {
            format!(
                "`{}` ({}) imports the files that hold {k} of them",
                project.rel(c),
                candidates[&c].1
            )
        })
        .collect();
    Some(Finding {
        code: FindingCode::MissedEntry,
        at: Location {
            file: project.rel(best).to_string(),
            line: candidates[&best].0,
        },
        message: format!(
            "{n} of {total} registrations are in code no entry runs (uncalled-function, unreached-file): the entries are probably not how the program starts; {}; try --entry {}",
            named.join("; "),
            project.rel(best)
        ),
        cause: None,
    })
}

/// Files whose bytes start a server (see [`STARTS`]), with the line of the
/// first such call and what it is.
fn starting_files(loader: &Arc<Loader>) -> Vec<(FileId, (u32, String))> {
    use rayon::prelude::*;
    let project = &loader.project;
    let finders: Vec<memchr::memmem::Finder> = STARTS
        .iter()
        .map(|s| memchr::memmem::Finder::new(s.as_bytes()))
        .collect();
    (0..project.files.len() as FileId)
        .into_par_iter()
        .filter(|&f| project.files[f as usize].size <= 2 << 20)
        .filter_map(|f| {
            let bytes = std::fs::read(project.abs(f)).ok()?;
            let (at, which) = finders
                .iter()
                .zip(STARTS)
                .filter_map(|(w, s)| w.find(&bytes).map(|at| (at, s)))
                .min()?;
            let line = bytes[..at].iter().filter(|b| **b == b'\n').count() as u32 + 1;
            let what = which.trim_start_matches('.').trim_end_matches('(');
            Some((f, (line, format!("calls {what} at line {line}"))))
        })
        .collect()
}

/// The files `from` imports, transitively (itself included).
fn import_closure(loader: &Loader, from: FileId) -> BTreeSet<FileId> {
    let mut seen = BTreeSet::from([from]);
    let mut stack = vec![from];
    while let Some(f) = stack.pop() {
        for &t in loader.byte_imports(f) {
            if seen.insert(t) {
                stack.push(t);
            }
        }
    }
    seen
}

/// Server frameworks that declare routes in ways the analyzer does not
/// model (a route table of their own, file-based routing, their own router
/// API), by package name, with the name shown.
const UNMODELLED: &[(&str, &str)] = &[
    ("sails", "Sails"),
    ("@adonisjs/core", "AdonisJS"),
    ("@hapi/hapi", "hapi"),
    ("hapi", "hapi"),
    ("koa", "Koa"),
    ("fastify", "Fastify"),
    ("@nestjs/platform-fastify", "NestJS on Fastify"),
    ("restify", "restify"),
    ("hono", "Hono"),
    ("@strapi/strapi", "Strapi"),
    ("moleculer-web", "Moleculer"),
    ("egg", "Egg.js"),
    ("@midwayjs/core", "Midway"),
    ("thinkjs", "ThinkJS"),
    ("actionhero", "Actionhero"),
    ("polka", "Polka"),
    ("@tinyhttp/app", "tinyhttp"),
    ("micro", "micro"),
    ("pixl-server-web", "pixl-server-web"),
    ("next", "Next.js"),
    ("nuxt", "Nuxt"),
    ("@sveltejs/kit", "SvelteKit"),
    ("@remix-run/node", "Remix"),
    ("meteor-node-stubs", "Meteor"),
];

/// The server framework Portolan does not model that the package holding
/// `rel` (its nearest package.json) is built on: the package's name, the
/// name shown, and the manifest. `None` when that package can serve through
/// what Portolan models (`servers`: see `pipeline::server_packages`) or
/// depends on none of [`UNMODELLED`].
pub(crate) fn unmodelled_package_framework(
    project: &crate::project::Project,
    servers: &BTreeSet<&str>,
    rel: &str,
) -> Option<(&'static str, &'static str, String)> {
    let dir = project.package_dir_of(rel.rsplit_once('/').map_or("", |(d, _)| d));
    if servers.contains(dir) {
        return None;
    }
    let pkg = project.package_at(dir)?;
    let (name, shown) = framework_in(&pkg.json, &["dependencies", "peerDependencies"])?;
    Some((name, shown, crate::project::manifest_of(dir)))
}

/// The first of [`UNMODELLED`] (in its order) that a package.json lists
/// under one of `keys`.
fn framework_in(
    json: &serde_json::Value,
    keys: &[&str],
) -> Option<&'static (&'static str, &'static str)> {
    UNMODELLED.iter().find(|(n, _)| {
        keys.iter()
            .filter_map(|k| json.get(*k).and_then(|d| d.as_object()))
            .any(|d| d.contains_key(*n))
    })
}

/// The `unmodelled-framework` finding (see the module doc), if any.
pub(crate) fn unmodelled_framework(
    project: &crate::project::Project,
    entries: &[FileId],
    inv: &Inventory,
) -> Option<Finding> {
    // (Census items of a framework's own shape, such as Next.js's
    // `route.ts` handlers, already have their `unmodelled-framework` cause.)
    if !inv.operations.is_empty()
        || inv
            .census
            .iter()
            .any(|c| c.cause.as_deref() == Some("unmodelled-framework"))
    {
        return None;
    }
    let mut dirs: BTreeSet<String> = entries
        .iter()
        .map(|&e| {
            let rel = project.rel(e);
            let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
            project.package_dir_of(dir).to_string()
        })
        .collect();
    dirs.insert(String::new());
    for dir in &dirs {
        let Some(pkg) = project.package_at(dir) else {
            continue;
        };
        // The runtime dependencies first; then the development ones, where
        // an app bundled for production lists its server framework (flood's
        // `fastify`, compiled into `dist/`).
        let Some((name, shown)) = framework_in(&pkg.json, &["dependencies", "peerDependencies"])
            .or_else(|| framework_in(&pkg.json, &["devDependencies"]))
        else {
            continue;
        };
        let manifest = crate::project::manifest_of(dir);
        let line = manifest_line(&project.root, &manifest, &format!("\"{name}\""));
        let what = if inv.events.is_empty() {
            "nothing is charted"
        } else {
            "no HTTP operation is charted (only Socket.IO events)"
        };
        return Some(Finding {
            code: FindingCode::UnmodelledFramework,
            at: Location {
                file: manifest,
                line,
            },
            message: format!(
                "{what}, and the program depends on `{name}`: {shown} declares and serves its routes in its own way, which Portolan does not model"
            ),
            cause: None,
        });
    }
    None
}

/// The 1-based line of `manifest` (relative to `root`) that first holds
/// `needle`, or 1 (unreadable, or not named there).
pub(crate) fn manifest_line(root: &std::path::Path, manifest: &str, needle: &str) -> u32 {
    std::fs::read_to_string(root.join(manifest))
        .ok()
        .and_then(|text| text.lines().position(|l| l.contains(needle)))
        .map_or(1, |i| i as u32 + 1)
}
