//! Statements: hoisting, blocks, declarations, `if`, `switch`, `try`, and
//! the statement forms `flow.rs` does not take (loops are there).
//!
//! Deliberately not here: expressions (`expr.rs`).

use super::*;

impl Interp {
    pub(crate) fn hoist(&mut self, ctx: &Ctx, stmts: &[Stmt]) {
        for s in stmts {
            let s = match s {
                Stmt::ExportDecl(inner, _) => inner.as_ref(),
                s => s,
            };
            if let Stmt::Function(name, f) = s {
                let v = self.closure(ctx, f);
                ctx.scope.define(name, v);
            }
            self.hoist_function_binding(ctx, s);
        }
    }

    pub(crate) fn exec_block(&mut self, ctx: &Ctx, stmts: &[Stmt]) -> Flow {
        let inner = Ctx {
            scope: Scope::new(Some(ctx.scope.clone())),
            ..ctx.clone()
        };
        self.hoist(&inner, stmts);
        let status = self.running.res_status;
        for s in stmts {
            let flow = self.exec_stmt(&inner, s);
            if !matches!(flow, Flow::Normal) {
                self.running.res_status = status;
                return flow;
            }
        }
        self.running.res_status = status;
        Flow::Normal
    }

    pub(crate) fn exec_stmt(&mut self, ctx: &Ctx, stmt: &Stmt) -> Flow {
        self.js.steps += 1;
        match stmt {
            Stmt::Expr(e) => {
                let call = match e {
                    Expr::Await(inner) => inner.as_ref(),
                    e => e,
                };
                let outer = match call {
                    Expr::Call(c) => self.running.discarded.replace((ctx.file, c.line)),
                    _ => self.running.discarded,
                };
                let outer_call = std::mem::replace(
                    &mut self.js.reentry.discarded_call,
                    match call {
                        Expr::Call(c) => Some(c.as_ref() as *const crate::ir::Call as usize),
                        _ => None,
                    },
                );
                let v = self.eval(ctx, e);
                self.running.discarded = outer;
                self.js.reentry.discarded_call = outer_call;
                if self.running.route_contract.is_some() {
                    self.statement_status(ctx, call, &v);
                }
            }
            Stmt::Var(decls) => {
                for (pat, init) in decls {
                    let v = match init {
                        Some(e) => self.eval_raw(ctx, e),
                        None => Value::Undef,
                    };
                    self.bind(ctx, pat, v, true);
                }
            }
            Stmt::Function(..) | Stmt::Import(_) => {}
            Stmt::TypeDecl(name, t) => {
                if !ctx.scope.vars.borrow().contains_key(name.as_str()) {
                    ctx.scope
                        .define(name, Value::Type(Arc::new(t.clone()), ctx.scope.clone()));
                }
            }
            Stmt::Class(name, c) => {
                let v = self.class_value(ctx, c);
                ctx.scope.define(name, v);
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval_raw(ctx, e),
                    None => Value::Undef,
                };
                return Flow::Return(v);
            }
            Stmt::Throw(e, line) => {
                let v = self.eval(ctx, e);
                if self.running.route_contract.is_some() {
                    crate::libs::thrown(self, ctx, &v, e, *line);
                }
                return Flow::Throw(v);
            }
            Stmt::If(test, text, then, els, _) => {
                let t = self.eval(ctx, test);
                // Looking for events, or running a Socket.IO handler (which runs
                // later, once the server is up), a flag in program state
                // (`if (realtime.maintenance) return;`) does not decide anything:
                // every path may run at some point.
                let state = (self.modes.event_mode || self.running.socket_handlers > 0)
                    && matches!(
                        t,
                        Value::Bool(_) | Value::Undef | Value::Null | Value::Num(_) | Value::Str(_)
                    )
                    && !matches!(test, Expr::Bool(_) | Expr::Str(_) | Expr::Num(_))
                    && !self.per_iteration_test(test);
                let known = if state { None } else { self.truth(&t) };
                // Lazy initialisation, `if (!this._app) this._app = build()`: the
                // branch runs the first time, so what it builds is not conditional.
                let known = match known {
                    None if let Some(target) = lazy_init(test, then)
                        && !self.unknown_place(ctx, target, 0) =>
                    {
                        Some(true)
                    }
                    k => k,
                };
                let flag = if state {
                    self.state_flag(ctx, test)
                } else {
                    None
                };
                match known {
                    Some(true) => return self.exec_block(ctx, then),
                    Some(false) => return self.exec_block(ctx, els),
                    None => return self.exec_both(ctx, text, then, els, flag),
                }
            }
            Stmt::ForOf(..) | Stmt::While(_) | Stmt::For(_) => {
                return self.exec_loop(ctx, stmt, None);
            }
            Stmt::Labeled(label, inner) => return self.exec_labeled(ctx, label, inner),
            Stmt::Break(label) => return Flow::Break(label.clone()),
            Stmt::Continue(label) => return Flow::Continue(label.clone()),
            Stmt::Block(stmts) => return self.exec_block(ctx, stmts),
            Stmt::Try(body, param, handler, fin) => {
                return self.exec_try(ctx, body, param, handler, fin);
            }
            Stmt::Switch(disc, cases) => {
                self.running
                    .breakables
                    .push(super::flow::Breakable::new(self.js.stack.len(), None));
                let flow = self.exec_switch(ctx, disc, cases);
                self.running.breakables.pop();
                return flow;
            }
            Stmt::ExportNames(..) | Stmt::ExportAll(..) => {}
            Stmt::ExportDecl(inner, _) => return self.exec_stmt(ctx, inner),
            Stmt::ExportDefault(e) => {
                self.eval(ctx, e);
            }
            Stmt::Enum(name, members) => {
                let obj = ObjData::new();
                let mut next = 0.0;
                for (k, v) in members {
                    let val = match v {
                        Some(e) => self.eval(ctx, e),
                        None => Value::Num(next),
                    };
                    if let Value::Num(n) = val {
                        next = n + 1.0;
                    }
                    obj.set(k, val);
                }
                ctx.scope.define(name, Value::Obj(obj));
            }
        }
        Flow::Normal
    }

    /// `switch`: a known discriminant runs the matching case (falling
    /// through as JavaScript does); an unknown one runs every case.
    fn exec_switch(&mut self, ctx: &Ctx, disc: &Expr, cases: &[crate::ir::SwitchCase]) -> Flow {
        {
            {
                let d = self.eval(ctx, disc);
                let d = self.force_deep(d);
                // A known discriminant with known case values: run the matching case
                // and fall through until a case exits, as JavaScript does.
                let mut start = None;
                // A string a choice only known at run time made may be any
                // of its ways: every case may run (see `choices.rs`).
                let chosen = self.chosen_ways(&d).is_some();
                if let Some(dt) = d.as_text().filter(|_| !chosen) {
                    let mut all_known = true;
                    for (i, c) in cases.iter().enumerate() {
                        if let Some(t) = &c.test {
                            let v = self.eval(ctx, t);
                            match v.as_text() {
                                Some(t) if start.is_none() && t == dt => start = Some(i),
                                Some(_) => {}
                                None => all_known = false,
                            }
                        }
                    }
                    if start.is_none() && all_known {
                        start = cases.iter().position(|c| c.test.is_none());
                        if start.is_none() {
                            return Flow::Normal;
                        }
                    } else if !all_known {
                        start = None;
                    }
                }
                if let Some(i) = start {
                    for c in &cases[i..] {
                        match self.exec_block(ctx, &c.body) {
                            Flow::Normal if !c.exits => {}
                            Flow::Normal | Flow::Break(None) => break,
                            other => return other,
                        }
                    }
                    return Flow::Normal;
                }
                // Unknown: every case may run, each way out (a case that
                // leaves the switch, after the ones falling into it) from the
                // values before the switch. A name the cases assign holds
                // after it the string each way leaves (see `choices.rs`), or
                // a value only known at run time.
                self.running
                    .cond
                    .push(format!("switch ({})", expr_text(disc)));
                let mut assigned = Vec::new();
                for c in cases {
                    assigned_names(&c.body, &mut assigned);
                }
                assigned.sort();
                assigned.dedup();
                let before: Vec<(String, Value)> = assigned
                    .iter()
                    .filter_map(|n| ctx.scope.lookup(n).map(|v| (n.clone(), v)))
                    .collect();
                let d_text = expr_text(disc);
                let none_matches = cases
                    .iter()
                    .filter_map(|c| c.test.as_ref())
                    .map(|t| format!("!({d_text} === {})", expr_text(t)))
                    .collect::<Vec<_>>()
                    .join(" && ");
                let mut outcomes: Vec<(String, Vec<Value>)> = Vec::new();
                let mut entries: Vec<String> = Vec::new();
                // What each way out returns, with its condition; whether
                // every way out returns.
                let mut returned: Vec<(Value, String)> = Vec::new();
                let mut all_return = cases.iter().any(|c| c.test.is_none());
                let subject = super::flow::narrowable(disc).then(|| expr_text(disc));
                for (i, c) in cases.iter().enumerate() {
                    let rebound = super::flow::root_name(disc)
                        .is_some_and(|r| super::flow::rebinds(&c.body, r));
                    let labels = match &subject {
                        Some(_) if !rebound => self.case_labels(ctx, cases, i),
                        _ => None,
                    };
                    let mark = self.running.narrowed.len();
                    if let (Some(s), Some(l)) = (&subject, labels) {
                        self.running
                            .narrowed
                            .push((self.js.stack.len(), s.clone(), l));
                    }
                    let flow = self.exec_block(ctx, &c.body);
                    // A case that may not run: a `return` in it may leave
                    // the loops around the switch.
                    self.note_maybe_exit(&flow);
                    self.running.narrowed.truncate(mark);
                    entries.push(match &c.test {
                        Some(t) => format!("{d_text} === {}", expr_text(t)),
                        None => none_matches.clone(),
                    });
                    let way_out = c.exits || i + 1 == cases.len();
                    match flow {
                        Flow::Return(v) => returned.push((v, entries.join(" || "))),
                        Flow::Normal if !way_out => {}
                        _ => all_return = false,
                    }
                    if way_out {
                        let values = before
                            .iter()
                            .map(|(n, v)| ctx.scope.lookup(n).unwrap_or_else(|| v.clone()))
                            .collect();
                        outcomes.push((entries.join(" || "), values));
                        entries.clear();
                        for (n, v) in &before {
                            ctx.scope.assign(n, v.clone());
                        }
                    }
                }
                self.running.cond.pop();
                if !cases.iter().any(|c| c.test.is_none()) {
                    let values = before.iter().map(|(_, v)| v.clone()).collect();
                    outcomes.push((none_matches, values));
                }
                for (k, (n, _)) in before.iter().enumerate() {
                    let ways: Vec<(Value, String)> = outcomes
                        .iter()
                        .map(|(c, vs)| (vs[k].clone(), c.clone()))
                        .collect();
                    let v = self.choice_among(&ways).unwrap_or_else(Value::dynamic);
                    ctx.scope.assign(n, v);
                }
                // Every way out returns (a `default` among them): the call
                // gives one of the values, as an `if` whose two branches
                // return does (see `exec_both`): routers, one standing for
                // each; else the last way's, the others instead.
                if all_return && returned.len() >= 2 {
                    if let Some(v) = self.routers_chosen(&returned) {
                        return Flow::Return(v);
                    }
                    // Strings: each, under its way's condition, as for a
                    // variable the cases assign (`choices.rs`).
                    if let Some(v) = self.choice_among(&returned) {
                        return Flow::Return(v);
                    }
                    let (last, _) = returned.pop().unwrap_or((Value::Undef, String::new()));
                    for (v, _) in returned {
                        self.note_maybe_return(Flow::Return(v));
                    }
                    return Flow::Return(last);
                }
            }
        }
        Flow::Normal
    }

    pub(crate) fn bind(&mut self, ctx: &Ctx, pat: &Pattern, v: Value, define: bool) {
        match pat {
            Pattern::Ident(name) => {
                self.charge_name(name);
                if define {
                    ctx.scope.define(name, v);
                } else if self.note_write(Some(&v)) && !ctx.scope.assign(name, v.clone()) {
                    // `config = {…}` with no declaration in sloppy code: a
                    // property of the global object, read as a bare name in
                    // every module (strict code would throw instead).
                    self.js.global_obj.set(name, v);
                }
            }
            Pattern::Object(props, rest) => {
                let v = self.force(v, 0);
                for (key, p) in props {
                    let k = match key {
                        PropKey::Name(n) => Some(n.clone()),
                        PropKey::Computed(e) => self.eval(ctx, e).as_text(),
                    };
                    let pv = match k {
                        Some(k) if super::expr::is_env(&v) => self.env_read(ctx.file, &k),
                        Some(k) => self.member(&v, &k),
                        None => Value::dynamic(),
                    };
                    self.bind(ctx, p, pv, define);
                }
                if let Some(r) = rest {
                    self.bind(ctx, r, Value::dynamic(), define);
                }
            }
            Pattern::Array(items, rest) => {
                let v = self.force(v, 0);
                for (i, p) in items.iter().enumerate() {
                    if let Some(p) = p {
                        let pv = match &v {
                            Value::Arr(a) => a.borrow().get(i).cloned().unwrap_or(Value::Undef),
                            _ => Value::dynamic(),
                        };
                        self.bind(ctx, p, pv, define);
                    }
                }
                if let Some(r) = rest {
                    let pv = match &v {
                        Value::Arr(a) => {
                            Value::array(a.borrow().iter().skip(items.len()).cloned().collect())
                        }
                        _ => Value::dynamic(),
                    };
                    self.bind(ctx, r, pv, define);
                }
            }
            Pattern::Default(p, def) => {
                let v = if matches!(v, Value::Undef) {
                    self.eval_raw(ctx, def)
                } else {
                    v
                };
                self.bind(ctx, p, v, define);
            }
            Pattern::Target(target) => match target.as_ref() {
                Expr::Member(obj, prop) => {
                    self.global_object_write(ctx, obj, prop, &v);
                    let o = self.eval(ctx, obj);
                    let o = self.open_unknown_place(ctx, obj, o, 0);
                    self.set_member(&o, prop, v);
                }
                Expr::Index(obj, idx) => {
                    let o = self.eval(ctx, obj);
                    let k = self.eval(ctx, idx);
                    if let Some(k) = k.as_text() {
                        let o = self.open_unknown_place(ctx, obj, o, 0);
                        self.set_member(&o, &k, v);
                    } else {
                        self.note_write(Some(&v));
                        if let Value::Obj(data) = &o {
                            data.shape_known.set(false);
                            self.write_under_run_time_key(data, &expr_text(idx), &v);
                        }
                        self.keep_under_dynamic_key(&o, v);
                    }
                }
                _ => {}
            },
            Pattern::Ignored => {}
        }
    }

    /// `config.port = 80`, `config.webPaths.super = '/super'` where `config`
    /// is a value the analysis cannot see (`require(dir + '/conf.json')`
    /// unresolved, a package's object, a parameter): in JavaScript the write
    /// lands on that object and later reads see it. The place that holds the
    /// unknown (a variable in scope, or a property of an object, itself made
    /// such a place when it is unknown too) is given an object that keeps the
    /// written keys and answers everything else as the unknown did
    /// (`ObjData::unknown_rest`). A place that is no variable in scope or
    /// property of an object (`req.session`, a call's result, a global
    /// the program never declared), and a package class's instance, stay
    /// unknown and the write is dropped as before.
    pub(crate) fn open_unknown_place(
        &mut self,
        ctx: &Ctx,
        place: &Expr,
        v: Value,
        depth: u32,
    ) -> Value {
        let Value::Unknown(kind) = &v else {
            return v;
        };
        if matches!(kind, Unknown::Instance(_)) || depth > 8 {
            return v;
        }
        let opened = ObjData::over_unknown(kind.used());
        let stored = match place {
            Expr::Ident(n) => ctx.scope.assign(n, Value::Obj(opened.clone())),
            Expr::Member(base, p) => {
                let b = self.eval(ctx, base);
                match self.open_unknown_place(ctx, base, b, depth + 1) {
                    Value::Obj(d) => {
                        d.set(p, Value::Obj(opened.clone()));
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        if stored { Value::Obj(opened) } else { v }
    }

    /// Whether `place` holds an unknown value that a write would open (see
    /// [`Interp::open_unknown_place`]): a default written there under `if
    /// (!config.x)` is a default for a run-time value, not the lazy
    /// initialisation of the program's own state (`mod.rs` `lazy_init`).
    fn unknown_place(&mut self, ctx: &Ctx, place: &Expr, depth: u32) -> bool {
        let v = self.eval(ctx, place);
        if ObjData::rest_of(&v).is_some() {
            return true;
        }
        if !matches!(v, Value::Unknown(ref k) if !matches!(k, Unknown::Instance(_))) || depth > 8 {
            return false;
        }
        match place {
            Expr::Ident(n) => ctx.scope.lookup(n).is_some(),
            Expr::Member(base, _) => {
                let b = self.eval(ctx, base);
                matches!(b, Value::Obj(_)) || self.unknown_place(ctx, base, depth + 1)
            }
            _ => false,
        }
    }

    pub(crate) fn set_member(&mut self, o: &Value, prop: &str, v: Value) {
        self.note_write(Some(&v));
        // A callback the analysis runs ahead of its time (a socket's
        // listener, a timer's, a promise's: JavaScript runs it after the
        // code that registered it) does not tear down the socket or app
        // that code goes on to use: `this.socket = null` in a
        // `connect_error` listener (through `this.logout()`) leaves
        // `this.socket` for the listeners registered after it.
        if matches!(v, Value::Null | Value::Undef)
            && (self.running.socket_handlers > 0 || self.in_later())
            && let Value::Obj(data) = o
            && data.get(prop).is_some_and(|old| old.is_tracked(0))
        {
            return;
        }
        // An instance of a class with a setter of that name runs it.
        if let Value::Obj(data) = o
            && let Some(cv) = data.class.borrow().clone()
            && let Some(f) = self.find_setter(&cv, prop, o)
        {
            self.invoke(&f, vec![v], Some(o.clone()));
            return;
        }
        match o {
            Value::Obj(data) if data.unknown_rest.is_some() => {
                self.write_over_unknown(data, prop, v);
            }
            Value::Obj(data) => {
                self.note_decorated(data, prop);
                self.note_path_write(data, prop);
                data.set(prop, v);
            }
            Value::Class(c) => {
                self.note_path_write(&c.statics, prop);
                c.statics.set(prop, v)
            }
            Value::Arr(a) => {
                if let Ok(i) = prop.parse::<usize>() {
                    let mut a = a.borrow_mut();
                    if i < MAX_ITERATIONS {
                        if a.len() <= i {
                            a.resize(i + 1, Value::Undef);
                        }
                        a[i] = v;
                    }
                }
            }
            Value::Router(id) => {
                self.rec.routers[*id as usize]
                    .props
                    .insert(prop.to_string(), v);
            }
            Value::Func(c) => {
                let c = c.clone();
                self.fn_object(&c).set(prop, v);
            }
            Value::Builtin(Builtin::Framework(n)) => {
                let n = n.clone();
                crate::libs::set_member(self, &n, prop, &v);
            }
            Value::Http(HttpVal::Req) => self.set_req_prop(prop, v),
            // `process` is one object every module shares: what one writes
            // on it (`process.ROOT_PATH = pathname`), the others read. Node's
            // own properties keep their model (a bundled browser shim's
            // `process.env = {}` is no program's environment).
            Value::Builtin(Builtin::Node(NodeFn::Process))
                if !node::PROCESS_OWN.contains(&prop) =>
            {
                let props = self.js.process_props.clone();
                self.note_path_write(&props, prop);
                props.set(prop, v);
            }
            _ => {
                crate::libs::set_value_member(self, o, prop, v);
            }
        }
    }
}

impl Interp {
    /// A write on an unknown value the program writes properties on (see
    /// [`Interp::open_unknown_place`]). On a path that may not run (`if
    /// (config.webPaths.super === undefined) { config.webPaths.super =
    /// '/super' }`) a key that read unknown holds the join of the two paths,
    /// as a variable does after an `if` (`flow::join`): a string is the
    /// default taken for the run-time value, conditional on the branch (a
    /// route at it is charted under the default with an `assumed-default`
    /// finding, as for `config.x || '/x'`, and deciding no comparison); a
    /// flag (`enabled = false`) or a value that says nothing (`{}`, `null`)
    /// leaves the key unknown, so the branches it would decide all run; any
    /// other value is kept.
    fn write_over_unknown(&mut self, data: &Rc<ObjData>, prop: &str, v: Value) {
        let was_unknown = data.get(prop).is_none_or(|old| old.is_unknown());
        let v = match (self.running.cond.last(), &v) {
            (Some(when), Value::Str(s)) if was_unknown && self.assumptions(&v).is_empty() => {
                let when = when.clone();
                self.assume(&s.clone(), when)
            }
            (Some(_), Value::Bool(_)) if was_unknown => return,
            (Some(_), _) if was_unknown && super::says_nothing(&v) => return,
            (Some(_), Value::Obj(_)) if was_unknown => {
                Self::open_shape(&v, 0);
                v
            }
            _ => v,
        };
        data.set(prop, v);
    }
}
