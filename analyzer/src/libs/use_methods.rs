//! Which methods a function mounted with `use` answers when tests of
//! `req.method` decide it. Express runs a `use`d function for every method;
//! one that passes the other methods on, or refuses them, answers only the
//! methods its tests let through:
//!
//! ```js
//! app.use('/upload', (req, res, next) => {
//!   if (req.method !== 'POST') return next();
//!   res.json(save(req));
//! });
//! app.use('/feed', (req, res, next) => {
//!   switch (req.method) {
//!     case 'GET': case 'HEAD': return res.json(feed);
//!     default: return res.sendStatus(405);
//!   }
//! });
//! ```
//!
//! `/upload` is a `POST` operation (and middleware for the other methods'
//! routes after it); `/feed` answers `GET` and `HEAD`, and refuses the rest.
//!
//! Captures: `if`/`else`, `switch (req.method)` with fall-through and
//! `break`, a `? :` on the method, tests built from `===`, `==`, `!==`,
//! `!=`, `&&`, `||`, `!` and `[…].includes(req.method)` over
//! `req.method` (also `.toUpperCase()`/`.toLowerCase()` of it) and string
//! literals; other tests keep both branches. A method is answered when some
//! path sends on `res` (or hands `res` to a call) for it and no path passes
//! it on (`next()`, `next('route')`); `next(err)` and `.catch(next)` are the
//! error path, a send with an error status a refusal.
//!
//! A function that answers `OPTIONS` alone is a CORS preflight responder, not
//! an operation, and stays middleware.
//!
//! Deliberately not: the method read into a variable first (`const { method }
//! = req`), loops, or a call handed both `res` and `next` (it may do either):
//! such a function is judged as before, by `libs/answers.rs`.

use crate::inventory::Method;
use crate::ir::{Expr, Func, LogicalOp, Stmt};
use crate::libs::answers::{SENDS, param_name, refuses, rooted_at};
use crate::libs::socketio_syntax::{any_expr, any_expr_in};
use std::cell::Cell;

/// Every method, one bit each, in the order of [`Method::ALL_ANSWERS`].
const FULL: u8 = (1 << Method::ALL_ANSWERS.len()) - 1;

/// The methods `f`, mounted with `use`, answers and never passes on, when
/// tests of `req.method` make them fewer than every method; `None` when the
/// function answers every method, none, or when its text says too little.
pub(crate) fn use_methods(f: &Func) -> Option<Vec<Method>> {
    if f.params.len() < 2 || f.params.len() > 3 || f.rest {
        return None;
    }
    let req = param_name(f.params.first())?;
    let res = param_name(f.params.get(1))?;
    let next = match f.params.get(2) {
        None => None,
        Some(p) => Some(param_name(Some(p))?),
    };
    // Most middleware never reads the method: one look, before the walk
    // (which copies the expressions it judges).
    let reads_method = |e: &Expr| matches!(e, Expr::Member(o, m) if m == "method" && matches!(o.as_ref(), Expr::Ident(x) if x == req));
    if !any_expr(&f.body, &reads_method) {
        return None;
    }
    let mut walk = Walk {
        req,
        res,
        next,
        answered: 0,
        passed: 0,
        broke: 0,
        tested: false,
    };
    walk.block(&f.body, FULL)?;
    let only = walk.answered & !walk.passed;
    // One that answers `OPTIONS` alone is a CORS preflight responder for
    // every path under it (`if (req.method === 'OPTIONS') return
    // res.sendStatus(204); next()`), not an operation.
    let options = 1
        << Method::ALL_ANSWERS
            .iter()
            .position(|m| *m == Method::Options)?;
    if !walk.tested || only & !options == 0 || only == FULL {
        return None;
    }
    Some(
        Method::ALL_ANSWERS
            .iter()
            .enumerate()
            .filter(|(i, _)| only & (1 << i) != 0)
            .map(|(_, m)| *m)
            .collect(),
    )
}

/// The walk over a function's statements, carrying the methods that may
/// reach each one (`live`).
struct Walk<'a> {
    req: &'a str,
    res: &'a str,
    next: Option<&'a str>,
    /// Methods some path answers.
    answered: u8,
    /// Methods some path passes on.
    passed: u8,
    /// Methods leaving the `switch` being walked by `break`.
    broke: u8,
    /// Whether a test of the method decided a branch.
    tested: bool,
}

impl Walk<'_> {
    /// The methods that reach the end of `stmts`.
    fn block(&mut self, stmts: &[Stmt], mut live: u8) -> Option<u8> {
        for s in stmts {
            if live == 0 {
                break;
            }
            live = self.stmt(s, live)?;
        }
        Some(live)
    }

    fn stmt(&mut self, s: &Stmt, live: u8) -> Option<u8> {
        match s {
            Stmt::If(test, _, yes, no, _) => {
                let (a, b) = self.split(test, live)?;
                let a = self.block(yes, a)?;
                let b = self.block(no, b)?;
                Some(a | b)
            }
            Stmt::Block(b) => self.block(b, live),
            Stmt::Switch(d, cases) if let Some(fold) = self.method_of(d) => {
                let mut tests = Vec::with_capacity(cases.len());
                for c in cases {
                    tests.push(match &c.test {
                        Some(Expr::Str(s)) => Some(bits(s, fold)),
                        Some(_) => return None,
                        None => None,
                    });
                }
                let named = tests.iter().flatten().fold(0, |a, b| a | b);
                self.tested = true;
                let outer = std::mem::take(&mut self.broke);
                let mut fall = 0;
                for (c, t) in cases.iter().zip(&tests) {
                    let enter = match t {
                        Some(b) => live & b,
                        None => live & !named,
                    };
                    fall = self.block(&c.body, enter | fall)?;
                }
                let broke = std::mem::replace(&mut self.broke, outer);
                let unmatched = if tests.iter().any(Option::is_none) {
                    0
                } else {
                    live & !named
                };
                Some(broke | fall | unmatched)
            }
            Stmt::Break(None) => {
                self.broke |= live;
                Some(0)
            }
            Stmt::Return(None) | Stmt::Throw(..) => Some(0),
            Stmt::Return(Some(e)) => {
                self.effect(e, live)?;
                Some(0)
            }
            Stmt::Expr(e) => self.effect(e, live),
            Stmt::Var(decls) => {
                let mut live = live;
                for (_, init) in decls {
                    if let Some(e) = init {
                        live = self.effect(e, live)?;
                    }
                }
                Some(live)
            }
            // A `catch` may be reached from any method the block runs for.
            Stmt::Try(body, _, handler, finally) => {
                let after = self.block(body, live)?;
                let caught = self.block(handler, live)?;
                self.block(finally, after | caught)
            }
            Stmt::Function(..) | Stmt::Class(..) | Stmt::TypeDecl(..) | Stmt::Enum(..) => {
                Some(live)
            }
            _ => {
                if self.touches(std::slice::from_ref(s)) {
                    None
                } else {
                    Some(live)
                }
            }
        }
    }

    /// The methods of `live` for which `test` may be true and may be false.
    fn split(&mut self, test: &Expr, live: u8) -> Option<(u8, u8)> {
        match self.method_set(test) {
            Some(m) => {
                self.tested = true;
                Some((live & m, live & !m & FULL))
            }
            None if self.touches(&[Stmt::Expr(test.clone())]) => None,
            None => Some((live, live)),
        }
    }

    /// What evaluating `e` does to the methods that reach it: those it
    /// answers or passes on stop there.
    fn effect(&mut self, e: &Expr, live: u8) -> Option<u8> {
        let e = match e {
            Expr::Await(x) => x,
            _ => e,
        };
        if let Expr::Cond(test, _, a, b) = e {
            let (ya, yb) = self.split(test, live)?;
            let a = self.effect(a, ya)?;
            let b = self.effect(b, yb)?;
            return Some(a | b);
        }
        if let (Expr::Call(c), Some(next)) = (e, self.next)
            && matches!(&c.callee, Expr::Ident(x) if x == next)
        {
            // `next()` and `next('route')` pass on; `next(err)` is the error path.
            if c.args.is_empty() || matches!(c.args.first(), Some(Expr::Str(s)) if s == "route") {
                self.passed |= live;
            }
            return Some(0);
        }
        let stmt = [Stmt::Expr(e.clone())];
        if self.passes_on(&stmt) {
            return None;
        }
        let res = self.res;
        let own = |g: &Func| !g.params.iter().any(|p| param_name(Some(p)) == Some(res));
        let sends = any_expr_in(
            &stmt,
            &|x| match x {
                Expr::Call(c) => match &c.callee {
                    Expr::Member(o, m) if rooted_at(o, res) => {
                        SENDS.contains(&m.as_str()) && !refuses(x)
                    }
                    _ => c
                        .args
                        .iter()
                        .any(|a| matches!(a, Expr::Ident(n) if n == res)),
                },
                _ => false,
            },
            &own,
        );
        if sends {
            self.answered |= live;
            return Some(0);
        }
        let refused = any_expr_in(
            &stmt,
            &|x| matches!(x, Expr::Call(c) if matches!(&c.callee, Expr::Member(o, m) if rooted_at(o, res) && SENDS.contains(&m.as_str()))),
            &own,
        );
        Some(if refused { 0 } else { live })
    }

    /// Whether `stmts` mention `next` other than on the error path
    /// (`next(err)`, `.catch(next)`).
    fn passes_on(&self, stmts: &[Stmt]) -> bool {
        let Some(next) = self.next else {
            return false;
        };
        let mentions = Cell::new(0usize);
        let accounted = Cell::new(0usize);
        let own = |g: &Func| !g.params.iter().any(|p| param_name(Some(p)) == Some(next));
        any_expr_in(
            stmts,
            &|e| {
                match e {
                    Expr::Ident(x) if x == next || x == "arguments" => {
                        mentions.set(mentions.get() + 1)
                    }
                    Expr::Call(c) => match &c.callee {
                        Expr::Ident(x)
                            if x == next
                                && !c.args.is_empty()
                                && !matches!(c.args.first(), Some(Expr::Str(s)) if s == "route") =>
                        {
                            accounted.set(accounted.get() + 1)
                        }
                        Expr::Member(_, m) if m == "catch" => {
                            accounted.set(accounted.get() + crate::libs::answers::handed(c, next));
                        }
                        _ => {}
                    },
                    _ => {}
                }
                false
            },
            &own,
        );
        mentions.get() != accounted.get()
    }

    /// Whether `stmts` mention `res` or `next` at all (a statement the walk
    /// does not model must not).
    fn touches(&self, stmts: &[Stmt]) -> bool {
        let (res, next) = (self.res, self.next);
        any_expr(
            stmts,
            &|e| matches!(e, Expr::Ident(x) if x == res || Some(x.as_str()) == next || x == "arguments"),
        )
    }

    /// The methods for which `e` is true, when it is built from tests of
    /// the method alone.
    fn method_set(&self, e: &Expr) -> Option<u8> {
        match e {
            Expr::Compare(op, a, b) => {
                let (fold, lit) = match (self.method_of(a), self.method_of(b)) {
                    (Some(f), None) => (f, b.as_ref()),
                    (None, Some(f)) => (f, a.as_ref()),
                    _ => return None,
                };
                let Expr::Str(s) = lit else { return None };
                let m = bits(s, fold);
                match op.as_str() {
                    "===" | "==" => Some(m),
                    "!==" | "!=" => Some(!m & FULL),
                    _ => None,
                }
            }
            Expr::Logical(LogicalOp::And, a, b) => Some(self.method_set(a)? & self.method_set(b)?),
            Expr::Logical(LogicalOp::Or, a, b) => Some(self.method_set(a)? | self.method_set(b)?),
            Expr::Unary(op, a) if op == "!" => Some(!self.method_set(a)? & FULL),
            Expr::Call(c) => match (&c.callee, c.args.as_slice()) {
                (Expr::Member(o, m), [arg]) if m == "includes" => {
                    let fold = self.method_of(arg)?;
                    let Expr::Array(items) = o.as_ref() else {
                        return None;
                    };
                    items.iter().try_fold(0, |acc, it| match it {
                        Expr::Str(s) => Some(acc | bits(s, fold)),
                        _ => None,
                    })
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `req.method` (`Some(None)`), or it upper- or lower-cased
    /// (`Some(Some(upper))`).
    fn method_of(&self, e: &Expr) -> Option<Option<bool>> {
        let plain = |e: &Expr| matches!(e, Expr::Member(o, m) if m == "method" && matches!(o.as_ref(), Expr::Ident(x) if x == self.req));
        if plain(e) {
            return Some(None);
        }
        match e {
            Expr::Call(c) if c.args.is_empty() => match &c.callee {
                Expr::Member(o, m) if plain(o) && m == "toUpperCase" => Some(Some(true)),
                Expr::Member(o, m) if plain(o) && m == "toLowerCase" => Some(Some(false)),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The bit of the method a literal names, compared with `req.method`
/// (upper case, as Node gives it) or with it case-folded.
fn bits(s: &str, fold: Option<bool>) -> u8 {
    let name = match fold {
        None | Some(true) if s.bytes().all(|b| !b.is_ascii_lowercase()) => s.to_ascii_lowercase(),
        Some(false) if s.bytes().all(|b| !b.is_ascii_uppercase()) => s.to_string(),
        _ => return 0,
    };
    Method::ALL_ANSWERS
        .iter()
        .position(|m| m.as_str() == name)
        .map_or(0, |i| 1 << i)
}
