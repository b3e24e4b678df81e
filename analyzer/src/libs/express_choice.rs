//! An Express registration whose argument is a choice the run makes.
//!
//! Captures: an argument of `app.use`/`router.use` or of a verb
//! (`app.get`, …) written as a conditional expression or a logical one whose
//! test is only known at run time: `app.use(cond ? a : b)`, `app.use(isProd
//! ? '/api' : '/dev', router)`, `app.get(env.X ? '/p1' : '/p2', h)`,
//! `router.use('/x', env.Y && extra)`, `app.use(custom || fallback)`. The
//! program registers with one value or the other, so the call is run once
//! for each, under the condition that chooses it: every value is charted,
//! conditional (`a` if `cond`, `b` if `!(cond)`). Choices nest (`x ? a : y ?
//! b : c`) and several arguments multiply.
//!
//! What each side of a logical expression gives when it is chosen: `l && r`
//! gives `r` when `l` holds, and `l` otherwise, a falsy value that mounts
//! nothing (Express throws for it at start-up), so only `r` is run; `l || r`
//! (and `l ?? r`) gives `l` when it holds (run too: a value only known at run
//! time is then a `dynamic-mount`, as written alone) and `r` otherwise.
//!
//! Deliberately not here: a side only known at run time beside a string or
//! a run-time value (`x ? x : '/d'`, `env.P || '/p'`: a default, charted by
//! `machine/expr.rs` with its `assumed-default` finding); a test that calls something (each way's run reads
//! its argument again, and a factory called twice would build twice); a
//! choice made earlier and kept in a variable: of strings (`const p = env.Y
//! ? '/a' : '/b'; app.use(p, r)`), `machine/choices.rs` keeps each; of two
//! routers (`const r = env.Y ? a : b; app.use(r)`, or an `if`/`else` that
//! assigns one on each path), [`Interp::router_choice`] gives a router
//! standing for both; of other values the variable holds one, see
//! `machine/expr.rs`'s `Expr::Cond`. A test the analysis knows (`true ? a :
//! b`) chooses as the program does.

use crate::ir::{Call, Expr, LogicalOp, Stmt};
use crate::machine::*;

/// One way a choice may go: the argument it leaves and the condition under
/// which it is taken.
struct Way {
    arg: Expr,
    cond: String,
}

impl Interp {
    /// Two routers a choice only known at run time made, kept in a variable
    /// (`let api; if (env.V2) api = v2; else api = v1;`, `const admin =
    /// env.SIMPLE ? simple : full`): the program holds one of them. The
    /// value the machine carries on is a router standing for both, mounting
    /// each at `/` under the condition that chooses it (`when_x`, `when_y`),
    /// so where the variable is mounted both are, each conditional; routes
    /// added through the variable later are on it, at the same paths. Apps
    /// are not joined this way (each is a server of its own), and neither
    /// is anything in the events passes, which record no registration.
    pub(crate) fn router_choice(
        &mut self,
        x: &Value,
        when_x: &str,
        y: &Value,
        when_y: &str,
    ) -> Option<Value> {
        self.routers_chosen(&[
            (x.clone(), when_x.to_string()),
            (y.clone(), when_y.to_string()),
        ])
    }

    /// [`Interp::router_choice`] for any number of ways (the ways out of a
    /// `switch` on a value only known at run time that each return one):
    /// `None` unless every way gives a router (not an app) and two differ.
    pub(crate) fn routers_chosen(&mut self, ways: &[(Value, String)]) -> Option<Value> {
        if self.modes.event_mode {
            return None;
        }
        let mut ids: Vec<(u32, &str)> = Vec::new();
        for (v, cond) in ways {
            match v {
                Value::Router(r) if !self.copies_app(v) => ids.push((*r, cond)),
                _ => return None,
            }
        }
        if ids.iter().all(|(r, _)| *r == ids[0].0) {
            return None;
        }
        let (file, line) = {
            let r = &self.rec.routers[ids[0].0 as usize];
            (r.file, r.line)
        };
        let Value::Router(id) = self.new_router(file, line, false) else {
            return None;
        };
        self.rec.routers[id as usize].choice = true;
        for (way, cond) in ids {
            self.running.cond.push(cond.to_string());
            self.push_reg(
                id,
                RegKind::Use {
                    paths: vec![PathArg::Str("/".into())],
                    handlers: vec![UseHandler::Router(way)],
                },
                file,
                line,
                None,
                None,
            );
            self.running.cond.pop();
        }
        Some(Value::Router(id))
    }

    /// `app.use(cond ? a : b, …)` and the like on router `id`: run the
    /// registration `method` once per way the first choice among its
    /// arguments may go, each under its condition (a further choice is split
    /// by the run of each way); `None` when no argument is a choice whose
    /// test is only known at run time.
    pub(crate) fn register_choices(
        &mut self,
        ctx: &Ctx,
        id: u32,
        method: &str,
        call: &Call,
    ) -> Option<Value> {
        let (i, ways) = call
            .args
            .iter()
            .enumerate()
            .find_map(|(i, a)| self.ways(ctx, a).map(|w| (i, w)))?;
        for way in ways {
            let mut one = call.clone();
            one.args[i] = way.arg;
            self.running.cond.push(way.cond);
            self.router_method(ctx, id, method, &one);
            self.running.cond.pop();
        }
        Some(Value::Router(id))
    }

    /// The ways an argument may go when it is a choice whose test is only
    /// known at run time (see the module documentation). The test is read
    /// here and the chosen argument again by the registration, so only tests
    /// that call nothing are split (a factory called twice would build twice).
    fn ways(&mut self, ctx: &Ctx, arg: &Expr) -> Option<Vec<Way>> {
        let (test, text) = match arg {
            Expr::Cond(test, text, _, _) => (test.as_ref(), text.clone()),
            Expr::Logical(_, l, _) => (l.as_ref(), expr_text(l)),
            _ => return None,
        };
        if calls_something(test) {
            return None;
        }
        let t = self.eval(ctx, test);
        if self.truth(&t).is_some() {
            return None;
        }
        // A side only known at run time beside a known one is a default for
        // it (`x ? x : '/d'`, `env.P || '/p'`), which `machine/expr.rs`
        // charts as such, with its `assumed-default` finding.
        let unknown_side = |me: &mut Self, e: &Expr| {
            !calls_something(e) && {
                let v = me.eval(ctx, e);
                v.is_unknown() || matches!(v, Value::Str(_))
            }
        };
        match arg {
            Expr::Cond(_, _, a, b) => {
                let (a_str, b_str) = (plain_text(a), plain_text(b));
                if !(a_str && b_str) && (unknown_side(self, a) || unknown_side(self, b)) {
                    return None;
                }
            }
            Expr::Logical(_, _, r) if plain_text(r) || unknown_side(self, r) => return None,
            _ => {}
        }
        let way = |arg: &Expr, cond: String| Way {
            arg: arg.clone(),
            cond,
        };
        Some(match arg {
            Expr::Cond(_, _, a, b) => vec![way(a, text.clone()), way(b, format!("!({text})"))],
            Expr::Logical(LogicalOp::And, _, r) => vec![way(r, text)],
            Expr::Logical(LogicalOp::Or, l, r) => {
                vec![way(l, text.clone()), way(r, format!("!({text})"))]
            }
            Expr::Logical(LogicalOp::Nullish, l, r) => vec![
                way(l, format!("{text} != null")),
                way(r, format!("{text} == null")),
            ],
            _ => return None,
        })
    }
}

/// Whether `e` is a string written out (`'/api'`, `` `/v${n}` ``).
fn plain_text(e: &Expr) -> bool {
    matches!(e, Expr::Str(_) | Expr::Template(..))
}

/// Whether evaluating `e` calls a function or constructs something.
fn calls_something(e: &Expr) -> bool {
    crate::libs::any_expr(&[Stmt::Expr(e.clone())], &|x| {
        matches!(x, Expr::Call(_) | Expr::New(..) | Expr::Assign(..))
    })
}
