//! Dependency-injection containers: `typedi` and `@n8n/di` (`Container.get`),
//! `tsyringe` (`container.resolve`), and Angular's root injector
//! (`@angular/core`'s `inject(SocketIoService)` in a field initializer;
//! what it gives for `NgZone` is `angular.rs`'s).
//!
//! ```ts
//! @Service()
//! class Server {
//!   constructor(private readonly registry: ControllerRegistry) {}
//!   start() { this.registry.activate(this.app); }
//! }
//! Container.get(Server).start();
//! ```
//!
//! Captures: asking a container for a class gives one instance of it per
//! container (a singleton, as the three packages do for `@Service()` and
//! `@singleton()` classes, and Angular for `@Injectable({ providedIn: 'root' })`
//! services): made the first time, with its constructor's
//! parameters as what the container gives for their types where a type is a
//! class (the types TypeScript's `emitDecoratorMetadata` hands the container),
//! the same instance each later time. Values put in with `Container.set(C, v)`,
//! `Container.set('name', v)` (typedi's `{ id, value }` too) and tsyringe's
//! `registerInstance(C, v)`, `register(C, { useValue })` and
//! `register(C, { useClass: D })` are what later asks give. A class nobody in
//! the program constructs but whose decorator comes from one of these
//! packages (Angular's `@Component()` with `constructor(private ws:
//! WsService)`, whose methods the framework calls) is made by that package's
//! container the same way when the uncalled-methods pass runs its methods
//! (`Interp::di_made`).
//!
//! Deliberately not: tokens injected with `@Inject(token)`/`@inject(token)` on a
//! parameter (that parameter is unknown), transient scopes (a class marked
//! transient still gets one instance), child containers and `Container.of(id)`
//! (the same container), factories (`useFactory`), and a class the repository
//! does not hold (its instance stays unknown); Angular's providers of a
//! component or module (one injector for the whole program) and its
//! `InjectionToken`s.

use crate::machine::*;

/// Which package's container (each program has one per package).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum DiPackage {
    Typedi,
    Tsyringe,
    N8n,
    Angular,
}

/// A value of a DI package the machine models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum DiFn {
    /// The package's module.
    Module(DiPackage),
    /// Its container: typedi's and `@n8n/di`'s `Container`, tsyringe's `container`.
    Container(DiPackage),
    /// `get` / `resolve`: the instance of a class, or what was set under a name.
    Get(DiPackage),
    /// `set` / `registerInstance` / `register`.
    Set(DiPackage),
    /// `has` / `isRegistered`.
    Has(DiPackage),
}

/// The package a specifier names.
pub(crate) fn package(pkg: &str) -> Option<DiPackage> {
    match pkg {
        "typedi" => Some(DiPackage::Typedi),
        "tsyringe" => Some(DiPackage::Tsyringe),
        "@n8n/di" => Some(DiPackage::N8n),
        "@angular/core" => Some(DiPackage::Angular),
        _ => None,
    }
}

/// The value of a DI package's module.
pub(crate) fn module(pkg: &str) -> Value {
    match package(pkg) {
        Some(p) => Value::Builtin(Builtin::Di(DiFn::Module(p))),
        None => Value::external(),
    }
}

/// A member of a DI package's value.
pub(crate) fn member(f: DiFn, prop: &str) -> Value {
    let v = |f| Value::Builtin(Builtin::Di(f));
    match (f, prop) {
        // Angular's `inject(C)`: what the root injector gives for `C`.
        (DiFn::Module(DiPackage::Angular), "inject") => v(DiFn::Get(DiPackage::Angular)),
        (DiFn::Module(DiPackage::Angular), "NgZone") => {
            Value::Builtin(Builtin::Framework(Rc::from(super::angular::NG_ZONE_CLASS)))
        }
        (DiFn::Module(DiPackage::Angular), _) => Value::external(),
        (DiFn::Module(p), "Container" | "container" | "default") => v(DiFn::Container(p)),
        (DiFn::Container(p), "get" | "resolve") => v(DiFn::Get(p)),
        (DiFn::Container(p), "set" | "registerInstance" | "register" | "registerSingleton") => {
            v(DiFn::Set(p))
        }
        (DiFn::Container(p), "has" | "isRegistered") => v(DiFn::Has(p)),
        // `Container.of(id)`, `container.createChildContainer()`: the same container.
        (DiFn::Container(p), "of" | "createChildContainer") => v(DiFn::Module(p)),
        // Decorators (`Service`, `injectable`, …) and the rest: the package's.
        _ => Value::external(),
    }
}

/// What a container holds under one key.
enum Key {
    /// A class, by its address.
    Class(usize),
    /// A name (`Container.set('config', …)`).
    Name(String),
}

/// The instances and values of each package's container.
#[derive(Default)]
pub(crate) struct Containers {
    /// By package and key (see [`Key`]): the value, with the class it was
    /// made for held so that its address stays its own.
    held: HashMap<(DiPackage, String), (Option<Value>, Value)>,
    /// Classes being made (a constructor that asks for a class being made).
    making: Vec<(DiPackage, usize)>,
}

/// How many classes deep a container makes the parameters of parameters.
const MAX_DEPTH: usize = 8;

impl Key {
    fn text(&self) -> String {
        match self {
            Key::Class(p) => format!("class@{p:x}"),
            Key::Name(n) => format!("name:{n}"),
        }
    }
}

impl Interp {
    /// A call of a DI package's function (see the module doc).
    pub(crate) fn di_call(&mut self, ctx: &Ctx, f: DiFn, argv: Vec<Value>, line: u32) -> Value {
        let argv: Vec<Value> = argv.into_iter().map(|a| self.force(a, 0)).collect();
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        match f {
            DiFn::Get(p) => self.di_get(ctx, p, &arg(0), line),
            DiFn::Set(p) => {
                // typedi's `Container.set({ id, value })` / `set({ type, value })`.
                let (key, value) = match arg(0) {
                    Value::Obj(o) if argv.len() == 1 => (
                        o.get("id")
                            .or_else(|| o.get("type"))
                            .unwrap_or(Value::Undef),
                        o.get("value").unwrap_or(Value::Undef),
                    ),
                    k => (k, arg(1)),
                };
                // tsyringe's providers: `{ useValue }`, `{ useClass }`.
                let value = match &value {
                    Value::Obj(o) if o.get("useValue").is_some() => {
                        o.get("useValue").unwrap_or(Value::Undef)
                    }
                    Value::Obj(o) if o.get("useClass").is_some() => {
                        let c = o.get("useClass").unwrap_or(Value::Undef);
                        let c = self.force(c, 0);
                        self.di_get(ctx, p, &c, line)
                    }
                    // `registerSingleton(C)`: asking for C makes it.
                    Value::Undef => return Value::Undef,
                    v => v.clone(),
                };
                if let Some(k) = di_key(&key) {
                    self.libs.di.held.insert((p, k.text()), (Some(key), value));
                }
                Value::Undef
            }
            DiFn::Has(p) => match di_key(&arg(0)) {
                Some(k) if self.libs.di.held.contains_key(&(p, k.text())) => Value::Bool(true),
                _ => Value::dynamic(),
            },
            DiFn::Module(_) | DiFn::Container(_) => Value::external(),
        }
    }

    /// What container `p` gives for `key`: what was set under it, or the one
    /// instance of a class of the program's.
    fn di_get(&mut self, ctx: &Ctx, p: DiPackage, key: &Value, line: u32) -> Value {
        // Angular's own services (its zone).
        if p == DiPackage::Angular
            && let Some(v) = super::angular::injected(key)
        {
            return v;
        }
        let Some(k) = di_key(key) else {
            return Value::external();
        };
        if let Some((_, v)) = self.libs.di.held.get(&(p, k.text())) {
            return v.clone();
        }
        let Value::Class(cv) = key else {
            return Value::external();
        };
        let addr = Rc::as_ptr(cv) as usize;
        if self.libs.di.making.contains(&(p, addr)) || self.libs.di.making.len() >= MAX_DEPTH {
            return Value::dynamic();
        }
        self.libs.di.making.push((p, addr));
        let mut argv = Vec::new();
        for ty in constructor_types(cv) {
            let param = match ty.and_then(|(t, env)| class_of_type(&t, &env)) {
                Some(c) => {
                    let c = self.force(c, 0);
                    self.di_get(ctx, p, &c, line)
                }
                None => Value::dynamic(),
            };
            argv.push(param);
        }
        let instance = self.construct(ctx, key, argv, &[], line);
        self.libs.di.making.pop();
        self.libs
            .di
            .held
            .insert((p, k.text()), (Some(key.clone()), instance.clone()));
        instance
    }
}

impl Interp {
    /// The instance of a class nobody in the program constructs that a DI
    /// container makes: a class with a decorator imported from a DI package
    /// (Angular's `@Component()`, `@Injectable()`, `@Directive()`; typedi's
    /// `@Service()`; tsyringe's `@injectable()`), made by that package's
    /// container as `Container.get(C)` would be.
    pub(crate) fn di_made(&mut self, cv: &Rc<ClassVal>) -> Option<Value> {
        let facts = self.loader.get(cv.file).facts.clone();
        let p = container_of(&facts, &cv.class)?;
        let ctx = Ctx {
            file: cv.file,
            scope: Scope::new(Some(self.js.globals.clone())),
            this: Value::Undef,
            home: None,
        };
        Some(self.di_get(&ctx, p, &Value::Class(cv.clone()), cv.class.line))
    }
}

/// The DI package whose container makes instances of `class`: the package
/// one of its decorators is imported from (`import { Injectable } from
/// '@angular/core'`, `import * as di from 'typedi'` with `@di.Service()`).
fn container_of(facts: &FileFacts, class: &Class) -> Option<DiPackage> {
    class.decorators.iter().find_map(|d| {
        let root = match &d.callee {
            Expr::Ident(n) => (n.as_str(), false),
            Expr::Member(o, _) => match &**o {
                Expr::Ident(n) => (n.as_str(), true),
                _ => return None,
            },
            _ => return None,
        };
        facts.body.iter().find_map(|st| match st {
            Stmt::Import(imp) if !imp.type_only => {
                let bound = match root {
                    (n, false) => imp.named.iter().any(|(_, local)| local == n),
                    (n, true) => imp.namespace.as_deref() == Some(n),
                };
                bound.then(|| package(&imp.source)).flatten()
            }
            _ => None,
        })
    })
}

/// The key a value is held under: a class, or a name.
fn di_key(v: &Value) -> Option<Key> {
    match v {
        Value::Class(c) => Some(Key::Class(Rc::as_ptr(c) as usize)),
        v => v.as_text().map(Key::Name),
    }
}

/// The declared types of the constructor's parameters, each with the scope
/// its names are read in: the class's own constructor, else the nearest
/// superclass's (which the container then calls).
fn constructor_types(cv: &Rc<ClassVal>) -> Vec<Option<(TypeExpr, Rc<Scope>)>> {
    let mut cur = cv.clone();
    for _ in 0..16 {
        if let Some(ctor) = &cur.class.constructor {
            return ctor
                .param_types
                .iter()
                .map(|t| t.clone().map(|t| (t, cur.env.clone())))
                .collect();
        }
        match &cur.superclass {
            Some(Value::Class(s)) => cur = s.clone(),
            _ => break,
        }
    }
    Vec::new()
}

/// The value a type names when it is a plain name (`License`, not `string`
/// or `Foo[]`).
fn class_of_type(t: &TypeExpr, env: &Rc<Scope>) -> Option<Value> {
    match t {
        TypeExpr::Ref(n, args) if args.is_empty() && !n.contains('.') => env.lookup(n),
        _ => None,
    }
}
