//! Which installed packages may add routes the analysis does not see: one
//! handed an app or router ([`may_add_routes`]), one whose value is mounted
//! with `use(path, x)` ([`may_serve_routes`]). Each `package-router` finding
//! asks here; packages known to add none are listed.

/// Packages that take an app, router or server but add no routes to it
/// (servers, serverless wrappers, shutdown helpers, error reporters, route
/// listers, test clients, view engines): handing them an app is not a `package-router`
/// finding. Node's own modules are never one either.
const NO_ROUTES: &[&str] = &[
    "supertest",
    "serverless-http",
    "@vendia/serverless-express",
    "@codegenie/serverless-express",
    "aws-serverless-express",
    "http-terminator",
    "stoppable",
    "server-destroy",
    "http-shutdown",
    "spdy",
    "httpolyglot",
    "greenlock-express",
    "newrelic",
    "elastic-apm-node",
    "express-list-endpoints",
    "express-list-routes",
    "express-ws",
    "socket.io",
    "ws",
    "vite",
    "webpack-dev-middleware",
    "webpack-hot-middleware",
    // Dispatches by host to the app it is given (whose routes are charted as its own).
    "vhost",
    // View engines and i18n set up on the app.
    "nunjucks",
    "express-nunjucks",
    "express-handlebars",
    "hbs",
    "express-hbs",
    "consolidate",
    "i18n",
    // Feathers plugins that set up the app without routes of their own.
    "@feathersjs/configuration",
    "@feathersjs/errors",
    "@feathersjs/transport-commons",
    "@feathersjs/primus",
    // Nest's WebSocket adapters take the app to share its HTTP server.
    "@nestjs/platform-socket.io",
    "@nestjs/platform-ws",
];

/// Packages whose values are middleware that answers no path of its own
/// (parsers, headers, logging, sessions, auth checks, rate limits, uploads),
/// or only the files of a folder, as `express.static` does (static files,
/// stylesheets compiled on request): mounted with `use(path, x)` they add no
/// operation, so they are no `package-router` finding.
const MIDDLEWARE: &[&str] = &[
    "@dr.pogodin/csurf",
    "body-parser",
    "compression",
    "connect-busboy",
    "connect-flash",
    "connect-gzip-static",
    "connect-multiparty",
    "connect-timeout",
    "cookie-parser",
    "cookie-session",
    "cors",
    "csurf",
    "errorhandler",
    "express-basic-auth",
    "express-bearer-token",
    "express-brute",
    "express-fileupload",
    "express-formidable",
    "express-http-context",
    "express-ipfilter",
    "express-jwt",
    "express-jwt-permissions",
    "express-mongo-sanitize",
    "express-rate-limit",
    "express-request-id",
    "express-sanitizer",
    "express-session",
    "express-slow-down",
    "express-sslify",
    "express-static-gzip",
    "express-useragent",
    "express-winston",
    "graphql-upload",
    "helmet",
    "hpp",
    "less-middleware",
    "lusca",
    "method-override",
    "morgan",
    "multer",
    "nocache",
    "node-sass-middleware",
    "passport",
    "pino-http",
    "request-ip",
    "response-time",
    "serve-favicon",
    "serve-index",
    "serve-static",
    "xss-clean",
];

/// Whether a value of `pkg` mounted with `use(path, x)` may answer routes
/// the analysis does not see: a package that may add routes
/// ([`may_add_routes`]) and is not known middleware ([`MIDDLEWARE`]).
pub(crate) fn may_serve_routes(pkg: &str) -> bool {
    // (`graphql-upload/graphqlUploadExpress.js` is `graphql-upload`.)
    let mut parts = pkg.splitn(3, '/');
    let base = match (parts.next(), parts.next()) {
        (Some(scope), Some(name)) if scope.starts_with('@') => &pkg[..scope.len() + 1 + name.len()],
        (Some(name), _) => name,
        _ => pkg,
    };
    may_add_routes(pkg) && !MIDDLEWARE.contains(&base)
}

/// Whether handing an app or router to package `pkg` may add routes the
/// analysis does not know: an installed package that is not modelled, not
/// one of Node's modules and not one known to add none.
pub(crate) fn may_add_routes(pkg: &str) -> bool {
    let scope = pkg.split('/').next().unwrap_or(pkg);
    !(super::row(pkg).is_some()
        || crate::machine::node::module(pkg).is_some()
        || crate::project::is_node_builtin(pkg)
        || pkg.starts_with("node:")
        || NO_ROUTES.contains(&pkg)
        || scope == "@sentry"
        || scope == "@opentelemetry")
}
