//! LoopBack 4 (`@loopback/rest`, which serves its REST API through
//! Express): what the census needs to know of it. Its routes are not
//! charted yet; the census counts them so that their loss is said.
//!
//! Captures: a LoopBack 4 controller is a plain class whose methods carry
//! the verb decorators `@get(path, spec?)`, `@post`, `@put`, `@patch`,
//! `@del` (DELETE) and `@operation(verb, path, spec?)` of `@loopback/rest`;
//! no class decorator is needed (`@api({ basePath })` is optional). Each is
//! a census item, accounted for as `unmodelled-framework`.
//!
//! Example: `class ShelfController { @get('/shelves') list() {} }` is one
//! census item, `unmodelled-framework`.
//!
//! Deliberately not captured: the routes themselves (the booter's
//! `controllers/*.controller.js` discovery under `projectRoot`, `app.controller`,
//! components' `controllers`, `basePath`, OpenAPI `{id}` parameters); LoopBack 3
//! is `libs/loopback.rs`.

/// Whether `pkg` gives verb decorators that declare a route on a class with
/// no controller decorator (`@get('/x')` from `@loopback/rest`).
pub(crate) fn routes_on_plain_classes(pkg: &str) -> bool {
    pkg == "@loopback/rest"
}
