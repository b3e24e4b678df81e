//! What the modelled packages mean: one module per package family, each
//! holding the package's module value, members, calls and the hooks the
//! machine asks about (a route guard, a schema library's parts, a socket's
//! events), and [`PACKAGES`], the one table of the packages modelled.
//!
//! The table decides how the resolver treats a specifier (a modelled package
//! is never read from `node_modules`; an installed one is resolved as usual
//! and read through its family when imported) and what `require`/`import`
//! gives.
//!
//! The machine reaches the libraries only through the dispatch functions
//! here ([`member`], [`state_member`], [`set_member`], [`call`],
//! [`construct`], [`super_construct`],
//! [`methods_on_instance`], [`thrown`]), each asking the rows of one table
//! in order; what the libraries keep during a run is [`LibState`]. Adding a
//! library: a module here, its rows in [`PACKAGES`], and one row in the
//! table of each hook kind it needs (see ARCHITECTURE.md, "The seam between
//! the machine and the libraries").
//!
//! Deliberately not here: JavaScript itself (`machine`), and Node's own
//! modules (`machine::node`, listed in the table as the family `node`).
//!
//! Where the code is not yet in its target shape: the machine still knows
//! some libraries' values by their `Builtin` variants (Express, Zod, Joi,
//! Ajv, Socket.IO, …) and calls their methods directly, and the byte
//! prefilter (`loader.rs` needles) keeps its own words.

pub(crate) mod angular;
pub(crate) mod answers;
pub(crate) mod awilix;
pub(crate) mod bluebird;
pub(crate) mod callsite;
pub(crate) mod curry;
pub(crate) mod decorators_express;
pub(crate) mod di;
pub(crate) mod documents;
pub(crate) mod dropins;
pub(crate) mod enrouten;
pub(crate) mod express;
pub(crate) mod express_app_members;
pub(crate) mod express_choice;
pub(crate) mod express_forward;
pub(crate) mod express_http;
pub(crate) mod express_io;
pub(crate) mod express_openapi;
pub(crate) mod express_use;
pub(crate) mod feathers;
pub(crate) mod finale;
pub(crate) mod foal;
pub(crate) mod guards;
pub(crate) mod inversify;
pub(crate) mod keystone;
pub(crate) mod loaders;
pub(crate) mod lodash;
pub(crate) mod loopback;
pub(crate) mod loopback4;
pub(crate) mod loopback4_components;
pub(crate) mod medusa;
pub(crate) mod microframework;
pub(crate) mod nconf;
pub(crate) mod nest;
pub(crate) mod nest_modules;
pub(crate) mod nest_ws;
pub(crate) mod next_pages;
pub(crate) mod nitro;
pub(crate) mod node_red;
pub(crate) mod oas3;
pub(crate) mod oclif;
pub(crate) mod openapi_backend;
pub(crate) mod openapi_validator;
pub(crate) mod overnight;
pub(crate) mod package_routes;
pub(crate) mod passport;
pub(crate) mod plugin_manifests;
pub(crate) mod react;
pub(crate) mod react_render;
pub(crate) mod resource_router;
pub(crate) mod routing_controllers;
pub(crate) mod typescript_rest;
pub(crate) use package_routes::{may_add_routes, may_serve_routes};
pub(crate) mod rxjs;
pub(crate) mod sails;
pub(crate) mod schemas;
pub(crate) mod served;
pub(crate) mod socket_controllers;
pub(crate) mod socketio;
pub(crate) mod socketio_client;
pub(crate) mod socketio_modules;
pub(crate) mod socketio_multiplex;
pub(crate) mod socketio_relay;
pub(crate) mod socketio_rpc;
pub(crate) mod socketio_syntax;
pub(crate) mod stores;
pub(crate) mod swagger_routes;
pub(crate) mod swagger_tools;
pub(crate) mod swr;
pub(crate) mod tsed;
pub(crate) mod tsoa;
pub(crate) mod use_methods;
pub(crate) mod validators;
pub(crate) mod vue;

use crate::ir::Expr;
use crate::machine::{Ctx, Interp, NodeFn};
use crate::project::FileId;
use crate::value::Closure;
use crate::value::{Builtin, Value};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

// What the machine holds or calls of the libraries besides the hooks below:
// the records a run writes (a route's contract, event sites, guards), the
// schema helpers the JavaScript built-ins feed (Ajv's `compile`, a
// TypeScript-typed request part), and syntax predicates over the IR.
pub(crate) use guards::{GuardInfo, note_route_guard};
pub(crate) use loaders::LoadChain;
pub(crate) use schemas::{
    RawContract, SchemaLabel, SchemaSource, json_schema, set_json_schema_parts, set_part, shape_of,
};
pub(crate) use socketio::{Frame, RESERVED_EVENTS, RawSite, SioServer};
pub(crate) use socketio_client::client_lifecycle;
pub(crate) use socketio_multiplex::looks_up_by_param;
pub(crate) use socketio_syntax::{any_expr, mentions_emit};

/// What the libraries keep during a run, one field per library that keeps
/// something (the machine holds it as `Interp::libs` and never reads it).
#[derive(Default)]
pub(crate) struct LibState {
    /// The hooks the project's plugin manifests declare (`libs/plugin_manifests.rs`).
    pub(crate) plugin_hooks: plugin_manifests::PluginHooks,
    /// Catch-all listeners (`socket.onAny`), in the order seen: see `libs/socketio_rpc.rs`.
    pub(crate) catch_alls: Vec<socketio_rpc::CatchAll>,
    /// Dispatched functions to run after start-up (see `run_dispatched`).
    pub(crate) dispatch_queue: Vec<socketio_rpc::Queued>,
    /// zustand stores, in the order created (see `libs/stores.rs`).
    pub(crate) stores: Vec<stores::Store>,
    /// SWR's cache: what each key holds and who reads it (see `libs/swr.rs`).
    pub(crate) swr: swr::SwrCache,
    /// Middleware that hands the request to a router (see `libs/express_forward.rs`).
    pub(crate) forwarding: express_forward::Forwarding,
    /// awilix-express's controller builders and served classes (see `libs/awilix.rs`).
    pub(crate) awilix: awilix::Awilix,
    /// `new InversifyExpressServer(...)` instances (see `libs/inversify.rs`).
    pub(crate) inversify_servers: Vec<inversify::InversifyServer>,
    /// The module objects of REST resource generators `initialize(...)` set up (see `libs/finale.rs`).
    pub(crate) finale: finale::Finale,
    /// NestJS applications and the controllers they serve (see `nest_http`).
    pub(crate) nest: nest::NestState,
    /// The global properties of Vue components (see `libs/vue.rs`).
    pub(crate) vue: vue::VueState,
    /// Feathers apps and their services (see `libs/feathers.rs`).
    pub(crate) feathers: feathers::FeathersState,
    /// What dependency-injection containers made or were given (`libs/di.rs`).
    pub(crate) di: di::Containers,
    /// The LoopBack model scripts running (see `libs/loopback.rs`).
    pub(crate) loopback: loopback::LoopBack,
    /// LoopBack 4 applications (see `libs/loopback4.rs`).
    pub(crate) loopback4: loopback4::Lb4State,
    /// What the program wrote on Socket.IO values (see `libs/socketio.rs`
    /// `set_sio_prop`).
    pub(crate) sio_props: socketio::SioProps,
    /// `new OpenAPIBackend(...)` instances (see `libs/openapi_backend.rs`).
    pub(crate) openapi_backends: openapi_backend::Backends,
    /// express-openapi-validator v3's `new OpenApiValidator(options)`s (see `libs/openapi_validator.rs`).
    pub(crate) openapi_validators: openapi_validator::Validators,
    /// The documents swagger-tools' `initializeMiddleware` was given (see `libs/swagger_tools.rs`).
    pub(crate) swagger_docs: swagger_tools::SwaggerDocs,
    /// NestJS gateways seen, by (file, class line).
    pub(crate) nest_gateways: HashSet<(FileId, u32)>,
    /// The client sockets the `host` of a gateway's exception filters gives
    /// (`host.switchToWs().getClient()`), by index (see `nest_ws.rs`).
    pub(crate) nest_ws_clients: Vec<Value>,
    /// The Socket.IO server Nest creates per gateway port (`None`: the HTTP server's).
    pub(crate) nest_servers: HashMap<Option<i64>, u32>,
    /// The instances Nest's dependency injection made, by (file, class line).
    pub(crate) nest_instances: HashMap<(FileId, u32), Value>,
    /// What microframework's loaders stored with `settings.setData(key, v)`
    /// (see `libs/microframework.rs`).
    pub(crate) microframework_data: HashMap<String, Value>,
    /// What the program put in nconf's store (see `libs/nconf.rs`).
    pub(crate) nconf: nconf::Nconf,
    /// While a decorator factory of the program runs (see
    /// `Interp::nest_ws_composed`): the `@nestjs/websockets` decorators it
    /// applied (`RawSubscribeMessage(event)` inside `applyDecorators(…)`),
    /// with their arguments.
    pub(crate) nest_ws_capture: Option<Vec<nest_ws::NestWsApplied>>,
    /// What each decorator of the program composes, by (file, line, callee).
    pub(crate) nest_ws_composed: HashMap<(FileId, u32, String), Option<nest_ws::NestWsApplied>>,
    /// Named functions that only return a value (`getSocket() { return socket }`), by name.
    pub(crate) component_methods: HashMap<String, Rc<Closure>>,
    /// Named functions by file (the hooks a component getter may need run first).
    pub(crate) named_fns: HashMap<FileId, Vec<Rc<Closure>>>,
    /// React class components rendered (see `libs/react.rs`).
    pub(crate) react: react::Rendered,
}

impl LibState {
    /// What the libraries learned that a later stage reports (zustand stores,
    /// catch-all listeners), as a count that only grows: part of the
    /// machine's measure of whether a discarded call had effects
    /// (`machine/budget.rs`).
    pub(crate) fn effects(&self) -> usize {
        self.stores.len() + self.catch_alls.len()
    }
}

/// How the resolver treats a package's specifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resolve {
    /// Never read from `node_modules`: importing it gives [`Package::module`].
    Modelled,
    /// Resolved like any installed package; importing it gives [`Package::module`].
    Installed,
}

/// The value `require`/`import` of a package gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Module {
    Express,
    SocketIo,
    SocketIoClient,
    Zod,
    Joi,
    Celebrate,
    ExpressValidator,
    Ajv,
    JsonValidator,
    HttpStatus,
    UrlJoin,
    Path,
    Fs,
    EventEmitter,
    /// `callsite`'s `stack()` (see `callsite.rs`).
    CallSite,
    Lodash,
    /// A Promise implementation whose module is a Promise constructor (see
    /// `bluebird.rs`).
    Promise,
    Inherits,
    /// A glob package; `dirs`: it lists folders as well as files by default
    /// (node-glob, tiny-glob; fast-glob and globby list files only).
    Glob {
        dirs: bool,
    },
    /// A directory loader package (`require-all`, …), by name.
    Loader,
    /// zustand and its middleware, Pinia and SWR, by name (see `stores.rs`).
    Zustand,
    /// React's module (see `react.rs`): the hooks client code keeps its
    /// socket in (`useRef`) and wraps emitting helpers in (`useCallback`).
    React,
    /// react-redux's module (see `react.rs`): `connect`.
    ReactRedux,
    /// Vue (see `vue.rs`): where components' global properties are set.
    Vue,
    /// A Vue plugin that gives components a Socket.IO client (see `vue.rs`).
    VueSocket,
    /// A Feathers database adapter (see `feathers.rs`): its functions and
    /// classes make services.
    FeathersAdapter,
    /// A dependency-injection container's package (see `di.rs`).
    Di,
    /// passport's module object (see `passport.rs`): its members are
    /// functions of the package, `authenticate` modelled.
    Passport,
    /// Decided by the family (drop-in routers' exports, `node:` names,
    /// packages whose members carry the meaning).
    Family,
}

/// One modelled package.
#[derive(Debug)]
pub(crate) struct Package {
    /// The specifier as code writes it.
    pub(crate) name: &'static str,
    pub(crate) resolve: Resolve,
    pub(crate) module: Module,
}

const fn modelled(name: &'static str, module: Module) -> Package {
    Package {
        name,
        resolve: Resolve::Modelled,
        module,
    }
}

const fn installed(name: &'static str, module: Module) -> Package {
    Package {
        name,
        resolve: Resolve::Installed,
        module,
    }
}

/// Words whose bytes in a file mean it may make an app of a modelled
/// framework (the loader's prefilter flag `APP`, beside `express()`).
pub(crate) const APP_WORDS: &[&str] = &[
    // nest.rs: a NestJS application's bootstrap.
    "NestFactory.create",
    // routing_controllers.rs: its own app.
    "createExpressServer(",
    // inversify.rs
    "InversifyExpressServer(",
    // overnight.rs: `Server` makes the app that `addControllers` serves.
    "addControllers(",
    // loopback4.rs: a subclass of `RestApplication` (through mixins or not).
    "(RestApplication)",
    "extends RestApplication",
];

/// Words that mean a file may declare a decorated controller class (the
/// prefilter flag `CONTROLLER`): NestJS, routing-controllers,
/// inversify-express-utils' `@controller(`, tsoa's `@Route(`, awilix-express's
/// `@route('/x')`, typescript-rest's `@Path('/x')`.
pub(crate) const CONTROLLER_WORDS: &[&str] =
    &["Controller(", "controller(", "@Route(", "@route(", "@Path("];

/// Words that mean a file may use Socket.IO (the prefilter flag `SOCKET`):
/// socketio.rs and socketio_client.rs; vue.rs's `this.$root.getSocket()`
/// (Vue components reach the socket through the root or a parent). `Socket`
/// as well as `socket`: a page script that only uses the page's
/// `signalingSocket` (the census reads receivers' names in any case).
pub(crate) const SOCKET_WORDS: &[&str] = &["socket", "Socket", "io.", "io?.", "$root.", "$parent."];

/// Every package Portolan models, one row each, grouped by the module that
/// gives it meaning.
pub(crate) const PACKAGES: &[Package] = &[
    // express.rs
    modelled("express", Module::Express),
    // express_io.rs: Express with Socket.IO attached (express.io and its
    // fork express.oi): the default export is Express's, whose `express()`
    // app gains `http()`/`https()`, `io()` and the `app.io.route(…)` socket
    // routes.
    modelled("express.io", Module::Express),
    modelled("express.oi", Module::Express),
    modelled("http-status", Module::HttpStatus),
    modelled("http-status-codes", Module::HttpStatus),
    modelled("url-join", Module::UrlJoin),
    // socketio.rs
    modelled("socket.io", Module::SocketIo),
    modelled("@nestjs/websockets", Module::Family),
    modelled("@nestjs/platform-socket.io", Module::Family),
    // socketio_client.rs
    modelled("socket.io-client", Module::SocketIoClient),
    // schemas.rs
    modelled("zod", Module::Zod),
    modelled("joi", Module::Joi),
    modelled("celebrate", Module::Celebrate),
    modelled("express-validator", Module::ExpressValidator),
    modelled("class-validator", Module::Family),
    modelled("ajv", Module::Ajv),
    modelled("ajv/dist/2019", Module::Ajv),
    modelled("ajv/dist/2020", Module::Ajv),
    modelled("express-json-validator-middleware", Module::JsonValidator),
    // nest.rs
    modelled("@nestjs/common", Module::Family),
    modelled("@nestjs/common/constants", Module::Family),
    modelled("@nestjs/core", Module::Family),
    modelled("@nestjs/graphql", Module::Family),
    modelled("@nestjs/config", Module::Family),
    // nconf.rs
    modelled("nconf", Module::Family),
    // microframework.rs
    modelled("microframework-w3tec", Module::Family),
    modelled("microframework", Module::Family),
    // oclif.rs
    modelled("@oclif/core", Module::Family),
    modelled("@oclif/command", Module::Family),
    modelled("@nestjs/passport", Module::Family),
    // routing_controllers.rs
    modelled("routing-controllers", Module::Family),
    // socket_controllers.rs
    modelled("socket-controllers", Module::Family),
    // inversify.rs
    modelled("inversify-express-utils", Module::Family),
    // awilix.rs
    modelled("awilix-express", Module::Family),
    modelled("awilix-router-core", Module::Family),
    // decorators_express.rs
    modelled("@decorators/express", Module::Family),
    // tsoa.rs
    modelled("tsoa", Module::Family),
    modelled("@tsoa/runtime", Module::Family),
    // finale.rs (REST resource generators)
    modelled("finale-rest", Module::Family),
    modelled("epilogue", Module::Family),
    // loopback.rs (LoopBack 3: an Express app, set up from its config files)
    modelled("loopback", Module::Express),
    modelled("loopback-boot", Module::Family),
    // loopback4.rs (LoopBack 4's REST applications and controllers)
    modelled("@loopback/rest", Module::Family),
    modelled("@loopback/openapi-v3", Module::Family),
    modelled("@loopback/authentication", Module::Family),
    // (Their mixins are functions of the package: see `loopback4::mixin`.)
    modelled("@loopback/boot", Module::Family),
    modelled("@loopback/repository", Module::Family),
    modelled("@loopback/service-proxy", Module::Family),
    // keystone.rs (the app Keystone 6's CLI makes from keystone.ts)
    modelled("@keystone-6/core", Module::Family),
    // overnight.rs
    modelled("@overnightjs/core", Module::Family),
    // typescript_rest.rs
    modelled("typescript-rest", Module::Family),
    // tsed.rs
    modelled("@tsed/common", Module::Family),
    modelled("@tsed/di", Module::Family),
    modelled("@tsed/schema", Module::Family),
    modelled("@tsed/platform-express", Module::Family),
    modelled("@tsed/platform-params", Module::Family),
    modelled("@tsed/platform-middlewares", Module::Family),
    modelled("@tsed/passport", Module::Family),
    // foal.rs
    modelled("@foal/core", Module::Family),
    modelled("@foal/jwt", Module::Family),
    modelled("@foal/typeorm", Module::Family),
    // oas3.rs (OpenAPI-first routers)
    modelled("oas3-tools", Module::Family),
    // express_openapi.rs
    modelled("express-openapi", Module::Family),
    // openapi_validator.rs
    modelled("express-openapi-validator", Module::Family),
    // openapi_backend.rs
    modelled("openapi-backend", Module::Family),
    // swagger_tools.rs
    modelled("swagger-tools", Module::Family),
    modelled("swagger-express-mw", Module::Family),
    // swagger_routes.rs
    modelled("swagger-routes-express", Module::Family),
    // resource_router.rs
    modelled("resource-router-middleware", Module::Family),
    // dropins.rs
    modelled("express-promise-router", Module::Family),
    modelled("co-router", Module::Family),
    modelled("router", Module::Family),
    modelled("express-async-router", Module::Family),
    modelled("@awaitjs/express", Module::Family),
    modelled("express-ws", Module::Family),
    modelled("@tinyhttp/app", Module::Family),
    modelled("polka", Module::Family),
    modelled("apollo-server-express", Module::Family),
    modelled("@apollo/server/express4", Module::Family),
    modelled("@as-integrations/express4", Module::Family),
    modelled("@as-integrations/express5", Module::Family),
    modelled("express-graphql", Module::Family),
    modelled("graphql-http/lib/use/express", Module::Family),
    modelled(
        "@modelcontextprotocol/sdk/server/express.js",
        Module::Family,
    ),
    modelled("@modelcontextprotocol/sdk/server/express", Module::Family),
    modelled("@modelcontextprotocol/express", Module::Family),
    modelled("@modelcontextprotocol/server-express", Module::Family),
    // feathers.rs
    modelled("@feathersjs/express", Module::Family),
    modelled("@feathersjs/express/rest", Module::Family),
    modelled("@feathersjs/koa", Module::Family),
    modelled("@feathersjs/feathers", Module::Family),
    modelled("@feathersjs/socketio", Module::Family),
    // machine/node.rs (Node's own modules and helpers)
    modelled("express-actuator", Module::Family),
    modelled("prometheus-api-metrics", Module::Family),
    modelled("express-prom-bundle", Module::Family),
    modelled("express-status-monitor", Module::Family),
    modelled("swagger-ui-express", Module::Family),
    modelled("@nestjs/swagger", Module::Family),
    modelled("path", Module::Path),
    modelled("path/posix", Module::Path),
    modelled("node:path", Module::Family),
    modelled("node:path/posix", Module::Family),
    modelled("fs", Module::Fs),
    modelled("fs/promises", Module::Fs),
    modelled("node:fs", Module::Family),
    modelled("node:fs/promises", Module::Family),
    modelled("events", Module::EventEmitter),
    modelled("node:events", Module::EventEmitter),
    modelled("callsite", Module::CallSite),
    installed("inherits", Module::Inherits),
    installed("glob", Module::Glob { dirs: true }),
    installed("fast-glob", Module::Glob { dirs: false }),
    installed("globby", Module::Glob { dirs: false }),
    installed("tiny-glob", Module::Glob { dirs: true }),
    installed("tiny-glob/sync", Module::Glob { dirs: true }),
    // enrouten.rs
    modelled("express-enrouten", Module::Family),
    modelled("kraken-js", Module::Family),
    // loaders.rs
    installed("require-tree", Module::Loader),
    installed("require-all", Module::Loader),
    installed("require-directory", Module::Loader),
    installed("auto-load", Module::Loader),
    installed("consign", Module::Loader),
    installed("express-load", Module::Loader),
    installed("traverse-folders", Module::Loader),
    // feathers.rs (database adapters)
    installed("feathers-mongoose", Module::FeathersAdapter),
    installed("feathers-sequelize", Module::FeathersAdapter),
    installed("feathers-memory", Module::FeathersAdapter),
    installed("feathers-knex", Module::FeathersAdapter),
    installed("feathers-nedb", Module::FeathersAdapter),
    installed("feathers-mongodb", Module::FeathersAdapter),
    installed("feathers-objection", Module::FeathersAdapter),
    installed("feathers-localstorage", Module::FeathersAdapter),
    installed("feathers-elasticsearch", Module::FeathersAdapter),
    installed("feathers-prisma", Module::FeathersAdapter),
    installed("feathers-blob", Module::FeathersAdapter),
    installed("feathers-mailer", Module::FeathersAdapter),
    installed("@feathersjs/memory", Module::FeathersAdapter),
    installed("@feathersjs/mongodb", Module::FeathersAdapter),
    installed("@feathersjs/knex", Module::FeathersAdapter),
    installed("@feathersjs/authentication", Module::FeathersAdapter),
    // passport.rs
    installed("passport", Module::Passport),
    // lodash.rs
    installed("lodash", Module::Lodash),
    // bluebird.rs
    installed("bluebird", Module::Promise),
    installed("lodash-es", Module::Lodash),
    installed("underscore", Module::Lodash),
    installed("ramda", Module::Lodash),
    // stores.rs
    installed("zustand", Module::Zustand),
    installed("zustand/vanilla", Module::Zustand),
    installed("zustand/middleware", Module::Zustand),
    installed("zustand/middleware/immer", Module::Zustand),
    installed("pinia", Module::Zustand),
    // (An import from `svelte/store` resolves to the package `svelte`.)
    installed("svelte", Module::Zustand),
    installed("svelte/store", Module::Zustand),
    // swr.rs
    installed("swr", Module::Zustand),
    installed("swr/immutable", Module::Zustand),
    // react.rs
    installed("react", Module::React),
    installed("react-redux", Module::ReactRedux),
    // vue.rs
    installed("vue", Module::Vue),
    installed("vue-socket.io", Module::VueSocket),
    installed("vue-socket.io-extended", Module::VueSocket),
    // di.rs
    installed("typedi", Module::Di),
    installed("tsyringe", Module::Di),
    modelled("@n8n/di", Module::Di),
    installed("@angular/core", Module::Di),
    installed("inversify", Module::Di),
    // documents.rs
    modelled("js-yaml", Module::Family),
    modelled("yaml", Module::Family),
    modelled("yamljs", Module::Family),
    modelled("@apidevtools/json-schema-ref-parser", Module::Family),
    modelled("json-schema-ref-parser", Module::Family),
    modelled("@apidevtools/swagger-parser", Module::Family),
    modelled("swagger-parser", Module::Family),
];

/// Packages that serve HTTP or Socket.IO the way the modules above model
/// (Express itself, or a framework whose apps serve through it): a
/// package.json that depends on one can start a server, so its `main` and
/// start scripts are entries (`pipeline::server_packages`). Nest's and
/// LoopBack 4's apps serve through Express unless told otherwise.
pub(crate) const SERVER_PACKAGES: &[&str] = &[
    "express",
    "socket.io",
    "@nestjs/core",
    "@loopback/rest",
    "@feathersjs/express",
    "@feathersjs/koa",
    "@feathersjs/socketio",
    "loopback",
    "polka",
    "@tinyhttp/app",
    "routing-controllers",
    "@tsed/platform-express",
    "@foal/core",
    "kraken-js",
];

fn row(name: &str) -> Option<&'static Package> {
    PACKAGES.iter().find(|p| p.name == name)
}

/// Whether the resolver models `name` instead of reading it.
pub(crate) fn is_modelled(name: &str) -> bool {
    row(name).is_some_and(|p| p.resolve == Resolve::Modelled)
        || lodash::method_module(name).is_some()
}

/// The value a modelled package's module gives (an opaque module for a
/// specifier nobody models).
pub(crate) fn modelled_module(pkg: &str) -> Value {
    match row(pkg).map(|p| p.module) {
        Some(m) if m != Module::Family => value_of(pkg, m),
        _ => dropins::default_export(pkg)
            .or_else(|| resource_router::default_export(pkg))
            .or_else(|| feathers::default_export(pkg))
            .or_else(|| served::default_export(pkg))
            .or_else(|| enrouten::default_export(pkg))
            .or_else(|| openapi_backend::default_export(pkg))
            .or_else(|| lodash::method_module(pkg))
            .or_else(|| loopback::default_export(pkg))
            .or_else(|| crate::machine::node::module(pkg))
            .unwrap_or_else(|| Value::Builtin(Builtin::OpaqueModule(Rc::from(pkg)))),
    }
}

/// The value of an installed package this table models, if it gives one.
pub(crate) fn installed_module(pkg: &str) -> Option<Value> {
    let p = row(pkg).filter(|p| p.resolve == Resolve::Installed)?;
    (p.module != Module::Family).then(|| value_of(pkg, p.module))
}

fn value_of(pkg: &str, m: Module) -> Value {
    match m {
        Module::Zustand => return stores::module(pkg),
        Module::Di => return di::module(pkg),
        _ => {}
    }
    Value::Builtin(match m {
        Module::Express => Builtin::Express,
        Module::SocketIo => Builtin::SocketIo,
        Module::SocketIoClient => Builtin::SocketIoClient,
        Module::Zod => Builtin::Zod,
        Module::Joi => Builtin::Joi,
        Module::Celebrate => Builtin::Celebrate,
        Module::ExpressValidator => Builtin::CheckField(crate::value::CheckField::Module),
        Module::Ajv => Builtin::Ajv,
        Module::JsonValidator => Builtin::JsonValidator,
        Module::HttpStatus => Builtin::HttpStatus,
        Module::UrlJoin => Builtin::UrlJoin,
        Module::Path => Builtin::PathModule,
        Module::Fs => Builtin::FsModule,
        Module::EventEmitter => Builtin::EventEmitterCtor,
        Module::CallSite => Builtin::Node(NodeFn::CallSites),
        Module::Lodash if pkg == lodash::RAMDA => Builtin::Lodash(Rc::from(lodash::RAMDA)),
        Module::Lodash => Builtin::Lodash(Rc::from("")),
        Module::Promise => Builtin::PromiseNs,
        Module::Passport => Builtin::OpaqueModule(Rc::from("passport")),
        Module::FeathersAdapter => return feathers::adapter(pkg),
        Module::React => return react::module(),
        Module::ReactRedux => return react::redux_module(),
        Module::Vue => return vue::module(),
        Module::VueSocket => return vue::socket_plugin_module(pkg),
        Module::Inherits => Builtin::Node(NodeFn::Inherits),
        Module::Glob { dirs } => Builtin::Node(NodeFn::Glob(dirs)),
        Module::Loader => Builtin::Node(NodeFn::Loader(loader_name(pkg))),
        Module::Family | Module::Zustand | Module::Di => Builtin::OpaqueModule(Rc::from(pkg)),
    })
}

/// The `'static` name of a directory loader package (its row's name).
fn loader_name(pkg: &str) -> &'static str {
    row(pkg).map_or("", |p| p.name)
}

/// A hook answering a member of a package's module (`OpaqueModule(pkg)`) or
/// of a value a library made (`Framework(name)`): `None` when the library
/// does not model it.
type MemberHook = fn(&str, &str) -> Option<Value>;

/// Members of package modules, asked in this order; the first answer wins.
/// A module no row answers gives a function of the package
/// (`MiddlewareFactory`, in the machine).
const MODULE_MEMBERS: &[MemberHook] = &[
    nest::member,
    dropins::member,
    resource_router::member,
    feathers::member,
    finale::member,
    overnight::member,
    typescript_rest::member,
    oas3::member,
    express_openapi::member,
    openapi_validator::member,
    keystone::member,
    swagger_routes::member,
    openapi_backend::member,
    swagger_tools::member,
    served::member,
    enrouten::member,
    routing_controllers::member,
    socket_controllers::member,
    nest_modules::io_adapter_member,
    inversify::member,
    awilix::member,
    decorators_express::member,
    tsed::member,
    foal::member,
    documents::member,
    oclif::member,
    passport::member,
    microframework::member,
    nconf::member,
    loopback4::member,
];

/// Members of the values libraries made (`Framework`), asked in this order.
const FRAMEWORK_MEMBERS: &[MemberHook] = &[
    angular::framework_member,
    typescript_rest::framework_member,
    react::framework_member,
    openapi_backend::framework_member,
    feathers::framework_member,
    vue::member,
    served::framework_member,
    dropins::framework_member,
    nest::framework_member,
    nest_ws::host_member,
    tsed::framework_member,
    awilix::framework_member,
];

/// Members of the modelled packages' own values (`express.Router`,
/// `HttpStatus.NOT_FOUND`, `z.string`), asked in this order.
const BUILTIN_MEMBERS: &[BuiltinMemberHook] = &[
    express_app_members::module_member,
    express_http::status_member,
    validators::module_member,
    schemas::zod_member,
    socketio_modules::module_member,
    url_join_member,
    bluebird::builtin_member,
];

/// A hook answering a member of a package's value the machine holds.
type BuiltinMemberHook = fn(&Builtin, &str) -> Option<Value>;

/// `url-join`'s default export is the function itself.
fn url_join_member(b: &Builtin, prop: &str) -> Option<Value> {
    matches!((b, prop), (Builtin::UrlJoin, "default")).then_some(Value::Builtin(Builtin::UrlJoin))
}

/// What `x.prop` gives when `x` is a value a library owns (a package's
/// module, a value it made, a store's or container's function, lodash):
/// `None` when no library models it, and the machine decides.
pub(crate) fn member(b: &Builtin, prop: &str) -> Option<Value> {
    match b {
        Builtin::Store(f) => Some(stores::member(*f, prop)),
        Builtin::Di(f) => Some(di::member(*f, prop)),
        Builtin::Lodash(m) => Some(lodash::member(m, prop)),
        Builtin::OpaqueModule(m) => MODULE_MEMBERS.iter().find_map(|hook| hook(m, prop)),
        Builtin::Framework(n) => FRAMEWORK_MEMBERS.iter().find_map(|hook| hook(n, prop)),
        _ => BUILTIN_MEMBERS.iter().find_map(|hook| hook(b, prop)),
    }
}

/// A call of a function `name` of the package `pkg`, which the analysis
/// does not model as a whole, that one library gives meaning to (RxJS's
/// `fromEvent` over a socket): what it returns, `None` when none does.
pub(crate) fn external_call(
    ip: &mut Interp,
    ctx: &Ctx,
    pkg: &str,
    name: &str,
    call: &crate::ir::Call,
    argv: &[Value],
) -> Option<Value> {
    rxjs::external_call(ip, ctx, pkg, name, call, argv)
        .or_else(|| curry::external_call(pkg, name, argv))
}

/// Whether a census receiver bound to `pkg` can register routes: a route
/// generator's module (`finale.resource({...})`).
pub(crate) fn generates_routes(pkg: &str) -> bool {
    finale::member(pkg, "resource").is_some()
}

/// Whether a package's verb decorators declare routes on a class with no
/// controller decorator of its own (FoalTS's and LoopBack 4's controllers
/// are plain classes): the census counts them.
pub(crate) fn bare_controllers(pkg: &str) -> bool {
    foal::routes_on_plain_classes(pkg) || loopback4::routes_on_plain_classes(pkg)
}

/// A hook answering a call of a value a library made (`Framework(name)`),
/// given the arguments' values and expressions: `None`, with nothing done,
/// when the library does not model `name`.
type CallHook = fn(&mut Interp, &Ctx, &str, &[Value], &[Expr], u32) -> Option<Value>;

/// Calls of the values libraries made, asked in this order; a value no row
/// answers gives an unknown value.
const FRAMEWORK_CALLS: &[CallHook] = &[
    |ip, _, name, _, _, _| ip.nest_ws_host_call(name),
    |ip, _, name, argv, _, _| typescript_rest::call(ip, name, argv),
    |ip, ctx, name, argv, _, line| socket_controllers::call(ip, ctx, name, argv, line),
    |ip, ctx, name, argv, args, line| {
        (name == "create").then(|| ip.nest_create(ctx, argv, args, line))
    },
    |ip, ctx, name, argv, _, line| {
        (name == "tsoa.RegisterRoutes").then(|| ip.tsoa_register_routes(ctx, argv, line))
    },
    |ip, ctx, name, argv, _, line| {
        matches!(name, "createExpressServer" | "useExpressServer")
            .then(|| ip.routing_controllers_server(ctx, name, argv, line))
    },
    |ip, ctx, name, argv, _, line| {
        (name == "tsed.bootstrap").then(|| ip.tsed_bootstrap(ctx, argv, line))
    },
    |ip, ctx, name, argv, _, line| {
        (name == "foal.createApp").then(|| ip.foal_create_app(ctx, argv, line))
    },
    |ip, _, name, argv, _, _| ip.nest_module_decorate(name, argv),
    |ip, _, name, argv, _, _| ip.microframework_data(name, argv),
    |ip, _, name, argv, _, _| ip.nconf_call(name, argv),
    // Nest's `forwardRef(() => X)` is `X`.
    |ip, ctx, name, argv, _, line| {
        (name == "forwardRef").then(|| match argv.first() {
            Some(f @ Value::Func(_)) => ip.call_value_now(ctx, f, Vec::new(), &[], line, None),
            _ => Value::dynamic(),
        })
    },
    |ip, ctx, name, argv, args, line| ip.awilix_call(ctx, name, argv, args, line),
    |ip, ctx, name, argv, _, line| ip.decorators_express_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| ip.dropin_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| ip.ng_zone_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| ip.react_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| ip.feathers_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| ip.vue_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| ip.served_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| {
        (name == "oas3-tools.expressAppConfig").then(|| ip.oas3_app_config(ctx, argv, line))
    },
    |ip, ctx, name, argv, _, line| {
        (name == "express-openapi.initialize")
            .then(|| ip.express_openapi_initialize(ctx, argv, line))
    },
    |ip, ctx, name, argv, _, line| {
        (name == "express-openapi-validator.middleware")
            .then(|| ip.openapi_validator_middleware(ctx, argv, line))
    },
    |ip, ctx, name, argv, _, line| ip.openapi_validator_install(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| {
        (name == "swagger-routes-express.connector")
            .then(|| ip.swagger_routes_connector(ctx, argv, line))
    },
    |ip, ctx, name, argv, _, line| ip.swagger_routes_connect(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| enrouten::call(ip, ctx, name, argv, line),
    |ip, _, name, argv, _, _| ip.openapi_backend_call(name, argv),
    |ip, ctx, name, argv, _, line| ip.swagger_tools_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| ip.finale_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| {
        (name == resource_router::PACKAGE).then(|| ip.resource_router(ctx, argv, line))
    },
    |ip, ctx, name, argv, _, line| ip.loopback_call(ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| loopback4::call(ip, ctx, name, argv, line),
    |ip, ctx, name, argv, _, line| ip.document_call(ctx, name, argv, line),
];

/// A hook answering `new` of a value a library made (`Framework(name)`).
type ConstructHook = fn(&mut Interp, &Ctx, &str, &[Value], u32) -> Option<Value>;

/// `new` of the values libraries made, asked in this order; a value no row
/// answers is constructed as JavaScript would (by the machine).
const FRAMEWORK_CONSTRUCTS: &[ConstructHook] = &[
    socket_controllers::construct,
    Interp::openapi_backend_new,
    |ip, _, name, argv, _| ip.openapi_validator_new(name, argv),
    |ip, ctx, name, argv, line| {
        (name == "InversifyExpressServer").then(|| ip.inversify_server(ctx, argv, line))
    },
    |_, _, name, _, _| feathers::adapter_value(name, true),
    |_, _, name, _, _| angular::construct(name),
    |_, _, name, _, _| passport::construct(name),
    |ip, ctx, name, argv, line| {
        (name == vue::VUE_SOCKET_IO).then(|| ip.vue_socket_plugin(ctx, argv, line))
    },
    |ip, ctx, name, _, line| {
        overnight::is_server_name(name).then(|| ip.overnight_server(Value::Undef, ctx.file, line))
    },
    |_, _, name, _, _| {
        (name == "ApolloServer")
            .then(|| Value::Builtin(Builtin::Framework(Rc::from("apollo-server"))))
    },
];

/// Calls of packages' functions (`MiddlewareFactory`, named `pkg.member`),
/// asked in this order; one no row answers is followed as middleware (its
/// callbacks run).
const FACTORY_CALLS: &[CallHook] = &[
    |ip, _, name, argv, _, _| (name == nest::MODULE_FACTORY).then(|| ip.nest_module_factory(argv)),
    |ip, ctx, name, argv, args, line| {
        (name == passport::AUTHENTICATE).then(|| ip.passport_authenticate(ctx, argv, args, line))
    },
    |ip, ctx, name, argv, _, line| {
        let method = name.strip_prefix(nest::GRAPHQL_MODULE)?;
        Some(ip.nest_graphql_module(ctx, method, argv, line))
    },
    |ip, ctx, name, _, _, line| (name == oclif::RUN).then(|| ip.oclif_run(ctx, line)),
    |ip, ctx, name, argv, _, line| {
        (name == microframework::BOOTSTRAP).then(|| ip.microframework_bootstrap(ctx, argv, line))
    },
    |ip, ctx, name, argv, args, line| {
        (name == nest::REGISTER_WHEN).then(|| ip.nest_register_when(ctx, argv, args, line))
    },
    |ip, _, _, argv, _, _| loopback4::mixin(ip, argv),
];

/// A hook answering a call of a library value the machine still knows by a
/// `Builtin` variant of its own (`express()`, `Router()`, Socket.IO's
/// constructors, `Store`, `Di`, `Lodash`, Zod's and Joi's builders, …):
/// `None` for every other callee.
type VariantCallHook = fn(&mut Interp, &Ctx, &Builtin, &[Value], &[Expr], u32) -> Option<Value>;

/// Calls of library values by their `Builtin` variant (the machine asks
/// [`call`] for exactly these variants); each row answers for its variants
/// only, so the order decides nothing.
const VARIANT_CALLS: &[VariantCallHook] = &[
    |ip, _, b, argv, _, _| match b {
        Builtin::NestWs(name) => ip.nest_ws_call(name, argv),
        _ => None,
    },
    |ip, ctx, b, argv, _, line| ip.validator_call(ctx, b, argv, line),
    |ip, ctx, b, argv, _, line| match b {
        Builtin::Express => Some(ip.new_router(ctx.file, line, true)),
        Builtin::RouterCtor => Some(ip.new_router_with(ctx.file, line, argv)),
        _ => None,
    },
    |ip, ctx, b, argv, args, line| match b {
        Builtin::SocketIo | Builtin::SocketIoServer => Some(ip.new_sio_server(ctx, argv, line)),
        Builtin::SocketIoClient => Some(ip.new_sio_client(argv, args, false)),
        Builtin::SocketIoManager => Some(ip.new_sio_client(argv, args, true)),
        Builtin::CatchAllAck(i) => {
            ip.catch_all_acked(*i);
            Some(Value::Undef)
        }
        _ => None,
    },
    |ip, ctx, b, argv, args, line| match b {
        Builtin::AddControllers(app) => {
            Some(ip.overnight_add_controllers(ctx, *app, argv, args, line))
        }
        Builtin::PassportMiddleware(denies) => {
            Some(ip.passport_middleware(ctx, *denies, argv, args, line))
        }
        Builtin::CheckField(part) => Some(ip.check_field(*part, argv)),
        _ => None,
    },
    |ip, ctx, b, argv, _, line| match b {
        Builtin::Store(f) => Some(ip.store_call(ctx, *f, argv.to_vec(), line)),
        _ => None,
    },
    |ip, ctx, b, argv, _, line| match b {
        Builtin::SetState(i) => Some(ip.react_set_state(ctx, *i, argv, line)),
        _ => None,
    },
    |ip, ctx, b, argv, _, line| match b {
        Builtin::Di(f) => Some(ip.di_call(ctx, *f, argv.to_vec(), line)),
        _ => None,
    },
    |ip, ctx, b, argv, _, line| match b {
        Builtin::ZodBuilder(n) => Some(ip.zod_builder(n, argv)),
        Builtin::JoiBuilder(n) => Some(ip.joi_builder(ctx, n, argv, line)),
        Builtin::Celebrate => Some(ip.celebrate(argv)),
        _ => None,
    },
    |ip, ctx, b, argv, args, line| match b {
        // `_(...)` itself: its callbacks run.
        Builtin::Lodash(n) if n.is_empty() => {
            ip.run_callbacks(ctx, argv, args, line);
            Some(Value::external())
        }
        Builtin::Lodash(n) => Some(ip.lodash_call(ctx, n, argv.to_vec(), args, line)),
        _ => None,
    },
];

/// A hook run by `super(...)` in a constructor whose class extends a value a
/// library made (`class S extends Server`), given the base, `this` and the
/// arguments: whether it ran the base's constructor on `this`.
type SuperHook = fn(&mut Interp, &Value, &Value, &[Value]) -> bool;

/// `super(...)` into libraries' classes, asked in this order.
const SUPER_CONSTRUCTS: &[SuperHook] = &[
    |ip, base, this, _| overnight::super_construct(ip, base, this),
    loopback4::super_construct,
];

/// A hook answering `super.name(...)` in a method of a class that extends a
/// value a library made (`super.boot()`), given the base: `None` when the
/// library does not model it.
type SuperMethodHook = fn(&mut Interp, &Ctx, &Value, &str, &[Value], u32) -> Option<Value>;

/// `super.name(...)` into libraries' classes, asked in this order.
const SUPER_METHODS: &[SuperMethodHook] = &[
    |ip, ctx, base, name, _, line| ip.io_adapter_super(ctx, base, name, line),
    loopback4::super_method,
];

/// `super.name(...)` into the library class `base`: the first row of
/// [`SUPER_METHODS`] that answers.
pub(crate) fn super_method(
    ip: &mut Interp,
    ctx: &Ctx,
    base: &Value,
    name: &str,
    argv: &[Value],
    line: u32,
) -> Option<Value> {
    SUPER_METHODS
        .iter()
        .find_map(|hook| hook(ip, ctx, base, name, argv, line))
}

/// Library classes whose constructor puts their methods on the instance
/// (`super.addControllers(...)` is then a method of `this`), by predicate.
const OWN_METHOD_BASES: &[fn(&Value) -> bool] = &[overnight::is_server];

/// An HTTP status a decorator states (`@HttpCode(201)`): a whole number
/// from 100 to 599, else none (a mistyped or computed one is no status).
pub(crate) fn http_status(v: &Value) -> Option<u16> {
    match v {
        Value::Num(n) if (100.0..600.0).contains(n) && n.fract() == 0.0 => Some(*n as u16),
        _ => None,
    }
}

/// A value a library made, known by its name (`Framework(name)`; see the
/// hook tables above).
pub(crate) fn framework(name: &str) -> Value {
    Value::Builtin(Builtin::Framework(Rc::from(name)))
}

/// A value a library made that stands for an entry of its state (a router,
/// a Socket.IO server, a plugin's socket): the name `prefix` followed by the
/// entry's index (read back by [`index_in`]).
pub(crate) fn indexed(prefix: &str, index: impl std::fmt::Display) -> Value {
    framework(&format!("{prefix}{index}"))
}

/// The index an [`indexed`] value's name carries, when it starts with `prefix`.
pub(crate) fn index_in<T: std::str::FromStr>(name: &str, prefix: &str) -> Option<T> {
    name.strip_prefix(prefix)?.parse().ok()
}

/// A call of a value a library made (`Framework(name)`: the first row of
/// [`FRAMEWORK_CALLS`] that answers), of a package's function
/// (`MiddlewareFactory(name)`: of [`FACTORY_CALLS`]) or of a library value
/// the machine knows by a variant of its own (of [`VARIANT_CALLS`]); `None`
/// when no row answers.
pub(crate) fn call(
    ip: &mut Interp,
    ctx: &Ctx,
    callee: &Builtin,
    argv: &[Value],
    args: &[Expr],
    line: u32,
) -> Option<Value> {
    let (table, name) = match callee {
        Builtin::Framework(n) => (FRAMEWORK_CALLS, n),
        Builtin::MiddlewareFactory(n) => (FACTORY_CALLS, n),
        _ => {
            return VARIANT_CALLS
                .iter()
                .find_map(|hook| hook(ip, ctx, callee, argv, args, line));
        }
    };
    table
        .iter()
        .find_map(|hook| hook(ip, ctx, name, argv, args, line))
}

/// A method call on a value a library made (an Express router or route
/// chain, a request or response, a Socket.IO value, an event key, a schema,
/// a validator chain, a directory loader's chain, an inversify server):
/// `None` when `o` is no such value.
pub(crate) fn method(
    ip: &mut Interp,
    ctx: &Ctx,
    o: &Value,
    name: &str,
    call: &crate::ir::Call,
) -> Option<Value> {
    Some(match o {
        // An app or router is no thenable: `then` on one is the method of a
        // promise that settled to it (`Promise.resolve(app).then((app) =>
        // …)`), which the machine runs.
        Value::Router(_) if matches!(name, "then" | "finally") => return None,
        Value::Router(id) => ip.router_method(ctx, *id, name, call),
        Value::Chain(id, paths) => ip.chain_method(ctx, *id, paths, o, name, call),
        Value::Http(h) => ip.http_method(ctx, *h, name, call),
        Value::Sio(s) => ip.sio_method(ctx, s, name, call),
        Value::EventKey(k) => ip.event_key_method(ctx, k, name, call),
        Value::Zod(z) => ip.schema_method(ctx, z, name, call),
        Value::Validator(v) => {
            let argv = ip.eval_args(ctx, &call.args);
            ip.validator_method(v, name, &argv)
        }
        Value::Builtin(Builtin::Node(NodeFn::LoadChain(chain))) => {
            ip.load_chain_method(ctx, chain, name, call)
        }
        Value::Builtin(Builtin::InversifyServer(id)) => ip.inversify_method(ctx, *id, name, call),
        _ => return None,
    })
}

/// `o.prop = v` on a value a library made: a Socket.IO value keeps what the
/// program writes on it (`Interp::set_sio_prop`); other writes are dropped.
pub(crate) fn set_value_member(ip: &mut Interp, o: &Value, prop: &str, v: Value) {
    if let Value::Sio(s) = o {
        ip.set_sio_prop(s, prop, v);
    }
}

/// A member of a value a library made (a Socket.IO value, a request or
/// response, a Zod object's `shape`, an Express app or router): `None` when
/// `o` is no such value or the library gives no member.
pub(crate) fn value_member(ip: &mut Interp, o: &Value, prop: &str) -> Option<Value> {
    Some(match o {
        Value::Sio(s) => ip.sio_member(s, prop),
        Value::Http(h) => ip.http_member(*h, prop),
        Value::Zod(z) if prop == "shape" => shape_of(z),
        Value::Router(id) => match ip.rec.routers[*id as usize].props.get(prop) {
            Some(v) => v.clone(),
            None => ip.express_app_member(*id, prop).unwrap_or(Value::dynamic()),
        },
        _ => return None,
    })
}

/// Whether a file is one a file-based router may serve (below Next.js's
/// `pages/api/`, whatever its package depends on; Nitro's `server/api/` and
/// `server/routes/` in a package that depends on it): its census counts
/// although nothing loads it.
pub(crate) fn file_router_path(
    project: &crate::project::Project,
    file: crate::project::FileId,
) -> bool {
    next_pages::route_of(project.rel(file)).is_some() || nitro::served(project, file).is_some()
}

/// How a file-based router the analysis does not model serves a module's
/// default-exported handler (Next.js's API routes, Nitro's server routes):
/// the reason of its `unmodelled-framework` loss, `None` when none does.
pub(crate) fn file_router(
    project: &crate::project::Project,
    file: crate::project::FileId,
) -> Option<String> {
    if let Some(route) = next_pages::served(project, file) {
        return Some(format!(
            "Next.js serves this module's default export at `{route}` for every method (an API route of the Pages Router); Portolan does not model Next.js, so it is not charted"
        ));
    }
    let (method, route) = nitro::served(project, file)?;
    let at = match method {
        Some(m) => format!("`{} {route}`", m.to_ascii_uppercase()),
        None => format!("`{route}` for every method"),
    };
    Some(format!(
        "Nitro (Nuxt's server) serves this module's default export at {at} (a server route); Portolan does not model Nitro, so it is not charted"
    ))
}

/// What iterating a value a library made gives (`for (const [id, s] of
/// io.sockets.sockets)`, `Array.from(…)`, `[...…]`): `None` when `v` is no
/// such value.
pub(crate) fn iterated(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Sio(s) => socketio::iterated(s),
        _ => None,
    }
}

/// A compiled validator (`ajv.compile(schema)`, a schema value `f`) called
/// with the request.
pub(crate) fn apply_validator(
    ip: &mut Interp,
    ctx: &Ctx,
    f: &Value,
    argv: Vec<Value>,
    line: u32,
) -> Value {
    let mut all = vec![f.clone()];
    all.extend(argv);
    ip.note_validation(ctx, line, &all, "ajv");
    Value::dynamic()
}

/// Class decorators of packages whose meaning is what they do when the class
/// is defined, so the machine applies them as TypeScript does (in
/// `machine/decorators.rs`), through [`call`]: Nest's `@Module(meta)` stores
/// `meta` as the class's metadata, which the program may read or replace
/// before Nest's scanner reads it. Other packages' decorators are read from
/// the class's syntax by their library.
const DEFINITION_DECORATORS: &[&str] = &[nest::MODULE_FACTORY];

/// Whether `f`, the callee of a class decorator, is one of
/// [`DEFINITION_DECORATORS`].
pub(crate) fn applies_at_definition(f: &Value) -> bool {
    matches!(f, Value::Builtin(Builtin::MiddlewareFactory(n)) if DEFINITION_DECORATORS.contains(&n.as_ref()))
}

/// Properties set on values libraries made (`Vue.prototype.name = v`):
/// each row says whether it kept the value; asked in this order.
const SET_MEMBERS: &[SetMemberHook] = &[Interp::vue_set_global];

/// A hook keeping `x.prop = v` for a value a library made (`Framework(name)`):
/// whether it kept it.
type SetMemberHook = fn(&mut Interp, &str, &str, &Value) -> bool;

/// Properties of values libraries made that read what the run kept
/// (`Vue.prototype.name`), asked in this order before [`member`].
const STATE_MEMBERS: &[StateMemberHook] = &[Interp::vue_globals_member];

/// A hook answering `x.prop` for a value a library made from the run's state.
type StateMemberHook = fn(&Interp, &str, &str) -> Option<Value>;

/// A name no binding in scope holds (`$socket` in a Svelte component: the
/// store's value, `stores.rs`), asked before the globals.
pub(crate) fn unbound_name(ip: &mut Interp, ctx: &Ctx, name: &str) -> Option<Value> {
    if !name.starts_with('$') {
        return None;
    }
    ip.svelte_auto_subscription(ctx, name)
}

/// What an object literal means to a library (Vue components' `sockets`
/// option), asked of each literal the code evaluates: every row runs.
const OBJECT_LITERALS: &[fn(&mut Interp, &Ctx, &Rc<crate::value::ObjData>)] =
    &[Interp::vue_socket_option, Interp::vue_options_component];

/// An object literal the code evaluated: each row of [`OBJECT_LITERALS`]
/// notes what it means.
pub(crate) fn object_literal(ip: &mut Interp, ctx: &Ctx, obj: &Rc<crate::value::ObjData>) {
    for hook in OBJECT_LITERALS {
        hook(ip, ctx, obj);
    }
}

/// What a value thrown inside a route handler (or passed to `next(err)`)
/// means, asked in this order: every row runs.
const THROWN: &[ThrownHook] = &[Interp::note_error_status];

/// A hook noting what a value thrown at a line (or passed to `next`) means.
type ThrownHook = fn(&mut Interp, &Ctx, &Value, &Expr, u32);

/// A value `e` thrown inside a route handler, or passed to `next`: each row
/// of [`THROWN`] notes what it means (an error with a status is a response).
pub(crate) fn thrown(ip: &mut Interp, ctx: &Ctx, v: &Value, e: &Expr, line: u32) {
    for hook in THROWN {
        hook(ip, ctx, v, e, line);
    }
}

/// What a parameter declared with a library's type stands for when its
/// argument is only known at run time, asked in this order: the first row
/// that answers.
const TYPED_UNKNOWN_ARGS: &[TypedArgHook] = &[Interp::typed_unknown_sio];

/// A hook giving the value a parameter's declared type stands for.
type TypedArgHook = fn(&mut Interp, &Closure, usize, &Value) -> Option<Value>;

/// The argument `v` of parameter `i` of `c`, when only known at run time
/// and the parameter's declared type is a modelled library's (a Socket.IO
/// `Server`): the first row of [`TYPED_UNKNOWN_ARGS`] that answers. An
/// object argument is handed to the rows too, for its members of such types
/// (they fill them in and answer `None`).
pub(crate) fn typed_unknown_arg(
    ip: &mut Interp,
    c: &Closure,
    i: usize,
    v: &Value,
) -> Option<Value> {
    if !matches!(v, Value::Unknown(_) | Value::Undef | Value::Obj(_))
        || c.func.param_types.get(i)?.is_none()
    {
        return None;
    }
    TYPED_UNKNOWN_ARGS.iter().find_map(|hook| hook(ip, c, i, v))
}

/// `x.prop = v` where `x` is a value a library made (`Framework(name)`):
/// whether a row of [`SET_MEMBERS`] kept it.
pub(crate) fn set_member(ip: &mut Interp, name: &str, prop: &str, v: &Value) -> bool {
    SET_MEMBERS.iter().any(|hook| hook(ip, name, prop, v))
}

/// `x.prop` where `x` is a value a library made and the answer is what the
/// run kept: the first row of [`STATE_MEMBERS`] that answers.
pub(crate) fn state_member(ip: &Interp, name: &str, prop: &str) -> Option<Value> {
    STATE_MEMBERS.iter().find_map(|hook| hook(ip, name, prop))
}

/// `new c(...)` of a value a library made: the first row of
/// [`FRAMEWORK_CONSTRUCTS`] that answers.
pub(crate) fn construct(
    ip: &mut Interp,
    ctx: &Ctx,
    c: &Value,
    argv: &[Value],
    line: u32,
) -> Option<Value> {
    let Value::Builtin(Builtin::Framework(name)) = c else {
        return None;
    };
    FRAMEWORK_CONSTRUCTS
        .iter()
        .find_map(|hook| hook(ip, ctx, name, argv, line))
}

/// `new b(...)` of a library value whose `new` is its call: Express and
/// its `Router`, Socket.IO's server and client (`new Server(http)`, `new
/// Manager(url)`), Ajv and `jsonschema`'s `Validator`. `None` for any other.
pub(crate) fn construct_builtin(
    ip: &mut Interp,
    ctx: &Ctx,
    b: &Builtin,
    argv: &[Value],
    args: &[Expr],
    line: u32,
) -> Option<Value> {
    match b {
        Builtin::Express
        | Builtin::RouterCtor
        | Builtin::SocketIo
        | Builtin::SocketIoServer
        | Builtin::SocketIoManager
        | Builtin::SocketIoClient
        | Builtin::Ajv
        | Builtin::JsonValidator
        | Builtin::Di(_) => call(ip, ctx, b, argv, args, line),
        _ => None,
    }
}

/// `super(...)` into the library class `base` for the instance `this`:
/// whether a row of [`SUPER_CONSTRUCTS`] ran it.
pub(crate) fn super_construct(ip: &mut Interp, base: &Value, this: &Value, argv: &[Value]) -> bool {
    SUPER_CONSTRUCTS
        .iter()
        .any(|hook| hook(ip, base, this, argv))
}

/// Library classes whose instances the analysis models as a value of the
/// library's own (an Apollo server, a Socket.IO server), not as an object of
/// the class: an instance of a program's subclass is that value, as the
/// library's constructor builds it (`class P extends ApolloServer`, `class G
/// extends Server`). Classes whose subclasses a library rule reads as
/// objects (Feathers services, overnight servers) are not here.
pub(crate) fn instance_is_library_value(base: &Value) -> bool {
    match base {
        Value::Builtin(Builtin::SocketIo | Builtin::SocketIoServer) => true,
        Value::Builtin(Builtin::Framework(n)) => n.as_ref() == "ApolloServer",
        _ => false,
    }
}

/// Whether `base` is a library class whose constructor put its methods on
/// the instance ([`OWN_METHOD_BASES`]).
pub(crate) fn methods_on_instance(base: &Value) -> bool {
    OWN_METHOD_BASES.iter().any(|is| is(base))
}

/// A hook that makes the instance of a class nobody in the program
/// constructs when a library's framework would (a DI container's service):
/// the instance, or `None` when the class is not the library's to make.
type MadeHook = fn(&mut Interp, &Rc<crate::value::ClassVal>) -> Option<Value>;

/// Libraries that make instances of the program's classes, asked in this order.
const FRAMEWORK_MADE: &[MadeHook] = &[Interp::di_made];

/// The instance of `cv` a library's framework makes (see [`FRAMEWORK_MADE`]),
/// for the uncalled-methods pass that runs the methods of a class nobody
/// constructs.
pub(crate) fn framework_instance(
    ip: &mut Interp,
    cv: &Rc<crate::value::ClassVal>,
) -> Option<Value> {
    FRAMEWORK_MADE.iter().find_map(|hook| hook(ip, cv))
}

impl crate::machine::Interp {
    /// A path option of a framework's options object (`{ rootPath: '/api' }`):
    /// its text; `None` when the option is absent, or only known at run time,
    /// which a `dynamic-path` finding then says (`what` names the option and
    /// the call: "the `rootPath` of `new InversifyExpressServer(...)`").
    pub(crate) fn path_option(
        &mut self,
        ctx: &crate::machine::Ctx,
        line: u32,
        opts: &crate::value::ObjData,
        key: &str,
        what: &str,
    ) -> Option<String> {
        let v = opts.get(key)?;
        match self.force_deep(v) {
            Value::Undef => None,
            v => match v.as_text() {
                Some(t) => Some(t),
                None => {
                    self.finding(
                        crate::inventory::FindingCode::DynamicPath,
                        ctx.file,
                        line,
                        format!("{what} is only known at run time; routes are charted without it"),
                    );
                    None
                }
            },
        }
    }
}

#[cfg(test)]
mod tests;
