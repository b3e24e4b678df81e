//! What the declaration of a call's receiver says it is: the type a
//! TypeScript annotation names for a member of `this` (a constructor
//! parameter property, a typed field) or a parameter, and whether that type
//! makes the call something other than an Express registration.
//!
//! Captures: `constructor(private cache: CacheService)` then
//! `this.cache.get(ctx, key, make)`, `function f(svc: Svc) { svc.delete(ctx,
//! id) }`: the type's name and the import that binds it (or the class or
//! interface the file declares). When accounting, a class or interface of
//! the program that declares the called method itself (TypeScript makes the
//! call call it), or a type of an installed package that is not a routing
//! one (`LRUCache` of `lru-cache`), makes the item `not-a-router`.
//!
//! Deliberately not captured: types the file neither imports nor declares
//! (globals such as `Express.Application`), methods a class only inherits,
//! type aliases (`type R = Router` may name Express's own), members of
//! members (`this.host.adapter.get(…)`), and Socket.IO sites.

use super::CensusItem;
use super::account::RunView;
use super::packages::routing_package;
use crate::ir::{Class, Expr, FileFacts, Pattern, Stmt, TypeExpr};
use crate::project::FileId;
use serde::{Deserialize, Serialize};

/// The type a receiver's declaration names (see [`CensusItem::declared`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Declared {
    /// The type as written (`CacheService`, `cache.Store`).
    pub(crate) ty: String,
    /// The specifier the file imports it from; `None` when the file
    /// declares it itself.
    pub(crate) from: Option<String>,
    /// Its name where it is declared (`Store` for `import { Store as S }`
    /// or `cache.Store`).
    pub(crate) name: String,
}

/// Where the type `ty` a declaration names comes from: the import that binds
/// its root name (`Store` in `import { Store } from './store'`, `cache` in
/// `cache.Store` with `import * as cache from './cache'`), or a class or
/// interface the file declares at its top level. `None` for a name the file
/// neither imports nor declares (a global such as `Express.Application`).
pub(super) fn declared_origin(facts: &FileFacts, ty: &str) -> Option<Declared> {
    // `Base#member`: the member `this` inherits from the class `Base`.
    if let Some((class, member)) = ty.split_once('#') {
        let d = declared_origin(facts, class)?;
        return Some(Declared {
            ty: ty.to_string(),
            from: d.from,
            name: format!("{}#{member}", d.name),
        });
    }
    let (root, rest) = match ty.split_once('.') {
        Some((r, rest)) => (r, Some(rest)),
        None => (ty, None),
    };
    let last = ty.rsplit('.').next().unwrap_or(ty).to_string();
    let declared = |st: &Stmt| match st {
        Stmt::Class(n, _) | Stmt::TypeDecl(n, _) => n == root,
        _ => false,
    };
    for st in &facts.body {
        match st {
            Stmt::Import(imp) => {
                let name = if imp.default.as_deref() == Some(root) {
                    Some(rest.map_or_else(|| "default".to_string(), |_| last.clone()))
                } else if imp.namespace.as_deref() == Some(root) {
                    rest.map(|_| last.clone())
                } else {
                    imp.named
                        .iter()
                        .find(|(_, local)| local == root)
                        .map(|(imported, _)| {
                            rest.map_or_else(|| imported.clone(), |_| last.clone())
                        })
                };
                if let Some(name) = name {
                    return Some(Declared {
                        ty: ty.to_string(),
                        from: Some(imp.source.clone()),
                        name,
                    });
                }
            }
            Stmt::ExportDecl(inner, _) if rest.is_none() && declared(inner) => {
                return Some(Declared {
                    ty: ty.to_string(),
                    from: None,
                    name: last,
                });
            }
            st if rest.is_none() && declared(st) => {
                return Some(Declared {
                    ty: ty.to_string(),
                    from: None,
                    name: last,
                });
            }
            // `const C = require('./c')`, `const { C } = require('./c')`.
            Stmt::Var(decls) if rest.is_none() => {
                for (p, e) in decls {
                    let Some(Expr::Call(call)) = e else { continue };
                    let (Expr::Ident(r), Some(Expr::Str(spec))) = (&call.callee, call.args.first())
                    else {
                        continue;
                    };
                    if r != "require" {
                        continue;
                    }
                    let name = match p {
                        Pattern::Ident(n) if n == root => Some("default".to_string()),
                        Pattern::Object(props, _) => props.iter().find_map(|(k, p)| match (k, p) {
                            (crate::ir::PropKey::Name(k), Pattern::Ident(l)) if l == root => {
                                Some(k.clone())
                            }
                            _ => None,
                        }),
                        _ => None,
                    };
                    if let Some(name) = name {
                        return Some(Declared {
                            ty: ty.to_string(),
                            from: Some(spec.to_string()),
                            name,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The name of the one type `t` names: `Store`, `Store<K>`, `Store | undefined`.
pub(super) fn type_name(t: &TypeExpr) -> Option<String> {
    match t {
        TypeExpr::Ref(n, _) => Some(n.clone()),
        TypeExpr::Union(ms) => {
            let mut named = ms
                .iter()
                .filter(|m| !matches!(m, TypeExpr::Prim(p) if p == "null" || p == "undefined"));
            match (named.next(), named.next()) {
                (Some(TypeExpr::Ref(n, _)), None) => Some(n.clone()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A class's members whose declaration names a type: typed fields, and the
/// constructor's typed parameters it stores as `this.name` (TypeScript's
/// parameter properties are lowered to that).
pub(super) fn typed_members(c: &Class) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = c
        .field_types
        .iter()
        .filter_map(|(n, _, t)| Some((n.clone(), type_name(t)?)))
        .collect();
    if let Some(k) = &c.constructor {
        let stored = |n: &str| {
            k.body.iter().any(|st| {
                matches!(st, Stmt::Expr(Expr::Assign(p, v))
                    if matches!(&**v, Expr::Ident(x) if x == n)
                        && matches!(&**p, Pattern::Target(t)
                            if matches!(&**t, Expr::Member(o, m) if matches!(**o, Expr::This) && m == n)))
            })
        };
        for (p, t) in k.params.iter().zip(&k.param_types) {
            if let (Pattern::Ident(n), Some(t)) = (p, t.as_ref().and_then(type_name))
                && stored(n)
            {
                out.push((n.clone(), t));
            }
        }
    }
    out
}

/// A class's members every write of which in its constructor and methods
/// is `this.name = new C(…)` of one class `C` named by a plain name
/// (`this.aibitat = new AIbitat({…})`, after a field `aibitat = null`): the
/// member holds a `C`, as if declared so. Members a type annotation already
/// names are left to [`typed_members`].
pub(super) fn constructed_members(c: &Class) -> Vec<(String, String)> {
    fn walk(stmts: &[Stmt], out: &mut Vec<(String, Option<String>)>) {
        for st in stmts {
            match st {
                Stmt::Expr(Expr::Assign(p, v)) => {
                    if let Pattern::Target(t) = &**p
                        && let Expr::Member(o, m) = &**t
                        && matches!(**o, Expr::This)
                    {
                        let made = match &**v {
                            Expr::New(callee, _, _) => match &**callee {
                                Expr::Ident(c) => Some(c.clone()),
                                _ => None,
                            },
                            _ => None,
                        };
                        out.push((m.clone(), made));
                    }
                }
                Stmt::If(_, _, a, b, _) => {
                    walk(a, out);
                    walk(b, out);
                }
                Stmt::Block(b) | Stmt::ForOf(_, _, _, b, _, _) => walk(b, out),
                Stmt::While(w) => walk(&w.body, out),
                Stmt::Try(a, _, b, f) => {
                    walk(a, out);
                    walk(b, out);
                    walk(f, out);
                }
                Stmt::Labeled(_, inner) => walk(std::slice::from_ref(&**inner), out),
                _ => {}
            }
        }
    }
    let mut writes: Vec<(String, Option<String>)> = Vec::new();
    for f in c.constructor.iter().chain(c.methods.iter().map(|(_, f)| f)) {
        walk(&f.body, &mut writes);
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for (m, _) in &writes {
        // (A field's initializer is a write too, unless it is `null`: `aibitat
        // = null;` then `this.aibitat = new AIbitat(…)`.)
        let field_write = c.fields.iter().any(|(n, e)| {
            n == m
                && e.as_ref()
                    .is_some_and(|e| !matches!(e, Expr::Null | Expr::Undefined))
        });
        if out.iter().any(|(n, _)| n == m) || field_write {
            continue;
        }
        let mut made = writes.iter().filter(|(n, _)| n == m).map(|(_, c)| c);
        let Some(Some(first)) = made.next() else {
            continue;
        };
        if made.all(|c| c.as_ref() == Some(first)) {
            out.push((m.clone(), first.clone()));
        }
    }
    out
}

/// Why the receiver of `item` is not an Express app or router by the type
/// its declaration names (see [`CensusItem::declared`]): a type of an
/// installed package that is not a routing one (`LRUCache` from
/// `lru-cache`), or a class or interface of the program that declares the
/// called method itself (TypeScript makes a call on a value of that type
/// call that method). A class that only inherits the method, and a type
/// the analysis cannot find, say nothing.
pub(super) fn declared_not_express(
    run: &RunView,
    file: FileId,
    item: &CensusItem,
) -> Option<String> {
    let d = item.declared.as_ref()?;
    judge(run, file, d, &item.receiver, &item.method, 0)
}

/// [`declared_not_express`] for the type `d` a declaration in `file` names
/// (following an inherited member's declaration in its base class).
fn judge(
    run: &RunView,
    file: FileId,
    d: &Declared,
    receiver: &str,
    m: &str,
    depth: u32,
) -> Option<String> {
    if let Some((class, member)) = d.name.split_once('#') {
        // The base class's module (or this file), its member's declared type.
        let at = match &d.from {
            None => file,
            Some(spec) => match run.project.resolve(file, spec) {
                crate::project::Resolved::File(id) => id,
                _ => return None,
            },
        };
        let facts = &run.loader.get(at).facts;
        let c = facts.body.iter().find_map(|st| match st {
            Stmt::ExportDecl(inner, _) => match inner.as_ref() {
                Stmt::Class(n, c) if n == class => Some(c),
                _ => None,
            },
            Stmt::Class(n, c) if n == class => Some(c),
            _ => None,
        })?;
        let ty = typed_members(c)
            .into_iter()
            .find(|(n, _)| n == member)
            .map(|(_, t)| t)?;
        let inner = declared_origin(facts, &ty)?;
        return if depth < 4 {
            judge(run, at, &inner, receiver, m, depth + 1)
        } else {
            None
        };
    }
    let ty = &d.ty;
    let Some(spec) = &d.from else {
        let facts = &run.loader.get(file).facts;
        return declares_method(run, file, facts, &d.name, m, 0).map(|at| {
            format!(
                "`{receiver}` is declared as `{ty}`, whose own `{m}` ({at}) it calls: a method of the program's, not an Express app's or router's"
            )
        });
    };
    // Ts.ED's `PlatformApplication` and `PlatformRouter` are the app and
    // router a Ts.ED platform made (also where the repository is Ts.ED).
    if crate::libs::tsed::is_tsed(super::packages::package_of(spec))
        && crate::libs::tsed::APP_TYPES.contains(&d.name.as_str())
    {
        return None;
    }
    match run.project.resolve(file, spec) {
        crate::project::Resolved::File(id) => {
            let facts = &run.loader.get(id).facts;
            declares_method(run, id, facts, &d.name, m, 0).map(|at| {
                format!(
                    "`{receiver}` is declared as `{ty}`, whose own `{m}` ({at}) it calls: a method of the program's, not an Express app's or router's"
                )
            })
        }
        crate::project::Resolved::External(_) | crate::project::Resolved::Known(_) => {
            let p = super::packages::package_of(spec);
            (!routing_package(p)
                && !matches!(p, "http" | "https" | "http2" | "node:http" | "node:https"))
            .then(|| {
                format!("`{receiver}` is declared as `{ty}`, a type of the package `{p}`, not an Express app or router")
            })
        }
        _ => None,
    }
}

/// Where the module `facts` (file `id`) declares the class or interface
/// `name` with its own member `method` (following re-exports a few levels):
/// `file:line` of the class, or the file of the interface.
fn declares_method(
    run: &RunView,
    id: FileId,
    facts: &FileFacts,
    name: &str,
    method: &str,
    depth: u32,
) -> Option<String> {
    use crate::ir::TypeExpr;
    if depth > 4 {
        return None;
    }
    let rel = || run.project.rel(id).to_string();
    let own = |st: &Stmt| -> Option<Option<String>> {
        match st {
            Stmt::Class(n, c) if n == name => Some(
                c.methods
                    .iter()
                    .chain(&c.getters)
                    .map(|(n, _)| n)
                    .chain(c.fields.iter().map(|(n, _)| n))
                    .any(|n| n == method)
                    .then(|| format!("{}:{}", rel(), c.line)),
            ),
            Stmt::TypeDecl(n, TypeExpr::Object(fields)) if n == name => {
                Some(fields.iter().any(|(n, _, _)| n == method).then(rel))
            }
            Stmt::TypeDecl(n, _) if n == name => Some(None),
            _ => None,
        }
    };
    for st in &facts.body {
        let st = match st {
            Stmt::ExportDecl(inner, _) => inner,
            st => st,
        };
        if let Some(found) = own(st) {
            return found;
        }
    }
    // The module's default export (`module.exports = AIbitat`, `export
    // default Store`): the class the file declares under that name.
    if name == "default" {
        let exported = facts.body.iter().rev().find_map(|st| match st {
            Stmt::ExportDefault(Expr::Ident(n)) => Some(n.as_str()),
            Stmt::Expr(Expr::Assign(p, v))
                if matches!(&**p, Pattern::Target(t) if super::packages::module_exports(t)) =>
            {
                match &**v {
                    Expr::Ident(n) => Some(n.as_str()),
                    _ => None,
                }
            }
            _ => None,
        });
        if let Some(n) = exported
            && n != "default"
        {
            return declares_method(run, id, facts, n, method, depth + 1);
        }
    }
    // Re-exports: `export { X } from './x'`, `export * from './x'`.
    for st in &facts.body {
        let (spec, inner) = match st {
            Stmt::ExportNames(names, Some(spec), _) => {
                match names.iter().find(|(_, exported)| exported == name) {
                    Some((local, _)) => (spec, local.as_str()),
                    None => continue,
                }
            }
            Stmt::ExportAll(spec, None, _) => (spec, name),
            _ => continue,
        };
        if let crate::project::Resolved::File(next) = run.project.resolve(id, spec)
            && let Some(at) = declares_method(
                run,
                next,
                &run.loader.get(next).facts,
                inner,
                method,
                depth + 1,
            )
        {
            return Some(at);
        }
    }
    None
}
