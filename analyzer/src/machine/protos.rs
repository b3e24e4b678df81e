//! Prototypes: ES5 constructors and the objects that share their methods.
//!
//! Captures: properties set on a function (`Api.create = …`,
//! `Api.prototype.mount = function (app) { … }`); `new Api()` objects that
//! find their methods on `Api.prototype` (and up its chain), with `this`
//! bound to the object; `Object.create(proto)`, `Object.setPrototypeOf`,
//! `Object.getPrototypeOf`, `util.inherits` (and the `inherits` package),
//! mixins written with `Object.assign(Api.prototype, …)`, a `class` that
//! `extends` an ES5 constructor, and `Function.prototype.bind` of `this`.
//! Example: `function Api(p) { this.p = p } Api.prototype.mount = function (app) { app.get(this.p + '/x', h) }; new Api('/v1').mount(app)`
//! charts `GET /v1/x`.
//!
//! Deliberately not: getters and setters on prototypes, `bind` of leading
//! arguments (the bound function gets only the arguments of its call),
//! prototypes of built-in values (`Array.prototype.x = …`).

use super::Interp;
use crate::value::{ClassVal, Closure, ObjData, Value};
use std::collections::HashMap;
use std::rc::Rc;

/// The own properties of the functions that have some, by closure.
#[derive(Default)]
pub(crate) struct FnObjects(HashMap<usize, (Rc<Closure>, Rc<ObjData>)>);

/// The prototype objects of classes, by the class's address: what `C.prototype`
/// gives, a member decorator's target, and where a method a decorator
/// replaced (or the program assigned, `C.prototype.m = …`) is found before the
/// class body's.
#[derive(Default)]
pub(crate) struct ClassProtos(HashMap<usize, (Rc<ClassVal>, Rc<ObjData>)>);

/// Prototype chains longer than this are cut (a cycle, or a bug in the program).
const MAX_CHAIN: usize = 16;

impl Interp {
    /// A function's own-property object, made when first needed, with its
    /// `prototype`.
    pub(crate) fn fn_object(&mut self, c: &Rc<Closure>) -> Rc<ObjData> {
        // The closure is kept alive by the table, so its address stays its own.
        let key = Rc::as_ptr(c) as usize;
        if let Some((_, o)) = self.js.fn_objects.0.get(&key) {
            return o.clone();
        }
        let o = ObjData::new();
        o.set("prototype", Value::Obj(ObjData::new()));
        self.js.fn_objects.0.insert(key, (c.clone(), o.clone()));
        o
    }

    /// The functions that are properties of an ES5 constructor's
    /// `prototype` object, by (file, function id), with that object.
    pub(crate) fn prototype_methods(&self) -> HashMap<(crate::project::FileId, u32), Rc<ObjData>> {
        let mut out = HashMap::new();
        for (_, fobj) in self.js.fn_objects.0.values() {
            let Some(Value::Obj(proto)) = fobj.get("prototype") else {
                continue;
            };
            for (_, v) in proto.entries() {
                if let Value::Func(m) = v {
                    out.entry((m.file, m.func.id))
                        .or_insert_with(|| proto.clone());
                }
            }
        }
        out
    }

    /// `C.prototype` of a class, made when first needed: an object whose
    /// methods are the class's.
    pub(crate) fn class_prototype(&mut self, c: &Rc<ClassVal>) -> Rc<ObjData> {
        // The class is kept alive by the table, so its address stays its own.
        let key = Rc::as_ptr(c) as usize;
        if let Some((_, o)) = self.js.class_protos.0.get(&key) {
            return o.clone();
        }
        let o = ObjData::new();
        *o.class.borrow_mut() = Some(c.clone());
        self.js.class_protos.0.insert(key, (c.clone(), o.clone()));
        o
    }

    /// A method put on a class's prototype object rather than in its body:
    /// replaced by a member decorator, or assigned (`C.prototype.m = …`).
    pub(crate) fn prototype_own(&self, c: &Rc<ClassVal>, prop: &str) -> Option<Value> {
        let (_, o) = self.js.class_protos.0.get(&(Rc::as_ptr(c) as usize))?;
        o.get(prop)
    }

    /// The class whose `C.prototype` `o` is.
    pub(crate) fn prototype_class(&self, o: &Rc<ObjData>) -> Option<Rc<ClassVal>> {
        let c = o.class.borrow().clone()?;
        let (_, p) = self.js.class_protos.0.get(&(Rc::as_ptr(&c) as usize))?;
        Rc::ptr_eq(p, o).then_some(c)
    }

    /// `F.prototype`, made when first needed.
    pub(crate) fn prototype_of(&mut self, c: &Rc<Closure>) -> Option<Rc<ObjData>> {
        match self.fn_object(c).get("prototype") {
            Some(Value::Obj(p)) => Some(p),
            _ => None,
        }
    }

    /// A property of a function value.
    pub(crate) fn fn_member(&mut self, c: &Rc<Closure>, prop: &str) -> Value {
        if prop == "prototype" {
            return self.fn_object(c).get("prototype").unwrap_or(Value::Undef);
        }
        let key = Rc::as_ptr(c) as usize;
        let own = self
            .js
            .fn_objects
            .0
            .get(&key)
            .and_then(|(_, o)| o.get(prop));
        match own {
            Some(v) => self.force(v, 0),
            None if prop == "name" => c
                .func
                .name
                .as_deref()
                .map(Value::str)
                .unwrap_or(Value::str("")),
            None if prop == "constructor" => Value::Builtin(crate::value::Builtin::FunctionCtor(
                c.func.kind.constructor_name(),
            )),
            None => Value::dynamic(),
        }
    }

    /// A property found up an object's prototype chain.
    pub(crate) fn proto_lookup(&mut self, data: &Rc<ObjData>, prop: &str) -> Option<Value> {
        let mut cur = data.proto.borrow().clone();
        for _ in 0..MAX_CHAIN {
            let p = cur?;
            if let Some(v) = p.get(prop) {
                return Some(self.force(v, 0));
            }
            cur = p.proto.borrow().clone();
        }
        None
    }

    /// `util.inherits(Child, Parent)`: `Child.prototype` gets `Parent.prototype`.
    pub(crate) fn inherits(&mut self, child: &Value, parent: &Value) {
        if let (Value::Func(c), Value::Func(p)) = (child, parent)
            && let (Some(cp), Some(pp)) = (self.prototype_of(c), self.prototype_of(p))
            && !Rc::ptr_eq(&cp, &pp)
        {
            *cp.proto.borrow_mut() = Some(pp);
        }
    }

    /// `f.bind(thisArg)`: the same function with `this` fixed.
    pub(crate) fn bind_this(&mut self, c: &Rc<Closure>, this: Option<Value>) -> Value {
        self.bind_args(c, this, Vec::new())
    }

    /// `f.bind(this, ...args)`: a function whose `this` is `this` (an arrow
    /// keeps its own) and whose first arguments are `args`, followed by its
    /// caller's (a bound function bound again keeps its first arguments).
    pub(crate) fn bind_args(
        &mut self,
        c: &Rc<Closure>,
        this: Option<Value>,
        args: Vec<Value>,
    ) -> Value {
        if args.is_empty() && (c.is_arrow || this.is_none()) {
            return Value::Func(c.clone());
        }
        let bound = match (&c.bound, args.is_empty()) {
            (b, true) => b.clone(),
            (None, false) => Some(Rc::from(args)),
            (Some(b), false) => Some(b.iter().cloned().chain(args).collect()),
        };
        // A bound function's `this` is fixed by its first `bind`.
        let this = if c.is_arrow || c.bound.is_some() {
            c.this.clone()
        } else {
            this.or_else(|| c.this.clone())
        };
        Value::Func(Rc::new(Closure {
            file: c.file,
            func: c.func.clone(),
            env: c.env.clone(),
            this,
            is_arrow: c.is_arrow,
            home: c.home.clone(),
            bound,
        }))
    }
}
