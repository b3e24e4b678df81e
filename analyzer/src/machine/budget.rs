//! Bounded work: calls that would only repeat what is already being analyzed
//! are not entered again.
//!
//! Captures two kinds of re-entry that multiply paths without telling the
//! analysis anything new: a function called again, while it is still running,
//! with the very same arguments (`poll(app)` → `check(app)` → `poll(app)`:
//! the program would do the same work again), and a function re-entered from
//! a callback that runs later (a timer, `setImmediate`, `process.nextTick`,
//! a promise's `then`) while it is still on the stack: the callback runs
//! after the current call returns in the real program, so it is analyzed
//! once, at the outer level. Example: pollers that re-arm each other with
//! `setTimeout` ran in 66 s before; they now run each body a handful of times.
//!
//! Also fan-out without recursion: a discarded call (`f(x);`) of a function
//! that already ran from one with the same shape of `this` and arguments and
//! charted nothing is not run again (see [`Interp::call_discarded`]).
//!
//! Also the memory budget: values that grow without statements to count
//! (`s = s + s` doubling in a short loop, `a = a.concat(a)`) are charged by
//! their size when they are large ([`CHARGE_FROM`]); one string over
//! [`MAX_TEXT`] is treated as unknown, and when the run's total passes
//! [`MEMORY_BUDGET`] no further call is followed.
//! Both are an `analysis-budget` finding naming the function that was
//! running (once per function).
//!
//! A recursive call whose `this` and arguments have the same shape (see
//! [`shape`], looked at [`RECURSION_SHAPE_DEPTH`] levels deep) as those of
//! a call of the same function still running is not entered either: with
//! the same abstract inputs it would only repeat the outer call's work.
//! FreeShow's `replaceDynamicValues` → `getVariableValue` →
//! `replaceDynamicValues`, run with unknown arguments, looped over some
//! hundred names at each of eight levels and spent the whole step budget
//! (40 s); it now stops at the second level.
//!
//! Deliberately not: recursion with changing arguments (a walk over a
//! constant tree of routes) still goes on, up to `MAX_RECURSION` levels,
//! where the `analysis-budget` finding names the function.
//!
//! **Budgets are per program.** Every program the run evaluates (each
//! entry, each program above a file that makes an app, each client or page
//! program, each module run on its own) has its own step and memory budget,
//! [`STEP_BUDGET`] and [`MEMORY_BUDGET`]: one expensive program cannot
//! starve the others. Each module belongs to the program that loaded it
//! first; the later passes (route handlers, functions nobody called) charge
//! the program of the function they run, and what no one program owns
//! (replays, dispatched listeners, framework hooks) has an account of its
//! own. The finding for a spent budget names the program.
//!
//! Programs other than the entries (client and page programs, modules run
//! on their own, router files no entry loaded) get a twentieth of that
//! ([`SECONDARY_SHARE`]): the run's work stays bounded (entries × the full
//! budget, plus the others' twentieths), and on FreeShow, where some twenty
//! front-end modules each ran their uncalled helpers to the full budget,
//! the run took 315 s instead of 40 s.

use super::{Interp, STEP_BUDGET};
use crate::inventory::FindingCode;
use crate::ir::Func;
use crate::project::FileId;
use crate::value::Value;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::Arc;

/// Longest string value the analysis keeps (bytes); a longer one is unknown.
pub(crate) const MAX_TEXT: usize = 1 << 20;
/// Bytes of large values (strings, arrays) one run may build.
pub(crate) const MEMORY_BUDGET: u64 = 4 << 30;
/// Values smaller than this are not charged: loops are capped at
/// `MAX_ITERATIONS`, so small strings built step by step (a tokenizer's
/// `value += ch`) cannot grow memory much, and charging their churn would
/// end the analysis of ordinary code.
pub(crate) const CHARGE_FROM: usize = 64 << 10;
/// What one array element or object property is charged.
pub(crate) const SLOT_BYTES: usize = 32;
/// Bytes of a name one step covers. Reading or writing a variable or a
/// property hashes its name (once per scope the lookup passes), so a name of
/// a quarter megabyte, from a damaged or generated file, made each step
/// cost as much as 100,000 ordinary ones: 28 s for a loop the step budget
/// was meant to bound. Such a name costs a step per 256 bytes; names up to
/// 255 bytes (every real identifier) cost nothing extra.
pub(crate) const NAME_BYTES_PER_STEP: usize = 256;

/// Parts of one expression a step covers. A statement is one step however
/// wide its expression, so a damaged or generated line of 14,000 template
/// substitutions (`${x}${x}…`) in a loop of 10,000 iterations ran 145
/// million evaluations, ten seconds, for the 30,000 steps the loop was
/// charged. A template's substitutions, an array's items, an object
/// literal's properties, a call's arguments and a comma sequence's
/// expressions cost a step per 8; fewer than 8 (nearly every real
/// expression) cost nothing extra.
pub(crate) const PARTS_PER_STEP: usize = 8;

/// What identifies an argument for "the very same arguments".
#[derive(PartialEq)]
enum Ident {
    /// An object, array, function or class: the same one.
    Ptr(usize),
    /// A string or pattern with this text.
    Text(Rc<str>),
    /// A number (bits) or boolean.
    Bits(u64),
    /// An app or router.
    Router(u32),
    /// `undefined`, `null`, or something known only by its kind.
    Kind(u8),
}

fn ident(v: &Value) -> Ident {
    match v {
        Value::Obj(o) => Ident::Ptr(Rc::as_ptr(o) as *const u8 as usize),
        Value::Arr(a) => Ident::Ptr(Rc::as_ptr(a) as *const u8 as usize),
        Value::Func(f) => Ident::Ptr(Rc::as_ptr(f) as *const u8 as usize),
        Value::Class(c) => Ident::Ptr(Rc::as_ptr(c) as *const u8 as usize),
        Value::Sio(s) => Ident::Ptr(Rc::as_ptr(s) as *const u8 as usize),
        Value::Coll(c) => Ident::Ptr(Rc::as_ptr(c) as *const u8 as usize),
        Value::Emitter(e) => Ident::Ptr(Rc::as_ptr(e) as *const u8 as usize),
        Value::Str(s) | Value::Pattern(s) | Value::Regex(s) => Ident::Text(s.clone()),
        Value::Num(n) => Ident::Bits(n.to_bits()),
        Value::Bool(b) => Ident::Bits(*b as u64),
        Value::Router(id) => Ident::Router(*id),
        Value::Undef => Ident::Kind(0),
        Value::Null => Ident::Kind(1),
        _ => Ident::Kind(2),
    }
}

/// The `this` and arguments of a call (see [`Interp::call_args`]), with
/// their identities and shape worked out once, the first time a recursive
/// call of the same function compares itself with them.
pub(crate) struct CallArgs {
    vals: Vec<Value>,
    idents: std::cell::OnceCell<Vec<Ident>>,
    shape: std::cell::OnceCell<u64>,
}

impl CallArgs {
    fn new(vals: Vec<Value>) -> Self {
        CallArgs {
            vals,
            idents: Default::default(),
            shape: Default::default(),
        }
    }

    fn idents(&self) -> &[Ident] {
        self.idents
            .get_or_init(|| self.vals.iter().map(ident).collect())
    }

    fn shape(&self) -> u64 {
        *self.shape.get_or_init(|| shape_of(&self.vals))
    }
}

/// How deep [`shape`] looks for "the same shape" of a recursive call's
/// arguments: deeper than [`SHAPE_DEPTH`], so that a walk over a constant
/// tree (whose nodes differ below their first level) goes on.
const RECURSION_SHAPE_DEPTH: u8 = 4;

fn shape_of(vals: &[Value]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    vals.len().hash(&mut h);
    for v in vals {
        shape(&mut h, v, RECURSION_SHAPE_DEPTH);
    }
    h.finish()
}

/// The share of [`STEP_BUDGET`] and [`MEMORY_BUDGET`] a program other than
/// an entry gets (see the module doc).
pub(crate) const SECONDARY_SHARE: u64 = 20;

/// What a program may spend.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Share {
    /// An entry: the whole [`STEP_BUDGET`] and [`MEMORY_BUDGET`].
    Entry,
    /// Any other program: a [`SECONDARY_SHARE`]th of them.
    Secondary,
}

/// What a program has spent (the current program's is in `JsState`'s
/// `steps` and `budget_reported` and in `Reentry::charged`).
#[derive(Default, Clone, Copy)]
struct Account {
    steps: u64,
    reported: bool,
    charged: u64,
}

/// The programs of a run and their budgets (see the module doc).
#[derive(Default)]
pub(crate) struct Programs {
    /// The program being charged now: its root file, or `None` for work no
    /// one program owns.
    current: Option<FileId>,
    /// The accounts of the other programs.
    saved: HashMap<Option<FileId>, Account>,
    /// Each module loaded, with the program that loaded it first.
    owner: HashMap<FileId, Option<FileId>>,
    /// The programs with a smaller budget ([`Share::Secondary`]).
    secondary: HashSet<FileId>,
    /// The programs whose step budget ran out, each with the function it
    /// was entering then (file, line of the function).
    spent: HashMap<Option<FileId>, (FileId, u32)>,
}

/// The frames being run, beside the interpreter's call stack.
#[derive(Default)]
pub(crate) struct Reentry {
    /// Per running call (parallel to `Interp::stack`): its `this` and arguments.
    args: Vec<CallArgs>,
    /// Stack depths at which a callback that runs later started.
    later: Vec<usize>,
    /// Per running call: its file and function (to name it in a finding).
    funcs: Vec<(FileId, Arc<Func>)>,
    /// Bytes charged by [`Interp::charge`] so far in this run.
    charged: u64,
    /// The call node of the expression statement being run (by address).
    pub(crate) discarded_call: Option<usize>,
    /// Set while that call's callee and arguments are evaluated, taken by
    /// its `call_value`: the call whose value is discarded.
    pub(crate) discard_armed: bool,
    /// Writes of apps, routers and sockets into variables, properties and
    /// collections so far (see [`Interp::note_write`]).
    writes: u64,
    /// Registrations added to routers so far (see [`Interp::effects`]).
    pub(crate) registered: u64,
    /// Discarded calls that ran and charted nothing: (file, function, shape
    /// of `this` and the arguments).
    inert: HashSet<(FileId, u32, u64)>,
    /// The names a function's body reads that may be bound outside it, by
    /// (file, function id): their values are part of a discarded call's
    /// shape (see [`Interp::call_discarded`]).
    free: HashMap<(FileId, u32), Rc<[String]>>,
    /// The programs of the run and their budgets.
    pub(crate) programs: Programs,
}

impl Interp {
    /// The arguments of a call of `key`, or `None` when the call would only
    /// repeat one already running (see the module doc).
    pub(crate) fn call_args(
        &self,
        key: (FileId, u32),
        argv: &[Value],
        this: Option<&Value>,
    ) -> Option<CallArgs> {
        let args = CallArgs::new(this.into_iter().chain(argv.iter()).cloned().collect());
        let Some(pos) = self.js.stack.iter().position(|k| *k == key) else {
            return Some(args);
        };
        let through_later = self.js.reentry.later.last().is_some_and(|&d| d > pos);
        if through_later {
            return None;
        }
        let running = || {
            self.js
                .stack
                .iter()
                .zip(&self.js.reentry.args)
                .filter(|(k, _)| **k == key)
                .map(|(_, a)| a)
        };
        if running().any(|a| a.idents() == args.idents()) {
            return None;
        }
        if running().any(|a| a.shape() == args.shape()) {
            return None;
        }
        Some(args)
    }

    /// Charge the work from now on to the program started from `root`
    /// (`None`: work no one program owns); returns the program charged
    /// before, for [`Interp::charge_program`] to put back.
    pub(crate) fn charge_program(&mut self, root: Option<FileId>) -> Option<FileId> {
        let programs = &mut self.js.reentry.programs;
        let was = programs.current;
        if was == root {
            return was;
        }
        programs.saved.insert(
            was,
            Account {
                steps: self.js.steps,
                reported: self.js.budget_reported,
                charged: self.js.reentry.charged,
            },
        );
        let now = programs.saved.remove(&root).unwrap_or_default();
        programs.current = root;
        self.js.steps = now.steps;
        self.js.budget_reported = now.reported;
        self.js.reentry.charged = now.charged;
        was
    }

    /// Run `f` charging the program started from `root`, which may spend
    /// `share` when it first runs.
    pub(crate) fn as_program<T>(
        &mut self,
        root: FileId,
        share: Share,
        f: impl FnOnce(&mut Interp) -> T,
    ) -> T {
        let programs = &mut self.js.reentry.programs;
        if share == Share::Secondary
            && programs.current != Some(root)
            && !programs.saved.contains_key(&Some(root))
        {
            // Its budget is the last part of the whole one: the checks
            // against `STEP_BUDGET` and `MEMORY_BUDGET` hold as they are.
            programs.secondary.insert(root);
            programs.saved.insert(
                Some(root),
                Account {
                    steps: STEP_BUDGET - STEP_BUDGET / SECONDARY_SHARE,
                    reported: false,
                    charged: MEMORY_BUDGET - MEMORY_BUDGET / SECONDARY_SHARE,
                },
            );
        }
        let was = self.charge_program(Some(root));
        let out = f(self);
        self.charge_program(was);
        out
    }

    /// The program a module belongs to: the one that loaded it first.
    pub(crate) fn program_of(&self, file: FileId) -> Option<FileId> {
        self.js.reentry.programs.owner.get(&file).copied().flatten()
    }

    /// Note that the program being charged loads `file` (the first one to
    /// load it owns it).
    pub(crate) fn note_loaded(&mut self, file: FileId) {
        let programs = &mut self.js.reentry.programs;
        programs.owner.entry(file).or_insert(programs.current);
    }

    /// Note that the program charged now spent its step budget entering the
    /// function at `at` (its first such call only).
    pub(crate) fn note_spent(&mut self, at: (FileId, u32)) {
        let programs = &mut self.js.reentry.programs;
        programs.spent.entry(programs.current).or_insert(at);
    }

    /// Where the budget that may have kept code of `file` from running ran
    /// out: the budget of the program that owns `file`; for a file no
    /// program loaded, or one whose program did not spend its budget, the
    /// budget of an entry (which may have stopped before loading or calling
    /// it), never that of another client, page or secondary program.
    /// `None` when no such budget ran out.
    pub(crate) fn spent_budget_for(&self, file: FileId) -> Option<(FileId, u32)> {
        let programs = &self.js.reentry.programs;
        if let Some(owner) = programs.owner.get(&file)
            && let Some(&at) = programs.spent.get(owner)
        {
            return Some(at);
        }
        programs
            .spent
            .iter()
            .filter(|(p, _)| p.is_some_and(|root| !programs.secondary.contains(&root)))
            .map(|(_, at)| *at)
            .min()
    }

    /// How the finding for a spent budget names the program charged now.
    pub(crate) fn program_label(&self) -> String {
        match self.js.reentry.programs.current {
            Some(root) => format!(
                "the program started from `{}`",
                self.loader.project.rel(root)
            ),
            None => String::from("the work no one program owns (replays, dispatched listeners)"),
        }
    }

    /// The step and memory budgets of the program charged now.
    pub(crate) fn program_budget(&self) -> (u64, u64) {
        if self.secondary_program() {
            (
                STEP_BUDGET / SECONDARY_SHARE,
                MEMORY_BUDGET / SECONDARY_SHARE,
            )
        } else {
            (STEP_BUDGET, MEMORY_BUDGET)
        }
    }

    /// Whether the program being charged is one other than an entry (a
    /// client's or page's program, a module run on its own: see [`Share`]).
    pub(crate) fn secondary_program(&self) -> bool {
        let programs = &self.js.reentry.programs;
        programs
            .current
            .is_some_and(|root| programs.secondary.contains(&root))
    }

    /// Enter a call frame (beside `Interp::stack`).
    pub(crate) fn enter_frame(&mut self, key: (FileId, u32), args: CallArgs, func: &Arc<Func>) {
        self.js.stack.push(key);
        self.js.reentry.args.push(args);
        self.js.reentry.funcs.push((key.0, func.clone()));
    }

    /// Leave the frame [`Interp::enter_frame`] entered.
    pub(crate) fn leave_frame(&mut self) {
        self.js.stack.pop();
        self.js.reentry.args.pop();
        self.js.reentry.funcs.pop();
    }

    /// Charge the steps a name of unusual length costs to look up (see
    /// [`NAME_BYTES_PER_STEP`]).
    pub(crate) fn charge_name(&mut self, name: &str) {
        self.js.steps += (name.len() / NAME_BYTES_PER_STEP) as u64;
    }

    /// Charge the steps an expression of `parts` parts costs to evaluate
    /// (see [`PARTS_PER_STEP`]).
    pub(crate) fn charge_parts(&mut self, parts: usize) {
        self.js.steps += (parts / PARTS_PER_STEP) as u64;
    }

    /// Charge `bytes` of a value being built in `file`; false when the value
    /// must not be built (it alone is over [`MAX_TEXT`], or the run's memory
    /// budget is spent), and the caller gives an unknown value instead.
    pub(crate) fn charge(&mut self, file: FileId, bytes: usize) -> bool {
        if bytes < CHARGE_FROM {
            return true;
        }
        self.js.reentry.charged = self.js.reentry.charged.saturating_add(bytes as u64);
        let over_budget = self.js.reentry.charged > MEMORY_BUDGET;
        if bytes <= MAX_TEXT && !over_budget {
            return true;
        }
        if over_budget {
            // Stop following calls, as when the step budget is spent.
            self.js.steps = self.js.steps.max(STEP_BUDGET + 1);
        }
        {
            // One finding per function (findings are kept once per place).
            let (file, line, name) = match self.js.reentry.funcs.last() {
                Some((f, func)) => (
                    *f,
                    func.line,
                    format!("`{}`", func.name.as_deref().unwrap_or("<anonymous>")),
                ),
                None => (file, 1, String::from("the top level of the module")),
            };
            let message = if over_budget {
                format!(
                    "the analysis memory budget ({} MiB of built values) of {} ran out in {name}; \
                     calls past this point were not followed",
                    self.program_budget().1 >> 20,
                    self.program_label()
                )
            } else {
                format!(
                    "a value built in {name} grows past {} MiB; it is treated as unknown",
                    MAX_TEXT >> 20
                )
            };
            self.finding(FindingCode::AnalysisBudget, file, line, message);
        }
        false
    }

    /// Count a write of `v` (an assignment, a property or collection entry)
    /// when it holds an app, a router or a socket: state a run that charted
    /// nothing may have lacked (`client.manager = manager` holding the
    /// Socket.IO server), so discarded calls run again after it. Always true.
    pub(crate) fn note_write(&mut self, v: Option<&Value>) -> bool {
        if v.is_some_and(|v| v.is_tracked(1)) {
            self.js.reentry.writes += 1;
        }
        true
    }

    /// Whether a discarded call may be skipped as a repeat (see
    /// [`Interp::call_discarded`]): not while a route's contract or a
    /// listener's events are being read, nor in the events pass, where
    /// each run of a helper can record what the inert test does not count.
    pub(crate) fn memo_eligible(&self) -> bool {
        !self.modes.event_mode
            && self.running.route_contract.is_none()
            && self.running.listener_site.is_none()
    }

    /// A count that grows whenever the analysis charts or learns something
    /// a later stage reports: routers and their registrations, Socket.IO
    /// servers and sites, findings, modules loaded, classes, middleware and
    /// guards seen, and what the libraries learned (`LibState::effects`).
    fn effects(&self) -> u64 {
        self.js.reentry.registered
            + (self.rec.routers.len()
                + self.rec.sio_servers.len()
                + self.rec.sites.len()
                + self.rec.findings.len()
                + self.js.modules.len()
                + self.rec.classes.len()
                + self.libs.effects()
                + self.deferred.middleware_seen.len()
                + self.rec.guards.len()
                + self.deferred.forked.len()
                + self.rec.relay_sinks.len()
                + self.libs.nest_instances.len()) as u64
    }

    /// A call whose value the program discards (`f(x);`, `await f(x);`):
    /// run for its effects, unless the same function already ran, from a
    /// discarded call, with `this`, arguments and the values of the outer
    /// variables its body reads of the same shape (see [`shape`]; a flag
    /// the body tests, `if (!ready) return`, set since makes another run)
    /// and charted nothing then, and no app, router or socket
    /// was stored anywhere since, nor a module loaded: running it again
    /// could only repeat that. This bounds fan-out that multiplies paths without
    /// recursion (a stream callback that handles each cached message, each
    /// handler emitting messages through a pipeline of helpers: every level
    /// called with fresh objects of the same shape).
    pub(crate) fn call_discarded(
        &mut self,
        ctx: &super::Ctx,
        c: &Rc<crate::value::Closure>,
        argv: Vec<Value>,
        args: &[crate::ir::Expr],
        line: u32,
        this: Option<Value>,
    ) -> Value {
        let mut h = rustc_hash::FxHasher::default();
        let receiver = c.this.as_ref().or(this.as_ref()).unwrap_or(&Value::Undef);
        shape(&mut h, receiver, 1);
        for a in &argv {
            shape(&mut h, a, SHAPE_DEPTH);
        }
        for name in self.free_names(c).iter() {
            if let Some(v) = c.env.lookup(name) {
                shape(&mut h, &v, 0);
            }
        }
        // What the run could reach beyond its arguments: apps, routers and
        // sockets written anywhere, routers and servers made, modules loaded.
        (
            self.js.reentry.writes,
            self.rec.routers.len(),
            self.rec.sio_servers.len(),
            self.js.modules.len(),
        )
            .hash(&mut h);
        let key = (c.file, c.func.id, h.finish());
        if self.js.reentry.inert.contains(&key) {
            return Value::Undef;
        }
        let before = self.effects();
        let steps = self.js.steps;
        let f = Value::Func(c.clone());
        let r = self.call_value_now(ctx, &f, argv, args, line, this);
        // Only once a run did some work (a body cut short by the budget or
        // the re-entry rules must not stand for the full run).
        if self.effects() == before && self.js.steps > steps && self.js.steps <= STEP_BUDGET {
            self.js.reentry.inert.insert(key);
        }
        r
    }

    /// The names `c`'s body reads other than its parameters (nested
    /// functions' included: they may run in the call), once per function.
    fn free_names(&mut self, c: &crate::value::Closure) -> Rc<[String]> {
        let key = (c.file, c.func.id);
        if let Some(n) = self.js.reentry.free.get(&key) {
            return n.clone();
        }
        let names = std::cell::RefCell::new(std::collections::BTreeSet::new());
        crate::libs::any_expr(&c.func.body, &|e| {
            if let crate::ir::Expr::Ident(x) = e {
                names.borrow_mut().insert(x.clone());
            }
            false
        });
        let params: HashSet<&str> = c
            .func
            .params
            .iter()
            .filter_map(|p| crate::libs::answers::param_name(Some(p)))
            .collect();
        let names: Rc<[String]> = names
            .into_inner()
            .into_iter()
            .filter(|n| !params.contains(n.as_str()))
            .collect();
        self.js.reentry.free.insert(key, names.clone());
        names
    }

    /// Whether `c` is a closure over a string or template bound in a
    /// function around it (a name its maker was given), not at a module's
    /// top level, where every closure of the function sees the same value.
    pub(crate) fn captures_text(&mut self, c: &crate::value::Closure) -> bool {
        self.free_names(c).iter().any(|n| {
            let mut scope = Some(&c.env);
            while let Some(s) = scope {
                // The module's scope (its parent is the globals') ends the walk.
                let Some(parent) = s.parent.as_ref() else {
                    break;
                };
                if parent.parent.is_none() {
                    break;
                }
                if let Some(v) = s.vars.borrow().get(n.as_str()) {
                    return matches!(v, Value::Str(_) | Value::Pattern(_));
                }
                scope = Some(parent);
            }
            false
        })
    }

    /// The `analysis-budget` finding for the current program's spent step
    /// budget, once per program: `what` the analysis was doing at
    /// `file:line` when it ran out ("entering `f`", "in a loop").
    pub(crate) fn report_spent(&mut self, file: FileId, line: u32, what: &str) {
        if self.js.budget_reported {
            return;
        }
        self.js.budget_reported = true;
        self.note_spent((file, line));
        let message = format!(
            "the analysis budget ran out {what}: {} ran {} steps, its own budget; calls past this point were not followed",
            self.program_label(),
            self.program_budget().0
        );
        self.finding(FindingCode::AnalysisBudget, file, line, message);
    }

    /// Whether the current program's step budget is spent at the start of a
    /// loop's next iteration (the loop at `file:line`): then the loop stops
    /// there, with the finding. A function's own loops are where a budget is
    /// spent without a call to check it at (nested loops over a module
    /// variable that the analysis cannot follow, in a committed bundle of
    /// a front-end framework, ran for hours).
    pub(crate) fn loop_budget_spent(&mut self, file: FileId, line: u32) -> bool {
        // An iteration is a step of its own: a body that runs no statement
        // (empty, or left empty by a syntax error) still spends the budget.
        self.js.steps += 1;
        if self.js.steps <= STEP_BUDGET {
            return false;
        }
        // (A spent memory budget stops the run the same way, with its own
        // finding.)
        if self.js.reentry.charged <= MEMORY_BUDGET {
            self.report_spent(file, line, "in a loop, whose later iterations were not run");
        }
        true
    }

    /// Whether a function called now is called by a call that runs its
    /// callbacks later (see [`runs_later`]), not by code that call runs.
    pub(crate) fn calling_later(&self) -> bool {
        self.js.reentry.later.last() == Some(&self.js.stack.len())
    }

    /// Whether a callback that runs later (timers, promises) is running,
    /// at any depth.
    pub(crate) fn in_later(&self) -> bool {
        !self.js.reentry.later.is_empty()
    }

    /// Run `f` as a callback that the program runs later (timers, promises).
    pub(crate) fn later<T>(&mut self, f: impl FnOnce(&mut Interp) -> T) -> T {
        self.js.reentry.later.push(self.js.stack.len());
        let r = f(self);
        self.js.reentry.later.pop();
        r
    }
}

/// Whether a call hands its callbacks to code that runs them later: timers,
/// `setImmediate`, `process.nextTick`, `queueMicrotask`, a promise's `then`.
pub(crate) fn runs_later(callee: &crate::ir::Expr) -> bool {
    use crate::ir::Expr;
    let name = match callee {
        Expr::Ident(n) => n.as_str(),
        Expr::Member(_, n) => n.as_str(),
        _ => return false,
    };
    matches!(
        name,
        "setTimeout"
            | "setInterval"
            | "setImmediate"
            | "queueMicrotask"
            | "nextTick"
            | "then"
            | "catch"
            | "finally"
    )
}

/// How deep [`shape`] looks into the arguments' objects and arrays.
const SHAPE_DEPTH: u8 = 2;

/// The shape of a value for [`Interp::call_discarded`]: strings, numbers and
/// booleans by value, apps and routers by identity, functions by their
/// definition, objects by their keys and the shapes of their values (arrays
/// by their items), down to `depth` levels, below which only their size.
/// Two fresh `{ path: 'a', value: x }` have one shape; `{ path: 'b', … }` another.
fn shape(h: &mut impl Hasher, v: &Value, depth: u8) {
    std::mem::discriminant(v).hash(h);
    match v {
        Value::Str(s) | Value::Pattern(s) | Value::Regex(s) => s.hash(h),
        Value::Num(n) => n.to_bits().hash(h),
        Value::Bool(b) => b.hash(h),
        Value::Router(id) => id.hash(h),
        Value::Chain(id, _) => id.hash(h),
        Value::Lazy(f, n) => (f, n).hash(h),
        Value::Module(f) => f.hash(h),
        Value::Func(c) => (c.file, c.func.id).hash(h),
        Value::Class(c) => (Rc::as_ptr(c) as *const u8 as usize).hash(h),
        Value::Sio(s) => (Rc::as_ptr(s) as *const u8 as usize).hash(h),
        Value::Emitter(e) => (Rc::as_ptr(e) as *const u8 as usize).hash(h),
        Value::Obj(o) => {
            let props = o.props.borrow();
            props.len().hash(h);
            if depth > 0 {
                for (k, v) in props.iter() {
                    k.hash(h);
                    shape(h, v, depth - 1);
                }
            }
        }
        Value::Arr(a) => {
            let items = a.borrow();
            items.len().hash(h);
            if depth > 0 {
                for v in items.iter().take(64) {
                    shape(h, v, depth - 1);
                }
            }
        }
        Value::Coll(c) => c.items.borrow().len().hash(h),
        _ => {}
    }
}
