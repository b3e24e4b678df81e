//! Keystone 6 (`@keystone-6/core`): the app its CLI (`keystone dev`,
//! `keystone start`) makes from the configuration the package's
//! `keystone.ts` exports.
//!
//! A Keystone project never calls `express()`: the CLI imports
//! `keystone.ts` (or `.js`) beside the package.json, takes its default
//! export (`config({...})`, which returns its argument) and makes the app.
//!
//! Captures: for every package.json that depends on `@keystone-6/core` and
//! has a `keystone.ts`/`keystone.js` beside it, one app sited at that file,
//! serving the GraphQL endpoint at `graphql.path` (`/api/graphql` unless
//! given; `GET` and `POST`), then the routes that `server.extendExpressApp(app,
//! context)` adds (called with the app and a context only known at run time).
//!
//! Example: `export default config({ lists, server: { extendExpressApp:
//! (app) => { app.get('/rest/posts', …) } } })` is `GET /api/graphql`,
//! `POST /api/graphql` and `GET /rest/posts`.
//!
//! Deliberately not captured: the Admin UI's pages (a Next.js app the CLI
//! builds), `server.extendHttpServer` (a plain Node server's listeners),
//! the GraphQL operations of the lists (one endpoint, as for other GraphQL
//! mounts).

use crate::machine::*;

/// The package whose CLI makes the app.
const CORE: &str = "@keystone-6/core";

/// A member of `@keystone-6/core`: `config` returns its argument.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == CORE && prop == "config").then_some(Value::Builtin(Builtin::Identity))
}

impl Interp {
    /// The apps Keystone's CLI makes (see the module doc).
    pub(crate) fn keystone_apps(&mut self) {
        let project = self.loader.project.clone();
        for p in &project.packages {
            let depends = ["dependencies", "devDependencies"]
                .iter()
                .filter_map(|k| p.json.get(k).and_then(|d| d.as_object()))
                .any(|d| d.contains_key(CORE));
            if !depends {
                continue;
            }
            let at = |name: &str| {
                if p.dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{}/{name}", p.dir)
                }
            };
            let Some(file) = ["keystone.ts", "keystone.js", "keystone.mjs"]
                .iter()
                .find_map(|n| project.file_id(&at(n)))
            else {
                continue;
            };
            self.run_module(file);
            let conf = self.export_of(file, "default", 0);
            let conf = self.force_deep(conf);
            let Value::Router(app) = self.new_router(file, 1, true) else {
                continue;
            };
            let graphql = self.member(&conf, "graphql");
            let path = self
                .member(&graphql, "path")
                .as_text()
                .unwrap_or_else(|| "/api/graphql".into());
            for method in ["get", "post"] {
                let kind = RegKind::package_route(
                    method,
                    vec![PathArg::Str(path.clone())],
                    "keystone graphql",
                    false,
                );
                self.push_reg(app, kind, file, 1, None, None);
            }
            let server = self.member(&conf, "server");
            let extend = self.member(&server, "extendExpressApp");
            if let Value::Func(c) = &extend {
                let c = c.clone();
                self.invoke(&c, vec![Value::Router(app), Value::dynamic()], None);
            }
        }
    }
}
