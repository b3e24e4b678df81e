//! Packages that register Express routes under other names, and GraphQL
//! servers mounted on Express.
//!
//! Captures: drop-in routers (`express-promise-router`'s `Router()`,
//! `co-router`'s `new Router()` (generator handlers run by co), the
//! standalone `router` package Express's own router is (`Router()`),
//! `express-async-router`'s `AsyncRouter()`, `@awaitjs/express`'s `Router()`
//! and `addAsync(app)` with `getAsync`/`postAsync`/…/`useAsync`);
//! Express-compatible servers whose apps register routes as Express's do
//! (`new App()` of `@tinyhttp/app`, `polka()`: `get`/`post`/…/`use`,
//! sub-apps mounted with `use(prefix, app)`);
//! `express-ws` (`require('express-ws')(app)` gives `{app}`; `app.ws(path, h)`
//! is the WebSocket upgrade, charted as `GET path`); GraphQL servers as one
//! `POST` operation at their path: `apolloServer.applyMiddleware({app, path})`
//! (apollo-server-express 2/3, path `/graphql` by default) and the router
//! its `getMiddleware({path})` gives, at that path below its `use`,
//! `app.use(path, expressMiddleware(server))` (`@apollo/server/express4`,
//! `@as-integrations/express4|5`), `graphqlHTTP(...)` (express-graphql) and
//! `createHandler(...)` (graphql-http); the Model Context Protocol SDK's
//! `createMcpExpressApp()` (`@modelcontextprotocol/sdk/server/express.js`,
//! `@modelcontextprotocol/express`, `…/server-express`), an Express app.
//!
//! Example: `app.use('/gql', expressMiddleware(server))` is `POST /gql`.
//!
//! Deliberately not captured: the GraphQL schema's queries and mutations
//! (one HTTP operation carries them all), the GET form of GraphQL and its
//! playground, subscriptions over WebSocket.

use crate::machine::*;

/// The value of a modelled package's default export, if this module models it.
pub(crate) fn default_export(pkg: &str) -> Option<Value> {
    Some(match pkg {
        "express-promise-router" | "co-router" | "router" => Value::Builtin(Builtin::RouterCtor),
        "polka" => Value::Builtin(Builtin::Express),
        "express-ws" => Value::Builtin(Builtin::Framework(Rc::from("express-ws"))),
        _ => return None,
    })
}

/// A member of one of these packages (or of a value they made).
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    let framework = |n: &str| Some(Value::Builtin(Builtin::Framework(Rc::from(n))));
    match (pkg, prop) {
        ("express-async-router", "AsyncRouter") | ("@awaitjs/express", "Router") => {
            Some(Value::Builtin(Builtin::RouterCtor))
        }
        ("@awaitjs/express", "addAsync" | "wrap") => Some(Value::Builtin(Builtin::Identity)),
        ("@tinyhttp/app", "App") => Some(Value::Builtin(Builtin::Express)),
        // The MCP SDK's app is `express()` with its JSON body parser and,
        // for a local host, a Host header check (not charted as middleware).
        (
            "@modelcontextprotocol/sdk/server/express.js"
            | "@modelcontextprotocol/sdk/server/express"
            | "@modelcontextprotocol/express"
            | "@modelcontextprotocol/server-express",
            "createMcpExpressApp",
        ) => Some(Value::Builtin(Builtin::Express)),
        ("apollo-server-express", "ApolloServer") => framework("ApolloServer"),
        (
            "@apollo/server/express4" | "@as-integrations/express4" | "@as-integrations/express5",
            "expressMiddleware",
        )
        | ("express-graphql", "graphqlHTTP")
        | ("graphql-http/lib/use/express", "createHandler") => framework("graphql-middleware"),
        ("express-promise-router" | "co-router" | "router" | "express-ws" | "polka", "default") => {
            default_export(pkg)
        }
        _ => None,
    }
}

/// A member of a value these packages made: an Apollo server's
/// `applyMiddleware` and `getMiddleware`.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    (name == "apollo-server" && matches!(prop, "applyMiddleware" | "getMiddleware"))
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(prop))))
}

/// What `apollo.getMiddleware({path})` gives, followed by its path: a
/// router answering the GraphQL endpoint at that path below where it is
/// `use`d.
const HANDLER_AT: &str = "graphql-handler-at:";

/// `getAsync` is `get`, `useAsync` is `use` (`@awaitjs/express`); `ws` is
/// the upgrade request, a `GET` (`express-ws`).
pub(crate) fn verb_alias(name: &str) -> Option<&'static str> {
    if name == "ws" {
        return Some("get");
    }
    let base = name.strip_suffix("Async")?;
    if base == "use" {
        return Some("use");
    }
    HTTP_VERBS.iter().copied().find(|v| *v == base)
}

impl Interp {
    /// Calls of the functions above: `expressWs(app)`, `expressMiddleware(server)`,
    /// `apollo.applyMiddleware({app, path})`.
    pub(crate) fn dropin_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        match name {
            "express-ws" => {
                let o = ObjData::new();
                o.set("app", argv.first().cloned().unwrap_or(Value::Undef));
                Some(Value::Obj(o))
            }
            "graphql-middleware" => Some(Value::Builtin(Builtin::Framework(Rc::from(
                "graphql-handler",
            )))),
            // `getMiddleware({path})` (apollo-server-express 2/3): the
            // router `applyMiddleware` mounts on the app, for the program to
            // `use` itself.
            "getMiddleware" => {
                let path = match argv.first().map(|v| self.force_deep(v.clone())) {
                    Some(Value::Obj(o)) => match o.get("path").map(|v| self.force_deep(v)) {
                        None | Some(Value::Undef) => Some("/graphql".to_string()),
                        Some(v) => v.as_text(),
                    },
                    None | Some(Value::Undef) => Some("/graphql".to_string()),
                    Some(_) => None,
                };
                Some(match path {
                    Some(p) => {
                        Value::Builtin(Builtin::Framework(Rc::from(format!("{HANDLER_AT}{p}"))))
                    }
                    None => {
                        self.finding(
                            FindingCode::DynamicPath,
                            ctx.file,
                            line,
                            "the `path` of `getMiddleware({path})` is only known at run time"
                                .into(),
                        );
                        Value::dynamic()
                    }
                })
            }
            "applyMiddleware" => {
                let Some(Value::Obj(o)) = argv.first().map(|v| self.force_deep(v.clone())) else {
                    return Some(Value::Undef);
                };
                let app = o.get("app").map(|v| self.force_deep(v));
                let path = match o.get("path").map(|v| self.force_deep(v)) {
                    None | Some(Value::Undef) => Some("/graphql".to_string()),
                    Some(v) => v.as_text(),
                };
                if let Some(Value::Router(id)) = app {
                    match path {
                        Some(p) => self.graphql_route(ctx, id, vec![PathArg::Str(p)], line, None),
                        None => self.finding(
                            FindingCode::DynamicPath,
                            ctx.file,
                            line,
                            "the `path` of `applyMiddleware({app, path})` is only known at run time".into(),
                        ),
                    }
                }
                Some(Value::Undef)
            }
            _ => None,
        }
    }

    /// `use(path, graphqlHandler)`: the GraphQL endpoint at that path.
    pub(crate) fn graphql_mounts(
        &mut self,
        ctx: &Ctx,
        id: u32,
        paths: &[PathArg],
        argv: &[Value],
        call: &Call,
    ) {
        let is_handler = |v: &Value| matches!(v, Value::Builtin(Builtin::Framework(n)) if n.as_ref() == "graphql-handler");
        if argv.iter().any(is_handler) {
            self.graphql_route(ctx, id, paths.to_vec(), call.line, call.doc.clone());
        }
        for v in argv {
            if let Value::Builtin(Builtin::Framework(n)) = v
                && let Some(inner) = n.strip_prefix(HANDLER_AT)
            {
                let at = paths
                    .iter()
                    .map(|p| match p {
                        PathArg::Str(p) => PathArg::Str(crate::paths::join(p, inner)),
                        r => r.clone(),
                    })
                    .collect();
                self.graphql_route(ctx, id, at, call.line, call.doc.clone());
            }
        }
    }

    fn graphql_route(
        &mut self,
        ctx: &Ctx,
        id: u32,
        paths: Vec<PathArg>,
        line: u32,
        doc: Option<String>,
    ) {
        if self.modes.event_mode {
            return;
        }
        let kind = RegKind::package_route("post", paths, "graphql", false);
        self.push_reg(id, kind, ctx.file, line, doc, None);
    }
}
