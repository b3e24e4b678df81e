//! What a receiver's name is bound to by a relative import, for the
//! census's account of calls that are not registrations: an HTTP client
//! instance a module exports, an object literal with its own function, or a
//! module with its own function of the method's name.

use super::account::RunView;
use crate::ir::{Pattern, Stmt};
use crate::project::FileId;

/// The module a receiver is imported from (by a relative specifier, or
/// one the project's path aliases resolve to its own file: `@/api/client`
/// with jsconfig's `"@/*": ["./src/*"]`) and the HTTP client package whose
/// instance that module exports (`import client from './client'` where
/// `client.js` exports `axios.create(…)`).
pub(super) fn imported_client(
    run: &RunView,
    file: FileId,
    receiver: &str,
) -> Option<(String, String)> {
    let root = receiver.split(['.', '(', '[', '?']).next()?;
    let facts = &run.loader.get(file).facts;
    let (_, spec) = super::bindings_from(facts, |_| true)
        .into_iter()
        .find(|(n, _)| n == root)?;
    let crate::project::Resolved::File(id) = run.project.resolve(file, &spec) else {
        return None;
    };
    let client = super::packages::exported_client(&run.loader.get(id).facts)?;
    Some((run.project.rel(id).to_string(), client))
}

/// Where the object a receiver names is written (`file:line`), when a
/// relative import binds the name (`import { api } from './api'`, `const {
/// api } = require('./api')`) to an object literal that module writes at its
/// top level, or re-exports from another (`export * from './client'`), with
/// its own function under `method` (see [`super::packages::own_object_method`]).
pub(super) fn imported_own_object(
    run: &RunView,
    file: FileId,
    receiver: &str,
    method: &str,
) -> Option<String> {
    if receiver.contains(['.', '(', '[', '?']) {
        return None;
    }
    let facts = &run.loader.get(file).facts;
    let (spec, name) = facts.body.iter().find_map(|st| match st {
        Stmt::Import(imp) if imp.source.starts_with('.') => imp
            .named
            .iter()
            .find(|(_, local)| local == receiver)
            .map(|(imported, _)| (imp.source.clone(), imported.clone())),
        Stmt::Var(decls) => decls.iter().find_map(|(p, e)| match p {
            Pattern::Object(props, _) => {
                let spec = e.as_ref().and_then(super::required)?;
                if !spec.starts_with('.') {
                    return None;
                }
                props.iter().find_map(|(k, p)| match (k, p) {
                    (crate::ir::PropKey::Name(k), Pattern::Ident(l)) if l == receiver => {
                        Some((spec.to_string(), k.clone()))
                    }
                    _ => None,
                })
            }
            _ => None,
        }),
        _ => None,
    })?;
    let crate::project::Resolved::File(id) = run.project.resolve(file, &spec) else {
        return None;
    };
    exported_object(run, id, &name, method, 0)
}

/// Where module `id` (or a module it re-exports `name` from) writes the
/// object literal `name` with its own function `method`.
fn exported_object(
    run: &RunView,
    id: FileId,
    name: &str,
    method: &str,
    depth: u32,
) -> Option<String> {
    if depth > 4 {
        return None;
    }
    let facts = &run.loader.get(id).facts;
    if let Some(line) = super::packages::own_object_method(facts, name, method) {
        return Some(format!("{}:{line}", run.project.rel(id)));
    }
    facts.body.iter().find_map(|st| {
        let (spec, inner) = match st {
            Stmt::ExportNames(names, Some(spec), _) => names
                .iter()
                .find(|(_, exported)| exported == name)
                .map(|(local, _)| (spec, local.as_str()))?,
            Stmt::ExportAll(spec, None, _) => (spec, name),
            _ => return None,
        };
        match run.project.resolve(id, spec) {
            crate::project::Resolved::File(next) => {
                exported_object(run, next, inner, method, depth + 1)
            }
            _ => None,
        }
    })
}

/// The module a receiver is (a relative module bound whole to the name:
/// `const authCache = require('./authCache')`, `import cache from './cache'`,
/// `import * as cache from './cache'`) when that module exports a function
/// of its own named `method`.
pub(super) fn imported_own_function(
    run: &RunView,
    file: FileId,
    receiver: &str,
    method: &str,
) -> Option<String> {
    let facts = &run.loader.get(file).facts;
    let spec = facts.body.iter().find_map(|st| match st {
        Stmt::Import(imp)
            if imp.source.starts_with('.')
                && (imp.default.as_deref() == Some(receiver)
                    || imp.namespace.as_deref() == Some(receiver)) =>
        {
            Some(imp.source.clone())
        }
        Stmt::Var(decls) => decls.iter().find_map(|(p, e)| match p {
            Pattern::Ident(n) if n == receiver => e
                .as_ref()
                .and_then(super::required)
                .filter(|s| s.starts_with('.'))
                .map(str::to_string),
            _ => None,
        }),
        _ => None,
    })?;
    let crate::project::Resolved::File(id) = run.project.resolve(file, &spec) else {
        return None;
    };
    super::packages::exports_own_function(&run.loader.get(id).facts, method)
        .then(|| run.project.rel(id).to_string())
}
