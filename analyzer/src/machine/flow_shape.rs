//! What a block's syntax says about its control flow, read without running
//! it: whether it leaves a loop, throws, ends the process or rebinds a
//! name; the names one iteration binds; the roots a test reads.
//!
//! Deliberately not here: running anything (`flow.rs`).

use crate::ir::{Expr, Pattern, Stmt};

/// Whether the statements (a loop's body) may leave the loop themselves:
/// a `break` of it (outside nested loops and `switch`es, or naming its
/// label) or a `return`, outside nested functions.
pub(crate) fn leaves_loop(stmts: &[Stmt], label: Option<&str>) -> bool {
    fn walk(stmts: &[Stmt], label: Option<&str>, nested: bool) -> bool {
        stmts.iter().any(|s| match s {
            Stmt::Return(_) => true,
            Stmt::Break(None) => !nested,
            Stmt::Break(Some(l)) => Some(l.as_str()) == label,
            Stmt::Block(b) => walk(b, label, nested),
            Stmt::If(_, _, a, b, _) => walk(a, label, nested) || walk(b, label, nested),
            Stmt::Try(a, _, b, c) => {
                walk(a, label, nested) || walk(b, label, nested) || walk(c, label, nested)
            }
            Stmt::Labeled(_, inner) => walk(std::slice::from_ref(inner.as_ref()), label, nested),
            Stmt::ForOf(_, _, _, b, _, _) => walk(b, label, true),
            Stmt::While(w) => walk(&w.body, label, true),
            Stmt::For(f) => walk(&f.body, label, true),
            Stmt::Switch(_, cases) => cases.iter().any(|c| walk(&c.body, label, true)),
            _ => false,
        })
    }
    walk(stmts, label, false)
}

/// The names one iteration of a loop binds: its variable and the
/// declarations at the top of its body (`const name = list[k]`).
pub(crate) fn iteration_names(pat: Option<&Pattern>, body: &[Stmt]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = pat {
        out.extend(crate::syntax::bound_names(&Stmt::Var(vec![(
            p.clone(),
            None,
        )])));
    }
    for s in body {
        if let Stmt::Var(_) = s {
            out.extend(crate::syntax::bound_names(s));
        }
    }
    out
}

/// The names an `if` test reads (through members, indexes, comparisons and
/// logical operators).
pub(crate) fn test_roots<'a>(e: &'a Expr, out: &mut Vec<&'a str>, depth: u32) {
    if depth > 16 {
        return;
    }
    match e {
        Expr::Ident(n) => out.push(n),
        Expr::Member(o, _) | Expr::Unary(_, o) | Expr::Typed(o, _) | Expr::Await(o) => {
            test_roots(o, out, depth + 1)
        }
        Expr::Index(o, i)
        | Expr::Compare(_, o, i)
        | Expr::Logical(_, o, i)
        | Expr::Add(o, i)
        | Expr::Arith(_, o, i) => {
            test_roots(o, out, depth + 1);
            test_roots(i, out, depth + 1);
        }
        _ => {}
    }
}

/// A discriminant a case can decide: a name or a property path.
pub(crate) fn narrowable(e: &Expr) -> bool {
    match e {
        Expr::Ident(_) => true,
        Expr::Member(o, _) => narrowable(o),
        _ => false,
    }
}

/// Whether running the statements may throw: they call, construct or await
/// something, or throw, in nested blocks too. A call written inside a nested
/// function also counts (even when nothing calls that function): reading too
/// much here only keeps the code after a `try` reachable.
pub(crate) fn may_throw(stmts: &[Stmt]) -> bool {
    fn throws(stmts: &[Stmt]) -> bool {
        stmts.iter().any(|s| match s {
            Stmt::Throw(..) => true,
            Stmt::Block(b) | Stmt::ForOf(_, _, _, b, _, _) => throws(b),
            Stmt::While(w) => throws(&w.body),
            Stmt::If(_, _, a, b, _) => throws(a) || throws(b),
            Stmt::For(f) => throws(&f.body),
            Stmt::Labeled(_, inner) => throws(std::slice::from_ref(inner.as_ref())),
            Stmt::Try(a, _, b, c) => throws(a) || throws(b) || throws(c),
            Stmt::Switch(_, cases) => cases.iter().any(|c| throws(&c.body)),
            _ => false,
        })
    }
    throws(stmts)
        || crate::libs::any_expr(stmts, &|e| {
            matches!(e, Expr::Call(_) | Expr::New(..) | Expr::Await(_))
        })
}

/// Whether the statements end the process on their way through:
/// `process.exit(…)` never returns, so a `catch` that calls it does not
/// complete (`catch (e) { console.error(e); process.exit(1) }`).
pub(crate) fn ends_process(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Expr(Expr::Call(c)) => matches!(&c.callee,
            Expr::Member(o, m) if m == "exit" && matches!(o.as_ref(), Expr::Ident(p) if p == "process")),
        _ => false,
    })
}

/// Whether statements declare or assign `name` (in nested blocks too, not in
/// nested functions): a case that rebinds the discriminant's root
/// (`const {type} = message.data` inside `case 'COLLABROOM': {…}`) is not
/// decided by its label.
pub(crate) fn rebinds(stmts: &[Stmt], name: &str) -> bool {
    let mut assigned = Vec::new();
    super::assigned_names(stmts, &mut assigned);
    if assigned.iter().any(|n| n == name) {
        return true;
    }
    stmts.iter().any(|s| {
        crate::syntax::bound_names(s).iter().any(|n| n == name)
            || match s {
                Stmt::Block(b) => rebinds(b, name),
                Stmt::While(w) => rebinds(&w.body, name),
                Stmt::If(_, _, a, b, _) => rebinds(a, name) || rebinds(b, name),
                Stmt::ForOf(p, _, _, b, _, _) => {
                    crate::syntax::bound_names(&Stmt::Var(vec![(p.clone(), None)]))
                        .iter()
                        .any(|n| n == name)
                        || rebinds(b, name)
                }
                Stmt::For(f) => rebinds(&f.init, name) || rebinds(&f.body, name),
                Stmt::Labeled(_, inner) => rebinds(std::slice::from_ref(inner.as_ref()), name),
                Stmt::Try(a, p, b, c) => {
                    p.binding().is_some_and(|p| {
                        crate::syntax::bound_names(&Stmt::Var(vec![(p.clone(), None)]))
                            .iter()
                            .any(|n| n == name)
                    }) || rebinds(a, name)
                        || rebinds(b, name)
                        || rebinds(c, name)
                }
                Stmt::Switch(_, cases) => cases.iter().any(|c| rebinds(&c.body, name)),
                _ => false,
            }
    })
}

/// The name a discriminant path starts from (`event` of `event.name`).
pub(crate) fn root_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Ident(n) => Some(n),
        Expr::Member(o, _) => root_name(o),
        _ => None,
    }
}

/// Whether `stmts` hold a `return` of the function they are in (not of a
/// nested function).
pub(crate) fn returns_in(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::Block(b) => returns_in(b),
        Stmt::If(_, _, a, b, _) => returns_in(a) || returns_in(b),
        Stmt::Try(a, _, b, c) => returns_in(a) || returns_in(b) || returns_in(c),
        Stmt::Labeled(_, inner) => returns_in(std::slice::from_ref(inner.as_ref())),
        Stmt::ForOf(_, _, _, b, _, _) => returns_in(b),
        Stmt::While(w) => returns_in(&w.body),
        Stmt::For(f) => returns_in(&f.body),
        Stmt::Switch(_, cases) => cases.iter().any(|c| returns_in(&c.body)),
        _ => false,
    })
}
