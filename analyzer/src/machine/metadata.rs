//! `reflect-metadata` as the program's own decorators use it: a store of
//! values per target, property and key. Example: a `@Get('/x')` decorator of
//! the program's own runs `Reflect.defineMetadata('routes', [...routes,
//! { method: 'get', path: '/x', handler: name }], target.constructor)`, and a
//! bootstrapper later reads `Reflect.getMetadata('routes', Controller)` and
//! calls `router[route.method](route.path, …)` for each: the routes it reads
//! are the ones the decorators stored.
//!
//! Targets: a class (the constructor), a class's prototype (a member
//! decorator's target, `C.prototype`, and its instances, which inherit what
//! the prototype holds), or another object or function. `getMetadata` and
//! `hasMetadata` walk up to the superclass (or the prototype chain of a plain
//! object); the `Own` forms do not. A key never defined reads `undefined`, as
//! the library answers; the keys TypeScript's `emitDecoratorMetadata` writes
//! (`design:type`, `design:paramtypes`, `design:returntype`) and keys written
//! under a target or a key only known at run time stay unknown.
//!
//! Not modelled: `Reflect.metadata(key, value)` used as a decorator,
//! `deleteMetadata`, and keys that are symbols (a `Symbol()` is a value only
//! known at run time here).

use super::*;
use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;

/// Where a value is kept: see the module doc.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Target {
    /// A class, by the address of its [`ClassVal`].
    Class(usize),
    /// A class's prototype and its instances, by the class's address.
    Prototype(usize),
    /// Another object or a function, by its address.
    Object(usize),
}

/// The metadata the program defined (see the module doc).
#[derive(Default)]
pub(crate) struct MetadataStore {
    /// Values by target, property (`None` for the target itself) and key, in
    /// the order first defined.
    values: IndexMap<(Target, Option<String>, String), Value, FxBuildHasher>,
    /// The targets' values, held so that their addresses stay their own.
    held: Vec<Value>,
    /// Keys the program defined under a target or property only known at run
    /// time: reading them where nothing was stored is unknown, not `undefined`.
    lost: HashSet<String>,
    /// Whether a key only known at run time was defined.
    lost_any: bool,
}

/// The `Reflect` methods the store answers.
pub(crate) const REFLECT_METADATA: &[&str] = &[
    "defineMetadata",
    "getMetadata",
    "getOwnMetadata",
    "hasMetadata",
    "hasOwnMetadata",
    "getMetadataKeys",
    "getOwnMetadataKeys",
];

/// At most this many steps up a class or prototype chain.
const MAX_CHAIN: usize = 16;

impl Interp {
    /// `Reflect.<method>(...)` for a method of [`REFLECT_METADATA`].
    pub(crate) fn reflect_metadata(&mut self, method: &str, argv: Vec<Value>) -> Value {
        let argv: Vec<Value> = argv.into_iter().map(|a| self.force(a, 0)).collect();
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        let prop = |i: usize| match argv.get(i) {
            None | Some(Value::Undef) => Some(None),
            Some(v) => v.as_text().map(Some),
        };
        if method == "defineMetadata" {
            let key = arg(0).as_text();
            let target = self.metadata_target(&arg(2));
            match (key, target, prop(3)) {
                (Some(key), Some(target), Some(prop)) => {
                    self.js.metadata.held.push(arg(2));
                    self.js.metadata.values.insert((target, prop, key), arg(1));
                }
                (Some(key), ..) => {
                    self.js.metadata.lost.insert(key);
                }
                (None, ..) => self.js.metadata.lost_any = true,
            }
            return Value::Undef;
        }
        let own = method.contains("Own");
        let (target_at, prop_at) = if method.ends_with("Keys") {
            (0, 1)
        } else {
            (1, 2)
        };
        let (Some(start), Some(prop)) = (self.metadata_target(&arg(target_at)), prop(prop_at))
        else {
            return Value::dynamic();
        };
        let chain = if own {
            vec![start]
        } else {
            self.metadata_chain(start, &arg(target_at))
        };
        if method.ends_with("Keys") {
            if self.js.metadata.lost_any || !self.js.metadata.lost.is_empty() {
                return Value::dynamic();
            }
            let mut keys: Vec<Value> = Vec::new();
            for t in &chain {
                for (tt, p, k) in self.js.metadata.values.keys() {
                    if tt == t
                        && *p == prop
                        && !keys.iter().any(|v| v.as_text().as_ref() == Some(k))
                    {
                        keys.push(Value::str(k));
                    }
                }
            }
            return Value::array(keys);
        }
        let Some(key) = arg(0).as_text() else {
            return Value::dynamic();
        };
        let found = chain.iter().find_map(|t| {
            self.js
                .metadata
                .values
                .get(&(*t, prop.clone(), key.clone()))
                .cloned()
        });
        let found = match found {
            None if key == "design:paramtypes" && prop.is_none() => {
                self.design_paramtypes(&arg(target_at), own)
            }
            f => f,
        };
        let known_absent = !key.starts_with("design:")
            && !self.js.metadata.lost_any
            && !self.js.metadata.lost.contains(&key);
        match (method.starts_with("has"), found) {
            (true, Some(_)) => Value::Bool(true),
            (true, None) if known_absent => Value::Bool(false),
            (false, Some(v)) => v,
            (false, None) if known_absent => Value::Undef,
            _ => Value::dynamic(),
        }
    }

    /// What TypeScript's `emitDecoratorMetadata` stores as a decorated
    /// class's `design:paramtypes`: its constructor's parameter types, each
    /// the value its type names where the class is declared (a class, for
    /// a DI container to build: `constructor(private readonly config:
    /// GlobalConfig)` gives `[GlobalConfig]`); a type that names no class or
    /// function is only known at run time. A decorated class without a
    /// constructor has none of its own; `getMetadata` then finds its
    /// superclass's.
    fn design_paramtypes(&mut self, v: &Value, own: bool) -> Option<Value> {
        let Value::Class(start) = v else {
            return None;
        };
        let mut cur = start.clone();
        for _ in 0..MAX_CHAIN {
            let decorated = !cur.class.decorators.is_empty();
            match &cur.class.constructor {
                Some(ctor) if decorated => {
                    let env = cur.env.clone();
                    let types: Vec<Value> = ctor
                        .param_types
                        .iter()
                        .map(|t| match t {
                            Some(TypeExpr::Ref(name, _)) if !name.contains('.') => {
                                match env.lookup(name).map(|v| self.force(v, 0)) {
                                    Some(c @ (Value::Class(_) | Value::Func(_))) => c,
                                    _ => Value::dynamic(),
                                }
                            }
                            _ => Value::dynamic(),
                        })
                        .collect();
                    return Some(Value::array(types));
                }
                Some(_) => return None,
                None if own => return None,
                None => {}
            }
            let Some(Value::Class(s)) = cur.superclass.clone() else {
                return None;
            };
            cur = s;
        }
        None
    }

    /// Where `v`'s metadata lives; `None` for a value only known at run time.
    fn metadata_target(&self, v: &Value) -> Option<Target> {
        match v {
            Value::Class(c) => Some(Target::Class(Rc::as_ptr(c) as usize)),
            Value::Obj(o) => Some(match &*o.class.borrow() {
                Some(c) => Target::Prototype(Rc::as_ptr(c) as usize),
                None => Target::Object(Rc::as_ptr(o) as usize),
            }),
            Value::Func(f) => Some(Target::Object(Rc::as_ptr(f) as usize)),
            _ => None,
        }
    }

    /// `start` and what `getMetadata` looks in after it: the superclasses
    /// (of a class, or of a prototype's class), or a plain object's prototypes.
    fn metadata_chain(&self, start: Target, v: &Value) -> Vec<Target> {
        let mut out = vec![start];
        let class = match v {
            Value::Class(c) => Some(c.clone()),
            Value::Obj(o) => o.class.borrow().clone(),
            _ => None,
        };
        if let Some(class) = class {
            let mut cur = class;
            for _ in 0..MAX_CHAIN {
                let Some(Value::Class(s)) = cur.superclass.clone() else {
                    break;
                };
                let p = Rc::as_ptr(&s) as usize;
                out.push(match start {
                    Target::Class(_) => Target::Class(p),
                    _ => Target::Prototype(p),
                });
                cur = s;
            }
        } else if let Value::Obj(o) = v {
            let mut cur = o.proto.borrow().clone();
            for _ in 0..MAX_CHAIN {
                let Some(p) = cur else { break };
                out.push(Target::Object(Rc::as_ptr(&p) as usize));
                cur = p.proto.borrow().clone();
            }
        }
        out
    }
}
