//! Express: apps and routers, verbs, `route()` chains, `use()` mounts,
//! `param`, settings, middleware names, and the contract a route's
//! handlers state.
//!
//! Deliberately not here: the mount-graph walk that joins prefixes
//! (`mounts.rs`).

use crate::machine::*;

/// The Express setting that makes a trailing slash part of a route's path.
const STRICT_ROUTING: &str = "strict routing";

impl Interp {
    /// Whether spreading `v` into an object literal copies an Express app
    /// (`{ ...app, extra }`). An app is a function whose methods (`use`,
    /// `get`, `listen`, …) and router are its own enumerable properties
    /// (express mixes `application` into each app), so the copy's methods
    /// register on the app's router: the copy stands for the app. A router's
    /// methods live on its prototype, so a copy of a router has none.
    pub(crate) fn copies_app(&self, v: &Value) -> bool {
        matches!(v, Value::Router(id) if self.rec.routers.get(*id as usize).is_some_and(|r| r.is_app))
    }

    /// Record a registration on app or router `id`, under the conditions in
    /// force where it is made.
    pub(crate) fn push_reg(
        &mut self,
        id: u32,
        kind: RegKind,
        file: FileId,
        line: u32,
        doc: Option<String>,
        via: Option<(FileId, u32)>,
    ) {
        self.rec.made += 1;
        let cond = self.cond_text();
        for fr in &self.js.frames {
            self.rec.census.registered_through.insert((
                (fr.file, fr.line),
                Rc::from(fr.callee.as_str()),
                id,
            ));
        }
        // The same route declared again by the same line under the same
        // conditions (a helper that registers, called many times) is the
        // declaration already there: it adds nothing to the inventory.
        let same = |r: &Reg| {
            r.file == file
                && r.line == line
                && r.via == via
                && r.cond == cond
                && match (&r.kind, &kind) {
                    (
                        RegKind::Route {
                            method: m1,
                            paths: p1,
                            middleware: w1,
                            ..
                        },
                        RegKind::Route {
                            method: m2,
                            paths: p2,
                            middleware: w2,
                            ..
                        },
                    ) => m1 == m2 && p1 == p2 && w1 == w2,
                    _ => false,
                }
        };
        if self.rec.routers[id as usize].regs.iter().rev().any(same) {
            return;
        }
        let reg = Reg {
            kind,
            file,
            line,
            cond,
            doc,
            via,
            declared: None,
        };
        self.rec.routers[id as usize].regs.push(reg);
        self.js.reentry.registered += 1;
    }

    /// Router `r` is mounted; so are the routers it stands for when a choice
    /// made it (see [`RouterData::choice`]).
    pub(crate) fn mark_mounted(&mut self, r: u32) {
        let data = &mut self.rec.routers[r as usize];
        if std::mem::replace(&mut data.mounted, true) || !data.choice {
            return;
        }
        let ways: Vec<u32> = data
            .regs
            .iter()
            .filter_map(|reg| match &reg.kind {
                RegKind::Use { handlers, .. } => match handlers.as_slice() {
                    [UseHandler::Router(w)] => Some(*w),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        for w in ways {
            self.mark_mounted(w);
        }
    }

    pub(crate) fn new_router(&mut self, file: FileId, line: u32, is_app: bool) -> Value {
        self.rec.routers.push(RouterData {
            is_app,
            file,
            line,
            regs: Vec::new(),
            settings: HashMap::new(),
            props: HashMap::new(),
            mounted: false,
            param_callbacks: Vec::new(),
            param_sites: Vec::new(),
            unreached: self.modes.unreached_mode,
            in_event_pass: self.modes.event_mode,
            salvage: self.salvage_tag(),
            manifest: None,
            choice: false,
            strict: false,
        });
        Value::Router(self.rec.routers.len() as u32 - 1)
    }

    /// `express.Router(options)`: a router, strict when `options.strict` is
    /// truthy.
    pub(crate) fn new_router_with(&mut self, file: FileId, line: u32, argv: &[Value]) -> Value {
        let r = self.new_router(file, line, false);
        if let (Value::Router(id), Some(Value::Obj(o))) =
            (&r, argv.first().map(|v| self.force_deep(v.clone())))
        {
            let strict = o.get("strict").map(|v| self.force_deep(v));
            self.rec.routers[*id as usize].strict =
                matches!(strict.and_then(|v| v.truthy()), Some(true));
        }
        r
    }

    /// `app.set('strict routing', on)`: Express reads the setting when it
    /// builds the app's router, at the app's first registration (`use`, a
    /// verb, `route`, `param`), so a later one changes nothing.
    fn set_strict(&mut self, id: u32, on: bool) {
        let r = &mut self.rec.routers[id as usize];
        if r.is_app && r.regs.is_empty() && r.param_callbacks.is_empty() {
            r.strict = on;
        }
    }

    /// `router.route(paths).name(…)`: a verb registers a route at the
    /// chain's paths and returns the chain `o`.
    pub(crate) fn chain_method(
        &mut self,
        ctx: &Ctx,
        id: u32,
        paths: &[Value],
        o: &Value,
        name: &str,
        call: &Call,
    ) -> Value {
        if HTTP_VERBS.contains(&name) {
            let paths: Vec<PathArg> = paths
                .iter()
                .flat_map(|v| path_list(v).unwrap_or_default())
                .collect();
            self.register_route(ctx, id, name, Ok(paths), &call.args, 0, call);
            return o.clone();
        }
        self.eval_args(ctx, &call.args);
        Value::dynamic()
    }

    pub(crate) fn router_method(&mut self, ctx: &Ctx, id: u32, name: &str, call: &Call) -> Value {
        if self.libs.nest.is_app(id)
            && let Some(v) = self.nest_app_method(ctx, id, name, call)
        {
            return v;
        }
        if self.libs.feathers.is_app(id)
            && let Some(v) = self.feathers_app_method(ctx, id, name, call)
        {
            return v;
        }
        let name = crate::libs::dropins::verb_alias(name).unwrap_or(name);
        // `app.get(...route)`: the spread array's elements in place, when
        // the path itself comes from it (a spread after the path is a list
        // of handlers, which the registration reads as one).
        if matches!(call.args.first(), Some(Expr::Spread(_)))
            && let Some(args) = self.spread_args(ctx, &call.args)
        {
            let inner = Call {
                args,
                ..call.clone()
            };
            return self.router_method(ctx, id, name, &inner);
        }
        if let Some(f) = self.rec.routers[id as usize].props.get(name).cloned() {
            // A method the program added to the instance (`app.map = function ...`).
            return self.call_written_method(ctx, &f, call, Value::Router(id));
        }
        if matches!(name, "get" | "set") && call.args.len() == 1 {
            // `app.get('setting')` reads a setting; it is not a route.
            // `app.set('setting')` with no value reads it too, as Express's
            // `set` returns `this.settings[setting]` when given one argument.
            let k = self.eval(ctx, &call.args[0]);
            return match k.as_text() {
                Some(k) => self.rec.routers[id as usize]
                    .settings
                    .get(&k)
                    .cloned()
                    .unwrap_or(Value::dynamic()),
                None => Value::dynamic(),
            };
        }
        if (HTTP_VERBS.contains(&name) || name == "use")
            && let Some(v) = self.register_choices(ctx, id, name, call)
        {
            return v;
        }
        if HTTP_VERBS.contains(&name) {
            let first = call.args.first().map(|a| {
                let v = self.eval(ctx, a);
                self.force_deep(v)
            });
            // A list of paths whose items differ in what is known of them
            // (`['/', PREFIX, `${PREFIX}/${KEY}`]` with a default for
            // `PREFIX` and nothing for `KEY`): Express matches each, so each
            // is charted with its own condition, and one only known at run
            // time is a finding of its own, not the loss of the others.
            if let Some(Value::Arr(a)) = &first {
                let items = a.borrow().clone();
                let mixed = items.len() > 1
                    && items
                        .iter()
                        .any(|x| path_list(x).is_err() || !self.assumptions(x).is_empty());
                if mixed {
                    return self.register_each_path(ctx, id, name, call, items);
                }
            }
            return self.register_verb(ctx, id, name, call, first);
        }
        match name {
            "route" => {
                let v = call
                    .args
                    .first()
                    .map(|a| self.eval(ctx, a))
                    .unwrap_or(Value::Undef);
                let v = self.force_deep(v);
                match path_list(&v) {
                    Ok(p) => Value::Chain(
                        id,
                        Rc::new(
                            p.into_iter()
                                .map(|p| match p {
                                    PathArg::Str(s) => Value::str(&s),
                                    PathArg::Regex(r) => Value::Regex(Rc::from(r.as_str())),
                                })
                                .collect(),
                        ),
                    ),
                    Err(()) => {
                        self.dynamic_path(ctx, call, "route");
                        Value::dynamic()
                    }
                }
            }
            "use" => {
                self.register_use(ctx, id, call);
                Value::Router(id)
            }
            "set" => {
                let argv = self.eval_args(ctx, &call.args);
                if let (Some(k), Some(v)) = (argv.first().and_then(|k| k.as_text()), argv.get(1)) {
                    if k == STRICT_ROUTING {
                        self.set_strict(id, matches!(v.truthy(), Some(true)));
                    }
                    self.rec.routers[id as usize].settings.insert(k, v.clone());
                }
                Value::Router(id)
            }
            "enable" | "disable" => {
                let argv = self.eval_args(ctx, &call.args);
                if argv.first().and_then(|k| k.as_text()).as_deref() == Some(STRICT_ROUTING) {
                    self.set_strict(id, name == "enable");
                }
                Value::Router(id)
            }
            // `express-group-routes`: `app.group([prefix], router => { ... })`
            // builds a fresh router, hands it to the callback and mounts it.
            "group" if call.args.last().is_some_and(|a| matches!(a, Expr::Func(_))) => {
                let argv = self.eval_args(ctx, &call.args);
                let paths = match argv.first().map(|v| self.force_deep(v.clone())) {
                    Some(v @ (Value::Str(_) | Value::Arr(_) | Value::Regex(_))) => {
                        match path_list(&v) {
                            Ok(p) => p,
                            Err(()) => {
                                self.dynamic_path(ctx, call, "group");
                                return Value::Router(id);
                            }
                        }
                    }
                    Some(Value::Func(_)) => vec![PathArg::Str("/".into())],
                    _ => {
                        self.dynamic_path(ctx, call, "group");
                        return Value::Router(id);
                    }
                };
                let sub = self.new_router(ctx.file, call.line, false);
                let Value::Router(sub_id) = sub else {
                    return Value::Router(id);
                };
                // As the package does: the callback first, then `use(prefix, router)`.
                if let Some(f) = argv.last() {
                    self.call_value_now(ctx, f, vec![sub.clone()], &call.args, call.line, None);
                }
                if !self.modes.event_mode && !self.salvage_blocks(id) {
                    self.mark_mounted(sub_id);
                    self.push_reg(
                        id,
                        RegKind::Use {
                            paths,
                            handlers: vec![UseHandler::Router(sub_id)],
                        },
                        ctx.file,
                        call.line,
                        call.doc.clone(),
                        None,
                    );
                }
                sub
            }
            // `router.param('id', load)`: runs before the handlers of this
            // router's routes (and mounts) whose own path has `:id`.
            "param" => {
                let argv = self.eval_args(ctx, &call.args);
                let names: Vec<String> = match argv.first().map(|v| self.force_deep(v.clone())) {
                    Some(Value::Str(s)) => vec![s.to_string()],
                    Some(Value::Arr(a)) => a.borrow().iter().filter_map(|v| v.as_text()).collect(),
                    _ => Vec::new(),
                };
                if !self.modes.event_mode && !self.salvage_blocks(id) {
                    self.rec.routers[id as usize]
                        .param_sites
                        .push((ctx.file, call.line));
                }
                if let (Some(e), Some(v)) = (call.args.get(1), argv.get(1))
                    && !self.modes.event_mode
                    && !self.salvage_blocks(id)
                {
                    let mut fns = Vec::new();
                    self.handler_names(e, v, &mut fns, 0);
                    for n in &names {
                        for (f, _) in &fns {
                            self.rec.routers[id as usize].param_callbacks.push((
                                n.clone(),
                                f.clone(),
                                v.clone(),
                            ));
                        }
                    }
                }
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::Router(id)
            }
            // express.io/express.oi's app (`express().http().io()`): `http()`
            // and `https(options)` make its server, `io()` attaches
            // Socket.IO (`libs/express_io.rs`); each returns the app. Plain
            // Express has none of them.
            "io" => self.express_io_attach(ctx, id, call),
            // An app is an `EventEmitter` (Express mixes its methods in):
            // `on` and its kin return the app, so `app.on('mount', f).get(…)`
            // registers on it; `f` runs as Express emits the event.
            "on"
            | "once"
            | "addListener"
            | "prependListener"
            | "prependOnceListener"
            | "off"
            | "removeListener"
            | "removeAllListeners"
            | "setMaxListeners"
                if self.rec.routers[id as usize].is_app =>
            {
                let argv = self.eval_args(ctx, &call.args);
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::Router(id)
            }
            "engine" | "disabled" | "enabled" | "http" | "https" => {
                self.eval_args(ctx, &call.args);
                Value::Router(id)
            }
            _ => {
                let argv = self.eval_args(ctx, &call.args);
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::external()
            }
        }
    }

    /// The items of a path list charted one by one (see `router_method`):
    /// each known one (with the condition of a default it was built from)
    /// as a route of its own at the call, and a `dynamic-path` finding
    /// naming the ones only known at run time.
    fn register_each_path(
        &mut self,
        ctx: &Ctx,
        id: u32,
        name: &str,
        call: &Call,
        items: Vec<Value>,
    ) -> Value {
        let total = items.len();
        let mut unknown = Vec::new();
        for item in items {
            if path_list(&item).is_err() {
                unknown.push(item.as_text().unwrap_or_else(|| match &item {
                    Value::Pattern(p) => p.to_string(),
                    _ => "<expression>".into(),
                }));
                continue;
            }
            self.register_verb(ctx, id, name, call, Some(item));
        }
        if !unknown.is_empty() && !self.modes.event_mode && !self.salvage_blocks(id) {
            let n = unknown.len();
            let list = unknown.join("`, `");
            let message = format!(
                "{n} of the {total} paths of this `{name}` {} only known at run time (`{list}`); the others are charted",
                if n == 1 { "is" } else { "are" }
            );
            // (One finding per place: said beside the default a known item
            // was built from, when there is one.)
            let key = (FindingCode::DynamicPath, ctx.file, call.line);
            match self
                .rec
                .findings
                .iter_mut()
                .find(|f| (f.code, f.file, f.line) == key)
            {
                Some(f) => {
                    f.message.push_str("; ");
                    f.message.push_str(&message);
                }
                None => self.finding(key.0, key.1, key.2, message),
            }
        }
        Value::Router(id)
    }

    /// A verb's route at the path value `first` (see `router_method`).
    fn register_verb(
        &mut self,
        ctx: &Ctx,
        id: u32,
        name: &str,
        call: &Call,
        first: Option<Value>,
    ) -> Value {
        {
            let assumed = first
                .as_ref()
                .map(|v| self.assumptions(v))
                .unwrap_or_default();
            let chosen = first.as_ref().and_then(|v| self.chosen_ways(v));
            let paths = match first {
                Some(v) => path_list(&v),
                None => Err(()),
            };
            let conds = if !assumed.is_empty() && !self.modes.event_mode && !self.salvage_blocks(id)
            {
                self.assumed_path(ctx, call, name, &assumed)
            } else {
                Vec::new()
            };
            if let Ok(p) = &paths {
                self.note_unknown_head(ctx, id, call, name, p);
            }
            let depth = self.running.cond.len();
            self.running.cond.extend(conds);
            // A path a choice only known at run time made: a route at each
            // path it may give, under its condition (`machine/choices.rs`).
            match chosen {
                Some(ways) => {
                    for (path, cond) in ways.iter() {
                        self.running.cond.push(cond.clone());
                        let one = path_list(&Value::Str(path.clone()));
                        self.register_route(ctx, id, name, one, &call.args, 1, call);
                        self.running.cond.pop();
                    }
                }
                None => self.register_route(ctx, id, name, paths, &call.args, 1, call),
            }
            self.running.cond.truncate(depth);
            Value::Router(id)
        }
    }

    /// `app.get.bind(app)` (also `app[method.toLowerCase()].bind(app)`):
    /// the verb bound to its router, which registers on it when called
    /// (`get('/x', h)`, or handed to code that calls it). Bound to another
    /// value, or with arguments bound too, it is left to the machine.
    fn router_bind(&mut self, ctx: &Ctx, target: &Expr, call: &Call) -> Option<Value> {
        let (obj, verb) = match target {
            Expr::Member(o, v) if is_verb(v) => (o, Some(v.clone())),
            // A key read again when this is not a verb must not change
            // anything: a name, a string, or a case change of one.
            Expr::Index(o, k) if pure_key(k) => (o, None),
            _ => return None,
        };
        // Only a receiver that reads a name (as for `.call`/`.apply`): one
        // that calls something would run twice when the machine takes over.
        if call.args.len() != 1 || !reads_a_name(obj) {
            return None;
        }
        let Value::Router(id) = self.eval(ctx, obj) else {
            return None;
        };
        let verb = match (verb, target) {
            (Some(v), _) => v,
            (None, Expr::Index(_, k)) => {
                let k = self.eval(ctx, k);
                let v = self.force_deep(k).as_text()?;
                is_verb(&v).then_some(v)?
            }
            _ => return None,
        };
        match self.eval(ctx, &call.args[0]) {
            Value::Router(this) if this == id => Some(Value::Builtin(Builtin::RouterMethod(
                id,
                Rc::from(verb.as_str()),
            ))),
            _ => None,
        }
    }

    /// A call of a verb bound to its router (see [`Interp::router_bind`]):
    /// the verb called on the router with the call's arguments.
    pub(crate) fn call_router_method(
        &mut self,
        ctx: &Ctx,
        id: u32,
        verb: &str,
        call: &Call,
    ) -> Value {
        let inner = Call {
            callee: Expr::Member(Box::new(call.callee.clone()), verb.to_string()),
            ..call.clone()
        };
        self.router_method(ctx, id, verb, &inner)
    }

    /// `app[method].call(app, path, handler)` / `router.get.apply(router, [path, h])`:
    /// the verb (or `use`) called on the router with the arguments after `this`.
    pub(crate) fn router_call_apply(&mut self, ctx: &Ctx, call: &Call) -> Option<Value> {
        let Expr::Member(target, how) = &call.callee else {
            return None;
        };
        // `Reflect.apply(app.patch, app, [path, h])` is `app.patch.apply(app, [path, h])`.
        if how == "apply"
            && matches!(target.as_ref(), Expr::Ident(n) if n == "Reflect")
            && let Some(f @ (Expr::Member(..) | Expr::Index(..))) = call.args.first()
            && call.args.len() == 3
        {
            let mut inner = call.clone();
            inner.callee = Expr::Member(Box::new(f.clone()), "apply".into());
            inner.args.remove(0);
            return self.router_call_apply(ctx, &inner);
        }
        if how == "bind" {
            return self.router_bind(ctx, target, call);
        }
        if how != "call" && how != "apply" {
            return None;
        }
        let (obj, verb) = match target.as_ref() {
            Expr::Member(o, v) => (o, Some(v.clone())),
            Expr::Index(o, _) => (o, None),
            _ => return None,
        };
        if !reads_a_name(obj) {
            return None;
        }
        let Value::Router(id) = self.eval(ctx, obj) else {
            return None;
        };
        let verb = match (verb, target.as_ref()) {
            (Some(v), _) => v,
            (None, Expr::Index(_, k)) => {
                let k = self.eval(ctx, k);
                self.force_deep(k).as_text()?
            }
            _ => return None,
        };
        if !HTTP_VERBS.contains(&verb.as_str()) && verb != "use" {
            return None;
        }
        let args: Vec<Expr> = if how == "call" {
            call.args.iter().skip(1).cloned().collect()
        } else {
            match call.args.get(1) {
                Some(Expr::Array(items)) => items.clone(),
                // `router.get.apply(router, route)`: the array's elements
                // read in place, as a spread of it would be.
                Some(e @ (Expr::Ident(_) | Expr::Member(..))) => {
                    self.spread_args(ctx, &[Expr::Spread(Box::new(e.clone()))])?
                }
                _ => return None,
            }
        };
        let inner = Call {
            callee: Expr::Member(obj.clone(), verb.clone()),
            args,
            line: call.line,
            type_args: Vec::new(),
            doc: call.doc.clone(),
        };
        Some(self.router_method(ctx, id, &verb, &inner))
    }

    /// `on`/`once`/`addListener` and `emit` on a program's `EventEmitter`:
    /// listeners run with what is emitted, also with emits that carried a
    /// tracked value before they were added (start-up order is not run order).
    pub(crate) fn emitter_method(
        &mut self,
        ctx: &Ctx,
        em: &Rc<Emitter>,
        name: &str,
        call: &Call,
    ) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        self.emitter_call(ctx, em, name, argv, &call.args, call.line)
    }

    /// The method `name` of a program's `EventEmitter` called with `argv`
    /// (`args`, the expressions that wrote them when known).
    pub(crate) fn emitter_call(
        &mut self,
        ctx: &Ctx,
        em: &Rc<Emitter>,
        name: &str,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
    ) -> Value {
        let event = argv
            .first()
            .and_then(|a| self.force_deep(a.clone()).as_text());
        match (name, event) {
            (m, Some(ev)) if crate::machine::emitters::is_listen_method(m) => {
                let Some(f) = argv.get(1).cloned() else {
                    return Value::Emitter(em.clone());
                };
                em.listeners.borrow_mut().push((ev.clone(), f.clone()));
                for args in em.fired_with(&ev) {
                    self.call_value_now(ctx, &f, args, &[], line, None);
                }
                if let (Some(Expr::Func(_)), true) = (args.get(1), em.fired.borrow().is_empty()) {
                    // Nothing emitted yet: the listener runs later; run it once
                    // now, with what it cannot know, as a callback.
                    let fresh = matches!(&f, Value::Func(c)
                        if !self.deferred.called.contains(&(c.file, c.func.id)));
                    self.run_callbacks(ctx, &argv, args, line);
                    if fresh && let Value::Func(c) = &f {
                        self.deferred.listener_prerun.insert((c.file, c.func.id));
                    }
                }
                Value::Emitter(em.clone())
            }
            ("emit", Some(ev)) => {
                let args: Vec<Value> = argv.iter().skip(1).cloned().collect();
                // Only what carries a socket or a router is relayed: plain data
                // (`feed.emit('status', id)`) leaves the listeners as they ran,
                // with what they cannot know (rooms stay patterns).
                if !args.iter().any(|a| a.is_tracked(0)) {
                    // But while the program starts (not in a route's handler,
                    // nor looking for events, where state the handlers see is
                    // only known at run time), a listener that has not run at
                    // all runs now, as Node's `emit` runs its listeners, in
                    // order, before it returns (`events.on('startup',
                    // onStartup)` then `events.emit('startup', done)`).
                    // (One that only ran when it was added, with what it
                    // could not know, runs with what this emit hands it:
                    // `bus.on('ready', (app) => app.start())` then
                    // `bus.emit('ready', self)`; only when it hands code:
                    // a function, a class, an instance of one or an object
                    // with a prototype of the program's.)
                    let code = args.iter().any(|a| match a {
                        Value::Func(_) | Value::Class(_) => true,
                        Value::Obj(o) => o.class.borrow().is_some() || o.proto.borrow().is_some(),
                        _ => false,
                    });
                    for f in em.listeners_of(&ev) {
                        if let Value::Func(c) = &f
                            && !self.modes.event_mode
                            && self.running.route_contract.is_none()
                            && (!self.deferred.called.contains(&(c.file, c.func.id))
                                || code
                                    && self.deferred.listener_prerun.remove(&(c.file, c.func.id)))
                        {
                            self.call_value_now(ctx, &f, args.clone(), &[], line, None);
                            // Later emits call it again, with the state of
                            // then (`if (this.io)` once the server is made):
                            // the events pass runs it once more.
                            let key = (c.file, c.func.id);
                            self.deferred.called.remove(&key);
                            self.deferred.uncalled.insert(key, c.clone());
                        }
                    }
                    return Value::Bool(true);
                }
                if em.fired.borrow().len() < Emitter::LIMIT {
                    em.fired.borrow_mut().push((ev.clone(), args.clone()));
                }
                for f in em.listeners_of(&ev) {
                    self.call_value_now(ctx, &f, args.clone(), &[], line, None);
                }
                Value::Bool(true)
            }
            _ => {
                self.run_callbacks(ctx, &argv, args, line);
                Value::Emitter(em.clone())
            }
        }
    }

    /// Leave a loop over something only known at run time: the computed
    /// imports in it are findings of their own unless the loop was one.
    pub(crate) fn pop_dyn_loop(&mut self) {
        let depth = self.running.dyn_loops.len();
        let Some(DynLoop { seen, .. }) = self.running.dyn_loops.pop() else {
            return;
        };
        if self.running.loop_imports.is_empty() {
            return;
        }
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.running.loop_imports)
            .into_iter()
            .partition(|(d, _, _)| *d >= depth);
        self.running.loop_imports = rest;
        if !seen.get() {
            for (_, file, line) in mine {
                self.finding(
                    FindingCode::DynamicImport,
                    file,
                    line,
                    "a module is loaded from a path computed at run time".into(),
                );
            }
        }
    }

    /// A verb chosen at run time on an app or router (`router[method](…)`,
    /// `key` the expression that chooses it): the loop over run-time values it
    /// runs in says so, else a `dynamic-method` finding.
    pub(crate) fn unknown_verb(&mut self, ctx: &Ctx, call: &Call, key: &Expr) {
        let in_loop = self
            .running
            .dyn_loops
            .last()
            .map(|d| (d.file, d.line, d.message()));
        match in_loop {
            Some((f, l, message)) => self.finding(FindingCode::DynamicLoop, f, l, message),
            None => self.finding(
                FindingCode::DynamicMethod,
                ctx.file,
                call.line,
                format!(
                    "the HTTP method `{}` is computed at run time",
                    expr_text(key)
                ),
            ),
        }
    }

    /// An app or router handed to a function only known at run time.
    pub(crate) fn dynamic_call(&mut self, ctx: &Ctx, call: &Call, argv: &[Value]) {
        if self.modes.event_mode || !argv.iter().any(|a| matches!(a, Value::Router(_))) {
            return;
        }
        // `app[method].call(app, path, h)` (or `.apply`) with the verb only
        // known at run time: Function.prototype.call runs `app[method]` on the
        // app, a computed verb, not the app handed to unknown code.
        if let Expr::Member(inner, m) = &call.callee
            && matches!(m.as_str(), "call" | "apply")
            && let Expr::Index(_, key) = &**inner
            && matches!(argv.first(), Some(Value::Router(_)))
        {
            self.unknown_verb(ctx, call, key);
            return;
        }
        self.finding(
            FindingCode::DynamicCall,
            ctx.file,
            call.line,
            format!(
                "`{}(...)` hands an app or router to code only known at run time; routes it adds are not in the inventory",
                expr_text(&call.callee)
            ),
        );
    }

    /// A path whose start only is known at run time (`${base}/users`) is
    /// charted under the unknown prefix; say so once per call.
    pub(crate) fn note_unknown_head(
        &mut self,
        ctx: &Ctx,
        id: u32,
        call: &Call,
        what: &str,
        paths: &[PathArg],
    ) {
        let unknown = paths.iter().any(
            |p| matches!(p, PathArg::Str(s) if s.starts_with(crate::inventory::UNKNOWN_PREFIX)),
        );
        if unknown {
            let text = call.args.first().map(expr_text).unwrap_or_default();
            self.note_unknown_prefix(ctx, id, call, format!(
                "the start of the path of `{what}({text}, ...)` is only known at run time; charted under the unknown prefix `{}` with the rest of the path",
                crate::inventory::UNKNOWN_PREFIX
            ));
        }
    }

    /// A router mounted at a path only partly known (`${prefix}/${key}`):
    /// its routes go under the unknown prefix; say so once per call.
    /// A router mounted at a path only known at run time: noted, and its
    /// paths are the unknown prefix (the first argument is the path).
    pub(crate) fn mount_at_unknown_prefix(
        &mut self,
        ctx: &Ctx,
        id: u32,
        call: &Call,
    ) -> (Vec<PathArg>, usize) {
        self.note_unknown_mount(ctx, id, call);
        (
            vec![PathArg::Str(crate::inventory::UNKNOWN_PREFIX.into())],
            1,
        )
    }

    fn note_unknown_mount(&mut self, ctx: &Ctx, id: u32, call: &Call) {
        let text = call.args.first().map(expr_text).unwrap_or_default();
        self.note_unknown_prefix(ctx, id, call, format!(
            "the path of `use({text}, ...)` is only known at run time; the routes of the router it mounts are charted under the unknown prefix `{}`",
            crate::inventory::UNKNOWN_PREFIX
        ));
    }

    /// The `dynamic-path` finding (cause `unknown-prefix`) of a call whose
    /// routes go under the unknown prefix, once per call.
    fn note_unknown_prefix(&mut self, ctx: &Ctx, id: u32, call: &Call, message: String) {
        if self.modes.event_mode
            || self.salvage_blocks(id)
            || !self
                .rec
                .finding_keys
                .insert((FindingCode::DynamicPath, ctx.file, call.line))
        {
            return;
        }
        self.rec.findings.push(RawFinding {
            code: FindingCode::DynamicPath,
            file: ctx.file,
            line: call.line,
            message,
            cause: Some("unknown-prefix"),
        });
    }

    pub(crate) fn dynamic_path(&mut self, ctx: &Ctx, call: &Call, what: &str) {
        if let Some(d) = self.running.dyn_loops.last() {
            d.seen.set(true);
            let (f, l, message) = (d.file, d.line, d.message());
            self.finding(FindingCode::DynamicLoop, f, l, message);
            return;
        }
        let text = call.args.first().map(expr_text).unwrap_or_default();
        self.finding(
            FindingCode::DynamicPath,
            ctx.file,
            call.line,
            format!("the path of `{what}({text}, ...)` is only known at run time"),
        );
    }

    pub(crate) fn register_route(
        &mut self,
        ctx: &Ctx,
        id: u32,
        method: &str,
        paths: Result<Vec<PathArg>, ()>,
        args: &[Expr],
        skip: usize,
        call: &Call,
    ) {
        if self.modes.event_mode || self.salvage_blocks(id) {
            return;
        }
        let method = if method == "del" { "delete" } else { method };
        let paths = match paths {
            Ok(p) => p,
            Err(()) => {
                self.dynamic_path(ctx, call, method);
                return;
            }
        };
        self.note_unmatchable(ctx.file, call.line, &paths);
        let mut names: Vec<(String, Option<(FileId, u32)>)> = Vec::new();
        let contract = Rc::new(RefCell::new(RawContract::default()));
        let mut funcs = Vec::new();
        let mut named_values = Vec::new();
        let mut routers = Vec::new();
        let mut last_arg = None;
        for a in args.iter().skip(skip) {
            let v = self.eval_raw(ctx, a);
            last_arg = Some((a, v.clone()));
            if let Value::Router(r) = v {
                routers.push(r);
                continue;
            }
            let before = names.len();
            self.handler_names(a, &v, &mut names, 0);
            if names.len() == before + 1 {
                named_values.push((before, v.clone()));
            }
            let had = funcs.len();
            self.route_funcs(ctx, &v, &contract, &mut funcs, call.line, 0);
            if funcs.len() == had {
                contract.borrow_mut().unrun = true;
            }
            // A factory that was followed (`validate(schemas.create)` returning
            // a closure): what it was handed, read again (plain reads only).
            if let (Expr::Call(c), Value::Func(_)) = (a, &v)
                && !c.args.is_empty()
                && c.args
                    .iter()
                    .all(|x| matches!(x, Expr::Ident(_) | Expr::Member(..) | Expr::Str(_)))
            {
                let argv = self.eval_args(ctx, &c.args);
                let name = match &c.callee {
                    Expr::Ident(n) | Expr::Member(_, n) => n.clone(),
                    _ => String::new(),
                };
                // Read when the handlers run (imported schemas stay lazy until then).
                self.deferred.pending_guesses.push((
                    contract.clone(),
                    ctx.clone(),
                    name,
                    argv,
                    call.line,
                ));
            }
        }
        // An array that ends the route (`...params` built at run time): its
        // last element is the handler, also when it has no name of its own
        // and went under the array's name with an earlier one.
        if let Some((e, Value::Arr(items))) = &last_arg {
            let items: Vec<Value> = items
                .borrow()
                .iter()
                .map(|v| self.force_deep(v.clone()))
                .collect();
            let unnamed = items.iter().filter(|v| value_name(v).is_none()).count();
            if let Some(last) = items.last()
                && value_name(last).is_none()
                && unnamed >= 2
            {
                let label = match e {
                    Expr::Spread(inner) => expr_text(inner),
                    _ => expr_text(e),
                };
                names.push((label, value_at(last)));
            }
        }
        // The handlers run later, with a request: parse what they import meanwhile.
        let mut ahead = Vec::new();
        for f in &funcs {
            if let Value::Func(c) = f {
                let facts = self.loader.get(c.file).facts.clone();
                if let Ok(i) = facts
                    .fn_imports
                    .binary_search_by_key(&c.func.id, |(id, _)| *id)
                {
                    for src in &facts.fn_imports[i].1 {
                        if let Resolved::File(t) = self.loader.project.resolve(c.file, src)
                            && !self.js.modules.contains_key(&t)
                        {
                            ahead.push(t);
                        }
                    }
                }
            }
        }
        self.loader.prefetch(ahead);
        if !routers.is_empty() {
            for (i, v) in &named_values {
                let name = names[*i].0.clone();
                self.note_middleware(&name, v);
            }
            for &r in &routers {
                self.mark_mounted(r);
            }
            self.push_reg(
                id,
                RegKind::Dispatch {
                    method: method.to_string(),
                    paths,
                    middleware: names.into_iter().map(|(n, _)| n).collect(),
                    routers,
                },
                ctx.file,
                call.line,
                call.doc.clone(),
                None,
            );
            return;
        }
        // The middleware (not the final handler) may be guards.
        for (i, v) in &named_values {
            if *i + 1 < names.len() {
                let name = names[*i].0.clone();
                self.note_middleware(&name, v);
            }
        }
        let handler = names.pop().map(|(name, at)| HandlerRef { name, at });
        for p in &paths {
            if let PathArg::Regex(r) = p {
                self.finding(
                    FindingCode::RegexPath,
                    ctx.file,
                    call.line,
                    format!("route path is a regular expression `{r}`; OpenAPI cannot express it exactly"),
                );
            }
        }
        let declared = self.declared_by_decorator(ctx, call);
        let via = self
            .path_supplier(ctx, call, &paths)
            .or_else(|| self.path_handed_earlier(ctx, call, method, &paths))
            .or(declared);
        self.push_reg(
            id,
            RegKind::Route {
                method: method.to_string(),
                paths,
                middleware: names.into_iter().map(|(n, _)| n).collect(),
                handler,
                contract,
                funcs,
                subpaths: false,
            },
            ctx.file,
            call.line,
            call.doc.clone(),
            via,
        );
        if let Some(reg) = self.rec.routers[id as usize].regs.last_mut() {
            reg.declared = declared;
        }
    }

    /// Keep which of the paths an app or router is given at (file, line)
    /// Express never matches ([`never_matches`]); the mount walk accounts
    /// for what is registered there (`mounts.rs`).
    pub(crate) fn note_unmatchable(&mut self, file: FileId, line: u32, paths: &[PathArg]) {
        for p in paths {
            if let PathArg::Str(s) = p
                && never_matches(s)
            {
                self.rec.unmatchable.insert((file, line, s.clone()));
            }
        }
    }

    /// Where a route's path came from when the verb call does not write it
    /// itself: the outermost call being followed whose arguments carry the
    /// path (directly, or as a property or element of an argument), as the
    /// events' `via` does for names. `None` when the verb call writes the path
    /// literally or no caller carries it.
    pub(crate) fn path_supplier(
        &self,
        ctx: &Ctx,
        call: &Call,
        paths: &[PathArg],
    ) -> Option<(FileId, u32)> {
        if matches!(
            call.args.first(),
            Some(Expr::Str(_) | Expr::Regex(_)) | None
        ) {
            return None;
        }
        let wanted: Vec<&str> = paths
            .iter()
            .filter_map(|p| match p {
                PathArg::Str(s) => Some(s.as_str()),
                PathArg::Regex(_) => None,
            })
            .collect();
        if wanted.is_empty() {
            return None;
        }
        // The whole path, or a prefix of it (`resource('/users')` adding
        // `'/:id'`), or a key of a route map (`{ '/users': { get: h } }`).
        fn part_of(x: &str, wanted: &[&str], prefix_only: bool) -> bool {
            wanted.iter().any(|w| {
                *w == x
                    || (x.len() >= 2
                        && x.starts_with('/')
                        && if prefix_only {
                            w.starts_with(x)
                        } else {
                            w.contains(x)
                        })
            })
        }
        fn carries(v: &Value, wanted: &[&str], depth: u32) -> bool {
            match v {
                Value::Str(x) => part_of(x, wanted, true),
                Value::Obj(o) if depth > 0 => o
                    .props
                    .borrow()
                    .iter()
                    .any(|(k, p)| part_of(k, wanted, false) || carries(p, wanted, depth - 1)),
                Value::Arr(a) if depth > 0 => {
                    a.borrow().iter().any(|p| carries(p, wanted, depth - 1))
                }
                _ => false,
            }
        }
        // An empty or root path says nothing by itself: any argument holding
        // an empty string somewhere carries it (`createApp(config)` with
        // `config.server.basePath = ''`). Only the calls that hand it on one to
        // the next count, innermost first, with the path at most one level
        // down (`this.route({ path: '' })`).
        if wanted.iter().all(|w| w.len() <= 1) {
            let mut supplier = None;
            for fr in self.js.frames.iter().rev() {
                if !fr.args.iter().any(|a| carries(a, &wanted, 1)) {
                    break;
                }
                if fr.callee != "<anonymous>" {
                    supplier = Some((fr.file, fr.line));
                }
            }
            return supplier.filter(|at| *at != (ctx.file, call.line));
        }
        self.js
            .frames
            .iter()
            .find(|fr| fr.callee != "<anonymous>" && fr.args.iter().any(|a| carries(a, &wanted, 2)))
            .map(|fr| (fr.file, fr.line))
            .filter(|at| *at != (ctx.file, call.line))
    }

    /// Note a followed call of `callee` handed a string shaped like a route
    /// path (see [`Recorder::handed_paths`]).
    pub(crate) fn note_handed_paths(
        &mut self,
        file: FileId,
        line: u32,
        callee: &str,
        argv: &[Value],
    ) {
        let route_like = |s: &str| {
            s.len() >= 2 && s.len() <= 200 && s.starts_with('/') && !s.contains(char::is_whitespace)
        };
        let mut strings = argv.iter().filter_map(|a| match a {
            Value::Str(s) => Some(s),
            _ => None,
        });
        if !strings.clone().any(|s| route_like(s)) {
            return;
        }
        let all: Vec<Rc<str>> = strings.by_ref().take(8).cloned().collect();
        let table = &mut self.rec.handed_paths;
        for s in all.iter().filter(|s| route_like(s)) {
            if table.len() >= HANDED_PATHS && !table.contains_key(s) {
                return;
            }
            table.entry(s.clone()).or_default().push(HandedPath {
                file,
                line,
                callee: callee.to_string(),
                strings: all.iter().filter(|o| *o != s).cloned().collect(),
            });
        }
    }

    /// Where a route's path was written when it reached the verb call through
    /// data rather than through the calls being followed (`this.route('GET',
    /// '/users', h)` pushed `{ method, path }` onto a table that `mountOnto`
    /// later registers with `app[method].call(app, route.path, h)`): the one
    /// earlier followed call handed both the path and the method (as a string,
    /// or as its own name: `table.get('/users', h)`). `None` when the verb call
    /// writes the path, or no such call or more than one was seen.
    pub(crate) fn path_handed_earlier(
        &self,
        ctx: &Ctx,
        call: &Call,
        method: &str,
        paths: &[PathArg],
    ) -> Option<(FileId, u32)> {
        if matches!(call.args.first(), Some(Expr::Str(_) | Expr::Regex(_))) {
            return None;
        }
        let [PathArg::Str(path)] = paths else {
            return None;
        };
        let mut sites = self
            .rec
            .handed_paths
            .get(path.as_str())?
            .iter()
            .filter(|h| {
                (h.file, h.line) != (ctx.file, call.line)
                    && (h.callee.eq_ignore_ascii_case(method)
                        || h.strings.iter().any(|s| s.eq_ignore_ascii_case(method)))
            });
        let first = sites.next()?;
        let same = |h: &&HandedPath| (h.file, h.line) == (first.file, first.line);
        sites.all(|h| same(&h)).then_some((first.file, first.line))
    }

    /// The functions behind a route argument (unwrapping `asyncHandler(fn)`),
    /// and schemas given to middleware factories (`validate(schema)`).
    pub(crate) fn route_funcs(
        &mut self,
        ctx: &Ctx,
        v: &Value,
        contract: &Rc<RefCell<RawContract>>,
        out: &mut Vec<Value>,
        line: u32,
        depth: u32,
    ) {
        if depth > 3 {
            return;
        }
        match v {
            Value::Func(_) => out.push(v.clone()),
            // Imported middleware: a validator states its schemas now; a
            // function is resolved when the handlers run.
            Value::Lazy(..) => match self.force(v.clone(), 0) {
                forced @ (Value::Validator(_)
                | Value::Builtin(Builtin::JsonSchemaMiddleware(_))) => {
                    self.route_funcs(ctx, &forced, contract, out, line, depth + 1)
                }
                _ => out.push(v.clone()),
            },
            // express-json-validator-middleware's `validate({body, ...})`.
            Value::Builtin(Builtin::JsonSchemaMiddleware(parts)) => {
                crate::libs::schemas::set_json_schema_parts(
                    &mut contract.borrow_mut(),
                    parts,
                    ctx.file,
                    line,
                );
            }
            Value::Validator(parts) => {
                for (part, field, schema, required) in parts.iter() {
                    crate::libs::schemas::merge_validator(
                        &mut contract.borrow_mut(),
                        *part,
                        field,
                        schema,
                        *required,
                        ctx.file,
                        line,
                    );
                }
            }
            Value::Arr(items) => {
                for it in items.borrow().clone() {
                    self.route_funcs(ctx, &it, contract, out, line, depth + 1);
                }
            }
            Value::Deferred(t) => {
                // The middleware a factory returns (`validate(schema)`) runs too,
                // once the handlers run (the factory is called then).
                out.push(v.clone());
                if let ThunkKind::Call(callee, argv, _, _) = &t.kind {
                    let callee_name = match callee {
                        Value::Lazy(_, n) => n.to_string(),
                        Value::Func(c) => c.func.name.clone().unwrap_or_default(),
                        _ => String::new(),
                    };
                    let rest = self.factory_guesses(ctx, &callee_name, argv, contract, line);
                    for other in rest {
                        self.route_funcs(ctx, &other, contract, out, line, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// What a middleware factory was handed (`validate(schema)`,
    /// `validate({ body: schema })`, `validate(schema, 'query')`): schemas for
    /// the request parts, kept as guesses (used when running the middleware
    /// states nothing). Returns the arguments that are not schemas.
    pub(crate) fn factory_guesses(
        &mut self,
        ctx: &Ctx,
        callee_name: &str,
        argv: &[Value],
        contract: &Rc<RefCell<RawContract>>,
        line: u32,
    ) -> Vec<Value> {
        // The part: a string argument naming it, else the factory's name.
        let named = argv.iter().find_map(|a| match a.as_text().as_deref() {
            Some("query") => Some(RequestPart::Query),
            Some("params") => Some(RequestPart::Params),
            Some("body") => Some(RequestPart::Body),
            _ => None,
        });
        let mut rest = Vec::new();
        for a in argv {
            let a = self.force(a.clone(), 0);
            let guess = |part: RequestPart, z: &ZodVal| {
                contract.borrow_mut().guesses.push((
                    part,
                    z.schema.clone(),
                    guess_label(z, callee_name),
                    ctx.file,
                    line,
                ));
            };
            match &a {
                Value::Zod(z) => {
                    let lower = callee_name.to_ascii_lowercase();
                    let part = named.unwrap_or(if lower.contains("query") {
                        RequestPart::Query
                    } else if lower.contains("param") {
                        RequestPart::Params
                    } else {
                        RequestPart::Body
                    });
                    guess(part, z);
                }
                // `validate({ body: schema, query: schema })`: one schema per part.
                Value::Obj(o) => {
                    let parts: Vec<(RequestPart, Value)> = [
                        RequestPart::Body,
                        RequestPart::Query,
                        RequestPart::Params,
                        RequestPart::Headers,
                    ]
                    .into_iter()
                    .filter_map(|p| o.get(p.as_str()).map(|v| (p, v)))
                    .collect();
                    if parts.is_empty() {
                        rest.push(a.clone());
                    }
                    for (part, v) in parts {
                        if let Value::Zod(z) = self.force(v, 0) {
                            guess(part, &z);
                        }
                    }
                }
                other => rest.push(other.clone()),
            }
        }
        rest
    }

    /// The conditions the running code is under, each once (a guard met
    /// again on a nested path is not repeated), joined with `&&`.
    pub(crate) fn cond_text(&self) -> Option<String> {
        crate::conditions::conjunction(self.running.cond.iter().map(String::as_str))
    }

    pub(crate) fn handler_names(
        &mut self,
        e: &Expr,
        v: &Value,
        out: &mut Vec<(String, Option<(FileId, u32)>)>,
        depth: u32,
    ) {
        if depth > 4 {
            return;
        }
        match (e, v) {
            (Expr::Array(items), Value::Arr(vals)) => {
                let vals = vals.borrow().clone();
                for (i, it) in items.iter().enumerate() {
                    let vv = vals.get(i).cloned().unwrap_or(Value::Undef);
                    self.handler_names(it, &vv, out, depth + 1);
                }
            }
            (_, Value::Arr(vals)) => {
                // Elements with a name of their own are listed by it; the others
                // go under the array's name once (`signupRules`, `...params`;
                // see `register_route` for an array that ends a route). An
                // element another module made
                // (an import, a factory's call not run yet) is what it gives
                // where the route takes it.
                let vals = vals.borrow().clone();
                let label = match e {
                    Expr::Spread(inner) => expr_text(inner),
                    _ => expr_text(e),
                };
                let mut unnamed = false;
                for vv in vals {
                    let vv = self.force_deep(vv);
                    match value_name(&vv) {
                        Some(name) => out.push((name, value_at(&vv))),
                        None if !unnamed => {
                            unnamed = true;
                            out.push((label.clone(), value_at(&vv)));
                        }
                        None => {}
                    }
                }
            }
            _ => {
                let name = match (e, v) {
                    (Expr::Func(f), _) => f.name.clone().unwrap_or_else(|| "<anonymous>".into()),
                    // An element of a spread read in place (`routes[0][1]`):
                    // the function's own name.
                    (Expr::Index(..), Value::Func(_)) => {
                        value_name(v).unwrap_or_else(|| "<anonymous>".into())
                    }
                    _ => expr_text(e),
                };
                out.push((name, value_at(v)));
            }
        }
    }
}

/// An HTTP verb, `use` or `route`: what a router's bound method registers.
fn is_verb(v: &str) -> bool {
    HTTP_VERBS.contains(&v) || v == "use" || v == "route"
}

/// A receiver that reads a name (`app`, `this`, `this.app`, also with a
/// type stated: `(app as Application)`): reading it again changes nothing.
fn reads_a_name(e: &Expr) -> bool {
    match e {
        Expr::Ident(_) | Expr::This | Expr::Member(..) => true,
        Expr::Typed(inner, _) => reads_a_name(inner),
        _ => false,
    }
}

/// A key whose second reading gives what the first did and changes
/// nothing: a name, a literal, a property read, or a case change or trim
/// of one (`method.toLowerCase()`).
fn pure_key(k: &Expr) -> bool {
    match k {
        Expr::Ident(_) | Expr::Str(_) => true,
        Expr::Member(o, _) | Expr::Typed(o, _) => pure_key(o),
        Expr::Call(c) => {
            c.args.is_empty()
                && matches!(&c.callee, Expr::Member(o, m)
                    if matches!(m.as_str(), "toLowerCase" | "toUpperCase" | "trim") && pure_key(o))
        }
        _ => false,
    }
}

/// Whether Express never matches a path string an app or router is given:
/// it matches route and mount paths against the request's path from its
/// start, and a request path always starts with `/`, so a path that starts
/// with anything else (`'api/x'`, `':id'`) matches no request. The empty
/// path is `/`; `*`, a group `(…)`, a character class `[…]` and an Express 5
/// optional part `{/…}` may match the leading slash (as does the unknown
/// prefix `{?}` a path only known at run time is charted under), and so may
/// what follows a leading `^`: Express 4's path-to-regexp keeps it as the
/// anchor it is (`'^([^.]+)$'` matches every path without a dot).
pub(crate) fn never_matches(path: &str) -> bool {
    let rest = path.trim_start_matches('^');
    !rest.is_empty() && !rest.starts_with(['/', '*', '(', '{', '['])
}
