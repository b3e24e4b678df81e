//! Control flow as JavaScript runs it: loops, labels, `break`/`continue`,
//! `throw` and `try`/`catch`/`finally`.
//!
//! Captures: a loop over a known collection (`for…of`, `for…in`) or with a
//! test the analyzer can decide (`for (let i = 0; i < list.length; i++)`)
//! runs once per iteration (an ordering such as `i < n` decides a `for`
//! test, nowhere else), and an iteration left by `continue` or `break`
//! registers nothing past that point. Labels name the loop a `break` or
//! `continue` leaves. A `throw` goes to the nearest `catch` (which then runs
//! for sure, with the thrown value) or `finally` of the function, not out of it
//! as a `return` would. A `return`, `break` or `continue` in a `try` block that
//! may throw (it calls something) leaves on one path only: when the `catch`
//! completes normally, the code after the `try` runs too (`try { await
//! send(job); continue } catch {} io.to(job.owner).emit('job:failed')`).
//!
//! Example: `for (const r of ROUTES) { if (r.off) continue; app.get(r.path, h) }`
//! registers exactly the routes whose `off` is false.
//!
//! An object the program also wrote under run-time keys (`byId[socket.id] =
//! socket`) has one more key, only known at run time, under which a read
//! gets what was written (`for (const id in byId) byId[id].emit(…)`).
//!
//! Where the paths of an `if` whose test is only known at run time meet (or
//! those of a `try` whose `catch` may run), a variable or property either
//! path wrote holds the join of what the paths leave in it: `const cfg = {
//! debug: false }; if (process.env.DEBUG) cfg.debug = true;` decides no later
//! `if (cfg.debug)`. An object made on one of the paths (the exports of a
//! module first loaded in the branch) is that path's own: the other path
//! never sees it (it loads the module whole), so its keys are left as written.
//!
//! A `switch` whose discriminant is only known at run time runs every case;
//! inside a case, a discriminant that is a name or a property path
//! (`switch (event.name)`) is the case's label (or, reached by falling
//! through, one of the labels that fall into it: an event name site then
//! lists each), in the function that runs the switch.
//!
//! A `while` or `do … while` loop runs as written while what the program
//! holds decides its test cheaply (`while (next)` over a queue that
//! `shift()` empties, `while (stack.length > 0)`, `while (true)` with a
//! `break` whose test is known), at most `WHILE_ITERATIONS` times; an
//! iteration that a path that may not run left (`if (!m) break` with `m`
//! only known at run time) is its last.
//!
//! Deliberately not: a loop whose test or collection is only known at run
//! time (or a list empty only by a default taken for a run-time value,
//! `(process.env.PLUGINS || '').split(',')`) runs its body once with unknown
//! values (a `dynamic-loop` finding when it registers); so does a `while`
//! whose test is a counter (`while (n > 0)`), a call or an assignment
//! (`while ((m = re.exec(s)))`); a throw ends the
//! function it is in (its caller gets an unknown value: a call that throws is
//! not followed into the caller's `catch`, as async functions would not
//! throw there either).

use super::DynLoop;
use super::flow_shape::*;
pub(crate) use super::flow_shape::{narrowable, rebinds, root_name};
use super::{Ctx, Flow, Interp, MAX_ITERATIONS};
use crate::ir::{Catch, Expr, ForStmt, LogicalOp, Pattern, Stmt, SwitchCase, WhileStmt};
use crate::value::{ObjData, Scope, Value};
use std::rc::Rc;

/// Most iterations a `while` loop runs (a `for` runs up to
/// [`MAX_ITERATIONS`]): its test reads what the program holds, which need
/// not make progress as a counter does.
const WHILE_ITERATIONS: usize = 1_000;

/// Steps one run of a `for` loop may spend, once it has run
/// [`PATIENT_ITERATIONS`] times without registering anything, before its
/// later iterations are taken as only known at run time: a counter loop
/// of a computation (`for (i = 0; i < 60 * 24 * 366; i++)` scanning a year of
/// minutes for a cron match) would otherwise spend the program's budget.
const LOOP_STEPS: u64 = 1_000_000;

/// Iterations a `for` loop always runs in full (see [`LOOP_STEPS`]).
const PATIENT_ITERATIONS: usize = 64;

/// A loop or `switch` now running (see `Running::breakables`).
pub(crate) struct Breakable {
    /// The call depth (`stack.len()`) it runs at.
    depth: usize,
    /// Its label.
    label: Option<String>,
    /// Whether a path that may not run left it (see [`Interp::note_maybe_exit`]).
    left: bool,
}

impl Breakable {
    pub(crate) fn new(depth: usize, label: Option<&str>) -> Breakable {
        Breakable {
            depth,
            label: label.map(str::to_string),
            left: false,
        }
    }
}

/// Whether a `while` test has a shape [`Interp::while_test`] may decide.
fn decidable(e: &Expr) -> bool {
    match e {
        Expr::Bool(_) | Expr::Null | Expr::Undefined | Expr::Num(_) | Expr::Str(_) => true,
        Expr::Ident(_) => true,
        Expr::Member(o, _) => decidable(o) && !matches!(o.as_ref(), Expr::Bool(_) | Expr::Num(_)),
        Expr::This => true,
        Expr::Typed(inner, _) => decidable(inner),
        Expr::Unary(op, inner) => op == "!" && decidable(inner),
        Expr::Logical(LogicalOp::And | LogicalOp::Or, a, b) => decidable(a) && decidable(b),
        Expr::Compare(_, l, r) => {
            matches!(
                (l.as_ref(), r.as_ref()),
                (Expr::Member(..), Expr::Num(_)) | (Expr::Num(_), Expr::Member(..))
            )
        }
        _ => false,
    }
}

/// What an iteration's way out means for its loop.
enum Step {
    /// Go on with the next iteration.
    Next,
    /// Leave the loop (`break`).
    Stop,
    /// Leave the loop and pass the flow on (`return`, `throw`, an outer label).
    Exit(Flow),
}

fn step(flow: Flow, label: Option<&str>) -> Step {
    let mine = |l: &Option<String>| l.as_deref().is_none_or(|l| Some(l) == label);
    match flow {
        Flow::Normal => Step::Next,
        Flow::Continue(l) if mine(&l) => Step::Next,
        Flow::Break(l) if mine(&l) => Step::Stop,
        other => Step::Exit(other),
    }
}

impl Interp {
    /// `label: statement`: a `break label` inside ends it.
    pub(crate) fn exec_labeled(&mut self, ctx: &Ctx, label: &str, inner: &Stmt) -> Flow {
        let flow = match inner {
            Stmt::ForOf(..) | Stmt::While(_) | Stmt::For(_) => {
                self.exec_loop(ctx, inner, Some(label))
            }
            other => self.exec_stmt(ctx, other),
        };
        match flow {
            Flow::Break(Some(l)) if l == label => Flow::Normal,
            f => f,
        }
    }

    /// A loop statement, with the label it carries.
    pub(crate) fn exec_loop(&mut self, ctx: &Ctx, stmt: &Stmt, label: Option<&str>) -> Flow {
        self.running
            .breakables
            .push(Breakable::new(self.js.stack.len(), label));
        let flow = self.run_loop(ctx, stmt, label);
        self.running.breakables.pop();
        flow
    }

    fn run_loop(&mut self, ctx: &Ctx, stmt: &Stmt, label: Option<&str>) -> Flow {
        match stmt {
            Stmt::ForOf(pat, iter, is_in, body, text, line) => {
                let v = self.eval(ctx, iter);
                let v = self.force_deep(v);
                // Empty only by a default taken for a run-time value: the
                // list that value gives, only known at run time.
                if let (Value::Arr(a), false) = (&v, is_in)
                    && let Some(when) = self.empty_by_default(a)
                {
                    self.running.cond.push(crate::conditions::negated(&when));
                    self.dynamic_iteration(ctx, Some(pat), body, text, *line, Some(when));
                    self.running.cond.pop();
                    return Flow::Normal;
                }
                let items = match (&v, is_in) {
                    (Value::Arr(a), false) => Some(a.borrow().clone()),
                    (Value::Arr(a), true) => Some(
                        (0..a.borrow().len())
                            .map(|i| Value::Num(i as f64))
                            .collect(),
                    ),
                    (Value::Module(id), true) => Some(
                        self.namespace_entries(*id)
                            .into_iter()
                            .map(|(k, _)| k)
                            .collect(),
                    ),
                    (Value::Obj(_) | Value::Sio(_), true) => self
                        .run_time_keys(&v)
                        .map(|keys| keys.into_iter().map(|(k, _)| k).collect()),
                    // A library's iterable (the connected sockets).
                    (v, false) if let Some(items) = crate::libs::iterated(v) => Some(items),
                    (Value::Str(s), false) => {
                        Some(s.chars().map(|c| Value::str(&c.to_string())).collect())
                    }
                    (Value::Coll(c), false) => c.iterated(),
                    _ => None,
                };
                // Looking for events, or running a Socket.IO handler (which runs
                // once per event, after earlier events filled the program's
                // state), a collection that is empty now (`for (id in
                // peers)` before `peers[socket.id] = socket`) is not empty at
                // run time: its entries are only known then, as for a state
                // flag in `Stmt::If`.
                let items = match items {
                    Some(items)
                        if items.is_empty()
                            && (self.modes.event_mode || self.running.socket_handlers > 0)
                            && matches!(v, Value::Arr(_) | Value::Obj(_) | Value::Coll(_))
                            && !matches!(iter, Expr::Array(..) | Expr::Object(..)) =>
                    {
                        None
                    }
                    items => items,
                };
                match items {
                    Some(items) => {
                        let mark = self.running.iteration_names.len();
                        let depth = self.js.stack.len();
                        for n in iteration_names(Some(pat), body) {
                            self.running.iteration_names.push((n, depth));
                        }
                        let flow = self.known_iterations(ctx, pat, items, body, *line, label);
                        self.running.iteration_names.truncate(mark);
                        if let Some(f) = flow {
                            return f;
                        }
                    }
                    None => self.dynamic_iteration(ctx, Some(pat), body, text, *line, None),
                }
            }
            Stmt::While(w) => {
                if let Some(flow) = self.while_iterations(ctx, w, label) {
                    return flow;
                }
            }
            Stmt::For(f) => {
                let lctx = Ctx {
                    scope: Scope::new(Some(ctx.scope.clone())),
                    ..ctx.clone()
                };
                for s in &f.init {
                    self.exec_stmt(&lctx, s);
                }
                let mark = self.running.iteration_names.len();
                let depth = self.js.stack.len();
                for s in &f.init {
                    for n in crate::syntax::bound_names(s) {
                        self.running.iteration_names.push((n, depth));
                    }
                }
                for n in iteration_names(None, &f.body) {
                    self.running.iteration_names.push((n, depth));
                }
                let flow = self.for_iterations(&lctx, f, label);
                self.running.iteration_names.truncate(mark);
                if let Some(f) = flow {
                    return f;
                }
            }
            other => return self.exec_stmt(ctx, other),
        }
        Flow::Normal
    }

    /// Run the body of `for (init; test; update)` while its test is known;
    /// `Some(flow)` when the body leaves the enclosing function or loop.
    fn for_iterations(&mut self, lctx: &Ctx, f: &ForStmt, label: Option<&str>) -> Option<Flow> {
        let mut n = 0;
        let (start, made) = (self.js.steps, self.rec.made);
        loop {
            let known = match &f.test {
                Some(Expr::Compare(op, l, r)) if matches!(op.as_str(), "<" | "<=" | ">" | ">=") => {
                    let a = self.eval(lctx, l);
                    let b = self.eval(lctx, r);
                    relation(op, &self.force_deep(a), &self.force_deep(b)).truthy()
                }
                Some(t) => {
                    let v = self.eval(lctx, t);
                    self.force_deep(v).truthy()
                }
                None => None,
            };
            match known {
                Some(false) => break,
                Some(true) if n < MAX_ITERATIONS => {
                    if self.loop_budget_spent(lctx.file, f.line) {
                        break;
                    }
                    if n >= PATIENT_ITERATIONS
                        && self.js.steps - start > LOOP_STEPS
                        && self.rec.made == made
                    {
                        self.later_iterations_unknown(lctx, f);
                        break;
                    }
                    n += 1;
                    match step(self.exec_block(lctx, &f.body), label) {
                        Step::Next => {}
                        Step::Stop => break,
                        Step::Exit(flow) => return Some(flow),
                    }
                    if let Some(u) = &f.update {
                        self.eval(lctx, u);
                    }
                }
                _ => {
                    // Only known at run time: the body once, with what is known.
                    if n == 0 {
                        self.dynamic_iteration(lctx, None, &f.body, &f.text, f.line, None);
                    }
                    break;
                }
            }
        }
        None
    }

    /// A `for` loop cut short (see [`LOOP_STEPS`]): what its later
    /// iterations would assign, the loop's own variables among them, is only
    /// known at run time, and one of them may have returned.
    fn later_iterations_unknown(&mut self, lctx: &Ctx, f: &ForStmt) {
        for (n, _) in values_before(lctx, &[&f.body, &f.init]) {
            lctx.scope.assign(&n, Value::dynamic());
        }
        if returns_in(&f.body) {
            self.note_maybe_return(Flow::Return(Value::dynamic()));
        }
    }

    /// Run the body of `while (test)` (or `do … while (test)`) while its
    /// test is decided by what the program holds (see [`Interp::while_test`]),
    /// at most [`WHILE_ITERATIONS`] times; `Some(flow)` when the body leaves
    /// the enclosing function or loop. An iteration that a path that may not
    /// run left (`if (!m) break` with `m` only known at run time) is the last
    /// one run: whether the loop goes on is only known at run time, and what
    /// the variables hold after it is what the paths through it joined to. A
    /// test the analysis cannot decide cheaply (`while ((m = re.exec(s)))`,
    /// `while (n > 0)` on a counter), one undecided before the first
    /// iteration, and a constant test (`while (true)`) whose body has no
    /// `break` or `return` of its own run the body once with what is known,
    /// as a loop over values only known at run time.
    fn while_iterations(&mut self, ctx: &Ctx, w: &WhileStmt, label: Option<&str>) -> Option<Flow> {
        let constant = matches!(w.test, Expr::Bool(_) | Expr::Num(_) | Expr::Str(_));
        let first = match decidable(&w.test) && (!constant || leaves_loop(&w.body, label)) {
            false => None,
            true if w.body_first => Some(true),
            true => self.while_test(ctx, &w.test),
        };
        if first == Some(false) {
            return None;
        }
        if first.is_none() {
            self.running
                .dyn_loops
                .push(DynLoop::new(ctx.file, w.line, w.text.clone()));
            let flow = self.exec_block(ctx, &w.body);
            self.note_maybe_exit(&flow);
            self.pop_dyn_loop();
            return None;
        }
        // The names the body binds are not taken as per iteration (unlike a
        // `for`'s): while looking for events, an `if` on one stays undecided
        // as before. On PortOS, `if (sentence) out.push(sentence)` in
        // splitSentences's `while (true)` was decided false by a string the
        // analysis took as known, and the `voice:error` emit behind the
        // for-of over `out` (pipeline.js:630) was lost.
        let mut n = 0;
        loop {
            if n > 0 {
                match self.while_test(ctx, &w.test) {
                    Some(true) if n < WHILE_ITERATIONS => {}
                    _ => break None,
                }
                if self.loop_budget_spent(ctx.file, w.line) {
                    break None;
                }
            }
            n += 1;
            if let Some(b) = self.running.breakables.last_mut() {
                b.left = false;
            }
            match step(self.exec_block(ctx, &w.body), label) {
                Step::Next => {}
                Step::Stop => break None,
                Step::Exit(f) => break Some(f),
            }
            if self.running.breakables.last().is_some_and(|b| b.left) {
                break None;
            }
        }
    }

    /// What a `while` test gives, when what the program holds decides it
    /// cheaply: literals, names and property paths holding anything but a
    /// number (`while (next)`, `while (!done)`), the size of a known array,
    /// `Set` or `Map` (`queue.length`, `pending.size`, or either compared
    /// with a number literal), and `!`, `&&`, `||` over those. A number read
    /// from a name (a counter: `while (n > 0)`) is not decided here, nor is
    /// a value a call not followed yet would give; while looking for events
    /// or running a Socket.IO handler, a flag or size in program state does
    /// not decide it either (as for `if`, `Stmt::If`).
    fn while_test(&mut self, ctx: &Ctx, e: &Expr) -> Option<bool> {
        let state_mode = self.modes.event_mode || self.running.socket_handlers > 0;
        match e {
            Expr::Bool(b) => Some(*b),
            Expr::Null | Expr::Undefined => Some(false),
            Expr::Num(n) => Some(*n != 0.0 && !n.is_nan()),
            Expr::Str(s) => Some(!s.is_empty()),
            Expr::Typed(inner, _) => self.while_test(ctx, inner),
            Expr::Unary(op, inner) if op == "!" => self.while_test(ctx, inner).map(|b| !b),
            Expr::Logical(LogicalOp::And, a, b) => match self.while_test(ctx, a)? {
                true => self.while_test(ctx, b),
                false => Some(false),
            },
            Expr::Logical(LogicalOp::Or, a, b) => match self.while_test(ctx, a)? {
                true => Some(true),
                false => self.while_test(ctx, b),
            },
            Expr::Compare(op, l, r) => {
                if state_mode && !self.per_iteration_test(e) {
                    return None;
                }
                let (a, b) = match (l.as_ref(), r.as_ref()) {
                    (l, Expr::Num(k)) => (self.collection_size(ctx, l)?, *k),
                    (Expr::Num(k), r) => (*k, self.collection_size(ctx, r)?),
                    _ => return None,
                };
                Some(match op.as_str() {
                    "<" => a < b,
                    "<=" => a <= b,
                    ">" => a > b,
                    ">=" => a >= b,
                    "===" | "==" => a == b,
                    "!==" | "!=" => a != b,
                    _ => return None,
                })
            }
            Expr::Ident(_) | Expr::Member(..) => {
                let per_iteration = self.per_iteration_test(e);
                if let Some(size) = self.collection_size(ctx, e) {
                    return (!state_mode || per_iteration).then_some(size != 0.0);
                }
                let v = self.eval(ctx, e);
                let v = self.force(v, 0);
                let flag = matches!(
                    v,
                    Value::Bool(_) | Value::Undef | Value::Null | Value::Str(_)
                );
                match v {
                    Value::Num(_) | Value::Unknown(_) | Value::Deferred(_) | Value::Lazy(..) => {
                        None
                    }
                    _ if flag && state_mode && !per_iteration => None,
                    v => self.truth(&v),
                }
            }
            _ => None,
        }
    }

    /// `xs.length` of a known array, `s.size` of a `Set` or `Map` whose
    /// entries are known.
    fn collection_size(&mut self, ctx: &Ctx, e: &Expr) -> Option<f64> {
        let Expr::Member(o, p) = e else {
            return None;
        };
        let v = self.eval(ctx, o);
        match (p.as_str(), self.force(v, 0)) {
            ("length", Value::Arr(a)) if self.empty_by_default(&a).is_none() => {
                Some(a.borrow().len() as f64)
            }
            ("size", Value::Coll(c)) if !c.entries_unknown && !c.lost.get() => {
                Some(c.items.borrow().len() as f64)
            }
            _ => None,
        }
    }

    /// The iterations of `for (pat of|in items)` over a known collection;
    /// `Some(flow)` when the body leaves the enclosing function or loop.
    fn known_iterations(
        &mut self,
        ctx: &Ctx,
        pat: &Pattern,
        items: Vec<Value>,
        body: &[Stmt],
        line: u32,
        label: Option<&str>,
    ) -> Option<Flow> {
        for item in items.into_iter().take(MAX_ITERATIONS) {
            if self.loop_budget_spent(ctx.file, line) {
                break;
            }
            let inner = Ctx {
                scope: Scope::new(Some(ctx.scope.clone())),
                ..ctx.clone()
            };
            self.bind(&inner, pat, item, true);
            match step(self.exec_block(&inner, body), label) {
                Step::Next => {}
                Step::Stop => break,
                Step::Exit(f) => return Some(f),
            }
        }
        None
    }

    /// The labels whose entry reaches case `i`'s body: its own and those of
    /// the cases before it that fall into it. `None` when one of them is
    /// `default` or not a constant.
    pub(crate) fn case_labels(
        &mut self,
        ctx: &Ctx,
        cases: &[SwitchCase],
        i: usize,
    ) -> Option<Vec<Rc<str>>> {
        let mut out = Vec::new();
        let mut j = i;
        loop {
            let test = cases[j].test.as_ref()?;
            let v = self.eval(ctx, test);
            let label: Rc<str> = Rc::from(self.force_deep(v).as_text()?.as_str());
            if !out.contains(&label) {
                out.push(label);
            }
            if j == 0 || cases[j - 1].exits {
                break;
            }
            j -= 1;
        }
        out.reverse();
        Some(out)
    }

    /// What a name or property path read in a running switch case is, when
    /// it is that switch's discriminant and the case decides it to one label
    /// (whatever the analysis knew of it: a case entered by matching has
    /// `discriminant === label`).
    pub(crate) fn narrowed_value(&self, text: &str) -> Option<Value> {
        match self.narrowed_labels(text)? {
            [one] => Some(Value::Str(one.clone())),
            _ => None,
        }
    }

    /// The labels a running switch case decides its discriminant to.
    pub(crate) fn narrowed_labels(&self, text: &str) -> Option<&[Rc<str>]> {
        let depth = self.js.stack.len();
        self.running
            .narrowed
            .iter()
            .rev()
            .find(|(d, t, _)| *d == depth && t == text)
            .map(|(_, _, l)| l.as_slice())
    }

    /// Whether an `if` test reads a name that one iteration of a loop over a
    /// known collection binds, in the function that runs the loop: its value
    /// is that iteration's, not program state.
    pub(crate) fn per_iteration_test(&self, test: &Expr) -> bool {
        if self.running.iteration_names.is_empty() {
            return false;
        }
        let depth = self.js.stack.len();
        let mut roots = Vec::new();
        test_roots(test, &mut roots, 0);
        roots.iter().any(|r| {
            self.running
                .iteration_names
                .iter()
                .any(|(n, d)| *d == depth && n == r)
        })
    }

    /// One run of a loop body over values only known at run time (or over a
    /// list that is empty only by a default taken for one: `empty_when`,
    /// see [`DynLoop::empty_when`]).
    fn dynamic_iteration(
        &mut self,
        ctx: &Ctx,
        pat: Option<&Pattern>,
        body: &[Stmt],
        text: &str,
        line: u32,
        empty_when: Option<String>,
    ) {
        let mut dl = DynLoop::new(ctx.file, line, text.to_string());
        dl.empty_when = empty_when;
        self.running.dyn_loops.push(dl);
        let inner = Ctx {
            scope: Scope::new(Some(ctx.scope.clone())),
            ..ctx.clone()
        };
        if let Some(p) = pat {
            self.bind(&inner, p, Value::dynamic(), true);
        }
        // The body may run no time at all: a variable it assigns holds the
        // join of its value before and after one run (`for (const h of
        // hooks) params = await h(params)` may leave `params` as it was),
        // and a `return` in it is one the call may give.
        let before = values_before(ctx, &[body]);
        let flow = self.exec_block(&inner, body);
        for (n, pre) in &before {
            let x = ctx.scope.lookup(n).unwrap_or_else(|| pre.clone());
            let kept = join(pre, x.clone(), pre.clone());
            kept_of_several(&kept, &[x, pre.clone()]);
            ctx.scope.assign(n, kept);
        }
        if matches!(flow, Flow::Return(_)) {
            self.note_maybe_return(flow);
        }
        self.pop_dyn_loop();
    }

    /// `try`/`catch`/`finally`: a throw in the block runs the handler for sure
    /// (with the thrown value); otherwise the handler may still run (a call the
    /// analyzer does not follow may throw), so what it does is conditional.
    /// A block that leaves (`return`, `break`, `continue`) after something
    /// that may throw leaves on one path only: when the handler completes
    /// normally, the code after the `try` runs on the other, as after an `if`
    /// with a return in one branch (`try { loadPlugin(app); return } catch {}
    /// app.get('/fallback', …)`); `finally` runs on every path.
    /// When the handler may run and completes, what the code after the `try`
    /// reads is the join of both paths (see [`Interp::join_caught`]).
    pub(crate) fn exec_try(
        &mut self,
        ctx: &Ctx,
        body: &[Stmt],
        catch: &Catch,
        handler: &[Stmt],
        fin: &[Stmt],
    ) -> Flow {
        let before_body = match catch {
            Catch::Absent => Vec::new(),
            _ => values_before(ctx, &[body]),
        };
        let mut r = self.exec_block(ctx, body);
        let param = catch.binding();
        if !matches!(catch, Catch::Absent) {
            let inner = Ctx {
                scope: Scope::new(Some(ctx.scope.clone())),
                ..ctx.clone()
            };
            match r {
                Flow::Throw(v) => {
                    if let Some(p) = param {
                        self.bind(&inner, p, v, true);
                    }
                    r = self.exec_block(&inner, handler);
                }
                _ => {
                    if let Some(p) = param {
                        self.bind(&inner, p, Value::dynamic(), true);
                    }
                    let before_handler = values_before(ctx, &[handler]);
                    self.running.cond.push(CAUGHT.into());
                    let (f, handler_writes) = self.path(|me| me.exec_block(&inner, handler));
                    self.running.cond.pop();
                    let leaves = matches!(r, Flow::Return(_) | Flow::Break(_) | Flow::Continue(_));
                    let paths = CaughtPaths {
                        before_body: &before_body,
                        before_handler: &before_handler,
                        handler_writes: &handler_writes,
                        body_may_throw: may_throw(body),
                        uncaught_goes_on: !leaves,
                        caught_goes_on: matches!(f, Flow::Normal) && !ends_process(handler),
                    };
                    self.join_caught(ctx, paths);
                    if matches!(f, Flow::Normal)
                        && leaves
                        && may_throw(body)
                        && !ends_process(handler)
                    {
                        self.note_maybe_return(std::mem::replace(&mut r, Flow::Normal));
                    } else {
                        self.note_maybe_return(f);
                    }
                }
            }
        }
        match self.exec_block(ctx, fin) {
            Flow::Normal => r,
            f => f,
        }
    }
}

/// The condition under which a `catch` block that may run runs.
const CAUGHT: &str = "an exception was caught";

/// What a `try` whose `catch` may run left in the variables, for
/// [`Interp::join_caught`]: their values before the block and before the
/// handler, whether the block may throw, and whether the code after the `try`
/// runs when nothing was caught (the block did not leave) and when something
/// was (the handler completes).
struct CaughtPaths<'a> {
    before_body: &'a [(String, Value)],
    before_handler: &'a [(String, Value)],
    handler_writes: &'a [Written],
    body_may_throw: bool,
    uncaught_goes_on: bool,
    caught_goes_on: bool,
}

impl Interp {
    /// After a `try` whose handler may run and completes, the code after it
    /// runs with an exception caught or not: a variable the handler assigns
    /// holds the join of what the two paths leave in it (`let found = true;
    /// try { fs.accessSync(p) } catch { found = false }` leaves `found`
    /// unknown, so `if (found) require(p)` is conditional, not skipped), and
    /// one the block assigns after something that may throw may still hold
    /// its value from before the block (`let ok = false; try { check(); ok =
    /// true } catch {}`).
    /// When the block cannot throw (the handler never runs) or the handler
    /// does not complete (`catch (e) { ok = false; process.exit(1) }`), the
    /// code after the `try` runs with what the block left.
    fn join_caught(&mut self, ctx: &Ctx, paths: CaughtPaths<'_>) {
        if !paths.body_may_throw || !paths.caught_goes_on {
            for (n, v) in paths.before_handler {
                ctx.scope.assign(n, v.clone());
            }
            for w in paths.handler_writes {
                w.put(w.before.clone());
            }
            return;
        }
        let uncaught = crate::conditions::negated(CAUGHT);
        if paths.uncaught_goes_on {
            // A property the handler wrote, as after an `if`.
            let unwritten: Vec<Written> = Vec::new();
            self.join_writes(CAUGHT, paths.handler_writes, &unwritten);
            for (n, after_body) in paths.before_handler {
                let after_handler = ctx.scope.lookup(n).unwrap_or_else(|| after_body.clone());
                let pre = paths
                    .before_body
                    .iter()
                    .find(|(m, _)| m == n)
                    .map_or(after_body, |(_, v)| v);
                // A handler's fallback that says nothing (`catch { list = [] }`)
                // gives way to what the block made, as in `list || []`: what
                // the block read (a folder's files) is what may register.
                let kept = if super::says_nothing(&after_handler)
                    && !super::says_nothing(after_body)
                    && !after_body.is_unknown()
                {
                    after_body.clone()
                } else {
                    self.join_paths(
                        pre,
                        (after_body.clone(), uncaught.clone()),
                        (after_handler, CAUGHT.to_string()),
                    )
                };
                ctx.scope.assign(n, kept);
            }
        }
        for (n, pre) in paths.before_body {
            if paths.before_handler.iter().any(|(m, _)| m == n) {
                continue;
            }
            let after_body = ctx.scope.lookup(n).unwrap_or_else(|| pre.clone());
            let kept = if paths.uncaught_goes_on {
                self.join_paths(
                    pre,
                    (after_body, uncaught.clone()),
                    (pre.clone(), CAUGHT.to_string()),
                )
            } else {
                // Only the caught path goes on: the block threw before or
                // after the write.
                join(pre, after_body, pre.clone())
            };
            ctx.scope.assign(n, kept);
        }
    }
}

/// `a < b` and friends, over numbers or over strings. Only a `for` loop's
/// test is decided this way: elsewhere an ordering is unknown, since what is
/// known of a count at analysis time is often a starting state (an empty list
/// that fills up at run time).
pub(crate) fn relation(op: &str, a: &Value, b: &Value) -> Value {
    let ord = match (a, b) {
        (Value::Num(x), Value::Num(y)) => x.partial_cmp(y),
        // As JavaScript orders strings: by UTF-16 code units.
        (Value::Str(x), Value::Str(y)) => Some(x.encode_utf16().cmp(y.encode_utf16())),
        _ => None,
    };
    let Some(ord) = ord else {
        return Value::dynamic();
    };
    use std::cmp::Ordering::*;
    Value::Bool(match op {
        "<" => ord == Less,
        "<=" => ord != Greater,
        ">" => ord == Greater,
        _ => ord != Less,
    })
}

impl Interp {
    /// An `if` whose test is only known at run time: both branches run, each
    /// from the state before the `if`, and a variable either branch assigns
    /// then holds the join of what the two paths leave in it (see [`join`]).
    /// A property read as a flag in program state (`if (this.parent)`)
    /// whose value does not decide the branch (see `Stmt::If`): the branch
    /// its value does not take runs as if it held another value, so there it
    /// reads unknown (`${this.parent}_${name}` is no `undefined_name`).
    pub(crate) fn state_flag(&mut self, ctx: &Ctx, test: &Expr) -> Option<StateFlag> {
        let read = match test {
            Expr::Unary(op, inner) if op == "!" => inner.as_ref(),
            e => e,
        };
        let Expr::Member(obj, prop) = read else {
            return None;
        };
        let Value::Obj(data) = self.eval(ctx, obj) else {
            return None;
        };
        let now = data.get(prop)?;
        let in_then = !now.truthy()? != matches!(test, Expr::Unary(..));
        Some(StateFlag {
            data,
            prop: prop.clone(),
            now,
            in_then,
        })
    }

    pub(crate) fn exec_both(
        &mut self,
        ctx: &Ctx,
        text: &str,
        then: &[Stmt],
        els: &[Stmt],
        flag: Option<StateFlag>,
    ) -> Flow {
        let before = values_before(ctx, &[then, els]);
        self.running.cond.push(text.to_string());
        let (a, then_writes) = with_flag(flag.as_ref().filter(|f| f.in_then), || {
            self.path(|me| me.exec_block(ctx, then))
        });
        self.running.cond.pop();
        let after_then: Vec<Value> = before
            .iter()
            .map(|(n, v)| ctx.scope.lookup(n).unwrap_or_else(|| v.clone()))
            .collect();
        for (n, v) in &before {
            ctx.scope.assign(n, v.clone());
        }
        // The `else` branch runs from the state before the `if`.
        for w in &then_writes {
            w.put(w.before.clone());
        }
        self.running.cond.push(format!("!({text})"));
        let (b, else_writes) = with_flag(flag.as_ref().filter(|f| !f.in_then), || {
            self.path(|me| me.exec_block(ctx, els))
        });
        self.running.cond.pop();
        for ((n, pre), x) in before.iter().zip(after_then) {
            let y = ctx.scope.lookup(n).unwrap_or_else(|| pre.clone());
            let kept = self.join_paths(pre, (x, text.to_string()), (y, format!("!({text})")));
            ctx.scope.assign(n, kept);
        }
        self.join_writes(text, &then_writes, &else_writes);
        // Only a way out that both branches take leaves for sure; a return
        // that one branch takes is what the call may give instead. Both
        // returning is `if (t) return x; return y;` written with an `else`:
        // the call gives `y`, or `x` instead (`if (cache[k]) return cache[k];
        // else { …; return made }` gives what it made, not only the cache's
        // value only known at run time).
        if !matches!(a, Flow::Normal) && !matches!(b, Flow::Normal) {
            if let (Flow::Return(x), Flow::Return(y)) = (&a, &b) {
                // Two routers: one standing for each (`libs/express_choice.rs`).
                let not = format!("!({text})");
                if let Some(v) = self.router_choice(x, text, y, &not) {
                    return Flow::Return(v);
                }
                // Two known strings: each, under its condition (`choices.rs`).
                if let Some(v) = self.choice_of(text, x, y) {
                    return Flow::Return(v);
                }
                self.note_maybe_return(a);
                return b;
            }
            return a;
        }
        for f in [a, b] {
            self.note_maybe_return(f);
        }
        Flow::Normal
    }
}

/// The property writes of a path that may not run (see
/// [`Interp::note_path_write`]): each object and key written, once, in the
/// order first written.
#[derive(Default)]
pub(crate) struct PathWrites {
    /// Objects made before the path have a `born` at or below this; one made
    /// on the path is its own: the other path never sees it, so its keys
    /// are not joined (a module first loaded in a branch keeps its exports).
    epoch: u64,
    seen: std::collections::HashSet<(usize, String)>,
    writes: Vec<Written>,
}

/// A key a path wrote: its value before the path (`None`: the object lacked
/// it) and after.
pub(crate) struct Written {
    object: Rc<ObjData>,
    key: String,
    before: Option<Value>,
    after: Option<Value>,
}

impl Written {
    /// Give the key `v` (`None`: remove it).
    fn put(&self, v: Option<Value>) {
        match v {
            Some(v) => self.object.set(&self.key, v),
            None => {
                self.object.props.borrow_mut().shift_remove(&self.key);
            }
        }
    }

    fn same_place(&self, other: &Written) -> bool {
        Rc::ptr_eq(&self.object, &other.object) && self.key == other.key
    }
}

impl Interp {
    /// Mark `o` as made now (object literals, instances, module objects,
    /// `Object.create`, class statics): see [`PathWrites`].
    pub(crate) fn stamp(&mut self, o: &Rc<ObjData>) {
        self.js.objects_made += 1;
        o.born.set(self.js.objects_made);
    }

    /// `data.key` is about to be written: on a path that may not run, keep
    /// its value before the path.
    pub(crate) fn note_path_write(&mut self, data: &Rc<ObjData>, key: &str) {
        let Some(frame) = self.running.path_writes.last_mut() else {
            return;
        };
        if data.born.get() > frame.epoch {
            return;
        }
        if frame
            .seen
            .insert((Rc::as_ptr(data) as usize, key.to_string()))
        {
            frame.writes.push(Written {
                object: data.clone(),
                key: key.to_string(),
                before: data.get(key),
                after: None,
            });
        }
    }

    /// Run `f` as a path that may not run: what it gives, and the property
    /// writes it made (left in place).
    fn path<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> (T, Vec<Written>) {
        self.running.path_writes.push(PathWrites {
            epoch: self.js.objects_made,
            ..PathWrites::default()
        });
        let r = f(self);
        let frame = self.running.path_writes.pop().unwrap_or_default();
        let writes = frame
            .writes
            .into_iter()
            .map(|mut w| {
                w.after = w.object.get(&w.key);
                w
            })
            .collect();
        (r, writes)
    }

    /// After an `if` whose test is only known at run time: a property either
    /// branch wrote holds the join of what the two paths leave in it, as a
    /// variable does (`const cfg = { debug: false }; if (process.env.DEBUG)
    /// cfg.debug = true;` leaves `cfg.debug` unknown, so `if (!cfg.debug)
    /// app.get('/prod', …)` is charted, conditional, not skipped).
    fn join_writes(&mut self, text: &str, then: &[Written], els: &[Written]) {
        let mut places: Vec<&Written> = then.iter().collect();
        for w in els {
            if !then.iter().any(|t| t.same_place(w)) {
                places.push(w);
            }
        }
        for w in places {
            let after = |side: &[Written]| {
                side.iter()
                    .find(|o| o.same_place(w))
                    .map_or(w.before.clone(), |o| o.after.clone())
            };
            let (x, y) = (after(then), after(els));
            w.put(w.before.clone());
            let pre = w.before.clone().unwrap_or(Value::Undef);
            // A key the object lacked that one way writes and the other
            // leaves absent: copying the object over another keeps that
            // one's value on the way it is absent (`maywrite.rs`).
            let absent = match (&w.before, &x, &y) {
                (None, Some(v), None) => Some((v.clone(), text.to_string(), format!("!({text})"))),
                (None, None, Some(v)) => Some((v.clone(), format!("!({text})"), text.to_string())),
                _ => None,
            };
            let kept = match (x, y) {
                (None, None) => continue,
                (x, y) => self.join_paths(
                    &pre,
                    (x.unwrap_or(Value::Undef), text.to_string()),
                    (y.unwrap_or(Value::Undef), format!("!({text})")),
                ),
            };
            self.note_path_write(&w.object, &w.key);
            w.object.set(&w.key, kept.clone());
            if let Some((value, present, absent)) = absent
                && same(&kept, &value)
            {
                self.note_maybe_absent(&w.object, &w.key, kept, present, absent);
            }
        }
    }

    /// What a variable holds where two paths meet, from its value `pre`
    /// before them and what each leaves in it, with the condition under
    /// which that path is taken: see [`Interp::branch_default`] and [`join`].
    pub(super) fn join_paths(
        &mut self,
        pre: &Value,
        x: (Value, String),
        y: (Value, String),
    ) -> Value {
        let ((x, when_x), (y, when_y)) = (x, y);
        // Two known strings on the two ways of one test: each, under its
        // condition (see `choices.rs`).
        if when_y == format!("!({when_x})")
            && let Some(v) = self.choice_of(&when_x, &x, &y)
        {
            return v;
        }
        // Two routers: one standing for each (`libs/express_choice.rs`).
        if let Some(v) = self.router_choice(&x, &when_x, &y, &when_y) {
            return v;
        }
        let kept = match (x.is_unknown(), y.is_unknown()) {
            (false, true) => self.branch_default(pre, x.clone(), y.clone(), when_x),
            (true, false) => self.branch_default(pre, y.clone(), x.clone(), when_y),
            _ => join(pre, x.clone(), y.clone()),
        };
        kept_of_several(&kept, &[x, y]);
        kept
    }

    /// What a variable holds after an `if` whose test is only known at run
    /// time, when one path leaves it `known` (on the path where `when` holds)
    /// and the other leaves it a value only known at run time: the join of
    /// both, as for `x || '/d'`. A string is the default taken for the
    /// run-time value, applying when `when` holds (`let p = cfg.prefix; if
    /// (!p) p = '/api'` is `/api` only when `!p`: a route at it is charted
    /// under the default, conditional, with an `assumed-default` finding);
    /// anything else is what [`join`] keeps (a boolean leaves the variable
    /// unknown: two paths, two answers; the known function of `if (cfg.wrap)
    /// listen = wrapper(listen)`).
    fn branch_default(&mut self, pre: &Value, known: Value, unknown: Value, when: String) -> Value {
        match &known {
            Value::Str(s) if self.assumptions(&known).is_empty() => self.assume(&s.clone(), when),
            _ => join(pre, known, unknown),
        }
    }

    /// A way out a path that may not run took: the loops and `switch`es it
    /// leaves (a `break` the innermost one of its function, or the one its
    /// label names; a `continue label` the ones inside that loop; a `return`
    /// every one of its function) are marked as maybe left. A `throw` is not
    /// followed (it may be caught inside the loop).
    pub(crate) fn note_maybe_exit(&mut self, f: &Flow) {
        let depth = self.js.stack.len();
        let mut open = self
            .running
            .breakables
            .iter_mut()
            .rev()
            .take_while(|b| b.depth >= depth)
            .filter(|b| b.depth == depth);
        match f {
            Flow::Return(_) => open.for_each(|b| b.left = true),
            Flow::Break(label) => {
                if let Some(b) = open.find(|b| label.is_none() || b.label == *label) {
                    b.left = true;
                }
            }
            Flow::Continue(Some(label)) => {
                for b in open {
                    if b.label.as_ref() == Some(label) {
                        break;
                    }
                    b.left = true;
                }
            }
            _ => {}
        }
    }

    /// Keep what a path that may not run returns, for the running call.
    pub(crate) fn note_maybe_return(&mut self, f: Flow) {
        self.note_maybe_exit(&f);
        if let (Flow::Return(v), Some(list)) = (f, self.js.maybe_returns.last_mut()) {
            list.push(v);
        }
    }
}

/// What a call gives, from the value its last path returned and what paths
/// that may or may not run returned: a constant (`true`, `3`, `'x'`,
/// `null`, `undefined`) that another path may replace with a different
/// constant (a boolean, `null` or `undefined`: also with a value only known
/// at run time) is unknown. `try { fs.statSync(p) } catch (e) { if (e.code ===
/// 'ENOENT') return false } return true` is neither `true` nor `false` here,
/// so an `if (!exists(p))` that decides what the program runs keeps both
/// branches. When the last path gives nothing (`undefined`, `null`: the
/// function falls off its end) and a path that may run returned an app,
/// router, socket, function or class, the call gives that one, as [`join`]
/// keeps it for a variable: `init(s) { if (!s.disableEditor) { const app =
/// express(); …; return app } }` is the editor app its caller mounts.
/// Otherwise objects, functions, apps and sockets are kept as they are (the
/// last path's).
pub(crate) fn primitive_result(result: Value, maybe: &[Value]) -> Value {
    if matches!(result, Value::Undef | Value::Null)
        && let Some(v) = maybe.iter().rev().find(|v| carries_routes(v))
    {
        return v.clone();
    }
    let constant = |v: &Value| {
        matches!(
            v,
            Value::Bool(_) | Value::Num(_) | Value::Str(_) | Value::Null | Value::Undef
        )
    };
    let equal = |a: &Value, b: &Value| match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Num(x), Value::Num(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Null, Value::Null) | (Value::Undef, Value::Undef) => true,
        _ => false,
    };
    // A boolean is a flag, not a default: a path that may give a value only
    // known at run time replaces it too (`try { return JSON.parse(text) }
    // catch {} return false` is no `false` that decides the caller's `if`).
    // A string or number stays the default it is (`return dflt` after a loop).
    // So are `null` and `undefined`: `if (path) return path; return null`
    // given a value only known at run time gives that value or `null`.
    let differs = |m: &Value| {
        (constant(m) && !equal(m, &result))
            || (matches!(result, Value::Bool(_) | Value::Null | Value::Undef)
                && matches!(m, Value::Unknown(_)))
    };
    if constant(&result) && maybe.iter().any(differs) {
        return Value::dynamic();
    }
    result
}

/// A flag in program state that does not decide its `if` (see
/// [`Interp::state_flag`]): the object and property read, its value now, and
/// whether the `then` branch is the one that value does not take.
pub(crate) struct StateFlag {
    data: Rc<ObjData>,
    prop: String,
    now: Value,
    in_then: bool,
}

/// Run `f` with the flag's property reading unknown, then put its value back
/// (unless the branch wrote another known one).
fn with_flag<T>(flag: Option<&StateFlag>, f: impl FnOnce() -> T) -> T {
    let Some(flag) = flag else {
        return f();
    };
    flag.data.set(&flag.prop, Value::dynamic());
    let r = f();
    if flag.data.get(&flag.prop).is_some_and(|v| v.is_unknown()) {
        flag.data.set(&flag.prop, flag.now.clone());
    }
    r
}

/// `v` is the value kept where `others` were possible too (a join, a ternary
/// with an unknown test, a function's other returns): an object whose shape
/// was known may be one of the others at run time, so its missing keys no
/// longer read `undefined` (see `ObjData::shape_known`).
pub(crate) fn kept_of_several(v: &Value, others: &[Value]) {
    if matches!(v, Value::Obj(_)) && others.iter().any(|o| !same(o, v)) {
        Interp::open_shape(v, 0);
    }
}

/// The variables the blocks assign (not in nested functions) that are in
/// scope, each once, with their values before the blocks run.
fn values_before(ctx: &Ctx, blocks: &[&[Stmt]]) -> Vec<(String, Value)> {
    let mut names = Vec::new();
    for b in blocks {
        super::assigned_names(b, &mut names);
    }
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter_map(|n| ctx.scope.lookup(&n).map(|v| (n, v)))
        .collect()
}

/// Whether two values are the same one (same constant, same object).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Obj(x), Value::Obj(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Arr(x), Value::Arr(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Func(x), Value::Func(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Router(x), Value::Router(y)) => x == y,
        (Value::Class(x), Value::Class(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Unknown(_), Value::Unknown(_)) => true,
        _ => {
            std::mem::discriminant(a) == std::mem::discriminant(b)
                && a.as_text().is_some()
                && a.as_text() == b.as_text()
        }
    }
}

/// What a variable holds after an `if` with an unknown test, from its value
/// before and after each branch (`x` after `then`, `y` after `else`).
///
/// - both the same: that value;
/// - one only known at run time: the known one (an unknown re-wrap such as
///   `if (cfg.wrap) listen = wrapper(listen)` leaves the function that is known),
///   unless the known one says nothing (`undefined`, `null`, `[]`, `{}`) or is
///   a boolean (a flag one path may set: `for (const a of process.argv) if (a
///   === '--debug') debug = true` leaves `debug` unknown, not `false`)
///   (after an `if`, `Interp::exec_both` first makes a known string a default
///   taken for the run-time value: `Interp::branch_default`);
/// - two different booleans: unknown (`let need = true; if (env) need = false;`
///   makes a later `if (need)` conditional, not false);
/// - a string and a boolean: the string (it can be a path or a name);
/// - an app, router, socket, function or class against `null`/`undefined`:
///   the one that can register (`else adminApp = null`);
/// - otherwise the last write in program order (a string path stays charted,
///   a number keeps its type for response schemas).
pub(crate) fn join(pre: &Value, x: Value, y: Value) -> Value {
    if same(&x, &y) {
        return x;
    }
    match (x.is_unknown(), y.is_unknown()) {
        (true, false) => return if vague(&y) { x } else { y },
        (false, true) => return if vague(&x) { y } else { x },
        _ => {}
    }
    let flag = |v: &Value| matches!(v, Value::Bool(_) | Value::Undef | Value::Null);
    let boolean = |v: &Value| {
        matches!(
            v,
            Value::Bool(_) | Value::Unknown(crate::value::Unknown::Bool)
        )
    };
    if boolean(&x) && boolean(&y) {
        return Value::Unknown(crate::value::Unknown::Bool);
    }
    if flag(&x) && flag(&y) && (matches!(x, Value::Bool(_)) || matches!(y, Value::Bool(_))) {
        return Value::dynamic();
    }
    // A string against a boolean one path wrote over it (`if (v === 'true')
    // v = true`, settings parsed from text): the string is the one that can
    // be a path or a name (a boolean is neither), and a default taken for a
    // run-time value stays one (on its way the test compared the default).
    match (&x, &y) {
        (Value::Str(_), Value::Bool(_)) => return x,
        (Value::Bool(_), Value::Str(_)) => return y,
        _ => {}
    }
    // An app, router, socket or function against `null`/`undefined`
    // (`if (enabled) app = express(); else app = null;`): what may register
    // is the one that matters.
    let nothing = |v: &Value| matches!(v, Value::Undef | Value::Null);
    if carries_routes(&x) && nothing(&y) {
        return x;
    }
    if carries_routes(&y) && nothing(&x) {
        return y;
    }
    if same(&y, pre) { x } else { y }
}

/// Whether a known value gives way to a value only known at run time on
/// another path: it says nothing (`undefined`, `null`, `[]`, `{}`), or it is
/// a flag, whose other value the run-time one may be.
pub(crate) fn vague(v: &Value) -> bool {
    matches!(v, Value::Bool(_)) || super::says_nothing(v)
}

/// Whether a value may register routes or events (an app, router, route
/// chain, socket, function or class), so that it wins over `null` or
/// `undefined` on another path.
fn carries_routes(v: &Value) -> bool {
    matches!(
        v,
        Value::Router(_) | Value::Chain(..) | Value::Sio(_) | Value::Func(_) | Value::Class(_)
    )
}

/// `a == b` for two primitives of different kinds, as JavaScript's loose
/// equality decides it: `undefined` and `null` equal each other and nothing
/// else; a boolean compares as the number 1 or 0; a number and a string
/// compare as numbers (`'' == 0`, `'1.0' == 1`).
pub(crate) fn loose_equal(a: &Value, b: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Num(n) => Some(*n),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Str(s) => {
            let t = s.trim();
            if t.is_empty() {
                Some(0.0)
            } else {
                t.parse::<f64>().ok().or(Some(f64::NAN))
            }
        }
        _ => None,
    };
    match (a, b) {
        (Value::Undef | Value::Null, Value::Undef | Value::Null) => true,
        (Value::Undef | Value::Null, _) | (_, Value::Undef | Value::Null) => false,
        (Value::Str(x), Value::Str(y)) => x == y,
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}
