//! TypeScript's decorators (`experimentalDecorators`) as the compiled code
//! runs them: when a class is defined, `__decorate` applies the decorators of
//! each decorated member, then the class's. Example: `@Get('/notes')` on
//! `list()` calls `Get('/notes')`, then what that returns with
//! `(Notes.prototype, 'list', descriptor)`; a decorator of the program's own
//! that records the route in a `Map` has done so before a later loop reads the
//! map and calls `router[route.method](route.path, …)`.
//!
//! Order: members in source order; for one member its decorator expressions
//! are evaluated top to bottom, its parameters' after them, and they are
//! applied bottom-up (a parameter decorator gets `(prototype, name, index)`, a
//! static member's get the class instead of the prototype); the class's
//! decorators last, bottom-up, with the class (a constructor parameter's with
//! `(class, undefined, index)`). A class decorator that returns a class or a
//! function replaces the class.
//!
//! Where a route's path is a property a decorator assigned (`route.path =
//! path` inside the decorator), the registration records that decorator's
//! place as where the route is declared (its `via`, and what the census
//! counts as charted).
//!
//! Runs the decorators that are the program's own functions, and the class
//! decorators of packages whose meaning is what they do at definition
//! (`libs::applies_at_definition`: Nest's `@Module(meta)` stores its metadata
//! on the class); the other decorators of the frameworks Portolan models
//! (NestJS, routing-controllers, inversify) have their meaning in `libs`, read
//! from the class's syntax, and a package's are not followed.
//!
//! A member decorator that returns a descriptor (`return { ...descriptor,
//! value: wrapped }`) or sets `descriptor.value` replaces the method: the
//! wrapper is put on the class's prototype (`protos.rs`), where instances
//! find it before the class body's method. Metadata the decorators store with
//! `Reflect.defineMetadata` is kept per target (`metadata.rs`).

use super::*;

/// Properties a decorator assigned, by the object's address and the name:
/// the object (held, so the address stays its own) and the decorator's place.
pub(crate) type DecoratedProps = HashMap<(usize, String), (Rc<ObjData>, (FileId, u32))>;

impl Interp {
    /// The value a class declaration binds once its decorators ran (see the
    /// module doc): the class, or what a class decorator returned instead.
    pub(crate) fn decorate_class(&mut self, ctx: &Ctx, cv: &Rc<ClassVal>) -> Value {
        let class = cv.class.clone();
        let mut value = Value::Class(cv.clone());
        if self.modes.event_mode
            || (class.decorators.is_empty()
                && class.member_decorators.is_empty()
                && class.param_decorators.is_empty())
        {
            return value;
        }
        let proto = Value::Obj(self.class_prototype(cv));
        let mut members: Vec<&str> = Vec::new();
        let named = class
            .member_decorators
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(class.param_decorators.iter().map(|(n, _, _)| n.as_str()));
        for name in named {
            if name != "constructor" && !members.contains(&name) {
                members.push(name);
            }
        }
        for name in members {
            let is_static = class.static_methods.iter().any(|(n, _)| n == name)
                || class.static_fields.iter().any(|(n, _)| n == name);
            let target = if is_static {
                value.clone()
            } else {
                proto.clone()
            };
            let mut descriptor = if class.methods.iter().any(|(n, _)| n == name)
                || class.static_methods.iter().any(|(n, _)| n == name)
            {
                let d = ObjData::new();
                d.set("value", self.member(&target, name));
                d.set("writable", Value::Bool(true));
                d.set("enumerable", Value::Bool(false));
                d.set("configurable", Value::Bool(true));
                Value::Obj(d)
            } else {
                Value::Undef
            };
            let mut applied = Vec::new();
            for d in class.decorators_of(name) {
                if let Some(f) = self.decorator_value(ctx, &d) {
                    applied.push((f, d.line, None));
                }
            }
            for (_, i, d) in class.param_decorators.iter().filter(|(m, _, _)| m == name) {
                if let Some(f) = self.decorator_value(ctx, d) {
                    applied.push((f, d.line, Some(*i)));
                }
            }
            let method = match &descriptor {
                Value::Obj(d) => d.get("value"),
                _ => None,
            };
            for (f, line, index) in applied.into_iter().rev() {
                let third = match index {
                    Some(i) => Value::Num(i as f64),
                    None => descriptor.clone(),
                };
                let argv = vec![target.clone(), Value::str(name), third];
                let r = self.apply_decorator(ctx, &f, argv, line);
                // `__decorate`: a descriptor a member decorator returns is the
                // one the next decorator gets and the one defined at the end.
                if index.is_none()
                    && matches!(descriptor, Value::Obj(_))
                    && matches!(r, Value::Obj(_))
                {
                    descriptor = r;
                }
            }
            // A decorator that wrapped the method (`descriptor.value = wrapped`,
            // `return { ...descriptor, value: wrapped }`): the wrapper is the method.
            if let (Value::Obj(d), Some(method)) = (&descriptor, method)
                && let Some(v @ Value::Func(_)) = d.get("value")
                && !flow::same(&v, &method)
            {
                match &target {
                    Value::Obj(proto) => proto.set(name, v),
                    _ => cv.statics.set(name, v),
                }
            }
        }
        let mut applied = Vec::new();
        for d in &class.decorators {
            if let Some(f) = self
                .decorator_value(ctx, d)
                .or_else(|| self.library_decorator(ctx, d))
            {
                applied.push((f, d.line, None));
            }
        }
        for (_, i, d) in class
            .param_decorators
            .iter()
            .filter(|(m, _, _)| m == "constructor")
        {
            if let Some(f) = self.decorator_value(ctx, d) {
                applied.push((f, d.line, Some(*i)));
            }
        }
        for (f, line, index) in applied.into_iter().rev() {
            let argv = match index {
                Some(i) => vec![value.clone(), Value::Undef, Value::Num(i as f64)],
                None => vec![value.clone()],
            };
            let r = self.apply_decorator(ctx, &f, argv, line);
            if index.is_none() && matches!(r, Value::Class(_) | Value::Func(_)) {
                value = r;
            }
        }
        value
    }

    /// The function a decorator applies when it is the program's own: `@f`
    /// gives `f`, `@f(args)` what calling `f(args)` returns.
    fn decorator_value(&mut self, ctx: &Ctx, d: &Decorator) -> Option<Value> {
        let f = self.eval(ctx, &d.callee);
        let f = self.force(f, 0);
        if !matches!(f, Value::Func(_)) {
            return None;
        }
        if !d.called {
            return Some(f);
        }
        let argv = self.eval_args(ctx, &d.args);
        let r = self.call_value_now(ctx, &f, argv, &d.args, d.line, None);
        let r = self.force(r, 0);
        matches!(r, Value::Func(_)).then_some(r)
    }

    /// The decorator a package's class decorator factory gives, for the
    /// factories whose meaning is what they do when the class is defined
    /// (`@Module(meta)` of Nest, see `libs::applies_at_definition`).
    fn library_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<Value> {
        let f = self.eval(ctx, &d.callee);
        let f = self.force(f, 0);
        if !d.called || !crate::libs::applies_at_definition(&f) {
            return None;
        }
        let argv = self.eval_args(ctx, &d.args);
        let r = self.call_value_now(ctx, &f, argv, &d.args, d.line, None);
        Some(self.force(r, 0))
    }

    /// Call decorator `f`, noting the properties it assigns as declared at
    /// its place (see [`Interp::declared_by_decorator`]).
    fn apply_decorator(&mut self, ctx: &Ctx, f: &Value, argv: Vec<Value>, line: u32) -> Value {
        let outer = self.running.decorating.replace((ctx.file, line));
        let r = self.call_value_now(ctx, f, argv, &[], line, None);
        self.running.decorating = outer;
        self.force(r, 0)
    }

    /// Note that a decorator being applied assigns `prop` of `data`.
    pub(crate) fn note_decorated(&mut self, data: &Rc<ObjData>, prop: &str) {
        if let Some(site) = self.running.decorating {
            let key = (Rc::as_ptr(data) as usize, prop.to_string());
            self.js.decorated.insert(key, (data.clone(), site));
        }
    }

    /// Where a route is declared when the path argument of its registration
    /// reads a property a decorator assigned (`route.path` in
    /// `router[route.method](route.path, …)`): that decorator's place.
    pub(crate) fn declared_by_decorator(
        &mut self,
        ctx: &Ctx,
        call: &Call,
    ) -> Option<(FileId, u32)> {
        if self.js.decorated.is_empty() {
            return None;
        }
        let mut reads = Vec::new();
        path_reads(call.args.first()?, &mut reads, 0);
        reads.into_iter().find_map(|(obj, prop)| {
            let Value::Obj(data) = self.eval(ctx, obj) else {
                return None;
            };
            let key = (Rc::as_ptr(&data) as usize, prop.to_string());
            self.js.decorated.get(&key).map(|(_, site)| *site)
        })
    }

    /// Note that an object literal made while a decorator is applied
    /// (`routes.push({ method, path, handler: name })`) has its keys
    /// assigned by that decorator.
    pub(crate) fn note_decorated_literal(&mut self, data: &Rc<ObjData>) {
        if self.running.decorating.is_some() {
            for k in data.entries().into_iter().map(|(k, _)| k) {
                self.note_decorated(data, &k);
            }
        }
    }
}

/// The property reads with no effects a path expression is made of
/// (`route.path`, `prefix + r.path`, `` `${base}${r.path}` ``).
fn path_reads<'e>(e: &'e Expr, out: &mut Vec<(&'e Expr, &'e str)>, depth: u32) {
    if depth > 4 {
        return;
    }
    match e {
        Expr::Member(obj, prop) if plain_read(obj) => out.push((obj, prop)),
        Expr::Add(l, r) => {
            path_reads(l, out, depth + 1);
            path_reads(r, out, depth + 1);
        }
        Expr::Template(_, parts) => {
            for p in parts {
                path_reads(p, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A read with no effects (`route`, `this.meta.route`): safe to read again.
fn plain_read(e: &Expr) -> bool {
    match e {
        Expr::Ident(_) | Expr::This => true,
        Expr::Member(o, _) => plain_read(o),
        _ => false,
    }
}
