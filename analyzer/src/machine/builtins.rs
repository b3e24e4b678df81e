//! The JavaScript built-in functions called as functions or constructors
//! (`Object.*`, `Array.from`, `JSON`, `Promise`, `RegExp`, `String`, …):
//! what each returns, keeping what is known known.
//!
//! Deliberately not here: methods of built-in values (`call.rs`,
//! `arrays.rs`, `strings.rs`), what a library's functions do (`libs/`).

use super::*;

impl Interp {
    pub(crate) fn call_builtin(
        &mut self,
        ctx: &Ctx,
        b: &Builtin,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
    ) -> Value {
        match b {
            Builtin::Require => self.require(ctx, argv.first(), line, false),
            // A verb bound to its router, called by code given it: the
            // arguments as that call wrote them, when it wrote them all.
            Builtin::RouterMethod(id, verb) => {
                let known = args.len() == argv.len();
                let call = crate::ir::Call {
                    callee: Expr::Ident(if known {
                        verb.to_string()
                    } else {
                        "<bound verb>".into()
                    }),
                    args: args.to_vec(),
                    line,
                    type_args: Vec::new(),
                    doc: None,
                };
                if known {
                    return self.call_router_method(ctx, *id, verb, &call);
                }
                self.dynamic_call(ctx, &call, &argv);
                Value::dynamic()
            }
            Builtin::EmitterMethod(em, name) => {
                let em = em.clone();
                self.emitter_call(ctx, &em, name, argv, args, line)
            }
            Builtin::PathJoin => {
                let argv: Vec<Value> = argv.into_iter().map(|v| self.force(v, 0)).collect();
                if let Some(v) = self.joined(&argv, posix_join) {
                    return v;
                }
                let parts: Option<Vec<String>> = argv.iter().map(Value::as_text).collect();
                match parts {
                    Some(p) => Value::str(&posix_join(&p)),
                    None => Value::dynamic(),
                }
            }
            Builtin::UrlJoin => {
                let mut flat = Vec::new();
                for v in argv {
                    match self.force(v, 0) {
                        Value::Arr(a) => flat.extend(a.borrow().iter().cloned()),
                        v => flat.push(v),
                    }
                }
                if let Some(v) = self.joined(&flat, url_join) {
                    return v;
                }
                let parts: Option<Vec<String>> = flat.iter().map(|v| v.as_text()).collect();
                match parts {
                    Some(p) => Value::str(&url_join(&p)),
                    None => Value::dynamic(),
                }
            }
            Builtin::ObjectFn(f) => {
                // The functions that read an object's contents (its keys, its
                // values, its prototype's names) or write into it need the
                // object now: a call not followed yet (`Object.values(await
                // loadPlugins())`) runs, as spreading it does.
                let reads = matches!(
                    *f,
                    "keys"
                        | "values"
                        | "entries"
                        | "getOwnPropertyNames"
                        | "assign"
                        | "fromEntries"
                );
                let target = argv
                    .first()
                    .cloned()
                    .map(|v| match reads {
                        true => self.force_deep(v),
                        false => self.force(v, 0),
                    })
                    .unwrap_or(Value::Undef);
                // `Object.assign(config.backend, { router })` on an object the
                // analysis cannot see: the keys land on it, as
                // `config.backend.router = router` would (see `open_unknown_place`).
                let target = match (*f, args.first()) {
                    ("assign", Some(place)) if matches!(target, Value::Unknown(_)) => {
                        self.open_unknown_place(ctx, place, target, 0)
                    }
                    _ => target,
                };
                let keys = match (*f, &target) {
                    ("keys" | "values" | "entries", Value::Module(id)) => {
                        Some(self.namespace_entries(*id))
                    }
                    ("keys" | "values" | "entries", _) => self.run_time_keys(&target),
                    // A class's prototype: `constructor` and the class body's
                    // methods and accessors, with what was put on it.
                    ("getOwnPropertyNames", Value::Obj(o)) => match self.prototype_class(o) {
                        Some(c) => {
                            let mut names = vec!["constructor".to_string()];
                            let body = c.class.methods.iter().chain(&c.class.getters);
                            for n in body.map(|(n, _)| n).chain(o.props.borrow().keys()) {
                                if !names.contains(n) {
                                    names.push(n.clone());
                                }
                            }
                            Some(
                                names
                                    .into_iter()
                                    .map(|n| (Value::str(&n), Value::Undef))
                                    .collect(),
                            )
                        }
                        None => self.run_time_keys(&target),
                    },
                    _ => None,
                };
                if let Some(keys) = keys {
                    return Value::array(
                        keys.into_iter()
                            .map(|(k, v)| match *f {
                                "keys" | "getOwnPropertyNames" => k,
                                "values" => v,
                                _ => Value::array(vec![k, v]),
                            })
                            .collect(),
                    );
                }
                match (*f, &target) {
                    ("freeze", _) => target,
                    ("create", _) => {
                        let o = ObjData::new();
                        self.stamp(&o);
                        if let Value::Obj(p) = &target {
                            *o.proto.borrow_mut() = Some(p.clone());
                        }
                        Value::Obj(o)
                    }
                    ("setPrototypeOf", Value::Obj(o)) => {
                        if let Some(Value::Obj(p)) = argv.get(1).map(|p| self.force(p.clone(), 0))
                            && !Rc::ptr_eq(o, &p)
                        {
                            *o.proto.borrow_mut() = Some(p);
                        }
                        target
                    }
                    ("getPrototypeOf", Value::Obj(o)) => o
                        .proto
                        .borrow()
                        .clone()
                        .map_or(Value::dynamic(), Value::Obj),
                    ("assign", Value::Obj(o)) => {
                        for (i, src) in argv.iter().enumerate().skip(1) {
                            let src = self.force_deep(src.clone());
                            match &src {
                                Value::Obj(s) => {
                                    for (k, v) in s.entries() {
                                        let v = self.copied_key(o, s, &k, v);
                                        if o.unknown_rest.is_some() {
                                            self.set_member(&target, &k, v);
                                        } else {
                                            o.set(&k, v);
                                        }
                                    }
                                    if !s.shape_known.get() {
                                        o.shape_known.set(false);
                                    }
                                }
                                Value::Undef | Value::Null => {}
                                Value::Unknown(_) => {}
                                _ => o.shape_known.set(false),
                            }
                            // A source only known at run time may set any
                            // property (see `maywrite.rs`).
                            let text = args.get(i).map(expr_text).unwrap_or_default();
                            self.copied_over(o, &src, &text);
                        }
                        target
                    }
                    // `Object.assign(express.Router(), { addProxy })`: the
                    // router gets the sources' properties and is what it
                    // returns. (Not yet a function: writing members on
                    // functions this way grew PortOS's run past 10 GB.)
                    ("assign", Value::Router(_)) => {
                        for src in argv.iter().skip(1) {
                            if let Value::Obj(s) = self.force_deep(src.clone()) {
                                for (k, v) in s.entries() {
                                    self.set_member(&target, &k, v);
                                }
                            }
                        }
                        target
                    }
                    ("fromEntries", Value::Arr(a)) => {
                        let obj = ObjData::new();
                        for e in a.borrow().iter() {
                            if let Value::Arr(pair) = e {
                                let pair = pair.borrow();
                                if let (Some(k), Some(v)) =
                                    (pair.first().and_then(|k| k.as_text()), pair.get(1))
                                {
                                    obj.set(&k, v.clone());
                                }
                            }
                        }
                        Value::Obj(obj)
                    }
                    ("defineProperty", Value::Obj(o)) => {
                        if let (Some(k), Some(Value::Obj(desc))) =
                            (argv.get(1).and_then(|k| k.as_text()), argv.get(2))
                        {
                            match desc.get("get") {
                                // An accessor: the getter runs when the property is read.
                                Some(Value::Func(g)) => o.add_getter(&k, g),
                                _ => o.set(&k, desc.get("value").unwrap_or(Value::dynamic())),
                            }
                        } else {
                            o.shape_known.set(false);
                        }
                        target
                    }
                    _ => Value::dynamic(),
                }
            }
            Builtin::ArrayFrom => match argv.first().cloned().map(|v| self.force_deep(v)) {
                Some(Value::Arr(a)) => Value::array(a.borrow().clone()),
                Some(Value::Coll(c)) => c.iterated().map_or_else(Value::dynamic, Value::array),
                Some(v) if let Some(items) = crate::libs::iterated(&v) => Value::array(items),
                _ => Value::dynamic(),
            },
            Builtin::ArrayMethod(_) => Value::dynamic(),
            Builtin::ArrayIsArray => match argv.first().cloned().map(|v| self.force_deep(v)) {
                Some(Value::Arr(_)) => Value::Bool(true),
                Some(Value::Unknown(_) | Value::Lazy(..) | Value::Deferred(_)) => Value::dynamic(),
                _ => Value::Bool(false),
            },
            Builtin::Identity => argv.into_iter().next().unwrap_or(Value::Undef),
            // The first call settles the promise; later ones do nothing.
            Builtin::Resolve(i) => {
                if let Some(slot @ None) = self.js.settled.get_mut(*i as usize) {
                    *slot = Some(argv.into_iter().next().unwrap_or(Value::Undef));
                }
                Value::Undef
            }
            // A curried function: `f` runs once the calls gave as many
            // arguments as it declares parameters before a default or rest
            // (its `length`); until then each call gives one holding more.
            Builtin::Curried(c) => {
                let all: Vec<Value> = c.held.iter().cloned().chain(argv).collect();
                if all.len() < function_length(&c.func.func) {
                    return Value::Builtin(Builtin::Curried(Rc::new(Curried {
                        func: c.func.clone(),
                        held: all,
                    })));
                }
                self.call_value_now(ctx, &Value::Func(c.func.clone()), all, &[], line, None)
            }
            // What each promise settles to: a value the analysis knows (a
            // module `import()` loads, a router) is `fulfilled` with it; a
            // value only known at run time may have been a rejection.
            Builtin::PromiseAllSettled => match argv.into_iter().next().map(|v| self.force(v, 0)) {
                Some(Value::Arr(items)) => {
                    // Each promise settles: a call kept for later runs now.
                    let settled: Vec<Value> = items.borrow().clone();
                    let settled: Vec<Value> =
                        settled.into_iter().map(|v| self.force_deep(v)).collect();
                    let records = settled
                        .iter()
                        .map(|v| {
                            let record = ObjData::new();
                            if v.is_unknown() {
                                record.set("status", Value::dynamic());
                                record.set("reason", Value::dynamic());
                            } else {
                                record.set("status", Value::str("fulfilled"));
                            }
                            record.set("value", v.clone());
                            Value::Obj(record)
                        })
                        .collect();
                    Value::array(records)
                }
                // A list not made yet (a deferred `map`) stays as it is,
                // read later as `Promise.all` gives it.
                Some(v) => v,
                None => Value::Undef,
            },
            Builtin::AppGetter(app) => Value::Router(*app),
            Builtin::Framework(_) => {
                crate::libs::call(self, ctx, b, &argv, args, line).unwrap_or_else(Value::external)
            }
            Builtin::MiddlewareFactory(n) if n.as_ref() == "child_process.fork" => {
                self.note_fork(ctx, &argv, line, "child_process.fork");
                Value::external()
            }
            Builtin::MiddlewareFactory(n)
                if matches!(n.as_ref(), "cluster.setupPrimary" | "cluster.setupMaster") =>
            {
                self.note_cluster_exec(ctx, &argv, line);
                Value::external()
            }
            Builtin::MiddlewareFactory(_)
                if let Some(v) = crate::libs::call(self, ctx, b, &argv, args, line) =>
            {
                v
            }
            Builtin::MiddlewareFactory(n) => {
                let n = n.clone();
                self.note_factory_call(&n, &argv);
                self.run_callbacks(ctx, &argv, args, line);
                Value::external()
            }
            Builtin::NestWs(_)
                if let Some(v) = crate::libs::call(self, ctx, b, &argv, args, line) =>
            {
                v
            }
            Builtin::OpaqueModule(_) | Builtin::NestWs(_) | Builtin::Served(_) => {
                self.run_callbacks(ctx, &argv, args, line);
                Value::external()
            }
            Builtin::UseMemo => match argv.into_iter().next() {
                Some(f @ Value::Func(_)) => {
                    self.call_value_now(ctx, &f, Vec::new(), &[], line, None)
                }
                _ => Value::external(),
            },
            Builtin::UseRef => {
                let r = ObjData::new();
                r.set("current", argv.into_iter().next().unwrap_or(Value::Undef));
                Value::Obj(r)
            }
            Builtin::FsModule
            | Builtin::SetCtor
            | Builtin::MapCtor
            | Builtin::ProxyCtor
            | Builtin::Zod => Value::dynamic(),
            Builtin::Joi => Value::dynamic(),
            // Library values known by a variant of their own (`VARIANT_CALLS`).
            Builtin::Store(_)
            | Builtin::SetState(_)
            | Builtin::Di(_)
            | Builtin::ZodBuilder(_)
            | Builtin::JoiBuilder(_)
            | Builtin::Celebrate
            | Builtin::Lodash(_)
            | Builtin::Express
            | Builtin::RouterCtor
            | Builtin::SocketIo
            | Builtin::SocketIoServer
            | Builtin::SocketIoClient
            | Builtin::SocketIoManager
            | Builtin::CatchAllAck(_)
            | Builtin::AddControllers(_)
            | Builtin::PassportMiddleware(_)
            | Builtin::CheckField(_)
            | Builtin::Ajv
            | Builtin::AjvMethod(_)
            | Builtin::AjvInstance
            | Builtin::JsonValidator
            | Builtin::JsonValidate
            | Builtin::JsonSchemaMiddleware(_)
            | Builtin::HttpStatus => {
                crate::libs::call(self, ctx, b, &argv, args, line).unwrap_or_else(Value::dynamic)
            }
            Builtin::InversifyServer(_) => Value::dynamic(),
            Builtin::EventEmitterCtor => self.new_emitter(),
            Builtin::NextFn => {
                // `next()` and `next('route')` pass the request on.
                if self.running.route_contract.is_some()
                    && match argv.first() {
                        None | Some(Value::Undef) => true,
                        Some(v) => v.as_text().as_deref() == Some("route"),
                    }
                {
                    self.running.next_passed = true;
                }
                // `next(err)`: an error with a status is a response.
                if let (Some(v), Some(e)) = (argv.first(), args.first())
                    && self.running.route_contract.is_some()
                {
                    let v = v.clone();
                    crate::libs::thrown(self, ctx, &v, e, line);
                }
                Value::Undef
            }
            Builtin::Node(f) => {
                let f = f.clone();
                self.node_call(ctx, &f, argv, args, line)
            }
            Builtin::ReflectFn(m) => self.reflect_metadata(m, argv),
            Builtin::FunctionCtor("RegExp") => Self::regexp_of(&argv),
            Builtin::FunctionCtor(f @ ("Symbol" | "Symbol.for")) => {
                let key = argv.first().and_then(Value::as_text);
                self.symbol(key, *f == "Symbol.for")
            }
            // `Boolean(v)` (a `filter(Boolean)` callback): `v`'s truthiness.
            Builtin::FunctionCtor("Boolean") => argv
                .first()
                .unwrap_or(&Value::Undef)
                .truthy()
                .map_or(Value::dynamic(), Value::Bool),
            // `String(v)`: a known string, number, boolean, null or undefined
            // as text (`String(propertyKey)` in a decorator).
            Builtin::FunctionCtor("String") => match argv.first() {
                None => Value::str(""),
                Some(v) => v.as_text().map_or(Value::dynamic(), |t| Value::str(&t)),
            },
            Builtin::PathModule
            | Builtin::ObjectNs
            | Builtin::ReflectNs
            | Builtin::ArrayNs
            | Builtin::PromiseNs
            | Builtin::FunctionCtor(_) => Value::dynamic(),
        }
    }

    /// `Symbol(description)`: a new symbol, unlike every other value; with
    /// `registered` (`Symbol.for(key)`), the one symbol of the registry for
    /// that key, the same in every module. A symbol is an object with no
    /// properties but its `description`: what matters is its identity (a DI
    /// container's key, `TYPES.Server = Symbol.for('Server')`); it is no
    /// text, so it never becomes a path or an event name.
    pub(super) fn symbol(&mut self, key: Option<String>, registered: bool) -> Value {
        if registered
            && let Some(k) = &key
            && let Some(s) = self.js.symbols.get(k)
        {
            return Value::Obj(s.clone());
        }
        let s = ObjData::new();
        if let Some(k) = &key {
            s.set("description", Value::str(k));
        }
        if registered && let Some(k) = key {
            self.js.symbols.insert(k, s.clone());
        }
        Value::Obj(s)
    }

    /// `new RegExp(source, flags)` (or without `new`) over known strings:
    /// the regex a literal `/source/flags` gives, so string methods apply it
    /// (`file.replace(new RegExp(path.sep, 'g'), '_')`).
    pub(super) fn regexp_of(argv: &[Value]) -> Value {
        let text = |i: usize| argv.get(i).and_then(Value::as_text);
        match (text(0), argv.get(1)) {
            (Some(src), None | Some(Value::Undef)) => Value::Regex(Rc::from(format!("/{src}/"))),
            (Some(src), Some(_)) if let Some(flags) = text(1) => {
                Value::Regex(Rc::from(format!("/{src}/{flags}")))
            }
            _ => Value::dynamic(),
        }
    }
}

/// A function's `length`: its parameters before the first one with a
/// default or the rest parameter.
pub(crate) fn function_length(f: &crate::ir::Func) -> usize {
    let declared = f.params.len() - usize::from(f.rest && !f.params.is_empty());
    f.params[..declared]
        .iter()
        .take_while(|p| !matches!(p, Pattern::Default(..)))
        .count()
}
