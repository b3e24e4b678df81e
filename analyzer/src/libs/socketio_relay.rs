//! Event names relayed through a pub/sub channel: the `dynamic-event` at a
//! relay's emit names the publishers that feed it.
//!
//! Captures: an emit whose name is a field of a message (`io.to(m.room).emit(m.message, …)`
//! in a Redis subscriber) is a `dynamic-event`; after the analysis, the
//! functions of the loaded modules that `publish(…)` a `JSON.stringify({…})`
//! of an object with that field (`{ room_id, message, payload }`) are its
//! publishers. When the field's value is a parameter of the publishing
//! function (`emitToRoom(roomId, message, ...payload)`), the calls of that
//! function with a string literal in that position give the names sent
//! (`emitToRoom(id, 'reciveNewDoc', …)`); the finding says how many
//! publishers and calls there are, and which names.
//!
//! Deliberately not: the names are not charted as events (the channel, the
//! field and the subscriber are matched by name only, not followed as
//! values), and only modules the analysis loaded are searched.

use crate::inventory::FindingCode;
use crate::ir::{Expr, Func, ObjProp, Pattern, PropKey, Stmt};
use crate::libs::socketio_syntax::any_expr;
use crate::machine::Interp;
use crate::project::FileId;
use std::collections::BTreeSet;
use std::sync::Arc;

/// At most this many names are written in a finding.
const NAMES_SHOWN: usize = 12;

/// A publishing function: its name and the position of the parameter that
/// carries the event name (`None` when the field is no parameter).
struct Publisher {
    name: Option<String>,
    param: Option<usize>,
    file: FileId,
    line: u32,
}

impl Interp {
    /// Note a relay's emit whose name is `msg.field` (see the module doc).
    pub(crate) fn note_relayed_name(&mut self, name: &Expr, file: FileId, line: u32) {
        if let Expr::Member(_, field) = name {
            self.rec.relay_sinks.push((file, line, field.clone()));
        }
    }

    /// Add the publishers of each relayed name to its `dynamic-event` finding.
    pub(crate) fn settle_relays(&mut self) {
        let mut sinks = std::mem::take(&mut self.rec.relay_sinks);
        sinks.sort();
        sinks.dedup();
        if sinks.is_empty() {
            return;
        }
        let mut files: Vec<FileId> = self.js.modules.keys().copied().collect();
        files.sort_unstable();
        let bodies: Vec<(FileId, Arc<crate::ir::FileFacts>)> = files
            .iter()
            .map(|&f| (f, self.loader.get(f).facts.clone()))
            .collect();
        for (file, line, field) in sinks {
            let mut publishers = Vec::new();
            for (f, facts) in &bodies {
                for (name, func) in functions(&facts.body) {
                    if let Some(param) = publishes_field(func, &field) {
                        publishers.push(Publisher {
                            name,
                            param,
                            file: *f,
                            line: func.line,
                        });
                    }
                }
            }
            if publishers.is_empty() {
                continue;
            }
            let mut calls = 0;
            let mut names = BTreeSet::new();
            for p in &publishers {
                let (Some(fname), Some(i)) = (&p.name, p.param) else {
                    continue;
                };
                let found = literal_calls(&bodies, fname, i);
                calls += found.len();
                names.extend(found);
            }
            let first = &publishers[0];
            let at = format!(
                "{}{}:{}",
                first
                    .name
                    .as_ref()
                    .map(|n| format!("`{n}`, "))
                    .unwrap_or_default(),
                self.loader.project.rel(first.file),
                first.line
            );
            let shown: Vec<&str> = names.iter().take(NAMES_SHOWN).map(String::as_str).collect();
            let more = if names.len() > NAMES_SHOWN {
                ", …"
            } else {
                ""
            };
            let note = if calls > 0 {
                format!(
                    "; relayed: {} function(s) publish a message with `{field}` ({at}), called with a literal name at {calls} site(s): {}{more}",
                    publishers.len(),
                    shown.join(", ")
                )
            } else {
                format!(
                    "; relayed: {} function(s) publish a message with `{field}` ({at})",
                    publishers.len()
                )
            };
            if let Some(f) =
                self.rec.findings.iter_mut().find(|f| {
                    f.code == FindingCode::DynamicEvent && f.file == file && f.line == line
                })
                && !f.message.contains("; relayed:")
            {
                f.message.push_str(&note);
            }
        }
    }
}

/// The string literals passed at position `i` to calls of `fname`.
fn literal_calls(
    bodies: &[(FileId, Arc<crate::ir::FileFacts>)],
    fname: &str,
    i: usize,
) -> Vec<String> {
    let out = std::cell::RefCell::new(Vec::new());
    for (_, facts) in bodies {
        any_expr(&facts.body, &|e| {
            if let Expr::Call(c) = e
                && matches!(&c.callee, Expr::Ident(n) | Expr::Member(_, n) if n == fname)
                && let Some(Expr::Str(s)) = c.args.get(i)
            {
                out.borrow_mut().push(s.clone());
            }
            false
        });
    }
    out.into_inner()
}

/// The named functions of a module body (declarations, object-literal and
/// class methods, functions under a key), and the anonymous ones.
fn functions(body: &[Stmt]) -> Vec<(Option<String>, &Func)> {
    let mut out: Vec<(Option<String>, &Func)> = Vec::new();
    fn stmt<'a>(s: &'a Stmt, out: &mut Vec<(Option<String>, &'a Func)>) {
        match s {
            Stmt::Function(n, f) => out.push((Some(n.clone()), f)),
            Stmt::ExportDecl(inner, _) => stmt(inner, out),
            Stmt::Expr(e) | Stmt::ExportDefault(e) => expr(e, out),
            Stmt::Var(decls) => {
                for (p, e) in decls {
                    match (p, e) {
                        (Pattern::Ident(n), Some(Expr::Func(f))) => out.push((Some(n.clone()), f)),
                        (_, Some(e)) => expr(e, out),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    fn expr<'a>(e: &'a Expr, out: &mut Vec<(Option<String>, &'a Func)>) {
        match e {
            Expr::Object(props) => {
                for p in props {
                    match p {
                        ObjProp::Method(PropKey::Name(n), f)
                        | ObjProp::KeyValue(PropKey::Name(n), Expr::Func(f)) => {
                            out.push((Some(n.clone()), f))
                        }
                        ObjProp::KeyValue(_, v) => expr(v, out),
                        _ => {}
                    }
                }
            }
            Expr::Class(c) => {
                for (n, f) in &c.methods {
                    out.push((Some(n.clone()), f));
                }
            }
            Expr::Assign(p, v) => match (p.as_ref(), v.as_ref()) {
                (Pattern::Target(t), Expr::Func(f)) if matches!(t.as_ref(), Expr::Member(..)) => {
                    let Expr::Member(_, n) = t.as_ref() else {
                        return;
                    };
                    out.push((Some(n.clone()), f))
                }
                (_, v) => expr(v, out),
            },
            _ => {}
        }
    }
    for s in body {
        stmt(s, &mut out);
    }
    out
}

/// Whether the function calls `….publish(…)` and stringifies an object with
/// `field`: `Some(position of the parameter the field's value is)`.
fn publishes_field(f: &Func, field: &str) -> Option<Option<usize>> {
    let publishes = any_expr(
        &f.body,
        &|e| matches!(e, Expr::Call(c) if matches!(&c.callee, Expr::Member(_, m) if m == "publish")),
    );
    if !publishes {
        return None;
    }
    let value = std::cell::RefCell::new(None);
    let found = any_expr(&f.body, &|e| {
        let Expr::Call(c) = e else { return false };
        if !matches!(&c.callee, Expr::Member(o, m) if m == "stringify" && matches!(o.as_ref(), Expr::Ident(j) if j == "JSON"))
        {
            return false;
        }
        let Some(Expr::Object(props)) = c.args.first() else {
            return false;
        };
        props.iter().any(|p| match p {
            ObjProp::KeyValue(PropKey::Name(k), v) if k == field => {
                *value.borrow_mut() = Some(v.clone());
                true
            }
            _ => false,
        })
    });
    if !found {
        return None;
    }
    let param = match value.into_inner() {
        Some(Expr::Ident(n)) => f
            .params
            .iter()
            .position(|p| matches!(p, Pattern::Ident(q) if *q == n)),
        _ => None,
    };
    Some(param)
}
