//! Expressions: values of literals, templates, operators, members, objects,
//! functions and classes, assignment and destructuring.
//!
//! Deliberately not here: calls (`call.rs`).

use super::*;

impl Interp {
    /// Evaluate and resolve lazy imports.
    pub(crate) fn eval(&mut self, ctx: &Ctx, e: &Expr) -> Value {
        let v = self.eval_raw(ctx, e);
        self.force(v, 0)
    }

    /// Evaluate, leaving a bare imported name unresolved (`Value::Lazy`).
    pub(crate) fn eval_raw(&mut self, ctx: &Ctx, e: &Expr) -> Value {
        match e {
            Expr::Str(s) => Value::str(s),
            Expr::Num(n) => Value::Num(*n),
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Null => Value::Null,
            Expr::Undefined => Value::Undef,
            Expr::Regex(r) => Value::Regex(Rc::from(r.as_str())),
            Expr::Template(quasis, exprs) => {
                self.charge_parts(exprs.len());
                let mut out = String::new();
                let mut known = true;
                let mut simple = true;
                let mut parts = Vec::new();
                for (i, q) in quasis.iter().enumerate() {
                    out.push_str(q);
                    if let Some(e) = exprs.get(i) {
                        let v = self.eval(ctx, e);
                        let v = self.force_deep(v);
                        parts.push(v.clone());
                        match v {
                            Value::Pattern(p) => {
                                known = false;
                                out.push_str(&p);
                            }
                            v => match v.as_text() {
                                Some(t) => out.push_str(&t),
                                None => {
                                    known = false;
                                    match placeholder(e) {
                                        Some(n) => out.push_str(&format!("{{{n}}}")),
                                        None => simple = false,
                                    }
                                }
                            },
                        }
                    }
                }
                if !self.charge(ctx.file, out.len()) {
                    Value::dynamic()
                } else if known {
                    let mut segments = Vec::new();
                    for (i, q) in quasis.iter().enumerate() {
                        segments.push(Value::str(q));
                        if let Some(v) = parts.get(i) {
                            segments.push(v.clone());
                        }
                    }
                    if let Some(v) = self.combined(&segments) {
                        return v;
                    }
                    let parts: Vec<&Value> = parts.iter().collect();
                    self.derived(Value::str(&out), &parts)
                } else if simple {
                    Value::Pattern(Rc::from(out.as_str()))
                } else {
                    Value::dynamic()
                }
            }
            Expr::Ident(name) => {
                self.charge_name(name);
                match ctx.scope.lookup(name) {
                    Some(v) if !self.running.narrowed.is_empty() && v.as_text().is_none() => {
                        self.narrowed_value(name).unwrap_or(v)
                    }
                    Some(v) => v,
                    None => match crate::libs::unbound_name(self, ctx, name) {
                        Some(v) => v,
                        None => self
                            .page_global(ctx.file, name)
                            .or_else(|| self.js.global_obj.get(name))
                            .unwrap_or(Value::external()),
                    },
                }
            }
            Expr::This => ctx.this.clone(),
            Expr::Super => Value::dynamic(),
            Expr::Member(obj, prop) => {
                if prop == "callee"
                    && matches!(obj.as_ref(), Expr::Ident(n) if n == "arguments")
                    && let Some(f) = Self::callee(&ctx.scope)
                {
                    return f;
                }
                if let Some(v) = self.global_object_read(ctx, obj, prop) {
                    return v;
                }
                let o = self.eval(ctx, obj);
                if is_env(&o) {
                    return self.env_read(ctx.file, prop);
                }
                let v = self.member(&o, prop);
                if !self.running.narrowed.is_empty() && v.as_text().is_none() {
                    return self.narrowed_value(&expr_text(e)).unwrap_or(v);
                }
                v
            }
            Expr::Index(obj, idx) => {
                let o = self.eval(ctx, obj);
                let k = self.eval(ctx, idx);
                if let Value::EventKey(key) = &k {
                    return self.event_key_index(&o, key);
                }
                match k.as_text() {
                    Some(k) if is_env(&o) => self.env_read(ctx.file, &k),
                    Some(k) => self.member(&o, &k),
                    None => match (self.under_dynamic_key(&o), &o) {
                        (Some(v), _) => v,
                        (None, Value::Obj(data)) => {
                            let table = expr_text(obj);
                            self.object_lookup_by_run_time_name(data, &table, idx, None);
                            Value::dynamic()
                        }
                        (None, _) => Value::dynamic(),
                    },
                }
            }
            Expr::Call(call) => self.call(ctx, call),
            Expr::New(callee, args, line) => {
                let c = match self.eval(ctx, callee) {
                    Value::Unknown(k @ Unknown::Made(_)) => Value::Unknown(k.used()),
                    c => c,
                };
                let argv = self.eval_args(ctx, args);
                if let Value::Class(cv) = &c
                    && cv.class.constructor.is_none()
                {
                    self.handed_to_base(cv, *line, ctx.file, &argv);
                }
                if let Value::Unknown(Unknown::External(from)) = &c {
                    let from = from.clone();
                    self.package_router(ctx, callee, from.as_deref(), *line, &argv);
                    let made = self.construct(ctx, &c, argv, args, *line);
                    let pkg = from.or_else(|| self.package_of(ctx, callee).map(Rc::from));
                    return match (&made, pkg) {
                        (Value::Unknown(Unknown::External(_)), Some(pkg)) => {
                            Value::Unknown(Unknown::Instance(pkg))
                        }
                        _ => made,
                    };
                }
                self.construct(ctx, &c, argv, args, *line)
            }
            Expr::Array(items) => {
                self.charge_parts(items.len());
                let mut out = Vec::new();
                for it in items {
                    match it {
                        // Spreading iterates the value now: a call not
                        // followed yet (`[...getConfig().plugins]`) runs.
                        Expr::Spread(inner) => match self.eval(ctx, inner) {
                            v @ Value::Deferred(_) => match self.force_deep(v) {
                                Value::Arr(a) => out.extend(a.borrow().iter().cloned()),
                                Value::Coll(c) => spread_coll(&mut out, &c),
                                _ => out.push(Value::dynamic()),
                            },
                            Value::Arr(a) => out.extend(a.borrow().iter().cloned()),
                            Value::Coll(c) => spread_coll(&mut out, &c),
                            v => match crate::libs::iterated(&v) {
                                Some(items) => out.extend(items),
                                None => out.push(Value::dynamic()),
                            },
                        },
                        e => out.push(self.eval_raw(ctx, e)),
                    }
                }
                Value::array(out)
            }
            Expr::Object(props) => {
                self.charge_parts(props.len());
                let obj = ObjData::new();
                self.stamp(&obj);
                // `{ ...app }`: a copy of an Express app (see `copies_app`).
                let mut copied_app = None;
                // Every key is known so far (see `ObjData::shape_known`).
                let mut known = true;
                for p in props {
                    match p {
                        ObjProp::KeyValue(k, v) => {
                            let key = match k {
                                PropKey::Name(n) => Some(n.clone()),
                                PropKey::Computed(e) => self.eval(ctx, e).as_text(),
                            };
                            let val = self.eval_raw(ctx, v);
                            match key {
                                Some(key) => obj.set(&key, val),
                                None => {
                                    known = false;
                                    if let PropKey::Computed(e) = k {
                                        self.write_under_run_time_key(&obj, &expr_text(e), &val);
                                    }
                                }
                            }
                        }
                        ObjProp::Spread(e) => {
                            let src = self.eval(ctx, e);
                            let src = match src {
                                Value::Deferred(_) => self.force_deep(src),
                                src => src,
                            };
                            if self.copies_app(&src) {
                                copied_app = Some(src.clone());
                            }
                            // Spreading `undefined` or `null` adds nothing.
                            known &= match &src {
                                Value::Obj(src) => src.shape_known.get(),
                                Value::Undef | Value::Null => true,
                                _ => false,
                            };
                            if let Value::Obj(src) = &src {
                                if self.may_lack_keys(src) {
                                    for (k, v) in src.entries() {
                                        let v = self.copied_key(&obj, src, &k, v);
                                        obj.set(&k, v);
                                    }
                                } else {
                                    for (k, v) in src.props.borrow().iter() {
                                        obj.set(k, v.clone());
                                    }
                                }
                                // Spreading reads each getter once.
                                let getters = src.getters.borrow().clone();
                                for (k, g) in getters {
                                    let v =
                                        self.invoke(&g, Vec::new(), Some(Value::Obj(src.clone())));
                                    obj.set(&k, v);
                                }
                            }
                            // `{ ...defaults, ...user }`: a source only known
                            // at run time may set any key (see `maywrite.rs`).
                            self.copied_over(&obj, &src, &expr_text(e));
                        }
                        ObjProp::Method(k, f) | ObjProp::Getter(k, f) => {
                            let key = match k {
                                PropKey::Name(n) => Some(n.clone()),
                                PropKey::Computed(e) => self.eval(ctx, e).as_text(),
                            };
                            let v = self.closure(ctx, f);
                            match key {
                                Some(key) => match (p, v) {
                                    (ObjProp::Getter(..), Value::Func(g)) => {
                                        obj.add_getter(&key, g)
                                    }
                                    (_, v) => obj.set(&key, v),
                                },
                                None => known = false,
                            }
                        }
                    }
                }
                obj.shape_known.set(known);
                // (Grouped as `run_with_placeholders` groups them.)
                let mut ids = super::literal_method_ids(props);
                if let (Some(first), Some(_)) = (ids.next(), ids.next()) {
                    self.js
                        .literal_objects
                        .entry((ctx.file, first))
                        .or_insert_with(|| obj.clone());
                }
                self.note_decorated_literal(&obj);
                crate::libs::object_literal(self, ctx, &obj);
                copied_app.unwrap_or(Value::Obj(obj))
            }
            Expr::Func(f) => self.closure(ctx, f),
            // A named class expression sees its own name inside its body
            // (`module.exports = class Users { static m() { Users.path } }`).
            Expr::Class(c) if let Some(name) = &c.name => {
                let inner = Ctx {
                    scope: Scope::new(Some(ctx.scope.clone())),
                    ..ctx.clone()
                };
                let v = self.class_value(&inner, c);
                inner.scope.define(name, v.clone());
                v
            }
            Expr::Class(c) => self.class_value(ctx, c),
            Expr::Add(l, r) => {
                let a = self.eval(ctx, l);
                let a = self.force_deep(a);
                let b = self.eval(ctx, r);
                let b = self.force_deep(b);
                match (&a, &b) {
                    (Value::Num(x), Value::Num(y)) => Value::Num(x + y),
                    (Value::Pattern(x), _) | (_, Value::Pattern(x))
                        if matches!(
                            (&a, &b),
                            (
                                Value::Pattern(_) | Value::Str(_),
                                Value::Pattern(_) | Value::Str(_)
                            )
                        ) =>
                    {
                        let _ = x;
                        let t = |v: &Value| match v {
                            Value::Pattern(p) | Value::Str(p) => p.to_string(),
                            _ => String::new(),
                        };
                        let text = format!("{}{}", t(&a), t(&b));
                        if self.charge(ctx.file, text.len()) {
                            Value::Pattern(Rc::from(text.as_str()))
                        } else {
                            Value::dynamic()
                        }
                    }
                    // Without a string on either side `+` adds numbers:
                    // `undefined + 1` is NaN, `true + 1` is 2 (not text).
                    (x, y) if is_number_like(x) && is_number_like(y) => {
                        match (to_number(x), to_number(y)) {
                            (Some(x), Some(y)) => Value::Num(x + y),
                            _ => Value::dynamic(),
                        }
                    }
                    _ => match (a.as_text(), b.as_text()) {
                        (Some(x), Some(y)) if self.charge(ctx.file, x.len() + y.len()) => {
                            if let Some(v) = self.combined(&[a.clone(), b.clone()]) {
                                return v;
                            }
                            self.derived(Value::str(&(x + &y)), &[&a, &b])
                        }
                        _ => Value::dynamic(),
                    },
                }
            }
            Expr::Logical(op, l, r) => {
                let a = self.eval(ctx, l);
                match (op, self.truth(&a)) {
                    (LogicalOp::And, Some(false)) => a,
                    (LogicalOp::And, Some(true)) => self.eval_raw(ctx, r),
                    (LogicalOp::Or, Some(true)) => a,
                    (LogicalOp::Or, Some(false)) => self.eval_raw(ctx, r),
                    (LogicalOp::Nullish, _) if matches!(a, Value::Undef | Value::Null) => {
                        self.eval_raw(ctx, r)
                    }
                    (LogicalOp::Nullish, Some(_)) => a,
                    (_, None) => {
                        self.running.cond.push(expr_text(l));
                        let b = self.eval_raw(ctx, r);
                        self.running.cond.pop();
                        // `x || null`, `x || []`: a fallback of nothing says
                        // nothing (a loop over it would run zero times); keep `x`.
                        if says_nothing(&b) {
                            return a;
                        }
                        // `url.startsWith('https://') ?? false`, `flags.debug || false`:
                        // the flag is `a` itself or the fallback, so what it is stays
                        // known at run time only (a boolean is never nullish, and `a`
                        // falsy or `false` decide an `if` alike).
                        // `flags.debug && true` is as truthy as `a` (and
                        // `a` may be falsy: no `true` to decide an `if`).
                        if matches!(
                            (op, &b),
                            (LogicalOp::Nullish, Value::Bool(_))
                                | (LogicalOp::Or, Value::Bool(false))
                                | (LogicalOp::And, Value::Bool(true))
                        ) {
                            return a;
                        }
                        // `process.env.PREFIX || '/env'`: the default, said to be one.
                        match (op, &b) {
                            (LogicalOp::Or, Value::Str(s)) => {
                                self.assume(&s.clone(), format!("!({})", expr_text(l)))
                            }
                            (LogicalOp::Nullish, Value::Str(s)) => {
                                self.assume(&s.clone(), format!("{} == null", expr_text(l)))
                            }
                            _ => {
                                // `...(env.X && { base: env.X })`: the
                                // literal's keys are there only when `a` is
                                // truthy (see the ternary's).
                                if let (LogicalOp::And, Value::Obj(o), Expr::Object(_)) =
                                    (op, &b, r.as_ref())
                                {
                                    let when = expr_text(l);
                                    self.keys_maybe_absent(o, &when, &format!("!({when})"));
                                }
                                super::flow::kept_of_several(&b, std::slice::from_ref(&a));
                                // `config.oidc || { enabled: false }`: a fresh
                                // fallback's flags say what it holds when `a` is
                                // falsy; `a` may set them either way, so they
                                // decide no `if`.
                                if let (Expr::Object(_), Value::Obj(o)) = (r.as_ref(), &b) {
                                    // (A boolean stays a boolean: a response built
                                    // from the fallback still says its type.)
                                    let flags: Vec<(String, Value)> = o
                                        .props
                                        .borrow()
                                        .iter()
                                        .filter_map(|(k, v)| match v {
                                            Value::Bool(_) => Some((
                                                k.to_string(),
                                                Value::Unknown(crate::value::Unknown::Bool),
                                            )),
                                            Value::Undef | Value::Null => {
                                                Some((k.to_string(), Value::dynamic()))
                                            }
                                            _ => None,
                                        })
                                        .collect();
                                    for (k, v) in flags {
                                        o.set(&k, v);
                                    }
                                }
                                b
                            }
                        }
                    }
                }
            }
            Expr::Cond(test, text, a, b) => {
                let t = self.eval(ctx, test);
                match self.truth(&t) {
                    Some(true) => self.eval_raw(ctx, a),
                    Some(false) => self.eval_raw(ctx, b),
                    None => {
                        self.running.cond.push(text.clone());
                        let x = self.eval_raw(ctx, a);
                        self.running.cond.pop();
                        self.running.cond.push(format!("!({text})"));
                        let y = self.eval_raw(ctx, b);
                        self.running.cond.pop();
                        // Keep the branch that says something: a known value over
                        // an unknown one, but not an empty fallback (`Array.isArray(x)
                        // ? x : []`), which would make a loop over it run zero times.
                        // Two lists (`env.ONLY ? [A, B] : [A, B, ...more]`, a
                        // module's `controllers`): every item either may hold.
                        if let (Value::Arr(l), Value::Arr(r)) = (&x, &y) {
                            let mut items = l.borrow().clone();
                            for v in r.borrow().iter() {
                                if !items.iter().any(|u| super::flow::same(u, v)) {
                                    items.push(v.clone());
                                }
                            }
                            return Value::array(items);
                        }
                        // `...(env.X ? { base: env.X } : {})`: the literal's
                        // keys are there on its way only; spread over defaults,
                        // they keep the defaults on the other (`maywrite.rs`).
                        let not_text = format!("!({text})");
                        for (lit, e, other, present, absent) in
                            [(&x, a, &y, text, &not_text), (&y, b, &x, &not_text, text)]
                        {
                            if let (Value::Obj(o), Expr::Object(_)) = (lit, e.as_ref())
                                && super::says_nothing(other)
                                && !super::says_nothing(lit)
                            {
                                self.keys_maybe_absent(o, present, absent);
                                return lit.clone();
                            }
                        }
                        let class_like = |v: &Value| matches!(v, Value::Class(_) | Value::Lazy(..));
                        let same = |a: &Value, b: &Value| match (a, b) {
                            (Value::Lazy(f, m), Value::Lazy(g, n)) => f == g && m == n,
                            _ => super::flow::same(a, b),
                        };
                        if class_like(&x)
                            && class_like(&y)
                            && !same(&x, &y)
                            && self.rec.class_choices.len() < super::state::CLASS_CHOICES
                            && !self
                                .rec
                                .class_choices
                                .iter()
                                .any(|(k, c, o, _)| c == text && same(k, &x) && same(o, &y))
                        {
                            let choice = (x.clone(), text.clone(), y.clone(), format!("!({text})"));
                            self.rec.class_choices.push(choice);
                        }
                        // Two known strings: each, under its condition.
                        if let Some(v) = self.choice_of(text, &x, &y) {
                            return v;
                        }
                        if let Some(v) = self.router_choice(&x, text, &y, &format!("!({text})")) {
                            return v;
                        }
                        if let Some(v) = self.sio_choice(&x, &y) {
                            return v;
                        }
                        let both = [x.clone(), y.clone()];
                        let flag =
                            |v: &Value| matches!(v, Value::Bool(_) | Value::Undef | Value::Null);
                        let scalar = |v: &Value| {
                            matches!(
                                v,
                                Value::Num(_)
                                    | Value::Str(_)
                                    | Value::Bool(_)
                                    | Value::Undef
                                    | Value::Null
                            )
                        };
                        let kept = match (x.is_unknown(), y.is_unknown()) {
                            // `x ? x : '/default'`: the default, said to be one;
                            // `v != null ? v : false` is a flag either path may
                            // give, so no `if` is decided on it.
                            (true, false) if !super::flow::vague(&y) => match &y {
                                Value::Str(s) => self.assume(&s.clone(), format!("!({text})")),
                                _ => y,
                            },
                            (false, true) if super::flow::vague(&x) => y,
                            // `env.X ? true : false`: two answers.
                            (false, false)
                                if flag(&x)
                                    && flag(&y)
                                    && !super::flow::same(&x, &y)
                                    && (matches!(x, Value::Bool(_))
                                        || matches!(y, Value::Bool(_))) =>
                            {
                                Value::dynamic()
                            }
                            // `mode === 'production' ? MODES.PROD : MODES.DEV`
                            // while the program starts: two different numbers
                            // (or a number and another scalar) are two answers
                            // too, so a later test on the value (`if (mode ===
                            // MODES.DEV)`) decides no registration. (Two
                            // strings are a choice, above. A handler run for
                            // its contract keeps the first, as a status it may
                            // answer: `res.status(made ? 201 : 200)`.)
                            (false, false)
                                if !self.modes.event_mode
                                    && scalar(&x)
                                    && scalar(&y)
                                    && !super::flow::same(&x, &y)
                                    && (matches!(x, Value::Num(_))
                                        || matches!(y, Value::Num(_))) =>
                            {
                                Value::dynamic()
                            }
                            // `isServer ? null : io(url)`: no socket or router on
                            // one way, the one the code guards for (`if (socket)
                            // socket.on(…)`) on the other.
                            (false, false)
                                if matches!(x, Value::Null | Value::Undef) && y.is_tracked(0) =>
                            {
                                y
                            }
                            _ => x,
                        };
                        super::flow::kept_of_several(&kept, &both);
                        kept
                    }
                }
            }
            Expr::Assign(pat, v) => {
                let val = self.eval_raw(ctx, v);
                let val = self.lazy_default(ctx, pat, v, val);
                self.bind(ctx, pat, val.clone(), false);
                val
            }
            Expr::Update {
                target,
                value,
                step,
                prefix,
            } => {
                // `i++` makes a number of what `i` holds (`'5'` is 5,
                // `undefined` NaN) before stepping it.
                let v = self.eval(ctx, value);
                let before = to_number(&self.force_deep(v));
                let after = before.map_or_else(Value::dynamic, |n| Value::Num(n + step));
                self.bind(ctx, target, after.clone(), false);
                match before {
                    Some(n) if !prefix => Value::Num(n),
                    _ => after,
                }
            }
            Expr::Await(e) => self.eval_raw(ctx, e),
            Expr::Unary(op, e) => {
                let v = self.eval(ctx, e);
                match op.as_str() {
                    "!" => self
                        .truth(&v)
                        .map(|b| Value::Bool(!b))
                        .unwrap_or(Value::dynamic()),
                    "void" => Value::Undef,
                    "typeof" => typeof_name(&v).map_or_else(Value::dynamic, Value::str),
                    "-" => match v {
                        Value::Num(n) => Value::Num(-n),
                        _ => Value::dynamic(),
                    },
                    _ => Value::dynamic(),
                }
            }
            Expr::Seq(items) => {
                self.charge_parts(items.len());
                let mut last = Value::Undef;
                for it in items {
                    last = self.eval_raw(ctx, it);
                }
                last
            }
            Expr::Spread(e) => self.eval_raw(ctx, e),
            Expr::Arith(op, l, r) => {
                let a = self.eval(ctx, l);
                let b = self.eval(ctx, r);
                match (self.force(a, 0), self.force(b, 0)) {
                    (Value::Num(a), Value::Num(b)) => {
                        arith(op, a, b).map_or_else(Value::dynamic, Value::Num)
                    }
                    _ => Value::dynamic(),
                }
            }
            Expr::Compare(op, l, r) => {
                let a = self.eval(ctx, l);
                let b = self.eval(ctx, r);
                // An ordering decides a loop's test (see `flow`), not a branch:
                // what is known of a count here is often a starting state.
                // Two known strings are compared as JavaScript does (a
                // character's class, `c >= '0' && c <= '9'`, is no count).
                if matches!(op.as_str(), "<" | "<=" | ">" | ">=") {
                    if let (Value::Str(_), Value::Str(_)) = (&a, &b)
                        && self.assumptions(&a).is_empty()
                        && self.assumptions(&b).is_empty()
                        && self.chosen_ways(&a).is_none()
                        && self.chosen_ways(&b).is_none()
                    {
                        return super::flow::relation(op, &a, &b);
                    }
                    return Value::dynamic();
                }
                // `x instanceof C`: undefined, null, a string, a number or a
                // boolean is an instance of nothing. So a constructor's guard,
                // `if (!(this instanceof C)) return new C(…)`, decides in a
                // plain call, where `this` is undefined (the global object in
                // sloppy mode, which is no instance of a program's function
                // either). Any other value: only known at run time.
                // An object whose prototype chain holds the function's
                // `prototype` (made by `new C`) is one.
                if op == "instanceof" {
                    return match &a {
                        Value::Undef
                        | Value::Null
                        | Value::Str(_)
                        | Value::Num(_)
                        | Value::Bool(_) => Value::Bool(false),
                        // Arrays, objects and functions are instances of
                        // `Object`; an array of `Array`, a plain object (no
                        // class, no prototype of the program's) not.
                        Value::Arr(_) | Value::Obj(_) | Value::Func(_) | Value::Class(_)
                            if matches!(b, Value::Builtin(Builtin::ObjectNs)) =>
                        {
                            Value::Bool(true)
                        }
                        Value::Arr(_) if matches!(b, Value::Builtin(Builtin::ArrayNs)) => {
                            Value::Bool(true)
                        }
                        Value::Obj(o)
                            if matches!(b, Value::Builtin(Builtin::ArrayNs))
                                && o.class.borrow().is_none()
                                && o.proto.borrow().is_none()
                                && o.unknown_rest.is_none() =>
                        {
                            Value::Bool(false)
                        }
                        Value::Obj(o) if matches!(b, Value::Func(_)) => {
                            let Value::Obj(p) = self.member(&b, "prototype") else {
                                return Value::dynamic();
                            };
                            let mut cur = o.proto.borrow().clone();
                            let mut depth = 0;
                            while let Some(q) = cur {
                                if Rc::ptr_eq(&q, &p) {
                                    return Value::Bool(true);
                                }
                                depth += 1;
                                if depth > 32 {
                                    break;
                                }
                                cur = q.proto.borrow().clone();
                            }
                            Value::dynamic()
                        }
                        _ => Value::dynamic(),
                    };
                }
                // A deferred call's result (see `call_value`) that decides a
                // branch is needed now (`json.path === '/'`, `json` read by a
                // helper of a module that does not route).
                let a = self.force_deferred(a);
                let b = self.force_deferred(b);
                // A default taken for a run-time value (`process.env.MODE ||
                // 'dev'`) is what the value may be, so it decides no branch.
                if !self.assumptions(&a).is_empty() || !self.assumptions(&b).is_empty() {
                    return Value::dynamic();
                }
                // So is a string a choice only known at run time made.
                if self.chosen_ways(&a).is_some() || self.chosen_ways(&b).is_some() {
                    return Value::dynamic();
                }
                // Module objects are one per file (`require.main === module`):
                // their identity is known, unlike that of objects the analysis
                // may stand in for run-time ones.
                if let (Value::Obj(x), Value::Obj(y)) = (&a, &b)
                    && x.is_module_obj.get()
                    && y.is_module_obj.get()
                {
                    return Value::Bool(Rc::ptr_eq(x, y) != op.starts_with('!'));
                }
                // A class is one value per evaluation of its declaration: two
                // different declarations are two classes (`k === Users`, a
                // class kept as a Map key).
                if let (Value::Class(x), Value::Class(y)) = (&a, &b)
                    && (Rc::ptr_eq(x, y) || !std::sync::Arc::ptr_eq(&x.class, &y.class))
                {
                    return Value::Bool(Rc::ptr_eq(x, y) != op.starts_with('!'));
                }
                // The global constructors are one value each (`o.constructor
                // === Object`, `input.constructor === Date`).
                if let (Value::Builtin(x), Value::Builtin(y)) = (&a, &b)
                    && is_global_constructor(x)
                    && is_global_constructor(y)
                {
                    return Value::Bool((x == y) != op.starts_with('!'));
                }
                let same_kind = std::mem::discriminant(&a) == std::mem::discriminant(&b);
                match (a.as_text(), b.as_text()) {
                    (Some(x), Some(y)) => {
                        let eq = if same_kind {
                            x == y
                        } else {
                            op.len() == 2 && super::flow::loose_equal(&a, &b)
                        };
                        let neg = op.starts_with('!');
                        Value::Bool(eq != neg)
                    }
                    // An object (or function, app, …) is never `null` or
                    // `undefined`, by `===` or `==`: as known as its
                    // truthiness (`if (result !== undefined) return result`).
                    _ if [(&a, &b), (&b, &a)].iter().any(|(o, p)| {
                        matches!(p, Value::Undef | Value::Null)
                            && o.as_text().is_none()
                            && o.truthy() == Some(true)
                    }) =>
                    {
                        Value::Bool(op.starts_with('!'))
                    }
                    _ => Value::dynamic(),
                }
            }
            Expr::Typed(inner, t) => {
                let v = self.eval_raw(ctx, inner);
                if let (Value::Http(HttpVal::Part(part)), Some(c)) =
                    (&v, self.running.route_contract.clone())
                    && matches!(
                        *part,
                        RequestPart::Body | RequestPart::Query | RequestPart::Params
                    )
                {
                    let schema = self.ts_schema(&ctx.scope, t, 0);
                    if schema.get("type").is_some() {
                        crate::libs::set_part(
                            &mut c.borrow_mut(),
                            *part,
                            schema,
                            crate::libs::SchemaLabel::new(
                                crate::libs::SchemaSource::TypeScript,
                                "",
                            ),
                            ctx.file,
                            self.js.frames.last().map_or(0, |f| f.line),
                        );
                    }
                }
                v
            }
            Expr::Opaque(_) => Value::dynamic(),
        }
    }

    pub(crate) fn eval_args(&mut self, ctx: &Ctx, args: &[Expr]) -> Vec<Value> {
        self.charge_parts(args.len());
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Expr::Spread(inner) => match self.eval(ctx, inner) {
                    Value::Arr(arr) => out.extend(arr.borrow().iter().cloned()),
                    _ => out.push(Value::dynamic()),
                },
                e => out.push(self.eval_raw(ctx, e)),
            }
        }
        out
    }

    pub(crate) fn closure(&mut self, ctx: &Ctx, f: &Arc<Func>) -> Value {
        let c = Rc::new(Closure {
            file: ctx.file,
            func: f.clone(),
            env: ctx.scope.clone(),
            this: if f.arrow {
                Some(ctx.this.clone())
            } else {
                None
            },
            is_arrow: f.arrow,
            home: ctx.home.clone(),
            bound: None,
        });
        let key = (ctx.file, f.id);
        if self.running.route_contract.is_some() && !self.running.route_callbacks.contains(&key) {
            let callbacks = &self.running.route_callbacks;
            let route_value = |x: &str| {
                ctx.scope.lookup(x).is_some_and(|v| match v {
                    Value::Http(_) | Value::Builtin(Builtin::NextFn) => true,
                    Value::Func(c) => callbacks.contains(&(c.file, c.func.id)),
                    _ => false,
                })
            };
            if crate::libs::answers::uses_outer(f, &route_value) {
                self.running.route_callbacks.insert(key);
            }
        }
        if !self.deferred.called.contains(&key) {
            self.deferred
                .uncalled
                .entry(key)
                .or_insert_with(|| c.clone());
        }
        self.note_component_method(&c);
        let emits = *self
            .deferred
            .emits
            .entry(key)
            .or_insert_with(|| crate::libs::mentions_emit(f));
        if emits {
            self.deferred
                .emit_funcs
                .entry(key)
                .or_insert_with(|| c.clone());
        }
        Value::Func(c)
    }

    pub(crate) fn class_value(&mut self, ctx: &Ctx, c: &Arc<Class>) -> Value {
        let superclass = c.superclass.as_ref().map(|s| self.eval(ctx, s));
        let cv = Rc::new(ClassVal {
            file: ctx.file,
            class: c.clone(),
            env: ctx.scope.clone(),
            superclass,
            statics: ObjData::new(),
        });
        self.stamp(&cv.statics);
        let cctx = Ctx {
            this: Value::Class(cv.clone()),
            home: Some(cv.clone()),
            ..ctx.clone()
        };
        for (name, f) in &c.static_methods {
            let v = self.closure(&cctx, f);
            cv.statics.set(name, v);
        }
        for (name, f) in &c.static_getters {
            if let Value::Func(g) = self.closure(&cctx, f) {
                cv.statics.add_getter(name, g);
            }
        }
        for (name, init) in &c.static_fields {
            let v = match init {
                Some(e) => self.eval_raw(&cctx, e),
                None => Value::Undef,
            };
            cv.statics.set(name, v);
        }
        self.rec.classes.push((cv.clone(), None));
        if !c.decorators.is_empty() {
            self.nest_gateway(ctx, &cv);
        }
        self.decorate_class(ctx, &cv)
    }

    /// Property read.
    pub(crate) fn member(&mut self, o: &Value, prop: &str) -> Value {
        self.charge_name(prop);
        match o {
            Value::Lazy(..) => {
                let v = self.force(o.clone(), 0);
                self.member(&v, prop)
            }
            Value::Obj(data) => {
                if let Some(v) = data.get(prop) {
                    return self.force(v, 0);
                }
                // An accessor (`get name() {}`, `Object.defineProperty(o, k, { get })`)
                // runs when the property is read.
                if let Some(g) = data.getter(prop) {
                    return self.invoke(&g, Vec::new(), Some(o.clone()));
                }
                let class = data.class.borrow().clone();
                if let Some(c) = &class {
                    if let Some(m) = self.find_method(c, prop, o) {
                        return m;
                    }
                    // A getter runs when the property is read.
                    if let Some(g) = self.find_getter(c, prop, o) {
                        return self.invoke(&g, Vec::new(), Some(o.clone()));
                    }
                }
                match self.proto_lookup(data, prop) {
                    Some(v) => v,
                    // `emitter.emit` read as a value (to bind it, to hand it on).
                    None if super::emitters::is_emitter_method(prop)
                        && let Some(em) = self.emitter_of(data) =>
                    {
                        Value::Builtin(Builtin::EmitterMethod(em, Rc::from(prop)))
                    }
                    // A component's `this.$socket`: a global property of Vue's.
                    None if let Some(v) = self.vue_global(prop) => v,
                    // A key the program did not write on an unknown value.
                    None if let Some(k) = &data.unknown_rest => Value::Unknown(k.clone()),
                    // A key an object of known shape lacks reads `undefined`
                    // (what `Object.prototype` gives stays unknown). Not while
                    // looking for events or running handlers, where a flag in
                    // program state decides nothing (see `Stmt::If`): a branch
                    // run on a key that is absent now may see it set later.
                    None if data.shape_known.get()
                        && !self.modes.event_mode
                        && self.running.socket_handlers == 0
                        && class.is_none()
                        && data.proto.borrow().is_none()
                        && !OBJECT_PROTOTYPE.contains(&prop)
                        && prop != "constructor" =>
                    {
                        Value::Undef
                    }
                    // What the runtime provides (`globalThis.fetch`).
                    None if Rc::ptr_eq(data, &self.js.global_obj) => Value::external(),
                    // An instance's constructor is its class; a plain
                    // object's is `Object`.
                    None if prop == "constructor" => match class {
                        Some(c) => Value::Class(c),
                        None => Value::Builtin(Builtin::ObjectNs),
                    },
                    None => Value::dynamic(),
                }
            }
            // Past its certain items, a filtered array's items may be missing.
            Value::Arr(a)
                if !self.js.maybe_items.is_empty()
                    && let Some((_, certain)) =
                        self.js.maybe_items.get(&(Rc::as_ptr(a) as usize))
                    && (prop == "length" || prop.parse::<usize>().is_ok_and(|i| i >= *certain)) =>
            {
                Value::dynamic()
            }
            Value::Arr(a) => match prop {
                "length" => Value::Num(a.borrow().len() as f64),
                "constructor" => Value::Builtin(Builtin::ArrayNs),
                _ => match prop.parse::<usize>() {
                    Ok(i) => a.borrow().get(i).cloned().unwrap_or(Value::Undef),
                    Err(_) if ARRAY_METHODS.contains(&prop) => {
                        Value::Builtin(Builtin::ArrayMethod(Rc::from(prop)))
                    }
                    Err(_) => Value::dynamic(),
                },
            },
            Value::Func(c) => {
                let c = c.clone();
                self.fn_member(&c, prop)
            }
            Value::Str(s) => match prop {
                "length" => Value::Num(s.chars().count() as f64),
                // `root[0]`: the character at that index, `undefined` past the end.
                _ => match prop.parse::<usize>() {
                    Ok(i) => s
                        .chars()
                        .nth(i)
                        .map_or(Value::Undef, |c| Value::str(c.encode_utf8(&mut [0; 4]))),
                    Err(_) => Value::dynamic(),
                },
            },
            // `ns.name` stays lazy, like a named import: resolving it may load
            // modules (a barrel's `export *` targets) that nothing else needs.
            Value::Module(id) => Value::Lazy(*id, Rc::from(prop)),
            Value::Class(c) => {
                let c = c.clone();
                self.class_member(&c, prop, o)
            }
            // What the program wrote on `process` (`process.ROOT_PATH = …`).
            Value::Builtin(Builtin::Node(NodeFn::Process))
                if let Some(v) = self.js.process_props.get(prop) =>
            {
                self.force(v, 0)
            }
            Value::Builtin(Builtin::Framework(n))
                if let Some(v) = crate::libs::state_member(self, n, prop) =>
            {
                v
            }
            Value::Builtin(Builtin::Require) if prop == "main" => match self.js.main {
                Some(main) => Value::Obj(self.load_module(main).module_obj.clone()),
                None => Value::external(),
            },
            Value::Builtin(b) => member_of_builtin(&Value::Builtin(b.clone()), prop),
            // `emitter.emit` read as a value (to bind it, to hand it on).
            Value::Emitter(em) if super::emitters::is_emitter_method(prop) => {
                Value::Builtin(Builtin::EmitterMethod(em.clone(), Rc::from(prop)))
            }
            // Members of the values a library made: `libs/mod.rs` asks the library.
            _ if let Some(v) = crate::libs::value_member(self, o, prop) => v,
            Value::Coll(c) => match prop {
                "size" if !c.entries_unknown && !c.lost.get() => {
                    Value::Num(c.items.borrow().len() as f64)
                }
                _ => Value::dynamic(),
            },
            Value::Deferred(_) => Thunk::value(ThunkKind::Member(o.clone(), prop.to_string()), 0),
            Value::Unknown(Unknown::Instance(pkg)) => Value::of_package(pkg),
            Value::Unknown(k) => self
                .vue_global(prop)
                .unwrap_or_else(|| Value::Unknown(k.used())),
            // `this` of a component method run without its caller.
            Value::Undef | Value::Null => self.vue_global(prop).unwrap_or_else(Value::dynamic),
            _ => Value::dynamic(),
        }
    }

    /// Forget that `v`'s shape is known, and that of the objects and arrays
    /// it holds (a few levels down): code the analysis does not see may
    /// write any key (`o[k] = v`, `Object.assign(o, unknown)`, `lib.configure(o)`).
    pub(crate) fn open_shape(v: &Value, depth: u32) {
        match v {
            Value::Obj(data) => {
                data.shape_known.set(false);
                if depth < 2 {
                    for it in data.props.borrow().values() {
                        Self::open_shape(it, depth + 1);
                    }
                }
            }
            Value::Arr(a) if depth < 2 => {
                for it in a.borrow().iter().take(64) {
                    Self::open_shape(it, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// `rooms[id] = { editor: new Room(id) }`, `sockets[socket.id] = socket`:
    /// a plain object keeps an object, function or socket under a key only
    /// known at run time, and readers with a run-time key (`rooms[id].editor`)
    /// get it (the last one written; a socket is not replaced by another
    /// kind of value). Constants under run-time keys stay unknown.
    pub(crate) fn keep_under_dynamic_key(&mut self, o: &Value, v: Value) {
        let Value::Obj(data) = o else {
            return;
        };
        let keeps = matches!(
            v,
            Value::Sio(_)
                | Value::Obj(_)
                | Value::Func(_)
                | Value::Class(_)
                | Value::Router(_)
                | Value::Emitter(_)
                | Value::Coll(_)
        );
        if !keeps {
            return;
        }
        // It stands for every value written under such keys, later ones too.
        Self::open_shape(&v, 0);
        let key = Rc::as_ptr(data) as usize;
        match self.js.dynamic_slots.get_mut(&key) {
            Some((_, Value::Sio(_))) if !matches!(v, Value::Sio(_)) => {}
            Some(slot) => slot.1 = v,
            None => {
                self.js.dynamic_slots.insert(key, (data.clone(), v));
            }
        }
    }

    /// `C[k] = C[k] || {}`, `C[k] ??= new Map()`: a lazy default for a slot
    /// whose value is only known at run time holds a container either way
    /// (the one made earlier or this fresh one), so it gets the fresh
    /// container rather than the unknown (whose writes would be lost:
    /// `C[k][socket.id] = socket` then keeps nothing).
    fn lazy_default(&mut self, ctx: &Ctx, pat: &Pattern, rhs: &Expr, val: Value) -> Value {
        let (Pattern::Target(target), Expr::Logical(LogicalOp::Or | LogicalOp::Nullish, l, r)) =
            (pat, rhs)
        else {
            return val;
        };
        let fresh = match r.as_ref() {
            Expr::Object(props) => props.is_empty(),
            Expr::Array(items) => items.is_empty(),
            Expr::New(c, args, _) => {
                args.is_empty() && matches!(c.as_ref(), Expr::Ident(n) if n == "Map" || n == "Set")
            }
            _ => false,
        };
        if !fresh || !val.is_unknown() || expr_text(target) != expr_text(l) {
            return val;
        }
        self.eval_raw(ctx, r)
    }

    /// What a read under a key only known at run time gives: what was kept
    /// under a run-time key of a plain object, or a socket of the connected
    /// sockets of a namespace (`io.sockets.sockets[id]`, v2's
    /// `io.sockets.connected[id]`: socket ids are their keys). Iterating
    /// such a container yields it too (`for…in`, `Object.values`, see
    /// [`Interp::run_time_keys`]).
    pub(crate) fn under_dynamic_key(&self, o: &Value) -> Option<Value> {
        match o {
            Value::Obj(data) => self
                .js
                .dynamic_slots
                .get(&(Rc::as_ptr(data) as usize))
                .map(|(_, v)| v.clone()),
            Value::Sio(s) if s.kind == SioKind::SocketSet => Some(s.derive(SioKind::Socket)),
            _ => None,
        }
    }

    /// The keys of an object as `for…in` and `Object.keys` see them, with
    /// the value under each: its own properties, then one key only known at
    /// run time when the program wrote some (`byId[socket.id] = socket`:
    /// `for (const id in byId) byId[id].emit(…)` reaches that socket).
    /// `None` when the value is no object whose keys are known, or one that
    /// has only keys written at run time whose values were not kept.
    pub(crate) fn run_time_keys(&self, o: &Value) -> Option<Vec<(Value, Value)>> {
        // Only written under keys only known at run time, with values not
        // kept (`value[p.key] = p.value` over rows of a database): its keys,
        // and how many there are, are only known at run time.
        if let Value::Obj(data) = o
            && data.keyed_at_run_time.get()
            && data.props.borrow().is_empty()
            && self.under_dynamic_key(o).is_none()
        {
            return None;
        }
        let mut out: Vec<(Value, Value)> = match o {
            Value::Obj(data) => data
                .props
                .borrow()
                .iter()
                .map(|(k, v)| (Value::str(k), v.clone()))
                .collect(),
            Value::Sio(s) if s.kind == SioKind::SocketSet => Vec::new(),
            _ => return None,
        };
        if let Some(v) = self.under_dynamic_key(o) {
            out.push((Value::dynamic(), v));
        }
        Some(out)
    }

    /// A property read on a class: its statics (data, then a static getter
    /// run with `this`, the class it was read on), its `name` and
    /// `prototype`, then its superclass's, walked once.
    fn class_member(&mut self, c: &Rc<ClassVal>, prop: &str, this: &Value) -> Value {
        if let Some(v) = c.statics.get(prop) {
            return v;
        }
        if let Some(g) = c.statics.getter(prop) {
            return self.invoke(&g, Vec::new(), Some(this.clone()));
        }
        if prop == "name" {
            return Value::str(c.class.name.as_deref().unwrap_or(""));
        }
        if prop == "prototype" {
            return Value::Obj(self.class_prototype(c));
        }
        match &c.superclass {
            Some(Value::Class(s)) => {
                let s = s.clone();
                self.class_member(&s, prop, this)
            }
            _ => Value::dynamic(),
        }
    }

    /// A getter of the class or its superclasses, bound to `this`.
    pub(crate) fn find_getter(
        &self,
        c: &Rc<ClassVal>,
        prop: &str,
        this: &Value,
    ) -> Option<Rc<Closure>> {
        accessor(c, prop, this, |cv| &cv.class.getters)
    }

    /// The setter a class (or a class it extends) declares for `prop`.
    pub(crate) fn find_setter(
        &self,
        c: &Rc<ClassVal>,
        prop: &str,
        this: &Value,
    ) -> Option<Rc<Closure>> {
        accessor(c, prop, this, |cv| &cv.class.setters)
    }

    pub(crate) fn find_method(
        &mut self,
        c: &Rc<ClassVal>,
        prop: &str,
        this: &Value,
    ) -> Option<Value> {
        let mut cur = Some(c.clone());
        let mut guard = 0;
        while let Some(cv) = cur {
            guard += 1;
            if guard > 16 {
                break;
            }
            match self.prototype_own(&cv, prop) {
                Some(Value::Func(m)) => return Some(self.bind_this(&m, Some(this.clone()))),
                Some(v) => return Some(v),
                None => {}
            }
            if let Some((_, f)) = cv.class.methods.iter().find(|(n, _)| n == prop) {
                return Some(Value::Func(Closure::method(&cv, f, this)));
            }
            cur = match &cv.superclass {
                Some(Value::Class(s)) => Some(s.clone()),
                Some(Value::Func(f)) => {
                    let f = f.clone();
                    let proto = self.prototype_of(&f)?;
                    return match proto.get(prop) {
                        Some(Value::Func(m)) => Some(self.bind_this(&m, Some(this.clone()))),
                        _ => None,
                    };
                }
                _ => None,
            };
        }
        None
    }
}

/// Whether `v` is `process.env` (its reads are `Interp::env_read`'s).
pub(crate) fn is_env(v: &Value) -> bool {
    matches!(v, Value::Builtin(Builtin::Node(super::node::NodeFn::Env)))
}

/// `Object`, `Array`, `Promise`, `Proxy`, `String`, `Date`, …: a global
/// constructor, one value for the whole run. (`Set` and `WeakSet`, `Map` and
/// `WeakMap` share a model, so they are left out.)
fn is_global_constructor(b: &Builtin) -> bool {
    matches!(
        b,
        Builtin::ObjectNs
            | Builtin::ArrayNs
            | Builtin::PromiseNs
            | Builtin::ProxyCtor
            | Builtin::FunctionCtor(_)
    )
}

/// What `typeof` gives for a value, when it is known.
pub(crate) fn typeof_name(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Undef => "undefined",
        Value::Null | Value::Arr(_) | Value::Obj(_) | Value::Regex(_) => "object",
        Value::Bool(_) => "boolean",
        Value::Num(_) => "number",
        Value::Str(_) => "string",
        Value::Func(_)
        | Value::Class(_)
        | Value::Router(_)
        | Value::Dispatch(_)
        | Value::Builtin(Builtin::CatchAllAck(_)) => "function",
        // The globals that are functions (`typeof io !== 'undefined'` tests
        // that the page loaded the Socket.IO client script).
        Value::Builtin(
            Builtin::SocketIoClient
            | Builtin::Require
            | Builtin::ObjectNs
            | Builtin::ArrayNs
            | Builtin::PromiseNs
            | Builtin::SetCtor
            | Builtin::MapCtor
            | Builtin::ProxyCtor
            | Builtin::FunctionCtor(_),
        ) => "function",
        Value::EventKey(k) if k.split.is_none() => "string",
        _ => return None,
    })
}

/// A value `+` treats as a number when the other side is one too: a number,
/// a boolean, `null` or `undefined` (no string, no object).
fn is_number_like(v: &Value) -> bool {
    matches!(
        v,
        Value::Num(_) | Value::Bool(_) | Value::Null | Value::Undef
    )
}

/// What JavaScript's `ToNumber` makes of a primitive (`'5'` is 5, `''` 0,
/// `'x'` and `undefined` NaN, `null` 0, `true` 1); `None` for a value only
/// known at run time or an object.
pub(crate) fn to_number(v: &Value) -> Option<f64> {
    match v {
        Value::Num(n) => Some(*n),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Null => Some(0.0),
        Value::Undef => Some(f64::NAN),
        Value::Str(s) => {
            let t = s.trim();
            Some(if t.is_empty() {
                0.0
            } else if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                u64::from_str_radix(hex, 16).map_or(f64::NAN, |n| n as f64)
            } else {
                match t {
                    "Infinity" | "+Infinity" => f64::INFINITY,
                    "-Infinity" => f64::NEG_INFINITY,
                    _ if t.chars().all(|c| {
                        c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')
                    }) =>
                    {
                        t.parse::<f64>().unwrap_or(f64::NAN)
                    }
                    _ => f64::NAN,
                }
            })
        }
        _ => None,
    }
}

/// `a op b` on two numbers, as JavaScript computes it (the bitwise
/// operators on the 32-bit integers `ToInt32`/`ToUint32` make); `None` for
/// an operator this does not know.
fn arith(op: &str, a: f64, b: f64) -> Option<f64> {
    let i32_of = |x: f64| -> i32 {
        if !x.is_finite() {
            return 0;
        }
        (x.trunc().rem_euclid(4_294_967_296.0) as u32) as i32
    };
    let shift = |x: f64| (i32_of(x) as u32) & 31;
    Some(match op {
        "*" => a * b,
        "/" => a / b,
        "%" => a % b,
        "**" => a.powf(b),
        "|" => (i32_of(a) | i32_of(b)) as f64,
        "&" => (i32_of(a) & i32_of(b)) as f64,
        "^" => (i32_of(a) ^ i32_of(b)) as f64,
        "<<" => i32_of(a).wrapping_shl(shift(b)) as f64,
        ">>" => (i32_of(a) >> shift(b)) as f64,
        ">>>" => ((i32_of(a) as u32) >> shift(b)) as f64,
        _ => return None,
    })
}

/// The accessor named `prop` that `of` lists for the class or the classes
/// it extends (nearest first), bound to `this`.
fn accessor(
    c: &Rc<ClassVal>,
    prop: &str,
    this: &Value,
    of: impl Fn(&ClassVal) -> &Vec<(String, Arc<crate::ir::Func>)>,
) -> Option<Rc<Closure>> {
    let mut cur = Some(c.clone());
    for _ in 0..16 {
        let cv = cur?;
        if let Some((_, f)) = of(&cv).iter().find(|(n, _)| n == prop) {
            return Some(Closure::method(&cv, f, this));
        }
        cur = match &cv.superclass {
            Some(Value::Class(s)) => Some(s.clone()),
            _ => None,
        };
    }
    None
}
