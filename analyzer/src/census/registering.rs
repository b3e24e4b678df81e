//! Which calls of the program's own functions register: a census `call`
//! item counts as what the function it calls holds (its own counted items,
//! or those of the module's functions it calls a few deep), read from the
//! module's facts.
//!
//! Deliberately not here: whether a call ran (the accounting in
//! `account.rs` asks the evaluation).

use super::account::RunView;
use super::{CallTarget, CensusItem, CensusKind};
use crate::ir::{FileFacts, Stmt};
use crate::project::FileId;
use std::collections::{HashMap, HashSet};

/// The export a top-level name binds by name from a relative module:
/// `import { a as local } from './m'`, `const { a: local } = require('./m')`,
/// `var local = require('./m').a`.
pub(super) fn imported_export(facts: &FileFacts, local: &str) -> Option<String> {
    use crate::ir::{Pattern, PropKey};
    facts.body.iter().find_map(|st| match st {
        Stmt::Import(imp) if imp.source.starts_with('.') => imp
            .named
            .iter()
            .find(|(_, l)| l == local)
            .map(|(x, _)| x.clone()),
        Stmt::Var(decls) => decls.iter().find_map(|(p, e)| {
            // `var randomInt = require('./util').randomInt`
            if let (Pattern::Ident(l), Some(crate::ir::Expr::Member(o, x))) = (p, e)
                && l == local
            {
                return super::packages::required(o)
                    .filter(|s| s.starts_with('.'))
                    .map(|_| x.clone());
            }
            let Pattern::Object(props, _) = p else {
                return None;
            };
            e.as_ref()
                .and_then(super::packages::required)
                .filter(|s| s.starts_with('.'))?;
            props.iter().find_map(|(k, v)| match (k, v) {
                (PropKey::Name(x), Pattern::Ident(l)) if l == local => Some(x.clone()),
                (PropKey::Name(x), Pattern::Default(d, _))
                    if matches!(d.as_ref(), Pattern::Ident(l) if l == local) =>
                {
                    Some(x.clone())
                }
                _ => None,
            })
        }),
        _ => None,
    })
}

/// Whether the function `name` of module `t` holds a counted item of the
/// kind (`event`), or calls one of the module's own functions that does (a
/// few calls deep: `exports.mount = (app) => addRoutes(app)`); one that calls
/// another module's function counts when its module counts any.
pub(super) fn function_registers(
    run: &RunView,
    real: &HashMap<(FileId, bool), HashSet<String>>,
    t: FileId,
    name: &str,
    event: bool,
    depth: u32,
) -> bool {
    if real
        .get(&(t, event))
        .is_some_and(|names| names.contains(name))
    {
        return true;
    }
    let loaded = run.loader.get(t);
    let calls: Vec<&CensusItem> = loaded
        .facts
        .census
        .iter()
        .filter(|i| {
            i.kind == CensusKind::Call
                && i.method != name
                && i.enclosing.iter().any(|(_, n, _)| n == name)
        })
        .collect();
    if depth >= 4 || calls.iter().any(|i| i.target != Some(CallTarget::Local)) {
        // (What another module's function does is not followed here: the
        // module counts if it registers at all.)
        return !calls.is_empty() && real.get(&(t, event)).is_some_and(|n| !n.is_empty());
    }
    calls
        .iter()
        .any(|i| function_registers(run, real, t, &i.method, event, depth + 1))
}

/// The local name a module's export `name` has: the name itself, or the one
/// an export list renames (`export { _parseMultipart as parseTorrentMultipart }`).
pub(super) fn local_of_export(facts: &FileFacts, name: &str) -> String {
    let renamed = facts.body.iter().find_map(|st| match st {
        Stmt::ExportNames(names, None, _) => names
            .iter()
            .find(|(_, exported)| exported == name)
            .map(|(local, _)| local.clone()),
        _ => None,
    });
    renamed.unwrap_or_else(|| name.to_string())
}

/// Whether a module's top level declares a function named `name` (`function
/// name`, `const name = () => …`, `exports.name = function …`, exported or
/// not): a call of it registers what is counted inside it (a helper such as
/// `setVerify({ username, res })` beside the module's registering
/// `verifyRoutes(app)` registers nothing).
pub(super) fn declared_function(facts: &FileFacts, name: &str) -> bool {
    use crate::ir::{Expr, Pattern};
    let func = |e: &Expr| matches!(e, Expr::Func(_));
    let declares = |st: &Stmt| match st {
        Stmt::Function(n, _) => n == name,
        Stmt::Var(decls) => decls.iter().any(|(p, e)| {
            matches!(p, Pattern::Ident(n) if n == name) && e.as_ref().is_some_and(func)
        }),
        Stmt::Expr(Expr::Assign(p, v)) => {
            func(v)
                && matches!(p.as_ref(), Pattern::Target(t)
                    if matches!(t.as_ref(), Expr::Member(o, n) if n == name && super::packages::exports_object(o)))
        }
        _ => false,
    };
    facts.body.iter().any(|st| match st {
        Stmt::ExportDecl(inner, _) => declares(inner),
        st => declares(st),
    })
}
