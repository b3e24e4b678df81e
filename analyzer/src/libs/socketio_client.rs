//! What only a Socket.IO client sees.
//!
//! Captures: the names `socket.io-client` itself fires on a socket (v2's
//! `connect_timeout`, `reconnecting`, `ping`, `pong`, and `message`, which
//! v2 fires for `send()`): a client listener for one of them is lifecycle,
//! not API, unless server code in the project emits (or listens for) that
//! name, so it is never cross-checked and never server inventory. (The names
//! both sides know — `connect`, `disconnect`, `connect_error`,
//! `reconnect*` — are in [`crate::machine::RESERVED_EVENTS`].)
//!
//! Listeners on the client's `Manager` (`socket.io.on('open')`) are
//! lifecycle whatever their name: only the library emits there. A v3-or-later
//! client socket's `error` listener is an ordinary event
//! ([`client_socket_error`]).
//!
//! Deliberately not captured: which socket.io-client version is installed
//! (the names are lifecycle under any of them when no server sends them).

use crate::inventory::Side;
use crate::machine::RawSite;

/// Names the client library fires on a socket by itself (see the module doc).
const CLIENT_ONLY: &[&str] = &["connect_timeout", "reconnecting", "ping", "pong", "message"];

/// Whether the event `name`, with these sites, is client lifecycle: a name the
/// client library fires itself, and no server site uses it.
pub(crate) fn client_lifecycle(name: &str, sites: &[&RawSite]) -> bool {
    CLIENT_ONLY.contains(&name)
        && sites
            .iter()
            .all(|s| s.side == Side::Client && (s.kind == "on" || s.kind == "once"))
}

/// Whether every site of the event `error` is a listener on a client socket
/// (not its `Manager`) of socket.io-client 3 or later: from 3 on a client
/// socket fires no `error` of its own (the Manager does, and a failed
/// connection is `connect_error`), so such a listener hears only what a
/// server emits, an event like any other. The version is the range the
/// listening file's package gives `socket.io-client`, else `socket.io` (the
/// server serves its own client, `/socket.io/socket.io.js`); one without a
/// number (`latest`) is the current one; none known keeps `error` lifecycle.
pub(crate) fn client_socket_error(
    project: &crate::project::Project,
    name: &str,
    sites: &[&RawSite],
) -> bool {
    name == "error"
        && !sites.is_empty()
        && sites.iter().all(|s| {
            if s.side != Side::Client || s.manager || !(s.kind == "on" || s.kind == "once") {
                return false;
            }
            crate::libs::socketio::v3_or_later(project, s.file, &["socket.io-client", "socket.io"])
        })
}

/// The names the global object goes by in browsers and Node.
const GLOBAL_OBJECT: &[&str] = &["window", "globalThis", "global", "self"];

impl crate::machine::Interp {
    /// Whether `name` is the global object here (not a local of that name,
    /// such as agar.io-clone's `const global = require('./global')`).
    fn is_global_object(&self, ctx: &crate::machine::Ctx, name: &str) -> bool {
        if !GLOBAL_OBJECT.contains(&name) {
            return false;
        }
        let mut cur = Some(&ctx.scope);
        while let Some(s) = cur {
            if std::rc::Rc::ptr_eq(s, &self.js.globals) {
                return true;
            }
            if s.vars.borrow().contains_key(name) {
                return false;
            }
            cur = s.parent.as_ref();
        }
        true
    }

    /// Whether `this` here is the global object: inside a function called
    /// plainly (`this` not bound), in sloppy-mode code (a CommonJS module
    /// without a `"use strict"` directive at its top; not a class's method),
    /// as in `(function () { this.Class = function () {}; })()`, the
    /// classic way a browser-and-Node script sets a global, where `this` was
    /// left undefined (a function run with no caller, a script's top
    /// level; a plain call already gets the global object, see
    /// `Interp::sloppy`). (A function's own `"use strict"` is not looked at.)
    fn is_sloppy_global_this(&self, ctx: &crate::machine::Ctx) -> bool {
        if !matches!(ctx.this, crate::machine::Value::Undef) || ctx.home.is_some() {
            return false;
        }
        if self.js.modules.get(&ctx.file).is_none_or(|m| m.esm.get()) {
            return false;
        }
        !crate::machine::use_strict(&self.loader.get(ctx.file).facts.body)
    }

    /// `window.socket = io()` (or `globalThis.x`, `global.x`, `self.x`, or
    /// `this.x` where `this` is the global object): the property is a global
    /// every module reads as a bare name (NodeBB's AMD modules call
    /// `socket.emit(…)` on it; MagicMirror's `class.js` sets `Class`).
    pub(crate) fn global_object_write(
        &mut self,
        ctx: &crate::machine::Ctx,
        obj: &crate::ir::Expr,
        prop: &str,
        v: &crate::machine::Value,
    ) {
        let global = match obj {
            crate::ir::Expr::Ident(g) => self.is_global_object(ctx, g),
            crate::ir::Expr::This => self.is_sloppy_global_this(ctx),
            _ => false,
        };
        if global {
            self.js.globals.define(prop, v.clone());
        }
    }

    /// `window.socket` read back: the global of that name, when one was set.
    pub(crate) fn global_object_read(
        &self,
        ctx: &crate::machine::Ctx,
        obj: &crate::ir::Expr,
        prop: &str,
    ) -> Option<crate::machine::Value> {
        match obj {
            crate::ir::Expr::Ident(g) if self.is_global_object(ctx, g) => {
                self.js.globals.vars.borrow().get(prop).cloned()
            }
            crate::ir::Expr::This if self.is_sloppy_global_this(ctx) => {
                self.js.globals.vars.borrow().get(prop).cloned()
            }
            _ => None,
        }
    }
}

impl crate::machine::Interp {
    /// Whether `o` is a call deferred in a program other than an entry (a
    /// page's or client's) into a file that mentions sockets: what a
    /// client's socket helper made (`const lobby = makeSocket('/')`), whose
    /// methods (`lobby.send('chat', text)`) are where its sites are. A
    /// client program registers no routes, so nothing is saved by leaving
    /// the call for later, and it would never run.
    pub(crate) fn client_socket_helper(&self, o: &crate::machine::Value) -> bool {
        let crate::machine::Value::Deferred(t) = o else {
            return false;
        };
        let file = match &t.kind {
            crate::value::ThunkKind::Call(crate::machine::Value::Lazy(file, _), ..) => *file,
            crate::value::ThunkKind::Call(crate::machine::Value::Func(c), ..) => c.file,
            _ => return false,
        };
        self.secondary_program()
            && self.loader.needles_of(file) & crate::loader::needle::SOCKET != 0
    }

    /// Remember a named function whose body is one `return`: a Vue root or
    /// mixin method such as `getSocket() { return socket }`.
    pub(crate) fn note_component_method(&mut self, c: &std::rc::Rc<crate::machine::Closure>) {
        if c.func.name.is_some() && self.near_sockets(c.file) {
            let fns = self.libs.named_fns.entry(c.file).or_default();
            if !fns.iter().any(|f| f.func.id == c.func.id) {
                fns.push(c.clone());
            }
        }
        if let (Some(name), [crate::ir::Stmt::Return(Some(_))]) =
            (&c.func.name, c.func.body.as_slice())
        {
            self.libs.component_methods.insert(name.clone(), c.clone());
        }
    }

    /// `this.$root.getSocket()` / `this.$parent.getSocket()` in a Vue
    /// component: the root (or a mixin of it) defines `getSocket`. When a
    /// one-`return` method of that name returns a Socket.IO client now, the
    /// call gives that socket (uptime-kuma's components). Anything else is
    /// left to the ordinary call.
    pub(crate) fn vue_root_method(
        &mut self,
        ctx: &crate::machine::Ctx,
        obj: &crate::ir::Expr,
        name: &str,
        call: &crate::ir::Call,
    ) -> Option<crate::machine::Value> {
        let crate::ir::Expr::Member(_, via) = obj else {
            return None;
        };
        if via != "$root" && via != "$parent" {
            return None;
        }
        let c = self.libs.component_methods.get(name)?.clone();
        let mut v = self.invoke(&c, Vec::new(), None);
        if !matches!(v, crate::machine::Value::Sio(_)) {
            // The root's own hooks (`created() { socket = io() }`) have not run
            // yet: run what nobody called in the getter's file, then ask again.
            let todo: Vec<_> = self
                .libs
                .named_fns
                .get(&c.file)
                .into_iter()
                .flatten()
                .filter(|f| {
                    f.func.id != c.func.id && !self.deferred.called.contains(&(f.file, f.func.id))
                })
                .cloned()
                .collect();
            for f in todo {
                let n = f.func.params.len();
                self.invoke(&f, vec![crate::machine::Value::dynamic(); n], None);
            }
            v = self.invoke(&c, Vec::new(), None);
        }
        match v {
            crate::machine::Value::Sio(_) => {
                self.eval_args(ctx, &call.args);
                Some(v)
            }
            _ => None,
        }
    }
}
