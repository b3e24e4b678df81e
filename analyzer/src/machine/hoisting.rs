//! What a module makes visible before its statements run in order.
//!
//! Captures: (1) a `const`/`let`/`var` whose initialiser is a function or
//! arrow (`const addPlayer = (socket) => { … }`) is bound to its closure when
//! the scope is entered, like a function declaration. In JavaScript the
//! binding is in its temporal dead zone until the declaration runs, but only
//! code that runs *at once* can observe that (and it throws); listeners,
//! connection handlers and callbacks run later, when the declaration has run
//! and the binding holds this very closure. The analyzer runs such listeners
//! at registration time, so without this they would see no binding at all.
//! (2) A side-effect-only import (`import './boot'`, `import {} from './x'`)
//! runs the imported module before the importer's body, as ESM does.
//!
//! Deliberately not captured: other initialisers (an object or a call result
//! is still only visible after its declaration has run), destructuring
//! patterns, and `typeof x` probes inside the dead zone.

use super::*;

impl Interp {
    /// Pre-bind `const f = () => …` / `let f = function () {}` to its closure.
    pub(crate) fn hoist_function_binding(&mut self, ctx: &Ctx, s: &Stmt) {
        let Stmt::Var(decls) = s else {
            return;
        };
        for (pat, init) in decls {
            if let (Pattern::Ident(name), Some(Expr::Func(f))) = (pat, init)
                && !ctx.scope.vars.borrow().contains_key(name.as_str())
            {
                let v = self.closure(ctx, f);
                ctx.scope.define(name, v);
            }
        }
    }

    /// Run the module a binding-less `import './x'` names (ESM runs it first).
    pub(crate) fn run_bare_import(&mut self, from: FileId, imp: &Import) {
        if imp.default.is_some() || imp.namespace.is_some() || !imp.named.is_empty() {
            return;
        }
        if let Resolved::File(t) = self.loader.project.resolve(from, &imp.source) {
            self.load_module(t);
        }
    }
}
