//! Dependency-injection containers: `typedi` and `@n8n/di` (`Container.get`),
//! `tsyringe` (`container.resolve`), inversify (`new Container()`, `bind`,
//! `get`), and Angular's root injector (`@angular/core`'s
//! `inject(SocketIoService)` in a field initializer; what it gives for
//! `NgZone` is `angular.rs`'s).
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
//! container (a singleton, as the packages do for `@Service()`,
//! `@singleton()` and `inSingletonScope()` classes, and Angular for
//! `@Injectable({ providedIn: 'root' })` services): made the first time,
//! with its constructor's parameters as what the container gives for the key
//! an injection decorator names (`@inject(TYPES.Db)`, `@Inject('name')`,
//! `@Inject(() => Db)`) or else for their types where a type is a class (the
//! types TypeScript's `emitDecoratorMetadata` hands the container); then
//! its properties with an injection decorator are set the same way, and
//! inversify runs its `@postConstruct()` method; the same instance each later
//! time. Values put in with `Container.set(C, v)`, `Container.set('name', v)`
//! (typedi's `{ id, value }` too) and tsyringe's `registerInstance(C, v)`,
//! `register(C, { useValue })` and `register(C, { useClass: D })` are what
//! later asks give. inversify's bindings, made on the container or in a
//! `ContainerModule`'s registry that `load` runs: `bind(id).to(C)`,
//! `.toSelf()`, `.toConstantValue(v)`, `.toDynamicValue(fn)` /
//! `.toFactory(fn)` / `.toProvider(fn)` (what `fn` returns for a context
//! whose `container` is the container), `.toService(other)`; keys are
//! classes, names or symbols (`Symbol.for('Db')`, the same in every module).
//! A class nobody in the program constructs but whose decorator comes from
//! one of these packages (Angular's `@Component()` with `constructor(private
//! ws: WsService)`, whose methods the framework calls) is made by that
//! package's container the same way when the uncalled-methods pass runs its
//! methods (`Interp::di_made`).
//!
//! Deliberately not: transient and request scopes (a class so bound still
//! gets one instance), named and tagged bindings (`getNamed`, `whenTargetNamed`:
//! the key's last binding answers), child containers and `Container.of(id)`
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
    Inversify,
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
    /// `has` / `isRegistered` / `isBound`.
    Has(DiPackage),
    /// inversify's `Container` class: `new Container()` is the container.
    NewContainer(DiPackage),
    /// inversify's `ContainerModule`: `new ContainerModule(registry)` is its
    /// registry function, which `load` calls with `bind`.
    NewModule(DiPackage),
    /// `getAll`: what `get` gives, in an array.
    GetAll(DiPackage),
    /// `bind(id)` / `rebind(id)`: a binding for the key at this index of
    /// [`Containers::keys`] follows.
    Bind(DiPackage),
    /// `load(...modules)`: each registry runs with `bind`.
    Load(DiPackage),
    /// The binding `bind(id)` returned, by its key's index.
    Binding(DiPackage, u32),
    /// One of a binding's methods (`.to(C)`, `.toConstantValue(v)`, …).
    BindTo(DiPackage, u32, Target),
}

/// What a binding's method binds its key to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Target {
    /// `.to(C)`: the one instance of `C` the container makes.
    Class,
    /// `.toSelf()`: the key is the class.
    SelfClass,
    /// `.toConstantValue(v)`, `.toFunction(f)`, `.toConstructor(C)`: the
    /// value itself.
    Constant,
    /// `.toDynamicValue(fn)`, `.toFactory(fn)`, `.toProvider(fn)`: what `fn`
    /// returns when called with the resolution context.
    Dynamic,
    /// `.toService(id)`: what the container gives for `id`.
    Service,
    /// A scope or a condition (`.inSingletonScope()`, `.whenTargetNamed(…)`):
    /// the binding again.
    Chain,
}

/// What a key is bound to (see [`Target`]).
enum Provider {
    Class(Value),
    Constant(Value),
    Dynamic(Value),
    Service(Value),
}

/// The package a specifier names.
pub(crate) fn package(pkg: &str) -> Option<DiPackage> {
    match pkg {
        "typedi" => Some(DiPackage::Typedi),
        "tsyringe" => Some(DiPackage::Tsyringe),
        "@n8n/di" => Some(DiPackage::N8n),
        "@angular/core" => Some(DiPackage::Angular),
        "inversify" => Some(DiPackage::Inversify),
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
        (DiFn::Module(p @ DiPackage::Inversify), "Container") => v(DiFn::NewContainer(p)),
        (DiFn::Module(p @ DiPackage::Inversify), "ContainerModule" | "AsyncContainerModule") => {
            v(DiFn::NewModule(p))
        }
        (DiFn::Module(DiPackage::Inversify), _) => Value::external(),
        (DiFn::Container(p @ DiPackage::Inversify), m) => match m {
            "get" | "getNamed" | "getTagged" | "getAsync" | "getNamedAsync" | "getTaggedAsync"
            | "resolve" => v(DiFn::Get(p)),
            "getAll" | "getAllNamed" | "getAllTagged" | "getAllAsync" => v(DiFn::GetAll(p)),
            "bind" | "rebind" | "rebindAsync" => v(DiFn::Bind(p)),
            "load" | "loadAsync" => v(DiFn::Load(p)),
            "isBound" | "isBoundNamed" | "isBoundTagged" | "isCurrentBound" => v(DiFn::Has(p)),
            "createChild" | "parent" => v(DiFn::Container(p)),
            _ => Value::external(),
        },
        (DiFn::Binding(p, i), m) => v(DiFn::BindTo(
            p,
            i,
            match m {
                "to" => Target::Class,
                "toSelf" => Target::SelfClass,
                "toConstantValue" | "toFunction" | "toConstructor" => Target::Constant,
                "toDynamicValue" | "toFactory" | "toProvider" => Target::Dynamic,
                "toService" => Target::Service,
                _ => Target::Chain,
            },
        )),
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
    /// An object or a symbol, by its address (`bind(TYPES.Server)` with
    /// `TYPES.Server = Symbol.for('Server')`).
    Object(usize),
}

/// The instances and values of each package's container.
#[derive(Default)]
pub(crate) struct Containers {
    /// By package and key (see [`Key`]): the value, with the class it was
    /// made for held so that its address stays its own.
    held: HashMap<(DiPackage, String), (Option<Value>, Value)>,
    /// Classes being made (a constructor that asks for a class being made).
    making: Vec<(DiPackage, usize)>,
    /// What inversify's bindings bind each key to, by package and key.
    bound: HashMap<(DiPackage, String), Provider>,
    /// The keys of the bindings made so far (`DiFn::Binding`'s index), kept
    /// so that a key's address stays its own.
    keys: Vec<Value>,
}

/// How many classes deep a container makes the parameters of parameters.
const MAX_DEPTH: usize = 8;

impl Key {
    fn text(&self) -> String {
        match self {
            Key::Class(p) => format!("class@{p:x}"),
            Key::Name(n) => format!("name:{n}"),
            Key::Object(p) => format!("object@{p:x}"),
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
                Some(k)
                    if self.libs.di.held.contains_key(&(p, k.text()))
                        || self.libs.di.bound.contains_key(&(p, k.text())) =>
                {
                    Value::Bool(true)
                }
                _ => Value::dynamic(),
            },
            DiFn::NewContainer(p) => Value::Builtin(Builtin::Di(DiFn::Container(p))),
            DiFn::NewModule(_) => match arg(0) {
                f @ Value::Func(_) => f,
                _ => Value::external(),
            },
            DiFn::GetAll(p) => {
                let one = self.di_get(ctx, p, &arg(0), line);
                Value::array(vec![one])
            }
            DiFn::Bind(p) => {
                self.libs.di.keys.push(arg(0));
                Value::Builtin(Builtin::Di(DiFn::Binding(
                    p,
                    self.libs.di.keys.len() as u32 - 1,
                )))
            }
            DiFn::Load(p) => {
                let di = |f| Value::Builtin(Builtin::Di(f));
                let registry = vec![
                    di(DiFn::Bind(p)),
                    Value::external(),
                    di(DiFn::Has(p)),
                    di(DiFn::Bind(p)),
                ];
                for m in argv.iter().filter(|m| matches!(m, Value::Func(_))) {
                    self.call_value_now(ctx, m, registry.clone(), &[], line, None);
                }
                Value::Undef
            }
            DiFn::BindTo(p, i, target) => {
                let Some(key) = self.libs.di.keys.get(i as usize).cloned() else {
                    return Value::dynamic();
                };
                let provider = match target {
                    Target::Class => Some(Provider::Class(arg(0))),
                    Target::SelfClass => Some(Provider::Class(key.clone())),
                    Target::Constant => Some(Provider::Constant(arg(0))),
                    Target::Dynamic => Some(Provider::Dynamic(arg(0))),
                    Target::Service => Some(Provider::Service(arg(0))),
                    Target::Chain => None,
                };
                if let (Some(provider), Some(k)) = (provider, di_key(&key)) {
                    self.libs.di.held.remove(&(p, k.text()));
                    self.libs.di.bound.insert((p, k.text()), provider);
                }
                Value::Builtin(Builtin::Di(DiFn::Binding(p, i)))
            }
            DiFn::Module(_) | DiFn::Container(_) | DiFn::Binding(..) => Value::external(),
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
        let made = match self.libs.di.bound.get(&(p, k.text())) {
            Some(Provider::Constant(v)) => return v.clone(),
            Some(Provider::Service(other)) => {
                let other = other.clone();
                if di_key(&other).is_some_and(|o| o.text() == k.text()) {
                    return Value::dynamic();
                }
                return self.di_get(ctx, p, &other, line);
            }
            Some(Provider::Dynamic(f)) => {
                let f = f.clone();
                // The resolution context: its `container` is the container.
                let context = ObjData::new();
                context.set("container", Value::Builtin(Builtin::Di(DiFn::Container(p))));
                let v = self.call_value_now(ctx, &f, vec![Value::Obj(context)], &[], line, None);
                self.libs
                    .di
                    .held
                    .insert((p, k.text()), (Some(key.clone()), v.clone()));
                return v;
            }
            Some(Provider::Class(c)) => c.clone(),
            None => key.clone(),
        };
        let made = self.force(made, 0);
        let Value::Class(cv) = &made else {
            return Value::external();
        };
        let cv = cv.clone();
        let addr = Rc::as_ptr(&cv) as usize;
        if self.libs.di.making.contains(&(p, addr)) || self.libs.di.making.len() >= MAX_DEPTH {
            return Value::dynamic();
        }
        self.libs.di.making.push((p, addr));
        let mut argv = Vec::new();
        let injected = self.injected_keys(&cv);
        for (i, ty) in constructor_types(&cv).into_iter().enumerate() {
            let asked = match injected.get(&i) {
                Some(k) => Some(k.clone()),
                None => ty
                    .and_then(|(t, env)| class_of_type(&t, &env))
                    .map(|c| self.force(c, 0)),
            };
            let param = match asked {
                Some(c) => self.di_get(ctx, p, &c, line),
                None => Value::dynamic(),
            };
            argv.push(param);
        }
        let instance = self.construct(ctx, &made, argv, &[], line);
        // Properties with an injection decorator (`@inject(TYPES.Db) db!: Db`),
        // then the `@postConstruct()` method, as inversify calls it once the
        // instance is made.
        if let Value::Obj(o) = &instance {
            for (name, key) in self.injected_properties(&cv) {
                let v = self.di_get(ctx, p, &key, line);
                o.set(&name, v);
            }
            for name in post_construct(&cv) {
                if let Some(Value::Func(m)) = self.find_method(&cv, &name, &instance) {
                    self.invoke(&m, Vec::new(), Some(instance.clone()));
                }
            }
        }
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

/// The key a value is held under: a class, a symbol or object, or a name.
fn di_key(v: &Value) -> Option<Key> {
    match v {
        Value::Class(c) => Some(Key::Class(Rc::as_ptr(c) as usize)),
        Value::Obj(o) => Some(Key::Object(Rc::as_ptr(o) as usize)),
        v => v.as_text().map(Key::Name),
    }
}

/// The methods inversify calls once it has made an instance of the class
/// (`@postConstruct() async init() { … }`).
fn post_construct(cv: &Rc<ClassVal>) -> Vec<String> {
    cv.class
        .member_decorators
        .iter()
        .filter(|(_, ds)| {
            ds.iter().any(|d| {
                d.called
                    && matches!(&d.callee, Expr::Ident(n) | Expr::Member(_, n) if n == "postConstruct")
            })
        })
        .map(|(n, _)| n.clone())
        .collect()
}

/// The decorators that name what a container injects (`@inject(TYPES.Db)`,
/// inversify's and tsyringe's; `@Inject('name')`, typedi's and Nest's;
/// `@multiInject(id)`, `@lazyInject(id)`).
const INJECT: &[&str] = &["inject", "Inject", "multiInject", "lazyInject"];

/// The key an injection decorator names: its argument, evaluated in the
/// class's scope (a function, `@Inject(() => Db)`, is called for it).
fn injection_decorator(d: &Decorator) -> Option<&Expr> {
    let name = match &d.callee {
        Expr::Ident(n) => n.as_str(),
        Expr::Member(_, n) => n.as_str(),
        _ => return None,
    };
    (d.called && INJECT.contains(&name))
        .then(|| d.args.first())
        .flatten()
}

impl Interp {
    /// The keys the constructor's parameters name with an injection
    /// decorator, by parameter index (the class's own constructor, else the
    /// nearest superclass's, as [`constructor_types`] reads).
    fn injected_keys(&mut self, cv: &Rc<ClassVal>) -> HashMap<usize, Value> {
        let mut out = HashMap::new();
        let Some(cur) = constructor_class(cv) else {
            return out;
        };
        for (i, d) in cur.class.param_decorators_of("constructor") {
            if let Some(e) = injection_decorator(&d)
                && let Some(k) = self.injection_key(&cur, e)
            {
                out.insert(i, k);
            }
        }
        out
    }

    /// The properties declared with an injection decorator, with their keys.
    fn injected_properties(&mut self, cv: &Rc<ClassVal>) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for (name, ds) in &cv.class.member_decorators {
            if let Some(e) = ds.iter().find_map(injection_decorator)
                && let Some(k) = self.injection_key(cv, e)
            {
                out.push((name.clone(), k));
            }
        }
        out
    }

    fn injection_key(&mut self, cv: &Rc<ClassVal>, e: &Expr) -> Option<Value> {
        let ctx = Ctx {
            file: cv.file,
            scope: cv.env.clone(),
            this: Value::Undef,
            home: None,
        };
        let v = self.eval(&ctx, e);
        let v = match v {
            f @ Value::Func(_) => {
                self.call_value_now(&ctx, &f, Vec::new(), &[], cv.class.line, None)
            }
            v => v,
        };
        let v = self.force(v, 0);
        di_key(&v).map(|_| v)
    }
}

/// The declared types of the constructor's parameters, each with the scope
/// its names are read in: the class's own constructor, else the nearest
/// superclass's (which the container then calls).
fn constructor_types(cv: &Rc<ClassVal>) -> Vec<Option<(TypeExpr, Rc<Scope>)>> {
    let Some(cur) = constructor_class(cv) else {
        return Vec::new();
    };
    let Some(ctor) = &cur.class.constructor else {
        return Vec::new();
    };
    ctor.param_types
        .iter()
        .map(|t| t.clone().map(|t| (t, cur.env.clone())))
        .collect()
}

/// The class whose constructor makes `cv`'s instances: `cv` itself when it
/// declares one, else the nearest superclass that does.
fn constructor_class(cv: &Rc<ClassVal>) -> Option<Rc<ClassVal>> {
    let mut cur = cv.clone();
    for _ in 0..16 {
        if cur.class.constructor.is_some() {
            return Some(cur);
        }
        match &cur.superclass {
            Some(Value::Class(s)) => cur = s.clone(),
            _ => break,
        }
    }
    None
}

/// The value a type names when it is a plain name (`License`, not `string`
/// or `Foo[]`).
fn class_of_type(t: &TypeExpr, env: &Rc<Scope>) -> Option<Value> {
    match t {
        TypeExpr::Ref(n, args) if args.is_empty() && !n.contains('.') => env.lookup(n),
        _ => None,
    }
}
