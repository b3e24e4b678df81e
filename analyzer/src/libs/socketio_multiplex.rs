//! Sub-events carried inside one Socket.IO event: a listener that hands a
//! name it received to a table of the program's own handlers.
//!
//! Captures: while a listener of a named event runs, a lookup by a name only
//! known at run time in a table whose entries are all the program's functions
//! under literal names — a `Map` filled by `table.set('deployStack', fn)`
//! (dockge's `AgentSocket.on(name, fn)` / `call(name, …args)`), or a plain
//! object of functions read as `tools[name]` — is a `multiplexed-event`
//! finding at the listener, naming the table and its handlers, so the
//! application events travelling inside the envelope are not silently lost.
//!
//! Example: `socket.on('agent', (endpoint, name, ...args) => relay.call(name, ...args))`
//! with `relay.on('deployStack', fn)` and `relay.on('stopStack', fn)` gives
//! "`agent` carries sub-events … deployStack, stopStack".
//!
//! Deliberately not: the sub-events are not charted as Socket.IO events (a
//! client cannot emit `deployStack` on its own; events.json and AsyncAPI have
//! no place for a name inside an event's arguments), and which argument holds
//! the name is not traced; a catch-all listener's tables are
//! `socketio_rpc.rs`'s.

use crate::inventory::FindingCode;
use crate::ir::{Expr, Func, Pattern};
use crate::machine::Interp;
use crate::project::FileId;
use crate::value::{Coll, ObjData, Value};

/// At most this many handler names are written in a finding.
const NAMES_SHOWN: usize = 12;

/// Whether a function looks something up by one of its parameters
/// (`this.handlers.get(name)`, `table[name]`): the dispatcher a listener
/// hands a received name to, followed even with unknown arguments.
pub(crate) fn looks_up_by_param(f: &Func) -> bool {
    let params: Vec<&str> = f
        .params
        .iter()
        .filter_map(|p| match p {
            Pattern::Ident(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    if params.is_empty() {
        return false;
    }
    let is_param = |e: &Expr| matches!(e, Expr::Ident(n) if params.contains(&n.as_str()));
    crate::libs::socketio_syntax::any_expr(&f.body, &|e| match e {
        Expr::Call(c) => {
            matches!(&c.callee, Expr::Member(_, m) if m == "get")
                && c.args.first().is_some_and(is_param)
        }
        Expr::Index(_, k) => is_param(k),
        _ => false,
    })
}

impl Interp {
    /// `table.get(name)` on a `Map` with a name only known at run time,
    /// inside a listener: a sub-event dispatch when every entry is a
    /// function under a literal name.
    pub(crate) fn map_lookup_by_run_time_name(
        &mut self,
        c: &Coll,
        table: &str,
        file: FileId,
        line: u32,
    ) {
        if self.running.listener_site.is_none() || !c.map {
            return;
        }
        let names: Option<Vec<String>> = c
            .items
            .borrow()
            .iter()
            .map(|(k, v)| match (k, v) {
                (Value::Str(k), Value::Func(_)) => Some(k.to_string()),
                _ => None,
            })
            .collect();
        if let Some(names) = names.filter(|n| !n.is_empty()) {
            self.sub_event_table(table, Some((file, line)), names);
        }
    }

    /// `table[name]` on a plain object, where `name` is a parameter of the
    /// running listener: a sub-event dispatch when the object holds two or
    /// more properties and every one is a function.
    pub(crate) fn object_lookup_by_run_time_name(
        &mut self,
        o: &ObjData,
        table: &str,
        key: &Expr,
        at: Option<(FileId, u32)>,
    ) {
        let Expr::Ident(key) = key else {
            return;
        };
        let from_listener = self
            .running
            .listener_site
            .and_then(|i| self.rec.sites.get(i))
            .is_some_and(|s| s.args.iter().any(|a| a == key));
        if !from_listener || o.class.borrow().is_some() || o.is_module_obj.get() {
            return;
        }
        let names: Option<Vec<String>> = o
            .props
            .borrow()
            .iter()
            .map(|(k, v)| matches!(v, Value::Func(_)).then(|| k.clone()))
            .collect();
        if let Some(names) = names.filter(|n| n.len() >= 2) {
            self.sub_event_table(table, at, names);
        }
    }

    /// The finding at the running listener's site.
    fn sub_event_table(&mut self, table: &str, at: Option<(FileId, u32)>, names: Vec<String>) {
        let Some(site) = self
            .running
            .listener_site
            .and_then(|i| self.rec.sites.get(i))
        else {
            return;
        };
        let (event, at_file, at_line) = (site.name.clone(), site.file, site.line);
        let shown = names
            .iter()
            .take(NAMES_SHOWN)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        let more = if names.len() > NAMES_SHOWN {
            ", …"
        } else {
            ""
        };
        let lookup = at
            .map(|(f, l)| format!(" ({}:{l})", self.loader.project.rel(f)))
            .unwrap_or_default();
        self.finding(
            FindingCode::MultiplexedEvent,
            at_file,
            at_line,
            format!(
                "`{event}` carries sub-events: its listener calls one of the {} handlers in `{table}`{lookup} by a name only known at run time ({shown}{more}); they are not charted as Socket.IO events",
                names.len()
            ),
        );
    }
}
