//! Calls: callee resolution, `new`, running a closure with its arguments
//! (within the budgets), methods of built-in values, callbacks run now or
//! later.
//!
//! Deliberately not here: what a library's functions do (`libs/`).

use super::*;

impl Interp {
    pub(crate) fn call(&mut self, ctx: &Ctx, call: &Call) -> Value {
        // Whether this is the call an expression statement makes (its value
        // is discarded): only its own `call_value` takes the mark, not the
        // calls its arguments make (see `Interp::call_value`).
        let mine = self.js.reentry.discarded_call == Some(call as *const Call as usize);
        let outer = std::mem::replace(&mut self.js.reentry.discard_armed, mine);
        let r = if budget::runs_later(&call.callee) {
            self.later(|me| me.call_now(ctx, call))
        } else {
            self.call_now(ctx, call)
        };
        self.js.reentry.discard_armed = outer;
        r
    }

    pub(crate) fn call_now(&mut self, ctx: &Ctx, call: &Call) -> Value {
        if let Some(v) = self.router_call_apply(ctx, call) {
            return v;
        }
        match &call.callee {
            Expr::Member(obj, name) => {
                if matches!(obj.as_ref(), Expr::Super) {
                    // A package's base class whose constructor put its
                    // methods on the instance (`super.addControllers(...)`,
                    // `libs/overnight.rs`).
                    if let Some(home) = &ctx.home
                        && home
                            .superclass
                            .as_ref()
                            .is_some_and(crate::libs::methods_on_instance)
                    {
                        let this = ctx.this.clone();
                        return self.method_call(ctx, &this, name, call);
                    }
                    let argv = self.eval_args(ctx, &call.args);
                    if let Some(home) = ctx.home.clone()
                        && let Some(Value::Class(sup)) = home.superclass.clone()
                        && let Some(m) = self.find_method(&sup, name, &ctx.this)
                    {
                        return self.call_value(
                            ctx,
                            &m,
                            argv,
                            &call.args,
                            call.line,
                            Some(ctx.this.clone()),
                        );
                    }
                    // A method of a library's base class (`super.createIOServer(…)`).
                    if let Some(sup) = ctx.home.as_ref().and_then(|h| h.superclass.clone()) {
                        let sup = self.force_deep(sup);
                        if let Some(v) =
                            crate::libs::super_method(self, ctx, &sup, name, &argv, call.line)
                        {
                            return v;
                        }
                    }
                    return Value::dynamic();
                }
                if let Some(v) = self.vue_root_method(ctx, obj, name, call) {
                    return v;
                }
                // A global called through the global object (`window.io()`,
                // `globalThis.setTimeout(f)`): the function the bare name is.
                if let Some(f) = self.global_object_read(ctx, obj, name) {
                    let argv = self.eval_args(ctx, &call.args);
                    return self.call_value(ctx, &f, argv, &call.args, call.line, None);
                }
                let o = self.eval(ctx, obj);
                self.method_call(ctx, &o, name, call)
            }
            Expr::Index(obj, idx) => {
                let o = self.eval(ctx, obj);
                let k = self.eval(ctx, idx);
                if let Value::EventKey(key) = &k {
                    let f = self.event_key_index(&o, key);
                    let argv = self.eval_args(ctx, &call.args);
                    return self.call_value(ctx, &f, argv, &call.args, call.line, Some(o));
                }
                match k.as_text() {
                    Some(name) => self.method_call(ctx, &o, &name, call),
                    None => {
                        if matches!(o, Value::Router(_)) {
                            self.unknown_verb(ctx, call, idx);
                        }
                        if let Value::Obj(table) = &o {
                            let text = expr_text(obj);
                            self.object_lookup_by_run_time_name(
                                table,
                                &text,
                                idx,
                                Some((ctx.file, call.line)),
                            );
                        }
                        if let Value::Obj(table) = &o
                            && let Some(v) = self.dispatch_table(ctx, table, &o, obj, idx, call)
                        {
                            return v;
                        }
                        let argv = self.eval_args(ctx, &call.args);
                        self.dynamic_call(ctx, call, &argv);
                        Value::dynamic()
                    }
                }
            }
            Expr::Super => {
                let argv = self.eval_args(ctx, &call.args);
                if let Some(home) = ctx.home.clone()
                    && let Some(sup) = home.superclass.clone()
                {
                    self.handed_to_base(&home, call.line, ctx.file, &argv);
                    self.init_instance(&sup, &ctx.this, argv);
                    self.fields_after_super(ctx, &home);
                }
                Value::Undef
            }
            Expr::Ident(n) if n == crate::ir::JSX_ELEMENT => self.jsx_element(ctx, call),
            Expr::Ident(n) if n == "import" => {
                let argv = self.eval_args(ctx, &call.args);
                self.require(ctx, argv.first(), call.line, true)
            }
            callee => {
                let f = match self.eval_raw(ctx, callee) {
                    Value::Unknown(k @ Unknown::Made(_)) => Value::Unknown(k.used()),
                    f => f,
                };
                if let Value::Builtin(Builtin::RouterMethod(id, verb)) = &f {
                    return self.call_router_method(ctx, *id, verb, call);
                }
                let argv = self.eval_args(ctx, &call.args);
                if let Expr::Ident(name) = callee
                    && let Some(v) = self.fire_plugin_hooks(ctx, name, &argv, call.line)
                {
                    return v;
                }
                if matches!(f, Value::Unknown(Unknown::Dynamic)) {
                    self.dynamic_call(ctx, call, &argv);
                }
                if let Value::Unknown(Unknown::External(from)) = &f {
                    if let (Some(pkg), Expr::Ident(name)) = (from.as_deref(), callee)
                        && let Some(v) =
                            crate::libs::external_call(self, ctx, pkg, name, call, &argv)
                    {
                        return v;
                    }
                    self.package_router(ctx, callee, from.as_deref(), call.line, &argv);
                }
                // `memoize(load)` / `once(init)` from a package give back what they wrap.
                if matches!(f, Value::Unknown(Unknown::External(_)))
                    && matches!(callee, Expr::Ident(n) if n == "memoize" || n == "once")
                    && let Some(g @ Value::Func(_)) = argv.first()
                {
                    return g.clone();
                }
                // A plain call of a sloppy-mode function: `this` is the
                // global object (Resig's `(function () { this.Class = … }())`).
                let this = match &f {
                    Value::Func(c) if c.this.is_none() && self.sloppy(c) => {
                        Some(Value::Obj(self.js.global_obj.clone()))
                    }
                    _ => None,
                };
                self.call_value(ctx, &f, argv, &call.args, call.line, this)
            }
        }
    }

    pub(crate) fn require(
        &mut self,
        ctx: &Ctx,
        spec: Option<&Value>,
        line: u32,
        is_import: bool,
    ) -> Value {
        let spec = spec.cloned().map(|v| self.force(v, 0));
        // `import(pathToFileURL(file))`: `import()` reads a URL object as its
        // `href` (`file:///…`).
        let text = |s: &Value| match s {
            Value::Obj(o) if is_import => o.get("href").and_then(|h| h.as_text()),
            s => s.as_text(),
        };
        match spec.as_ref().and_then(text) {
            Some(spec) => match self.resolve_spec_as(
                ctx.file,
                node::specifier(&spec),
                line,
                if is_import {
                    crate::project::Loading::Import
                } else {
                    crate::project::Loading::Require
                },
            ) {
                Some(Resolved::File(t)) => {
                    let v = self.module_value(t);
                    if is_import && !matches!(v, Value::Module(_)) {
                        // `import()` of CommonJS: a namespace whose default is module.exports.
                        let ns = ObjData::new();
                        ns.set("default", v);
                        return Value::Obj(ns);
                    }
                    v
                }
                Some(Resolved::Data(rel)) if is_import => {
                    // `import('./c.json')`: a namespace whose default is the data.
                    let ns = ObjData::new();
                    let data = self.import_value(Some(&Resolved::Data(rel)), None);
                    ns.set("default", data);
                    Value::Obj(ns)
                }
                other => self.import_value(other.as_ref(), None),
            },
            // AMD's `require(['codemirror'], cb)` (RequireJS, in a browser
            // script's UMD wrapper): an AMD loader's call, not Node's
            // `require` of a computed path.
            None if !is_import && matches!(spec, Some(Value::Arr(_))) => Value::dynamic(),
            None => {
                if self.running.dyn_loops.is_empty() {
                    self.finding(
                        FindingCode::DynamicImport,
                        ctx.file,
                        line,
                        "a module is loaded from a path computed at run time".into(),
                    );
                    Value::Unknown(Unknown::Reported)
                } else {
                    // The loop's finding covers it, if the loop registers routes.
                    self.running
                        .loop_imports
                        .push((self.running.dyn_loops.len(), ctx.file, line));
                    Value::Unknown(Unknown::Dynamic)
                }
            }
        }
    }

    pub(crate) fn method_call(&mut self, ctx: &Ctx, o: &Value, name: &str, call: &Call) -> Value {
        // A method the program did not write on an unknown value (nor on its
        // prototype: the methods an uncalled method's siblings share) is the
        // unknown's.
        if let Value::Obj(d) = o
            && let Some(rest) = ObjData::rest_of(o)
            && d.get(name).is_none()
            && d.getter(name).is_none()
            && !d.inherits(name)
        {
            return self.method_call(ctx, &rest, name, call);
        }
        self.census_call(ctx.file, call.line, name, o);
        // The result of a call deferred for later (see `call_value`) is needed
        // when a socket method is called on it, a string method (`trim(conf.base)`
        // in a helper file with no routing words: the receiver's text may be a
        // path's), or a method with an inline callback (`getRoutes().forEach(r => …)`,
        // `json.methods.map(m => …)`) while routes are charted: such a call is
        // followed anyway, and forcing the receiver first keeps it as the
        // method's `this` (an array's `forEach` runs over its items). Not in
        // the passes looking for events in code nobody calls, whose callbacks
        // would then run per item of every such list (PortOS ran out of its
        // budget there).
        if matches!(o, Value::Deferred(_))
            && (SOCKET_METHODS.contains(&name)
                || strings::STRING_METHODS.contains(&name)
                || (!self.modes.event_mode && call.args.iter().any(|a| matches!(a, Expr::Func(_))))
                || self.client_socket_helper(o))
        {
            let forced = self.force_deep(o.clone());
            if !matches!(forced, Value::Deferred(_)) {
                return self.method_call(ctx, &forced, name, call);
            }
        }
        // Methods of the values a library made: `libs/mod.rs` asks the library.
        if let Some(v) = crate::libs::method(self, ctx, o, name, call) {
            return v;
        }
        match o {
            Value::Coll(c) => return self.coll_method(ctx, c, name, call),
            Value::Emitter(em) => return self.emitter_method(ctx, em, name, call),
            Value::Dispatch(d) if matches!(name, "call" | "apply") => {
                let argv = self.eval_args(ctx, &call.args);
                let this = argv.first().cloned();
                let rest: Vec<Value> = match name {
                    "call" => argv.iter().skip(1).cloned().collect(),
                    _ => match argv.get(1) {
                        Some(Value::Arr(a)) => a.borrow().clone(),
                        _ => Vec::new(),
                    },
                };
                return self.call_dispatch(ctx, d, rest, call.line, this);
            }
            _ => {}
        }
        if let Some(v) = self.inherited_emitter_method(ctx, o, name, call) {
            return v;
        }
        if name == "then" || name == "finally" {
            let argv = self.eval_args(ctx, &call.args);
            if let Some(cb) = argv.first() {
                let arg = if o.is_unknown() {
                    // A package's promise settles later, when it will.
                    if let Value::Func(c) = cb {
                        self.note_handed_emitter(c);
                    }
                    Value::dynamic()
                } else {
                    o.clone()
                };
                self.js.reentry.discard_armed = false;
                return self.call_value(ctx, cb, vec![arg], &[], call.line, None);
            }
            return o.clone();
        }
        match o {
            Value::Arr(a) => {
                let argv = self.eval_args(ctx, &call.args);
                if let Some(when) = self.empty_by_default(a)
                    && let Some(v) = self.iterate_empty_by_default(ctx, a, name, &argv, call, when)
                {
                    return v;
                }
                let out = self.array_method(ctx, a, name, argv, call);
                self.list_derived(out, a)
            }
            Value::Str(s) => {
                let argv = self.eval_args(ctx, &call.args);
                let argv: Vec<Value> = argv.into_iter().map(|a| self.force(a, 0)).collect();
                let out = match (name, argv.get(1)) {
                    ("replace" | "replaceAll", Some(f @ Value::Func(_))) => {
                        let all = name == "replaceAll";
                        self.replace_by_function(ctx, s, &argv[0], f, all, call.line)
                    }
                    _ => string_method(s, name, &argv),
                };
                match out {
                    Value::Str(t) if t.len() > s.len() && !self.charge(ctx.file, t.len()) => {
                        Value::dynamic()
                    }
                    v => {
                        let mut from = vec![o];
                        from.extend(argv.iter());
                        self.derived(v, &from)
                    }
                }
            }
            Value::Regex(r) => {
                let argv = self.eval_args(ctx, &call.args);
                let argv: Vec<Value> = argv.into_iter().map(|a| self.force(a, 0)).collect();
                strings::regex_method(r, name, &argv)
            }
            Value::Builtin(Builtin::ArrayMethod(m)) if matches!(name, "call" | "apply") => {
                let argv = self.eval_args(ctx, &call.args);
                let rest: Vec<Value> = match name {
                    "call" => argv.iter().skip(1).cloned().collect(),
                    _ => match argv.get(1) {
                        Some(Value::Arr(a)) => a.borrow().clone(),
                        _ => Vec::new(),
                    },
                };
                match argv.first().cloned().map(|v| self.force(v, 0)) {
                    Some(Value::Arr(a)) => {
                        let m = m.clone();
                        self.array_method(ctx, &a, &m, rest, call)
                    }
                    _ => Value::dynamic(),
                }
            }
            // A method already bound to its emitter: binding keeps it, and
            // `call`/`apply` call it with the rest of their arguments.
            Value::Builtin(b @ Builtin::EmitterMethod(..))
                if matches!(name, "call" | "apply" | "bind") =>
            {
                let argv = self.eval_args(ctx, &call.args);
                let rest: Vec<Value> = match name {
                    "bind" => return o.clone(),
                    "call" => argv.iter().skip(1).cloned().collect(),
                    _ => match argv.get(1) {
                        Some(Value::Arr(a)) => a.borrow().clone(),
                        _ => Vec::new(),
                    },
                };
                self.call_builtin(ctx, b, rest, &[], call.line)
            }
            Value::Func(f) if matches!(name, "call" | "apply" | "bind") => {
                let argv = self.eval_args(ctx, &call.args);
                let this = argv.first().cloned();
                let rest: Vec<Value> = match name {
                    "call" => argv.iter().skip(1).cloned().collect(),
                    "apply" => match argv.get(1) {
                        Some(Value::Arr(a)) => a.borrow().clone(),
                        _ => Vec::new(),
                    },
                    _ => {
                        let args = argv.iter().skip(1).cloned().collect();
                        return self.bind_args(f, this, args);
                    }
                };
                let fv = Value::Func(f.clone());
                self.call_value(ctx, &fv, rest, &[], call.line, this)
            }
            Value::Unknown(_) if name == "get" && call.args.len() == 1 => {
                // `req.app.get('io')`: a setting stored with `app.set('io', io)`.
                let k = self.eval(ctx, &call.args[0]);
                if let Some(k) = k.as_text() {
                    for r in &self.rec.routers {
                        if let Some(v @ Value::Sio(_)) = r.settings.get(&k) {
                            return v.clone();
                        }
                    }
                }
                Value::dynamic()
            }
            Value::Unknown(kind) => {
                // A package instance's methods are the package's.
                let kind = &match kind {
                    Unknown::Instance(pkg) => Unknown::External(Some(pkg.clone())),
                    k => k.used(),
                };
                // `fs.readdirSync(dir).forEach(cb)`: callbacks run over values we cannot see.
                let looping = matches!(
                    name,
                    "forEach" | "map" | "flatMap" | "filter" | "reduce" | "some" | "every" | "find"
                );
                if looping {
                    self.running.dyn_loops.push(DynLoop::new(
                        ctx.file,
                        call.line,
                        format!("{}.{name}(...)", expr_text(callee_object(&call.callee))),
                    ));
                }
                let argv = self.eval_args(ctx, &call.args);
                if let Unknown::External(from) = kind {
                    if let Some(pkg) = from.as_deref()
                        && let Some(v) =
                            crate::libs::external_call(self, ctx, pkg, name, call, &argv)
                    {
                        return v;
                    }
                    self.package_router(ctx, &call.callee, from.as_deref(), call.line, &argv);
                }
                self.census_handed(ctx.file, call.line, &argv);
                let results = self.run_callbacks(ctx, &argv, &call.args, call.line);
                if looping {
                    self.pop_dyn_loop();
                }
                // A map over a list only known at run time whose callback
                // gives an app, a router or a socket (`ids.map(id =>
                // io.sockets.sockets.get(id))`) is a list of such values: one
                // item stands for them, as a socket set's `values()` does.
                if matches!(name, "map" | "flatMap")
                    && let Some(v) = results
                        .into_iter()
                        .find(|v| matches!(v, Value::Router(_) | Value::Chain(..) | Value::Sio(_)))
                {
                    return Value::array(vec![v]);
                }
                // `_.memoize(load)` / `once(init)` give back what they wrap.
                if matches!(kind, Unknown::External(_))
                    && matches!(name, "memoize" | "once")
                    && let Some(f @ Value::Func(_)) = argv.first()
                {
                    return f.clone();
                }
                if *kind == Unknown::Dynamic {
                    self.dynamic_call(ctx, call, &argv);
                }
                returned(kind)
            }
            // `Object.prototype.hasOwnProperty`, unless the object has its own:
            // true for a property the object holds; one it does not hold may
            // have been written by code the analysis cannot see, so unknown.
            Value::Obj(data)
                if name == "hasOwnProperty"
                    && data.get(name).is_none()
                    && data.class.borrow().is_none() =>
            {
                let argv = self.eval_args(ctx, &call.args);
                match argv
                    .first()
                    .and_then(|k| self.force(k.clone(), 0).as_text())
                {
                    Some(k) if data.get(&k).is_some() || data.getter(&k).is_some() => {
                        Value::Bool(true)
                    }
                    _ => Value::dynamic(),
                }
            }
            _ => {
                let f = self.member(o, name);
                let argv = self.eval_args(ctx, &call.args);
                if let Some(v) = self.fire_plugin_hooks(ctx, name, &argv, call.line) {
                    return v;
                }
                // `this` is the receiver, a function included (`Sub.extend(…)`
                // with `Class.extend = arguments.callee`).
                let this = match o {
                    Value::Obj(_) | Value::Class(_) | Value::Func(_) => Some(o.clone()),
                    _ => None,
                };
                self.call_value(ctx, &f, argv, &call.args, call.line, this)
            }
        }
    }

    /// Invoke inline function arguments of a call the analyzer cannot follow;
    /// what they returned, in order.
    pub(crate) fn run_callbacks(
        &mut self,
        ctx: &Ctx,
        argv: &[Value],
        args: &[Expr],
        line: u32,
    ) -> Vec<Value> {
        let mut returned = Vec::new();
        self.census_handed(ctx.file, line, argv);
        // The route's response handed to code the analysis does not run
        // (`pipeline(stream, res, cb)`, `transport.handleRequest(req, res)`)
        // is answered there; handed with `next` (`passport.authenticate(…)(req,
        // res, next)`) it is a middleware's, which may pass the request on.
        if let Some(c) = &self.running.route_contract
            && argv
                .iter()
                .any(|a| matches!(a, Value::Http(HttpVal::Res(_))))
            && !argv
                .iter()
                .any(|a| matches!(a, Value::Builtin(Builtin::NextFn)))
        {
            c.borrow_mut().answered = true;
        }
        // Code the analysis does not run may add keys to what it gets.
        for v in argv {
            Self::open_shape(v, 0);
        }
        // The callee calls them, not the statement: never a discarded call.
        self.js.reentry.discard_armed = false;
        for (i, v) in argv.iter().enumerate() {
            match (v, args.get(i)) {
                // A list of functions written in the call (`async.waterfall([
                // function (cb) { … }, … ])`, `async.series`, `step(…)`):
                // the callee calls them, in order, as it would one.
                (Value::Arr(items), Some(Expr::Array(exprs))) => {
                    let items = items.borrow().clone();
                    for (item, e) in items.iter().zip(exprs) {
                        self.run_callback(ctx, item, Some(e), line);
                    }
                }
                (v, e) => returned.extend(self.run_callback(ctx, v, e, line)),
            }
        }
        returned
    }

    /// One function handed to a call the analysis cannot follow, written as
    /// `e`: one written there runs now with unknown arguments (what it
    /// returned); one handed by name without parameters runs later.
    fn run_callback(&mut self, ctx: &Ctx, v: &Value, e: Option<&Expr>, line: u32) -> Option<Value> {
        match (v, e) {
            (Value::Func(c), Some(Expr::Func(f))) => {
                self.note_handed_emitter(c);
                let unknown_args = vec![Value::dynamic(); f.params.len()];
                Some(self.call_value(ctx, v, unknown_args, &[], line, None))
            }
            // A function handed by name (`server.on('listening',
            // onListening)`, `server.listen(port, onUp)`) is called by the
            // callee, later: see `run_handed`. (One with parameters works on
            // what the callee gives it, which the analysis cannot know;
            // salvage charts what it registers on them.)
            (Value::Func(c), Some(Expr::Ident(_))) if c.func.params.is_empty() => {
                self.handed.push((v.clone(), ctx.file, line));
                None
            }
            // A route's callback handed on by name (`Room.findById(id, cb)`
            // in the helper the route called with it): the callee calls it
            // with what it found, which the analysis cannot know.
            (Value::Func(c), _)
                if self.running.route_contract.is_some()
                    && self.running.route_callbacks.contains(&(c.file, c.func.id)) =>
            {
                let unknown_args = vec![Value::dynamic(); c.func.params.len()];
                Some(self.call_value(ctx, v, unknown_args, &[], line, None))
            }
            _ => None,
        }
    }

    /// `c`, a callback handed to a package (which calls it later), kept to
    /// run once more while looking for events when it emits; when it calls,
    /// by a name its environment binds, a function that emits (`(out) =>
    /// cb(out)` where `cb` is an emitting callback), that function is kept
    /// (see [`Deferred::handed_emitters`]).
    ///
    /// [`Deferred::handed_emitters`]: super::state::Deferred::handed_emitters
    fn note_handed_emitter(&mut self, c: &Rc<Closure>) {
        let emits =
            |me: &Self, f: &Closure| me.deferred.emits.get(&(f.file, f.func.id)) == Some(&true);
        if emits(self, c) {
            self.deferred
                .handed_emitters
                .insert((c.file, c.func.id), c.clone());
            return;
        }
        let called = RefCell::new(Vec::new());
        crate::libs::socketio_syntax::any_expr(&c.func.body, &|e| {
            if let Expr::Call(call) = e
                && let Expr::Ident(n) = &call.callee
                && let Some(Value::Func(f)) = c.env.lookup(n)
                && emits(self, &f)
            {
                called.borrow_mut().push(f);
            }
            false
        });
        for f in called.into_inner() {
            self.deferred.handed_emitters.insert((f.file, f.func.id), f);
        }
    }

    /// After an entry's top level ran: the functions it handed by name to
    /// calls the analysis cannot follow (see `handed`) that nothing called
    /// meanwhile run now, as the event loop would call a listener or a
    /// timer's callback. What a function does that no code calls is
    /// determined by what it closes over (it takes no parameters).
    pub(crate) fn run_handed(&mut self) {
        while !self.handed.is_empty() {
            for (f, file, line) in std::mem::take(&mut self.handed) {
                let Value::Func(c) = &f else { continue };
                if self.deferred.called.contains(&(c.file, c.func.id)) {
                    continue;
                }
                let ctx = Ctx {
                    file,
                    scope: Scope::new(Some(self.js.globals.clone())),
                    this: Value::Undef,
                    home: None,
                };
                self.call_value_now(&ctx, &f, Vec::new(), &[], line, None);
            }
        }
    }

    pub(crate) fn call_value(
        &mut self,
        ctx: &Ctx,
        f: &Value,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
        this: Option<Value>,
    ) -> Value {
        if (self.running.route_contract.is_some() || self.running.listener_site.is_some())
            && argv
                .iter()
                .any(|a| matches!(a, Value::Http(HttpVal::Part(_))))
        {
            // `validateRequest(schema, req.body)`: imported schemas are still lazy here.
            let forced: Vec<Value> = argv.iter().map(|a| self.force(a.clone(), 0)).collect();
            if let Some(i) = forced.iter().position(|a| matches!(a, Value::Zod(_))) {
                // The schema's own name when it is passed by name, else the wrapper's.
                let name = match args.get(i) {
                    Some(Expr::Ident(n)) => n.clone(),
                    Some(Expr::Member(_, n)) => n.clone(),
                    _ => match f {
                        Value::Func(c) => c.func.name.clone().unwrap_or_default(),
                        Value::Lazy(_, n) => n.to_string(),
                        _ => String::new(),
                    },
                };
                self.note_validation(ctx, line, &forced, &name);
            }
        }
        let discarded = std::mem::take(&mut self.js.reentry.discard_armed);
        // Follow now when the call carries an app/router/socket or an inline
        // callback, or its module can lead to a registration
        // (`Loader::may_route`), or its value is discarded (an expression
        // statement: it runs for its effects, see `Interp::discarded`);
        // otherwise defer it.
        // While looking for events in code nobody calls, a function is only
        // followed when it gets a socket or a name to emit: every function
        // runs once on its own anyway.
        // A callback that runs later (a promise's `then`, `queueMicrotask`,
        // a timer: `budget::runs_later`) that is an arrow (or bound
        // function) runs with the `this` it closed over:
        // `Promise.resolve().then(() => this.listen())` in a constructor
        // runs on the instance that holds the socket. (Only these: every DOM
        // listener of a large UI class would run too, each calling methods.)
        let own_this = match f {
            Value::Func(c) if self.calling_later() => c.this.as_ref(),
            _ => None,
        };
        // (The global object a sloppy-mode plain call gets is no receiver.)
        let receiver = this
            .as_ref()
            .filter(|t| !matches!(t, Value::Obj(o) if Rc::ptr_eq(o, &self.js.global_obj)));
        let tracked = argv.iter().any(|a| a.is_tracked(0))
            || own_this.or(receiver).is_some_and(|t| t.is_tracked(0));
        // An emitting callback passed down (`runTurn({ emit })`) is as good as a socket.
        let tracked = tracked || argv.iter().any(|a| self.carries_emitter(a, 0));
        let follow = if self.modes.event_mode {
            let names = argv
                .iter()
                .any(|a| matches!(a, Value::Str(_) | Value::Pattern(_)));
            let file = match f {
                Value::Lazy(file, _) => Some(*file),
                Value::Func(c) => Some(c.file),
                _ => None,
            };
            let route_callback = |v: &Value| matches!(v, Value::Func(c) if self.running.route_callbacks.contains(&(c.file, c.func.id)));
            let request = self.running.route_contract.is_some()
                && (argv
                    .iter()
                    .any(|a| matches!(a, Value::Http(_) | Value::Zod(_)) || route_callback(a))
                    || route_callback(f));
            // A listener handing a name it received to a dispatcher
            // (`relay.call(name, ...args)`): see `libs/socketio_multiplex.rs`.
            let dispatcher = self.running.listener_site.is_some()
                && matches!(f, Value::Func(c) if crate::libs::looks_up_by_param(&c.func));
            // A method of an object or class the program made, in a file
            // that mentions sockets (`Store.init()` whose `this.socket =
            // io()` later code reads as `Store.socket`), in a program other
            // than an entry (a client's, a module run on its own): an
            // entry's own start-up already ran when the routes were read.
            let method = matches!(receiver, Some(Value::Obj(_) | Value::Class(_)))
                && self.secondary_program();
            // A discarded call of the program's start-up code (see
            // `Running::startup`).
            let startup = discarded && (self.js.stack.is_empty() || self.running.startup > 0);
            tracked
                || request
                || dispatcher
                || match file {
                    Some(file) => {
                        self.loader.needles_of(file) & needle::SOCKET != 0
                            && (names
                                || method
                                || startup
                                // A closure over a name its maker was given
                                // (`onEvent(event)` returning `new
                                // Observable(o => socket.on(event, …))`):
                                // each one made listens for its own.
                                || matches!(f, Value::Func(c) if self.captures_text(c)))
                    }
                    None => !matches!(f, Value::Deferred(_)),
                }
        } else {
            (match f {
                Value::Lazy(file, _) => {
                    self.loader.may_route(*file) || self.running.discarded == Some((ctx.file, line))
                }
                Value::Deferred(_) => args.iter().any(|a| matches!(a, Expr::Func(_))),
                _ => true,
            }) || tracked
        };
        if follow {
            let top = self.js.stack.is_empty();
            self.running.startup += u32::from(top);
            let r = if discarded
                && let Value::Func(c) = f
                && self.memo_eligible()
            {
                self.call_discarded(ctx, c, argv, args, line, this)
            } else {
                self.call_value_now(ctx, f, argv, args, line, this)
            };
            self.running.startup -= u32::from(top);
            r
        } else {
            // A function a route's code calls runs for each request, even
            // when the run does not follow it (see `census_rec::in_handlers`).
            if self.modes.event_mode
                && self.running.route_contract.is_some()
                && let Value::Func(c) = f
            {
                self.rec.census.in_handlers.insert((c.file, c.func.id));
            }
            // Not run now, perhaps never: it may add keys to what it gets.
            for v in argv.iter().chain(receiver) {
                Self::open_shape(v, 0);
            }
            Thunk::value(ThunkKind::Call(f.clone(), argv, this, line), ctx.file)
        }
    }

    /// `o.name(...)` where `f` is a function the program wrote on `o`, a
    /// library's value (`app.map = function …`, `socket.request = function
    /// …`): its body runs with `o` as `this`.
    pub(crate) fn call_written_method(
        &mut self,
        ctx: &Ctx,
        f: &Value,
        call: &crate::ir::Call,
        this: Value,
    ) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        self.call_value_now(ctx, f, argv, &call.args, call.line, Some(this))
    }

    pub(crate) fn call_value_now(
        &mut self,
        ctx: &Ctx,
        f: &Value,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
        this: Option<Value>,
    ) -> Value {
        match f {
            Value::Func(c) => {
                if let Some(name) = &c.func.name {
                    self.note_handed_paths(ctx.file, line, name, &argv);
                }
                self.js.frames.push(Frame {
                    callee: c.func.name.clone().unwrap_or_else(|| {
                        args.first()
                            .map(|_| "<anonymous>".to_string())
                            .unwrap_or_else(|| "<anonymous>".into())
                    }),
                    file: ctx.file,
                    line,
                    args: argv.clone(),
                });
                let r = self.invoke(c, argv, this);
                self.js.frames.pop();
                r
            }
            Value::Lazy(..) | Value::Deferred(_) => {
                let v = self.force_deep(f.clone());
                if matches!(v, Value::Lazy(..) | Value::Deferred(_)) {
                    return Value::dynamic();
                }
                self.call_value_now(ctx, &v, argv, args, line, this)
            }
            Value::Builtin(b) => self.call_builtin(ctx, b, argv, args, line),
            Value::Dispatch(d) => self.call_dispatch(ctx, d, argv, line, this),
            Value::Obj(_) if let Some(rest) = ObjData::rest_of(f) => {
                self.call_value_now(ctx, &rest, argv, args, line, this)
            }
            Value::Unknown(k) => {
                self.census_handed(ctx.file, line, &argv);
                self.run_callbacks(ctx, &argv, args, line);
                returned(k)
            }
            // A compiled validator (`ajv.compile(schema)`) applied to the request.
            Value::Zod(_) => crate::libs::apply_validator(self, ctx, f, argv, line),
            Value::Class(_) => Value::dynamic(),
            _ => Value::dynamic(),
        }
    }

    /// Runs a route handler or middleware once with a request, a response
    /// and `next`, in a fresh scope under the program's globals.
    pub(crate) fn run_as_handler(&mut self, f: &Value, c: &Closure) {
        let argv = vec![
            Value::Http(HttpVal::Req),
            Value::Http(HttpVal::Res(200)),
            Value::Builtin(Builtin::NextFn),
        ];
        let ctx = Ctx {
            file: c.file,
            scope: Scope::new(Some(self.js.globals.clone())),
            this: Value::Undef,
            home: None,
        };
        self.call_value_now(&ctx, f, argv, &[], c.func.line, None);
    }

    pub(crate) fn invoke(
        &mut self,
        c: &Rc<Closure>,
        argv: Vec<Value>,
        this: Option<Value>,
    ) -> Value {
        let key = (c.file, c.func.id);
        if self.deferred.called.insert(key) {
            let was = self.deferred.uncalled.remove(&key);
            self.salvage_note_call(key, was);
        }
        self.census_enter(key);
        if self.modes.event_mode {
            self.deferred.event_called.insert(key);
        }
        let recursion = self.js.stack.iter().filter(|k| **k == key).count();
        if recursion >= MAX_RECURSION || self.js.stack.len() >= MAX_CALL_DEPTH {
            if argv.iter().any(|a| a.is_tracked(0))
                || this.as_ref().is_some_and(|t| t.is_tracked(0))
            {
                self.finding(
                    FindingCode::AnalysisBudget,
                    c.file,
                    c.func.line,
                    format!(
                        "calls to `{}` nest deeper than {} levels; deeper registrations were not followed",
                        c.func.name.as_deref().unwrap_or("<anonymous>"),
                        if recursion >= MAX_RECURSION { MAX_RECURSION } else { MAX_CALL_DEPTH }
                    ),
                );
            }
            return Value::dynamic();
        }
        if self.js.steps > STEP_BUDGET {
            let what = format!(
                "entering `{}`",
                c.func.name.as_deref().unwrap_or("<anonymous>")
            );
            self.report_spent(c.file, c.func.line, &what);
            return Value::dynamic();
        }
        // A bound function's fixed arguments come first.
        let argv = match &c.bound {
            Some(b) => b.iter().cloned().chain(argv).collect(),
            None => argv,
        };
        let Some(call_args) = self.call_args(key, &argv, c.this.as_ref().or(this.as_ref())) else {
            return Value::dynamic();
        };
        let scope = Scope::new(Some(c.env.clone()));
        let this = if c.is_arrow {
            c.this.clone().unwrap_or(Value::Undef)
        } else {
            c.this.clone().or(this).unwrap_or(Value::Undef)
        };
        let ctx = Ctx {
            file: c.file,
            scope,
            this,
            home: c.home.clone(),
        };
        ctx.scope.define("arguments", Value::array(argv.clone()));
        if !c.is_arrow {
            // `arguments.callee` (see `Interp::callee`); an arrow's is its
            // enclosing function's, found up the scope chain.
            ctx.scope.define(CALLEE, Value::Func(c.clone()));
        }
        let last = c.func.params.len().saturating_sub(1);
        for (i, p) in c.func.params.iter().enumerate() {
            if c.func.rest && i == last {
                let rest = argv.get(i..).map(<[Value]>::to_vec).unwrap_or_default();
                self.bind(&ctx, p, Value::array(rest), true);
                continue;
            }
            let mut v = argv.get(i).cloned().unwrap_or(Value::Undef);
            if let (Value::Sio(_), Some(Some(t))) = (&v, c.func.param_types.get(i))
                && let Some(typed) = self.typed_sio(&c.env, t, &v)
            {
                v = typed;
            } else if let Some(typed) = crate::libs::typed_unknown_arg(self, c, i, &v) {
                v = typed;
            }
            self.bind(&ctx, p, v, true);
        }
        self.enter_frame(key, call_args, &c.func);
        self.js.maybe_returns.push(Vec::new());
        self.hoist(&ctx, &c.func.body);
        let mut result = Value::Undef;
        let status = self.running.res_status;
        for s in &c.func.body {
            match self.exec_stmt(&ctx, s) {
                Flow::Normal => {}
                Flow::Return(v) => {
                    result = v;
                    break;
                }
                // What a caller gets from a call that threw is not known here.
                _ => {
                    result = Value::dynamic();
                    break;
                }
            }
        }
        self.running.res_status = status;
        let maybe = self.js.maybe_returns.pop().unwrap_or_default();
        self.leave_frame();
        let result = flow::primitive_result(result, &maybe);
        let result = self.default_of_several(result, &maybe, &c.func);
        flow::kept_of_several(&result, &maybe);
        result
    }

    /// A constant the last path returned where a path that may run returned
    /// a value only known at run time (`if (s.mode) return s.mode; return
    /// 'none'`): a string is the default taken for that value (see
    /// [`Interp::assume`]: a route at it is charted under it, conditional,
    /// and it decides no comparison); a flag or a number is unknown.
    fn default_of_several(
        &mut self,
        result: Value,
        maybe: &[Value],
        func: &crate::ir::Func,
    ) -> Value {
        if !maybe
            .iter()
            .any(|m| matches!(m, Value::Unknown(_) | Value::Deferred(_)))
        {
            return result;
        }
        match &result {
            Value::Str(s) if self.assumptions(&result).is_empty() => {
                let name = func.name.as_deref().unwrap_or("<anonymous>");
                self.assume(&s.clone(), format!("{name}(…) gives its default"))
            }
            Value::Bool(_) | Value::Num(_) => Value::dynamic(),
            _ => result,
        }
    }

    pub(crate) fn construct(
        &mut self,
        ctx: &Ctx,
        c: &Value,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
    ) -> Value {
        match c {
            // A library value whose `new` is its call (`new Server(http)`,
            // `new Ajv()`): `libs` says which.
            Value::Builtin(b)
                if let Some(v) =
                    crate::libs::construct_builtin(self, ctx, b, &argv, args, line) =>
            {
                v
            }
            Value::Builtin(Builtin::EventEmitterCtor) => self.new_emitter(),
            Value::Builtin(Builtin::Node(NodeFn::AsyncLocalStorage)) => node::async_local_storage(),
            Value::Builtin(Builtin::Node(NodeFn::UrlCtor)) => {
                let argv: Vec<Value> = argv.into_iter().map(|a| self.force_deep(a)).collect();
                let input = argv.first().and_then(node::url_text);
                let base = argv.get(1).map(node::url_text);
                match (input, base) {
                    (Some(i), None) => node::resolve_url(&i, None),
                    (Some(i), Some(Some(b))) => node::resolve_url(&i, Some(&b)),
                    _ => None,
                }
                .map(|href| node::url_object(&href))
                .unwrap_or_else(Value::dynamic)
            }
            Value::Builtin(Builtin::FunctionCtor("RegExp")) => Self::regexp_of(&argv),
            c if let Some(v) = crate::libs::construct(self, ctx, c, &argv, line) => v,
            // `new Promise((resolve, reject) => …)`: the executor runs at
            // once; the promise gives what `resolve` was called with while it
            // ran (a promise is its value here: `then` calls back with it).
            Value::Builtin(Builtin::PromiseNs) => {
                if let Some(f @ Value::Func(_)) = argv.first() {
                    let slot = self.js.settled.len();
                    self.js.settled.push(None);
                    let settle = vec![
                        Value::Builtin(Builtin::Resolve(slot as u32)),
                        Value::external(),
                    ];
                    self.call_value_now(ctx, f, settle, &[], line, None);
                    if let Some(v) = self.js.settled[slot].take() {
                        return v;
                    }
                }
                Value::dynamic()
            }
            // A proxy forwards what its handler does not trap; the target is
            // what the code reaches through it (`new Proxy(app, { get })`).
            Value::Builtin(Builtin::ProxyCtor) => argv.into_iter().next().unwrap_or(Value::Undef),
            Value::Builtin(b @ (Builtin::SetCtor | Builtin::MapCtor)) => {
                let init = argv.first().map(|a| self.force(a.clone(), 0));
                new_coll(*b == Builtin::MapCtor, init)
            }
            // A subclass of a library class the analysis models (`class P
            // extends ApolloServer`, `class Io extends Server`): its instance
            // is what the library makes, as `super(...)` has the library build
            // it; the subclass's own constructor runs on it.
            Value::Class(cv) if let Some(base) = self.library_base(cv) => {
                let made = self.construct(ctx, &base, argv.clone(), args, line);
                if matches!(made, Value::Builtin(Builtin::Framework(_)) | Value::Sio(_)) {
                    if cv.class.constructor.is_some() {
                        self.init_instance(c, &made, argv);
                    }
                    return made;
                }
                self.construct_plain(c, argv)
            }
            Value::Class(_) | Value::Func(_) => self.construct_plain(c, argv),
            Value::Unknown(k) => {
                self.census_handed(ctx.file, line, &argv);
                self.run_callbacks(ctx, &argv, args, line);
                match k {
                    Unknown::Instance(pkg) => Value::of_package(pkg),
                    k => Value::Unknown(k.used()),
                }
            }
            _ => Value::dynamic(),
        }
    }

    /// The library class at the root of `cv`'s superclasses, when it is one
    /// whose instances the analysis models as the library's own values
    /// ([`crate::libs::instance_is_library_value`]).
    fn library_base(&mut self, cv: &Rc<ClassVal>) -> Option<Value> {
        let mut sup = cv.superclass.clone()?;
        for _ in 0..8 {
            match self.force_deep(sup) {
                Value::Class(k) => sup = k.superclass.clone()?,
                b => return crate::libs::instance_is_library_value(&b).then_some(b),
            }
        }
        None
    }

    /// `new C(...)` of a class or function of the program: a fresh object.
    fn construct_plain(&mut self, c: &Value, argv: Vec<Value>) -> Value {
        match c {
            Value::Class(_) | Value::Func(_) => {
                let obj = ObjData::new();
                self.stamp(&obj);
                if let Value::Class(cv) = c {
                    *obj.class.borrow_mut() = Some(cv.clone());
                }
                let this = Value::Obj(obj.clone());
                if let Value::Class(cv) = c
                    && let Some(slot) = self.rec.classes.iter_mut().find(|(k, _)| Rc::ptr_eq(k, cv))
                    && slot.1.is_none()
                {
                    slot.1 = Some(this.clone());
                }
                // A function constructor that returns an object yields that object.
                if let Value::Func(f) = c {
                    *obj.proto.borrow_mut() = self.prototype_of(f);
                    let r = self.invoke(f, argv, Some(this.clone()));
                    return match r {
                        Value::Obj(_)
                        | Value::Arr(_)
                        | Value::Func(_)
                        | Value::Router(_)
                        | Value::Sio(_)
                        | Value::Coll(_)
                        | Value::Emitter(_) => r,
                        _ => this,
                    };
                }
                self.init_instance(c, &this, argv);
                this
            }
            _ => Value::dynamic(),
        }
    }

    /// Make an instance's fields, as JavaScript does before a base class's
    /// constructor body runs and right after a derived one's `super(…)`
    /// returns: first the TypeScript parameter properties (`props`, the
    /// values of `class.param_props`, which TypeScript assigns before the
    /// initializers so that `io = new IO(this.socket)` reads the socket), then
    /// each field initializer, in order, with `this` the instance.
    fn init_fields(&mut self, cv: &Rc<ClassVal>, this: &Value, props: Vec<Value>) {
        let cctx = Ctx {
            file: cv.file,
            scope: Scope::new(Some(cv.env.clone())),
            this: this.clone(),
            home: Some(cv.clone()),
        };
        for ((name, _), v) in cv.class.param_props.iter().zip(props) {
            self.set_member(this, name, v);
        }
        let key = Rc::as_ptr(cv) as usize;
        let again = self.js.initializing.contains(&key);
        self.js.initializing.push(key);
        for (name, init) in &cv.class.fields {
            let v = match init {
                Some(_) if again => Value::dynamic(),
                Some(e) => self.eval_raw(&cctx, e),
                // A field declared without a value (`socket: Socket;`) does
                // not undo what the base constructor stored: TypeScript
                // emits nothing for it unless the project asks for
                // JavaScript's define semantics.
                None if matches!(this, Value::Obj(o) if o.props.borrow().contains_key(name)) => {
                    continue;
                }
                None => Value::Undef,
            };
            self.set_member(this, name, v);
        }
        self.js.initializing.pop();
    }

    /// After a derived class constructor's `super(…)` returned (`ctx` is the
    /// constructor's): the class's fields, once (see [`Interp::init_fields`]),
    /// with the parameter properties' values as the constructor's
    /// parameters hold them.
    fn fields_after_super(&mut self, ctx: &Ctx, home: &Rc<ClassVal>) {
        let key = Rc::as_ptr(home) as usize;
        match self.js.fields_pending.last_mut() {
            Some((k, done)) if *k == key && !*done => *done = true,
            _ => return,
        }
        let props: Vec<Value> = home
            .class
            .param_props
            .iter()
            .map(|(n, _)| ctx.scope.lookup(n).unwrap_or(Value::Undef))
            .collect();
        self.init_fields(home, &ctx.this, props);
    }

    pub(crate) fn init_instance(&mut self, c: &Value, this: &Value, argv: Vec<Value>) {
        match c {
            Value::Class(cv) => {
                if cv.class.constructor.is_none()
                    && let Some(sup) = cv.superclass.clone()
                {
                    self.init_instance(&sup, this, argv.clone());
                }
                // A derived class's own constructor makes the fields when
                // its `super(…)` returns (see `fields_after_super`).
                let derived = cv.class.constructor.is_some() && cv.superclass.is_some();
                if !derived {
                    let props: Vec<Value> = cv
                        .class
                        .param_props
                        .iter()
                        .map(|(_, i)| argv.get(*i).cloned().unwrap_or(Value::Undef))
                        .collect();
                    self.init_fields(cv, this, props);
                }
                if let Some(ctor) = &cv.class.constructor {
                    let key = Rc::as_ptr(cv) as usize;
                    if derived {
                        self.js.fields_pending.push((key, false));
                    }
                    let clo = Closure::method(cv, ctor, this);
                    self.invoke(&clo, argv, Some(this.clone()));
                    // (A constructor whose `super(…)` the analysis did not
                    // reach still gets its fields.)
                    if derived && self.js.fields_pending.pop().is_some_and(|(_, done)| !done) {
                        self.init_fields(cv, this, Vec::new());
                    }
                }
            }
            Value::Func(f) => {
                self.invoke(f, argv, Some(this.clone()));
            }
            Value::Builtin(Builtin::RouterCtor) | Value::Builtin(Builtin::Express) => {
                // `class Api extends Router` — the instance is a router; not modelled.
            }
            Value::Builtin(Builtin::EventEmitterCtor) => self.emitter_instance(this),
            // A library's class (`class S extends Server`): the library runs its constructor.
            c => {
                crate::libs::super_construct(self, c, this, &argv);
            }
        }
    }
}

impl Interp {
    /// `new Sub(router, …)` of a program's class whose constructor is the
    /// package class it extends (no constructor of its own, up to that
    /// class), or `super(router, …)` in one: the router is handed to the
    /// package's constructor (see [`Interp::package_router`]), the finding
    /// at `line` of `file`.
    pub(crate) fn handed_to_base(
        &mut self,
        cv: &Rc<ClassVal>,
        line: u32,
        file: FileId,
        argv: &[Value],
    ) {
        // (Before naming the package: most classes get no router.)
        if !hands_router(argv) {
            return;
        }
        let mut cv = cv.clone();
        for _ in 0..16 {
            match cv.superclass.clone() {
                Some(Value::Class(up)) if up.class.constructor.is_none() => cv = up,
                Some(Value::Unknown(k @ (Unknown::External(_) | Unknown::Made(_)))) => {
                    let Unknown::External(from) = k.used() else {
                        return;
                    };
                    let Some(base) = cv.class.superclass.clone() else {
                        return;
                    };
                    // The base is named in the subclass's file.
                    let at = Ctx {
                        file: cv.file,
                        scope: cv.env.clone(),
                        this: Value::Undef,
                        home: None,
                    };
                    let pkg = from
                        .map(|f| f.to_string())
                        .or_else(|| self.package_of(&at, &base));
                    let here = Ctx { file, ..at };
                    self.package_router(&here, &base, pkg.as_deref(), line, argv);
                    return;
                }
                _ => return,
            }
        }
    }

    /// An app or router handed (directly, or one level down in an object or
    /// array literal: `initialize({ app })`) to a function of an installed
    /// package the analysis does not model: the routes that package adds are
    /// not known, which a `package-router` finding says (once per call). The
    /// package is the one the function came `from`, else the one the
    /// callee's root name is bound to.
    pub(crate) fn package_router(
        &mut self,
        ctx: &Ctx,
        callee: &Expr,
        from: Option<&str>,
        line: u32,
        argv: &[Value],
    ) {
        if self.modes.event_mode || self.salvage.current.is_some() || !hands_router(argv) {
            return;
        }
        let Some(pkg) = from
            .map(str::to_string)
            .or_else(|| self.package_of(ctx, callee))
        else {
            return;
        };
        if !crate::libs::may_add_routes(&pkg) {
            return;
        }
        let text = expr_text(callee);
        self.finding(
            FindingCode::PackageRouter,
            ctx.file,
            line,
            format!(
                "an app or router is handed to `{text}` from the package `{pkg}`, which the analysis does not follow: routes that package adds are not charted"
            ),
        );
    }
}

impl Interp {
    /// The installed package an expression's root name is bound to at the
    /// top level of its file (`scimmy` in `new scimmy.Router()`, `cors` in
    /// `cors()`, `install` in `const { install } = require('kit')`), if any.
    pub(crate) fn package_of(&self, ctx: &Ctx, e: &Expr) -> Option<String> {
        let mut root = e;
        for _ in 0..16 {
            root = match root {
                Expr::Member(o, _) | Expr::Index(o, _) => o,
                Expr::Call(c) => &c.callee,
                Expr::New(c, _, _) => c,
                _ => break,
            };
        }
        let Expr::Ident(name) = root else { return None };
        let facts = self.loader.get(ctx.file).facts.clone();
        crate::census::top_level_packages(&facts)
            .into_iter()
            .chain(crate::census::named_package_imports(&facts))
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
    }
}

impl Interp {
    /// `table[key](args)` with a key only known at run time, on an object
    /// whose properties are all functions (a dispatch table: `_mounts[name](router)`,
    /// `handlers[event](socket)`), handed an app, router or Socket.IO object:
    /// any of them may run, so each runs once with the arguments, what it
    /// registers conditional on the key naming it.
    /// `None` when the object is not such a table (at most 64 functions).
    fn dispatch_table(
        &mut self,
        ctx: &Ctx,
        table: &Rc<ObjData>,
        this: &Value,
        obj: &Expr,
        idx: &Expr,
        call: &Call,
    ) -> Option<Value> {
        let entries = table.entries();
        if entries.is_empty() || entries.len() > 64 {
            return None;
        }
        let mut funcs = Vec::new();
        for (k, v) in entries {
            match self.force(v, 0) {
                f @ Value::Func(_) => funcs.push((k, f)),
                _ => return None,
            }
        }
        let argv = self.eval_args(ctx, &call.args);
        // Only a call that hands over something that registers (an app, a
        // router, a Socket.IO object) runs every entry: others (formatters,
        // strategies run per request) would multiply work for nothing.
        if !argv
            .iter()
            .any(|a| matches!(a, Value::Router(_) | Value::Chain(..) | Value::Sio(_)))
        {
            return Some(Value::dynamic());
        }
        let key = format!("{}[{}]", expr_text(obj), expr_text(idx));
        self.js.reentry.discard_armed = false;
        for (k, f) in funcs {
            self.running.cond.push(format!("{key} is {k}"));
            self.call_value(
                ctx,
                &f,
                argv.clone(),
                &call.args,
                call.line,
                Some(this.clone()),
            );
            self.running.cond.pop();
        }
        Some(Value::dynamic())
    }
}

/// What calling a value only known at run time gives: unknown the same way,
/// except that what a package's function returns (a middleware factory's
/// middleware, `jwt({ secret })`) is not one of the package's exports, so it
/// does not keep the package's name (see [`Unknown::External`]).
fn returned(k: &Unknown) -> Value {
    match k {
        Unknown::External(Some(pkg)) | Unknown::Instance(pkg) => {
            Value::Unknown(Unknown::Made(pkg.clone()))
        }
        Unknown::External(None) | Unknown::Made(_) => Value::external(),
        k => Value::Unknown(k.clone()),
    }
}

/// The scope name `arguments.callee` is kept under (no identifier can
/// spell it).
pub(crate) const CALLEE: &str = "%callee";

/// Whether statements start with a `"use strict"` directive (the directive
/// prologue: the leading string-literal statements).
pub(crate) fn use_strict(body: &[Stmt]) -> bool {
    body.iter()
        .map_while(|s| match s {
            Stmt::Expr(Expr::Str(d)) => Some(d),
            _ => None,
        })
        .any(|d| d == "use strict")
}

impl Interp {
    /// `arguments.callee` where `scope` is a function's: the function
    /// itself, not the `this` a member call bound it to (`K.extend =
    /// arguments.callee`, then `Sub.extend(…)` runs with `Sub` as `this`).
    pub(crate) fn callee(scope: &Scope) -> Option<Value> {
        match scope.lookup(CALLEE)? {
            Value::Func(c) if c.this.is_some() || c.bound.is_some() => {
                Some(Value::Func(Rc::new(Closure {
                    file: c.file,
                    func: c.func.clone(),
                    env: c.env.clone(),
                    this: None,
                    is_arrow: false,
                    home: c.home.clone(),
                    bound: None,
                })))
            }
            f => Some(f),
        }
    }

    /// Whether `c` runs in sloppy mode, where a plain call's `this` is the
    /// global object: not an arrow or a class's method, no `"use strict"`
    /// of its own, in a file that is no ES module, no TypeScript (compiled
    /// strict) and has no `"use strict"` at its top. (A directive of an
    /// enclosing function is not looked at.)
    pub(crate) fn sloppy(&mut self, c: &Closure) -> bool {
        if c.is_arrow || c.home.is_some() || use_strict(&c.func.body) {
            return false;
        }
        if let Some(&strict) = self.js.strict_files.get(&c.file) {
            return !strict;
        }
        let rel = self.loader.project.rel(c.file);
        let strict = [".mjs", ".ts", ".tsx", ".mts", ".cts"]
            .iter()
            .any(|e| rel.ends_with(e))
            || self.js.modules.get(&c.file).is_some_and(|m| m.esm.get())
            || use_strict(&self.loader.get(c.file).facts.body);
        self.js.strict_files.insert(c.file, strict);
        !strict
    }
}

/// Whether an app or router is among `argv`, or one level down in an object
/// or array literal (`initialize({ app })`): see [`Interp::package_router`].
fn hands_router(argv: &[Value]) -> bool {
    let router = |v: &Value| matches!(v, Value::Router(_) | Value::Chain(..));
    argv.iter().any(|a| match a {
        Value::Obj(o) => o.props.borrow().values().any(router),
        Value::Arr(items) => items.borrow().iter().any(router),
        v => router(v),
    })
}
