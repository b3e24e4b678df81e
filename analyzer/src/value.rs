//! Values of the small evaluator: what a JS expression is known to be.
//!
//! Captures: constants (strings, numbers, booleans, regexes, arrays, objects),
//! functions and classes with their closures, Express apps/routers and
//! `route()` chains, module namespaces, lazily-resolved imports, and the
//! builtins the analyzer models.
//!
//! Deliberately not captured: numbers beyond constant folding, getters/setters
//! outside classes, Symbols, Promises (an awaited value is the value itself).
//! Prototypes are followed for objects (`ObjData::proto`) and functions (see
//! `machine/protos.rs`).

use crate::ir::{Class, Func};
use crate::project::FileId;
use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// A lexical scope.
pub(crate) struct Scope {
    pub(crate) vars: RefCell<HashMap<Rc<str>, Value, FxBuildHasher>>,
    pub(crate) parent: Option<Rc<Scope>>,
}

impl Scope {
    pub(crate) fn new(parent: Option<Rc<Scope>>) -> Rc<Scope> {
        Rc::new(Scope {
            vars: RefCell::new(HashMap::default()),
            parent,
        })
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.vars.borrow().get(name) {
            return Some(v.clone());
        }
        self.parent.as_ref().and_then(|p| p.lookup(name))
    }

    pub(crate) fn define(&self, name: &str, v: Value) {
        self.vars.borrow_mut().insert(Rc::from(name), v);
    }

    /// Assign to the nearest scope that has `name`; `false` when none does
    /// (the name is then a property of the global object: see `Interp::bind`).
    pub(crate) fn assign(self: &Rc<Self>, name: &str, v: Value) -> bool {
        let mut cur: Option<&Rc<Scope>> = Some(self);
        while let Some(s) = cur {
            if s.vars.borrow().contains_key(name) {
                s.vars.borrow_mut().insert(Rc::from(name), v);
                return true;
            }
            cur = s.parent.as_ref();
        }
        false
    }
}

/// An object's own data.
pub(crate) struct ObjData {
    pub(crate) props: RefCell<IndexMap<String, Value, FxBuildHasher>>,
    /// The class it was constructed from (methods are looked up there).
    pub(crate) class: RefCell<Option<Rc<ClassVal>>>,
    /// The `module` object of a CommonJS module (`module.exports` lives here).
    pub(crate) is_module_obj: Cell<bool>,
    /// The prototype properties are looked up in when the object has none of
    /// its own (`new F()` gets `F.prototype`; `Object.create(p)` gets `p`).
    pub(crate) proto: RefCell<Option<Rc<ObjData>>>,
    /// Accessor properties: their getters, run when the property is read.
    pub(crate) getters: RefCell<Vec<(String, Rc<Closure>)>>,
    /// Every key the object can have is in `props` or `getters`, so a key it
    /// lacks reads `undefined` (`const { a = 1 } = { b: 2 }` gives `a = 1`).
    /// Set for an object literal whose keys are all known and whose spreads
    /// are such objects; cleared (see `Interp::open_shape`) once a key only
    /// known at run time may have been written (`o[k] = v`, `Object.assign(o,
    /// unknown)`) or the object was handed to code the analysis does not run.
    /// Instances, prototypes and module objects never have it.
    pub(crate) shape_known: Cell<bool>,
    /// The object stands for a value the analysis cannot see, on which the
    /// program wrote properties (`var config = require(dir + '/conf.json');
    /// config.port = 80`, see `Interp::open_unknown_place`): the keys written
    /// read what was written, every other key (and calling it, mounting it,
    /// calling its methods) is this unknown, as before the writes.
    pub(crate) unknown_rest: Option<Unknown>,
    /// A key only known at run time was written on the object (`o[k] = v`,
    /// `{ [k]: v }`, `Object.assign(o, unknown)`): copying it onto another
    /// object (`Object.assign(t, o)`, `{ ...t, ...o }`) may overwrite any key
    /// of that one (see `machine/maywrite.rs`).
    pub(crate) keyed_at_run_time: Cell<bool>,
    /// The text of the last source only known at run time copied over the
    /// object (`user[k]` in `{ ...o[k], ...user[k] }`, the one whose keys
    /// win): a key keeps what it held unless that source sets it (see
    /// `machine/maywrite.rs`).
    pub(crate) merged_from: RefCell<Option<Rc<str>>>,
    /// When the run made the object (see `Interp::stamp`; 0: not stamped,
    /// taken as older than any path): on a path that may not run, an object
    /// made on that path holds what the path wrote, since it does not exist
    /// on the other path (`flow.rs`, `note_path_write`).
    pub(crate) born: Cell<u64>,
}

impl ObjData {
    pub(crate) fn new() -> Rc<ObjData> {
        Self::with_rest(None)
    }

    /// An object standing for an unknown value (see [`ObjData::unknown_rest`]).
    pub(crate) fn over_unknown(kind: Unknown) -> Rc<ObjData> {
        Self::with_rest(Some(kind))
    }

    fn with_rest(unknown_rest: Option<Unknown>) -> Rc<ObjData> {
        Rc::new(ObjData {
            props: RefCell::new(IndexMap::default()),
            class: RefCell::new(None),
            is_module_obj: Cell::new(false),
            proto: RefCell::new(None),
            getters: RefCell::new(Vec::new()),
            shape_known: Cell::new(false),
            unknown_rest,
            keyed_at_run_time: Cell::new(false),
            merged_from: RefCell::new(None),
            born: Cell::new(0),
        })
    }

    /// The unknown value `v` stands for, when it is one with properties
    /// written on it (see [`ObjData::unknown_rest`]).
    pub(crate) fn rest_of(v: &Value) -> Option<Value> {
        match v {
            Value::Obj(d) => d.unknown_rest.clone().map(Value::Unknown),
            _ => None,
        }
    }

    /// The getter of an accessor property.
    pub(crate) fn getter(&self, k: &str) -> Option<Rc<Closure>> {
        let g = self.getters.borrow();
        g.iter().rev().find(|(n, _)| n == k).map(|(_, c)| c.clone())
    }

    /// Define an accessor property (replacing a data property of that name).
    pub(crate) fn add_getter(&self, k: &str, g: Rc<Closure>) {
        self.props.borrow_mut().shift_remove(k);
        self.getters.borrow_mut().push((k.to_string(), g));
    }

    pub(crate) fn get(&self, k: &str) -> Option<Value> {
        self.props.borrow().get(k).cloned()
    }

    /// Whether an object on the prototype chain holds `k` (a bounded walk).
    pub(crate) fn inherits(&self, k: &str) -> bool {
        let mut cur = self.proto.borrow().clone();
        for _ in 0..16 {
            let Some(p) = cur else { return false };
            if p.props.borrow().contains_key(k) || p.getter(k).is_some() {
                return true;
            }
            cur = p.proto.borrow().clone();
        }
        false
    }

    pub(crate) fn set(&self, k: &str, v: Value) {
        self.props.borrow_mut().insert(k.to_string(), v);
    }

    /// A copy of the properties, so evaluation may go on while reading them.
    pub(crate) fn entries(&self) -> Vec<(String, Value)> {
        self.props
            .borrow()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// A function value with its defining environment.
pub(crate) struct Closure {
    pub(crate) file: FileId,
    pub(crate) func: Arc<Func>,
    pub(crate) env: Rc<Scope>,
    /// Lexical `this` for arrows, bound instance for methods.
    pub(crate) this: Option<Value>,
    pub(crate) is_arrow: bool,
    /// The class whose method this is (for `super`).
    pub(crate) home: Option<Rc<ClassVal>>,
    /// Arguments `bind` fixed (`f.bind(this, user)`): they come before the
    /// caller's, as `Function.prototype.bind` puts them.
    pub(crate) bound: Option<Rc<[Value]>>,
}

impl Closure {
    /// A method of a class, bound to an instance.
    pub(crate) fn method(cv: &Rc<ClassVal>, func: &Arc<Func>, this: &Value) -> Rc<Closure> {
        Rc::new(Closure {
            file: cv.file,
            func: func.clone(),
            env: cv.env.clone(),
            this: Some(this.clone()),
            is_arrow: false,
            home: Some(cv.clone()),
            bound: None,
        })
    }
}

/// A class value.
pub(crate) struct ClassVal {
    pub(crate) file: FileId,
    pub(crate) class: Arc<Class>,
    pub(crate) env: Rc<Scope>,
    pub(crate) superclass: Option<Value>,
    pub(crate) statics: Rc<ObjData>,
}

/// Builtins the evaluator models.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Builtin {
    /// The `express` module's default export (callable; has `.Router`).
    Express,
    /// `express.Router` / `import { Router } from 'express'`.
    RouterCtor,
    /// A verb (or `use`, `route`) of app or router `.0` bound to it:
    /// `app.get.bind(app)`. Calling it registers on the router.
    RouterMethod(u32, Rc<str>),
    /// `require`.
    Require,
    /// `path` module (join/resolve/posix).
    PathModule,
    /// `path.join`, `path.posix.join`, `path.resolve`.
    PathJoin,
    /// `url-join` default export.
    UrlJoin,
    /// The global `Object`.
    ObjectNs,
    /// `Object.keys/values/entries/assign/freeze/fromEntries`.
    ObjectFn(&'static str),
    /// The global `Array` (`Array.from`, `Array.isArray`).
    ArrayNs,
    /// The global `Reflect`.
    ReflectNs,
    /// `Reflect.defineMetadata`, `Reflect.getMetadata`, … (`machine/metadata.rs`).
    ReflectFn(&'static str),
    /// A function's constructor (`fn.constructor`): `Function`,
    /// `AsyncFunction`, `GeneratorFunction` or `AsyncGeneratorFunction`; and
    /// the global constructors the machine calls by name: `RegExp`, `Boolean`.
    FunctionCtor(&'static str),
    /// `Array.from`.
    ArrayFrom,
    /// `Array.isArray`.
    ArrayIsArray,
    /// An array method read as a value (`[].slice`, `Array.prototype.join`),
    /// applied with `.call`/`.apply`.
    ArrayMethod(Rc<str>),
    /// lodash/underscore (`""`) or one of its functions: see `libs/lodash.rs`.
    Lodash(Rc<str>),
    /// A curried function (`_.curry(f)`, `R.curry(f)`, `currify(f)`) with
    /// the arguments its calls gave so far: calling it with the rest of
    /// `f`'s parameters (its `length`) calls `f` with all of them; with
    /// fewer it gives a curried function holding more (see
    /// `machine/builtins.rs`).
    Curried(Rc<Curried>),
    /// The global `Promise` (`Promise.all`, `resolve`).
    PromiseNs,
    /// `Promise.all` / `Promise.resolve` etc.: returns the argument.
    Identity,
    /// The `resolve` function `new Promise(executor)` hands its executor
    /// (the index of the promise's slot in `JsState::settled`).
    Resolve(u32),
    /// `Promise.allSettled(list)`: one `{ status, value }` record per item.
    PromiseAllSettled,
    /// `fs` module: `readdirSync` etc. give runtime values.
    FsModule,
    /// The `zod` module (`z`, `z.coerce`).
    Zod,
    /// A Zod builder such as `z.object`.
    ZodBuilder(Rc<str>),
    /// The `joi` module (also `celebrate`'s `Joi`).
    Joi,
    /// A Joi builder such as `Joi.object`.
    JoiBuilder(Rc<str>),
    /// `celebrate(...)` from `celebrate`.
    Celebrate,
    /// An express-validator chain starter (`body`, `query`, `param`, `check`, `header`).
    CheckField(CheckField),
    /// The `next` callback of a route handler.
    NextFn,
    /// The global `Set` (and `WeakSet`).
    SetCtor,
    /// The global `Map` (and `WeakMap`).
    MapCtor,
    /// The global `Proxy`: `new Proxy(target, handler)` stands for its target.
    ProxyCtor,
    /// A function from a modelled package that returns middleware.
    MiddlewareFactory(Rc<str>),
    /// What `passport.authenticate(...)` returns: middleware that answers
    /// 401 itself when authentication fails (`true`), or that leaves the
    /// answer to a redirect or a callback (`false`); see `libs/passport.rs`.
    PassportMiddleware(bool),
    /// A `new InversifyExpressServer(...)` (index into the interpreter's
    /// servers; see `libs/inversify.rs`).
    InversifyServer(u32),
    /// `addControllers` of an `@overnightjs/core` `Server` (the index of its
    /// app; see `libs/overnight.rs`).
    AddControllers(u32),
    /// A package's method that returns the app the package made (the index
    /// of its router): oas3-tools' `getApp()` (see `libs/oas3.rs`).
    AppGetter(u32),
    /// Any other module builtin (`os`, `http`, ...): members are unknown.
    OpaqueModule(Rc<str>),
    /// A decorator from `@nestjs/websockets` (`WebSocketGateway`, `SubscribeMessage`, ...).
    NestWs(Rc<str>),
    /// A function of a decorator framework the analyzer models: NestJS's
    /// `NestFactory`, its `create`, `forwardRef` (see `libs/nest.rs`);
    /// routing-controllers' `createExpressServer`, `useExpressServer`.
    Framework(Rc<str>),
    /// Middleware of a package that answers fixed paths itself
    /// (`actuator()`, `promBundle({...})`; see `libs/served.rs`).
    Served(Rc<crate::libs::served::Served>),
    /// The `Ajv` class (`ajv`, `ajv/dist/2020`).
    Ajv,
    /// An `Ajv` instance.
    AjvInstance,
    /// A method of an `Ajv` instance (`compile`, `validate`, ...).
    AjvMethod(&'static str),
    /// Node's `EventEmitter` class (`events`, `node:events`).
    EventEmitterCtor,
    /// A method of a program's `EventEmitter` read off it
    /// (`emitter.emit.bind(emitter)`, `const on = emitter.on`): calling it
    /// calls the method on that emitter.
    EmitterMethod(Rc<Emitter>, Rc<str>),
    /// The status-code tables of `http-status` and `http-status-codes`
    /// (`httpStatus.CREATED`, `StatusCodes.NOT_FOUND`).
    HttpStatus,
    /// `Validator` from `express-json-validator-middleware`, and its instances.
    JsonValidator,
    /// Its `validate({body, query, params})`.
    JsonValidate,
    /// The middleware `validate(...)` returns: JSON Schemas by request part.
    JsonSchemaMiddleware(Rc<Vec<(RequestPart, serde_json::Value)>>),
    /// React's `useRef(init)`: an object whose `current` holds what the
    /// component stores there (a socket, most often).
    UseRef,
    /// React's `useMemo(fn)`: what `fn` returns.
    UseMemo,
    /// The setter of a React `useState` pair (index into the state cells of
    /// `libs/react.rs`).
    SetState(u32),
    /// The `socket.io` module: callable (`require('socket.io')(http)`), has `.Server`.
    SocketIo,
    /// `Server` from `socket.io`.
    SocketIoServer,
    /// `io` / `connect` from `socket.io-client` (the module itself is callable).
    SocketIoClient,
    /// `Manager` from `socket.io-client`.
    SocketIoManager,
    /// A Node built-in over the repository (`fs.readdirSync`, `path.dirname`,
    /// `process.cwd`, …): see `machine/node.rs`.
    Node(crate::machine::NodeFn),
    /// The acknowledgement callback a catch-all listener receives (index in
    /// the interpreter's catch-all list): see `libs/socketio_rpc.rs`.
    CatchAllAck(u32),
    /// A zustand function (see `libs/stores.rs`).
    Store(crate::libs::stores::StoreFn),
    /// A dependency-injection container's value (`libs/di.rs`).
    Di(crate::libs::di::DiFn),
}

/// What a Socket.IO value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SioKind {
    /// A server (`new Server()`).
    Server,
    /// A server namespace (`io.of('/x')`, `io.sockets`).
    Namespace,
    /// A server-side socket (the connection handler's argument).
    Socket,
    /// A broadcast operator (`io.to(room)`, `socket.broadcast`, `socket.to(room)`).
    Target,
    /// The connected sockets of a namespace (`io.sockets.sockets`).
    SocketSet,
    /// A client socket (`io(url)`).
    Client,
    /// A client manager (`new Manager(url)`, `socket.io`).
    Manager,
}

/// The name of the event a catch-all listener receives
/// (`socket.onAny((event, ...args) => …)`, `socket.use(([event], next) => …)`):
/// any name a client sends. Looked up in an object the program built
/// (`handlers[event]`, `event.split('.').reduce((o, k) => o[k], Namespaces)`),
/// it selects the table's functions, each of which is an event (a [`Dispatch`]).
#[derive(Debug)]
pub(crate) struct EventKey {
    /// The socket whose listener received it.
    pub(crate) socket: Rc<Sio>,
    /// Split on this separator (`event.split('.')`): the value stands for the parts.
    pub(crate) split: Option<Rc<str>>,
    /// Some table lookup resolved it (so the catch-all is not a finding).
    pub(crate) resolved: Rc<std::cell::Cell<bool>>,
    /// The listener's index in the interpreter's catch-all list.
    pub(crate) catch_all: u32,
}

/// The functions a catch-all listener's event name selects from a table:
/// calling it calls the one the client named, so each is a listener of
/// its event (`posts.upvote` → `SocketPosts.upvote`).
pub(crate) struct Dispatch {
    /// The socket whose listener received the name.
    pub(crate) socket: Rc<Sio>,
    /// The listener's index in the interpreter's catch-all list.
    pub(crate) catch_all: u32,
    /// Each event name with its function, in the table's order.
    pub(crate) entries: Vec<(String, Value)>,
}

/// A Socket.IO server, namespace, socket or operator.
#[derive(Clone, Debug)]
pub(crate) struct Sio {
    pub(crate) kind: SioKind,
    /// Index of the server (`u32::MAX` on the client side).
    pub(crate) server: u32,
    /// The namespace.
    pub(crate) ns: Rc<str>,
    /// The other namespaces a choice only known at run time may have given
    /// (`const target = cond ? guest : admin`): a site on this value is a
    /// site on each of them as well.
    pub(crate) also: Vec<Rc<str>>,
    /// Rooms targeted so far (`to(a).to(b)`).
    pub(crate) rooms: Vec<Rc<str>>,
    /// Built from a socket (`socket.broadcast`, `socket.to`) rather than the server.
    pub(crate) from_socket: bool,
    /// `timeout(ms)` was applied: the emit expects an acknowledgement.
    pub(crate) timeout: bool,
    /// TypeScript event maps (`Socket<ClientToServerEvents, ServerToClientEvents>`).
    pub(crate) maps: Option<Rc<EventMaps>>,
    /// A placeholder for a socket-named parameter of a function nobody
    /// called: its namespace is assumed (see [`Assumed`]).
    pub(crate) assumed: Option<Rc<Assumed>>,
}

/// Where a Socket.IO value's namespace was assumed: the function nobody
/// called whose socket-named parameter it stands for.
#[derive(Clone, Debug)]
pub(crate) struct Assumed {
    /// The function's name (`default` for an anonymous export, `<anonymous>`).
    pub(crate) func: String,
    /// Where the function is.
    pub(crate) file: crate::project::FileId,
    pub(crate) line: u32,
}

/// The event-map types a Socket.IO value was declared with, and where to
/// resolve their names.
pub(crate) struct EventMaps {
    pub(crate) env: Rc<Scope>,
    /// Events the server listens to.
    pub(crate) listen: crate::ir::TypeExpr,
    /// Events the server emits.
    pub(crate) emit: crate::ir::TypeExpr,
}

impl std::fmt::Debug for EventMaps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventMaps")
    }
}

impl Sio {
    pub(crate) fn derive(&self, kind: SioKind) -> Value {
        Value::Sio(Rc::new(Sio {
            kind,
            ..self.clone()
        }))
    }
}

/// Why a value is unknown.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Unknown {
    /// Comes from an installed package or the runtime (normal, not a finding),
    /// with the package it comes from when that is one the analysis does not
    /// model: what `require('pkg')` gives and its members, wherever they
    /// travel (`this.route = require('pkg').router`, `const { router } = …`),
    /// not what its functions return (that is [`Unknown::Made`]).
    /// Mounting such a value with `use(path, x)` says which package's routes
    /// are not charted ([`crate::libs`] `package_mounts`).
    External(Option<Rc<str>>),
    /// Computed at run time from something the analyzer cannot see.
    Dynamic,
    /// A boolean whose value paths disagree on (`false`, then `true` under a
    /// test only known at run time): unknown, but a boolean, as a response
    /// schema says.
    Bool,
    /// A parameter of a function the analyzer ran without a caller (its real
    /// callers are analyzed on their own; not a finding).
    Param,
    /// What an import the analyzer could not resolve gives; that import is
    /// already a finding.
    Reported,
    /// An object built with `new` from a class of an installed package the
    /// analysis does not model (`new ScimRouters({...})`, the package's name
    /// kept): unknown like [`Unknown::External`], but mounting it with
    /// `use(path, x)` says which package's routes are not charted. Its
    /// members are [`Unknown::External`] of that package; what calling it or
    /// its methods gives is [`Unknown::Made`] of that package.
    Instance(Rc<str>),
    /// What a call of an installed package's function or of a method of its
    /// instance gave (`plugin.createRouter()`, `new Adapter().getRouter()`),
    /// the package's name kept: unknown like [`Unknown::External`] of none
    /// (its members, calling it, building with it and its methods give
    /// [`Unknown::External`] of none, so a middleware factory's middleware
    /// is no package export), but mounting it with `use(path, x)`, however
    /// it travelled (`const r = plugin.createRouter(); app.use('/c', r)`),
    /// says which package's routes are not charted.
    Made(Rc<str>),
}

impl Unknown {
    /// The kind reading, calling or building with a value of this kind
    /// starts from: what a package's function made is a value of the
    /// runtime, not of the package.
    pub(crate) fn used(&self) -> Unknown {
        match self {
            Unknown::Made(_) => Unknown::External(None),
            k => k.clone(),
        }
    }
}

/// A value.
#[derive(Clone)]
pub(crate) enum Value {
    Undef,
    Null,
    Bool(bool),
    Num(f64),
    Str(Rc<str>),
    Regex(Rc<str>),
    Arr(Rc<RefCell<Vec<Value>>>),
    Obj(Rc<ObjData>),
    Func(Rc<Closure>),
    Class(Rc<ClassVal>),
    /// An Express app or router (index into the router table).
    Router(u32),
    /// `router.route(paths)`.
    Chain(u32, Rc<Vec<Value>>),
    Builtin(Builtin),
    /// An ES module namespace.
    Module(FileId),
    /// An import not yet needed: (file, export name).
    Lazy(FileId, Rc<str>),
    /// A call (or a property of its result) not followed yet: evaluated,
    /// once, only if the value reaches a routing position.
    Deferred(Rc<Thunk>),
    /// A Socket.IO object.
    Sio(Rc<Sio>),
    /// A Zod schema.
    Zod(Rc<ZodVal>),
    /// Validation middleware that states schemas for request parts
    /// (`celebrate({...})`, express-validator chains): (part, field or "", schema, required).
    Validator(Rc<Vec<(RequestPart, String, serde_json::Value, bool)>>),
    /// A TypeScript type declared in the program, with the scope it was declared in.
    Type(Arc<crate::ir::TypeExpr>, Rc<Scope>),
    /// The request, a part of it, or the response, inside a route handler.
    Http(HttpVal),
    /// A `Set` or `Map` built by the program (sockets kept in a set, sessions in a map).
    Coll(Rc<Coll>),
    /// A Node `EventEmitter` the program creates (`new EventEmitter()`): it
    /// carries values from `emit` to `on` listeners (a socket relayed by a wrapper).
    Emitter(Rc<Emitter>),
    /// A string with run-time parts, as a pattern (`demo:step:{kind}`).
    Pattern(Rc<str>),
    /// The name of the event a catch-all listener received, or its parts
    /// once split (see [`EventKey`]).
    EventKey(Rc<EventKey>),
    /// The functions an [`EventKey`] selects from a table (see [`Dispatch`]).
    Dispatch(Rc<Dispatch>),
    /// A value the analyzer cannot know.
    Unknown(Unknown),
}

/// A Zod schema as JSON Schema, with whether it is optional in its parent.
#[derive(Clone, Debug)]
pub(crate) struct ZodVal {
    pub(crate) schema: serde_json::Value,
    pub(crate) optional: bool,
    /// Built with Joi (keys are optional until `.required()`).
    pub(crate) joi: bool,
    /// A JSON Schema as written, handed to Ajv or a JSON Schema middleware.
    pub(crate) json_schema: bool,
}

/// A part of a request that a handler reads or a validator states a schema
/// for; `Payload` is a Socket.IO event's data, read the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RequestPart {
    Body,
    Query,
    Params,
    Headers,
    Cookies,
    Payload,
}

impl RequestPart {
    /// The property of `req` that holds it (`body`, `params`, …); `payload`
    /// for an event's data.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            RequestPart::Body => "body",
            RequestPart::Query => "query",
            RequestPart::Params => "params",
            RequestPart::Headers => "headers",
            RequestPart::Cookies => "cookies",
            RequestPart::Payload => "payload",
        }
    }

    /// The part a property of `req` names (`req.body`), or that a validator
    /// names with the same word (`{ body: schema }`, `in: ['query']`).
    pub(crate) fn of_req(name: &str) -> Option<RequestPart> {
        Some(match name {
            "body" => RequestPart::Body,
            "query" => RequestPart::Query,
            "params" => RequestPart::Params,
            "headers" => RequestPart::Headers,
            "cookies" => RequestPart::Cookies,
            _ => return None,
        })
    }
}

/// What an express-validator export builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CheckField {
    /// The module itself, before a member is read.
    Module,
    /// A one-field chain starter for a part (`body('email')`, `param('id')`).
    Part(RequestPart),
    /// `checkSchema({...})`.
    Schema,
}

/// Request and response values in a route handler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum HttpVal {
    /// `req`.
    Req,
    /// `req.body`, `req.query`, `req.params`, `req.headers`.
    Part(RequestPart),
    /// `res`, with the status set so far.
    Res(u16),
}

/// An `EventEmitter`: its listeners by event, and the emits that carried a
/// tracked value (a socket, a router), replayed to listeners added later.
#[derive(Default)]
pub(crate) struct Emitter {
    pub(crate) listeners: RefCell<Vec<(String, Value)>>,
    pub(crate) fired: RefCell<Vec<(String, Vec<Value>)>>,
}

/// Emitters are told apart by identity.
/// A curried function and the arguments its calls gave so far (see
/// [`Builtin::Curried`]).
pub(crate) struct Curried {
    pub(crate) func: Rc<Closure>,
    pub(crate) held: Vec<Value>,
}

impl PartialEq for Curried {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl std::fmt::Debug for Curried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Curried({} held)", self.held.len())
    }
}

impl PartialEq for Emitter {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl std::fmt::Debug for Emitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Emitter({} listeners)", self.listeners.borrow().len())
    }
}

impl Emitter {
    /// Emits kept for listeners added later.
    pub(crate) const LIMIT: usize = 16;

    /// The listeners of an event.
    pub(crate) fn listeners_of(&self, event: &str) -> Vec<Value> {
        let all = self.listeners.borrow();
        all.iter()
            .filter(|(n, _)| n == event)
            .map(|(_, f)| f.clone())
            .collect()
    }

    /// The arguments of the kept emits of an event.
    pub(crate) fn fired_with(&self, event: &str) -> Vec<Vec<Value>> {
        let all = self.fired.borrow();
        all.iter()
            .filter(|(n, _)| n == event)
            .map(|(_, a)| a.clone())
            .collect()
    }
}

/// A `Set` (keys unused) or `Map`, with at most [`Coll::LIMIT`] entries kept.
pub(crate) struct Coll {
    pub(crate) map: bool,
    pub(crate) items: RefCell<Vec<(Value, Value)>>,
    /// Built from entries only known at run time (`new Set(memberIds)` with
    /// `memberIds` a parameter): how many it holds, and which, is unknown,
    /// so iterating it is iterating an unknown list (see [`Coll::iterated`]).
    pub(crate) entries_unknown: bool,
    /// Entries may have left (`delete`, `clear`): how many are left (`size`)
    /// is not known; those listed may still be there.
    pub(crate) lost: Cell<bool>,
}

impl Coll {
    pub(crate) const LIMIT: usize = 64;

    /// What iterating it yields: `[key, value]` pairs for a map, values for a
    /// set; `None` when its entries are only known at run time.
    pub(crate) fn iterated(&self) -> Option<Vec<Value>> {
        if self.entries_unknown {
            return None;
        }
        Some(
            self.items
                .borrow()
                .iter()
                .map(|(k, v)| {
                    if self.map {
                        Value::array(vec![k.clone(), v.clone()])
                    } else {
                        v.clone()
                    }
                })
                .collect(),
        )
    }
}

/// A deferred computation with its memoized result.
pub(crate) struct Thunk {
    pub(crate) kind: ThunkKind,
    pub(crate) file: FileId,
    pub(crate) result: RefCell<Option<Value>>,
    pub(crate) forcing: Cell<bool>,
}

/// What a [`Thunk`] computes.
pub(crate) enum ThunkKind {
    /// `callee(argv)` with an optional `this`.
    Call(Value, Vec<Value>, Option<Value>, u32),
    /// `base.prop`.
    Member(Value, String),
}

impl Thunk {
    pub(crate) fn value(kind: ThunkKind, file: FileId) -> Value {
        Value::Deferred(Rc::new(Thunk {
            kind,
            file,
            result: RefCell::new(None),
            forcing: Cell::new(false),
        }))
    }
}

impl Value {
    pub(crate) fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    pub(crate) fn dynamic() -> Value {
        Value::Unknown(Unknown::Dynamic)
    }

    pub(crate) fn external() -> Value {
        Value::Unknown(Unknown::External(None))
    }

    /// A value of the installed package `pkg`, which the analysis does not
    /// model (see [`Unknown::External`]).
    pub(crate) fn of_package(pkg: &str) -> Value {
        Value::Unknown(Unknown::External(Some(Rc::from(pkg))))
    }

    pub(crate) fn array(v: Vec<Value>) -> Value {
        Value::Arr(Rc::new(RefCell::new(v)))
    }

    pub(crate) fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown(_))
    }

    /// Truthiness when it is known.
    pub(crate) fn truthy(&self) -> Option<bool> {
        match self {
            Value::Undef | Value::Null => Some(false),
            Value::Bool(b) => Some(*b),
            Value::Num(n) => Some(*n != 0.0 && !n.is_nan()),
            Value::Str(s) => Some(!s.is_empty()),
            Value::Regex(_)
            | Value::Arr(_)
            | Value::Obj(_)
            | Value::Func(_)
            | Value::Class(_)
            | Value::Router(_)
            | Value::Chain(..)
            | Value::Builtin(
                Builtin::Express
                | Builtin::RouterCtor
                | Builtin::RouterMethod(..)
                | Builtin::EmitterMethod(..)
                | Builtin::Require
                | Builtin::PathModule
                | Builtin::PathJoin
                | Builtin::UrlJoin
                | Builtin::ObjectNs
                | Builtin::ObjectFn(_)
                | Builtin::Curried(..)
                | Builtin::ArrayNs
                | Builtin::ReflectNs
                | Builtin::ReflectFn(_)
                | Builtin::FunctionCtor(_)
                | Builtin::ArrayFrom
                | Builtin::ArrayIsArray
                | Builtin::ArrayMethod(_)
                | Builtin::Lodash(_)
                | Builtin::PromiseNs
                | Builtin::Identity
                | Builtin::Resolve(_)
                | Builtin::PromiseAllSettled
                | Builtin::FsModule
                | Builtin::OpaqueModule(_)
                | Builtin::NestWs(_)
                | Builtin::Framework(_)
                | Builtin::Served(_)
                | Builtin::InversifyServer(_)
                | Builtin::AddControllers(_)
                | Builtin::AppGetter(_)
                | Builtin::Ajv
                | Builtin::EventEmitterCtor
                | Builtin::HttpStatus
                | Builtin::AjvInstance
                | Builtin::AjvMethod(_)
                | Builtin::JsonValidator
                | Builtin::JsonValidate
                | Builtin::JsonSchemaMiddleware(_)
                | Builtin::PassportMiddleware(_)
                | Builtin::UseRef
                | Builtin::UseMemo
                | Builtin::SetState(_)
                | Builtin::SocketIo
                | Builtin::SocketIoServer
                | Builtin::SocketIoClient
                | Builtin::SocketIoManager
                | Builtin::Zod
                | Builtin::ZodBuilder(_)
                | Builtin::Joi
                | Builtin::JoiBuilder(_)
                | Builtin::Celebrate
                | Builtin::CheckField(_)
                | Builtin::SetCtor
                | Builtin::Node(_)
                | Builtin::NextFn
                | Builtin::MapCtor
                | Builtin::CatchAllAck(_)
                | Builtin::Store(_)
                | Builtin::Di(_)
                | Builtin::ProxyCtor,
            )
            | Value::Sio(_)
            | Value::Coll(_)
            | Value::Emitter(_)
            | Value::Zod(_)
            | Value::Validator(_)
            | Value::Type(..)
            | Value::Http(_)
            | Value::Pattern(_)
            | Value::Dispatch(_)
            | Value::Module(_) => Some(true),
            // A member of a package the analyzer does not model (`cluster.isPrimary`).
            Value::Builtin(Builtin::MiddlewareFactory(_)) => None,
            Value::Lazy(..) | Value::Deferred(_) | Value::EventKey(_) | Value::Unknown(_) => None,
        }
    }

    /// The string form of a constant, for concatenation and keys.
    pub(crate) fn as_text(&self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.to_string()),
            Value::Num(n) => Some(if n.fract() == 0.0 && n.abs() < 1e15 {
                format!("{}", *n as i64)
            } else {
                format!("{n}")
            }),
            Value::Bool(b) => Some(b.to_string()),
            Value::Null => Some("null".into()),
            Value::Undef => Some("undefined".into()),
            _ => None,
        }
    }

    /// Whether this value carries an app, router or other tracked object
    /// (so a call receiving it must be followed).
    pub(crate) fn is_tracked(&self, depth: u32) -> bool {
        match self {
            Value::Router(_) | Value::Chain(..) | Value::Sio(_) => true,
            Value::Arr(a) if depth < 2 => a.borrow().iter().any(|v| v.is_tracked(depth + 1)),
            Value::Coll(c) if depth < 2 => c
                .items
                .borrow()
                .iter()
                .any(|(_, v)| v.is_tracked(depth + 1)),
            Value::Obj(o) if depth < 2 => {
                o.props.borrow().values().any(|v| v.is_tracked(depth + 1))
            }
            _ => false,
        }
    }
}
