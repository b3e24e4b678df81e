//! The LoopBack 4 component of a library package that would serve a
//! controller no application serves: a package of components (`loopback-
//! extension`) makes no application; its controllers are served when an
//! application registers one of its components (`app.component(C)`: the
//! classes of the component's `controllers`, and those its `booters` load).
//! The census says so of such a controller, naming the component, instead
//! of advising an entry the package does not have.
//!
//! A component here is a class of the controller's package (its nearest
//! `package.json`), outside tests, that gives LoopBack the `controllers` or
//! `booters` a component lists: a field of that name (declared, as
//! `booters?: Class<Booter>[]`, or initialized) or a write `this.booters =`
//! / `this.controllers =` in a file that declares it. A component whose
//! folder holds the controller's file comes first (a booter sited at the
//! component's `__dirname`), the nearest first.
//!
//! Example: `services/stock/src/component.ts` declares `class
//! StockComponent { booters?: Function[]; constructor() { this.booters =
//! [...] } }`; no application registers it; `@get('/stock')` in
//! `services/stock/src/controllers/stock.controller.ts` is "served only
//! when an application registers the component `StockComponent`".

use crate::ir::{FileFacts, Stmt};
use crate::loader::Loader;
use crate::project::{FileId, Project};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// The packages whose LoopBack 4 verb decorators these are.
pub(crate) fn is_lb4_framework(pkg: &str) -> bool {
    pkg == "@loopback/rest" || pkg == "@loopback/openapi-v3"
}

/// One component class.
#[derive(Clone, Debug)]
pub(crate) struct Component {
    pub(crate) name: String,
    pub(crate) file: FileId,
    pub(crate) line: u32,
}

/// The components of each package folder, found once.
#[derive(Default)]
pub(crate) struct Components {
    by_package: RefCell<HashMap<String, Vec<Component>>>,
}

impl Components {
    /// The components of the package holding `file` (see the module doc)
    /// that would serve its class `class`, and the package's name: those
    /// whose file names the class (a `controllers` list), else those whose
    /// folder holds `file` (a booter sited there), nearest first, else all.
    pub(crate) fn of(
        &self,
        project: &Project,
        loader: &Arc<Loader>,
        file: FileId,
        class: Option<&str>,
    ) -> (Vec<Component>, String) {
        let rel = project.rel(file);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let pkg = project.package_dir_of(dir).to_string();
        let name = project
            .package_at(&pkg)
            .and_then(|p| p.json.get("name"))
            .and_then(|n| n.as_str())
            .map_or_else(|| format!("{pkg}/"), str::to_string);
        let found = self
            .by_package
            .borrow_mut()
            .entry(pkg.clone())
            .or_insert_with(|| scan(project, loader, &pkg))
            .clone();
        let folder = |c: &Component| {
            let r = project.rel(c.file);
            r.rsplit_once('/').map_or("", |(d, _)| d).to_string()
        };
        let names = |c: &Component| {
            class.is_some_and(|k| {
                std::fs::read(project.abs(c.file))
                    .is_ok_and(|b| String::from_utf8_lossy(&b).contains(k))
            })
        };
        let mut ranked: Vec<(usize, Component)> = found
            .into_iter()
            .map(|c| {
                let d = folder(&c);
                let holds = d.is_empty() || dir == d || dir.starts_with(&format!("{d}/"));
                let rank = if names(&c) {
                    0
                } else if holds {
                    // Nearest (deepest) holding folder first.
                    usize::MAX / 2 - d.len()
                } else {
                    usize::MAX
                };
                (rank, c)
            })
            .collect();
        ranked.sort_by_key(|(k, c)| (*k, project.rel(c.file).to_string(), c.line));
        let group = |k: usize| match k {
            0 => 0,
            usize::MAX => 2,
            _ => 1,
        };
        let best = ranked.first().map(|(k, _)| group(*k));
        let chosen = ranked
            .into_iter()
            .filter(|(k, _)| Some(group(*k)) == best)
            .map(|(_, c)| c)
            .collect();
        (chosen, name)
    }
}

/// The component classes of the package in folder `pkg` ("" the root).
fn scan(project: &Project, loader: &Arc<Loader>, pkg: &str) -> Vec<Component> {
    let prefix = if pkg.is_empty() {
        String::new()
    } else {
        format!("{pkg}/")
    };
    let mut out = Vec::new();
    for (id, f) in project.files.iter().enumerate() {
        let id = id as FileId;
        if !f.rel.starts_with(&prefix)
            || f.rel.contains("/node_modules/")
            || crate::is_test_path(&f.rel)
            || f.rel.ends_with(".d.ts")
            // (A file of a nested package is that package's.)
            || project.package_dir_of(f.rel.rsplit_once('/').map_or("", |(d, _)| d)) != pkg
        {
            continue;
        }
        // Read the bytes first: only files naming the members are parsed.
        let Ok(bytes) = std::fs::read(project.abs(id)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        if !text.contains("booters") && !text.contains("controllers") {
            continue;
        }
        let writes = text.contains("this.booters =") || text.contains("this.controllers =");
        let facts = loader.get(id).facts.clone();
        out.extend(
            classes(&facts, writes)
                .into_iter()
                .map(|(name, line)| Component {
                    name,
                    file: id,
                    line,
                }),
        );
    }
    out
}

/// The top-level classes of a file that list `controllers` or `booters`.
fn classes(facts: &FileFacts, writes: bool) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for st in &facts.body {
        let st = match st {
            Stmt::ExportDecl(inner, _) => inner.as_ref(),
            s => s,
        };
        let Stmt::Class(name, c) = st else {
            continue;
        };
        let member = |m: &str| {
            c.fields.iter().any(|(n, _)| n == m) || c.field_types.iter().any(|(n, _, _)| n == m)
        };
        if member("booters") || member("controllers") || (writes && c.constructor.is_some()) {
            out.push((name.clone(), c.line));
        }
    }
    out
}
