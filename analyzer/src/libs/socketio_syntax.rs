//! What a Socket.IO handler's syntax says without running it: its
//! parameters' labels, whether it answers with a value or an acknowledgement,
//! the events a WebSocket gateway method returns, and JSON schemas of literal
//! payloads.
//!
//! Deliberately not: anything that needs the handler's values (the machine
//! evaluates those in `socketio.rs`).

use crate::machine::*;

/// A parameter's name for a site's argument list.
pub(crate) fn pattern_label(p: &Pattern) -> String {
    match p {
        Pattern::Ident(n) => n.clone(),
        Pattern::Default(inner, _) => match inner.as_ref() {
            Pattern::Ident(n) => n.clone(),
            _ => "{…}".into(),
        },
        Pattern::Object(..) => "{…}".into(),
        Pattern::Array(..) => "[…]".into(),
        _ => "_".into(),
    }
}

/// Every statement of `stmts` and of the blocks and branches inside them
/// (`if`, loops, labels, `try`/`catch`/`finally`, `switch` cases), in
/// source order, each before what it holds; not inside nested functions.
pub(crate) fn each_stmt<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        match s {
            Stmt::If(_, _, a, b, _) => {
                each_stmt(a, f);
                each_stmt(b, f);
            }
            Stmt::ForOf(_, _, _, b, _, _) | Stmt::Block(b) => each_stmt(b, f),
            Stmt::While(w) => each_stmt(&w.body, f),
            Stmt::For(x) => each_stmt(&x.body, f),
            Stmt::Labeled(_, inner) => each_stmt(std::slice::from_ref(inner.as_ref()), f),
            Stmt::Try(a, _, b, c) => {
                each_stmt(a, f);
                each_stmt(b, f);
                each_stmt(c, f);
            }
            Stmt::Switch(_, cases) => {
                for case in cases {
                    each_stmt(&case.body, f);
                }
            }
            _ => {}
        }
    }
}

/// The statements' `return` expressions, outside nested functions.
pub(crate) fn returns(stmts: &[Stmt], out: &mut Vec<Expr>) {
    each_stmt(stmts, &mut |s| {
        if let Stmt::Return(Some(e)) = s {
            out.push(e.clone());
        }
    });
}

/// The event of a Nest `WsResponse` literal, `{ event: 'name', data }`.
pub(crate) fn ws_response_event(e: &Expr) -> Option<String> {
    let Expr::Object(props) = e else {
        return None;
    };
    props.iter().find_map(|p| match p {
        ObjProp::KeyValue(PropKey::Name(k), Expr::Str(v)) if k == "event" => Some(v.clone()),
        _ => None,
    })
}

/// The schema of a `WsResponse` literal's `data` when it is a literal.
pub(crate) fn ws_response_data(e: &Expr) -> Option<serde_json::Value> {
    let Expr::Object(props) = e else {
        return None;
    };
    props.iter().find_map(|p| match p {
        ObjProp::KeyValue(PropKey::Name(k), v) if k == "data" => literal_schema(v, 0),
        _ => None,
    })
}

/// An event a Nest handler's return emits: name, line, schema of literal data.
type WsResponse = (String, Option<u32>, Option<serde_json::Value>);

/// What a Nest handler's returns emit: `{event, data}` literals, also inside
/// the returned expression (`from(items).pipe(map(x => ({event: 'e', data: x})))`),
/// with the line of the innermost call around them when there is one.
pub(crate) fn ws_responses(body: &[Stmt]) -> Vec<WsResponse> {
    let mut rs = Vec::new();
    returns(body, &mut rs);
    let mut out = Vec::new();
    for r in &rs {
        ws_walk(r, None, &mut out, 0);
    }
    out
}

/// The `WsResponse` literals in a returned expression (see [`ws_responses`]).
pub(crate) fn ws_walk(e: &Expr, line: Option<u32>, out: &mut Vec<WsResponse>, depth: u32) {
    if depth > 32 {
        return;
    }
    if let Some(ev) = ws_response_event(e) {
        if !out.iter().any(|(n, _, _)| *n == ev) {
            out.push((ev, line, ws_response_data(e)));
        }
        return;
    }
    match e {
        Expr::Call(c) => {
            ws_walk(&c.callee, Some(c.line), out, depth + 1);
            for a in &c.args {
                ws_walk(a, Some(c.line), out, depth + 1);
            }
        }
        Expr::Func(f) => {
            let mut rs = Vec::new();
            returns(&f.body, &mut rs);
            for r in &rs {
                ws_walk(r, line, out, depth + 1);
            }
        }
        Expr::Array(items) => {
            for i in items {
                ws_walk(i, line, out, depth + 1);
            }
        }
        Expr::Member(o, _) | Expr::Await(o) | Expr::Typed(o, _) => ws_walk(o, line, out, depth + 1),
        Expr::Cond(_, _, a, b) | Expr::Logical(_, a, b) => {
            ws_walk(a, line, out, depth + 1);
            ws_walk(b, line, out, depth + 1);
        }
        _ => {}
    }
}

/// Whether a Nest handler returns a value other than a `WsResponse` (Nest
/// sends it back as the acknowledgement), with its schema when every such
/// value is the same kind of literal.
pub(crate) fn returns_value(body: &[Stmt]) -> (bool, Option<serde_json::Value>) {
    let mut rs = Vec::new();
    returns(body, &mut rs);
    let acks: Vec<&Expr> = rs
        .iter()
        .filter(|r| {
            let mut inside = Vec::new();
            ws_walk(r, None, &mut inside, 0);
            !matches!(r, Expr::Undefined) && inside.is_empty()
        })
        .collect();
    let schemas: Option<Vec<serde_json::Value>> =
        acks.iter().map(|r| literal_schema(r, 0)).collect();
    let schema = schemas.and_then(|s| {
        let first = s.first()?.clone();
        s.iter().all(|x| *x == first).then_some(first)
    });
    (!acks.is_empty(), schema)
}

/// [`listener_shape`] of a listener value: the parameters `bind` fixed
/// (`handle.bind(this, user)`) are not the event's arguments.
pub(crate) fn closure_listener_shape(c: &Closure) -> (Vec<String>, bool) {
    let (mut names, ack) = listener_shape(&c.func);
    let fixed = c.bound.as_ref().map_or(0, |b| b.len()).min(names.len());
    names.drain(..fixed);
    (names, ack)
}

/// Parameter names of a listener and whether its last parameter (the ack) is called.
pub(crate) fn listener_shape(f: &Func) -> (Vec<String>, bool) {
    let names: Vec<String> = f.params.iter().map(pattern_label).collect();
    let ack = match f.params.last() {
        Some(Pattern::Ident(n)) => calls_name(&f.body, n),
        _ => false,
    };
    let mut names = names;
    if ack {
        names.pop();
    }
    (names, ack)
}

/// Whether any expression in the statements (nested functions included) satisfies `pred`.
pub(crate) fn any_expr(stmts: &[Stmt], pred: &dyn Fn(&Expr) -> bool) -> bool {
    any_expr_in(stmts, pred, &|_| true)
}

/// [`any_expr`] that looks inside a nested function only when `enter`
/// says so (one that rebinds a name the caller follows is another scope).
pub(crate) fn any_expr_in(
    stmts: &[Stmt],
    pred: &dyn Fn(&Expr) -> bool,
    enter: &dyn Fn(&Func) -> bool,
) -> bool {
    type P<'a> = (&'a dyn Fn(&Expr) -> bool, &'a dyn Fn(&Func) -> bool);
    fn e_any(e: &Expr, p: P, d: u32) -> bool {
        if d > 200 {
            return false;
        }
        if (p.0)(e) {
            return true;
        }
        let d = d + 1;
        match e {
            Expr::Call(c) => e_any(&c.callee, p, d) || c.args.iter().any(|a| e_any(a, p, d)),
            Expr::Func(f) => (p.1)(f) && s_any(&f.body, p, d),
            Expr::Member(o, _) => e_any(o, p, d),
            Expr::Index(a, b)
            | Expr::Add(a, b)
            | Expr::Logical(_, a, b)
            | Expr::Arith(_, a, b)
            | Expr::Compare(_, a, b) => e_any(a, p, d) || e_any(b, p, d),
            Expr::Cond(t, _, a, b) => e_any(t, p, d) || e_any(a, p, d) || e_any(b, p, d),
            Expr::Assign(_, v)
            | Expr::Await(v)
            | Expr::Unary(_, v)
            | Expr::Spread(v)
            | Expr::Typed(v, _) => e_any(v, p, d),
            Expr::Seq(items) | Expr::Array(items) | Expr::Template(_, items) => {
                items.iter().any(|i| e_any(i, p, d))
            }
            Expr::New(c, args, _) => e_any(c, p, d) || args.iter().any(|a| e_any(a, p, d)),
            Expr::Object(props) => props.iter().any(|pr| match pr {
                ObjProp::KeyValue(_, v) | ObjProp::Spread(v) => e_any(v, p, d),
                ObjProp::Method(_, f) | ObjProp::Getter(_, f) => (p.1)(f) && s_any(&f.body, p, d),
            }),
            Expr::Class(c) => c
                .methods
                .iter()
                .chain(&c.getters)
                .any(|(_, f)| (p.1)(f) && s_any(&f.body, p, d)),
            _ => false,
        }
    }
    fn s_any(stmts: &[Stmt], p: P, d: u32) -> bool {
        stmts.iter().any(|s| match s {
            Stmt::Expr(e) | Stmt::Throw(e, _) | Stmt::ExportDefault(e) | Stmt::Return(Some(e)) => {
                e_any(e, p, d)
            }
            Stmt::Var(decls) => decls
                .iter()
                .any(|(_, e)| e.as_ref().is_some_and(|e| e_any(e, p, d))),
            Stmt::Function(_, f) => (p.1)(f) && s_any(&f.body, p, d),
            Stmt::If(t, _, a, b, _) => e_any(t, p, d) || s_any(a, p, d) || s_any(b, p, d),
            Stmt::ForOf(_, it, _, body, _, _) => e_any(it, p, d) || s_any(body, p, d),
            Stmt::While(w) => s_any(&w.body, p, d),
            Stmt::Block(body) => s_any(body, p, d),
            Stmt::For(f) => {
                s_any(&f.init, p, d)
                    || [&f.test, &f.update]
                        .into_iter()
                        .flatten()
                        .any(|e| e_any(e, p, d))
                    || s_any(&f.body, p, d)
            }
            Stmt::Labeled(_, inner) => s_any(std::slice::from_ref(inner.as_ref()), p, d),
            Stmt::Try(a, _, b, c) => s_any(a, p, d) || s_any(b, p, d) || s_any(c, p, d),
            Stmt::Switch(x, cases) => e_any(x, p, d) || cases.iter().any(|c| s_any(&c.body, p, d)),
            Stmt::ExportDecl(inner, _) => s_any(std::slice::from_ref(inner.as_ref()), p, d),
            _ => false,
        })
    }
    s_any(stmts, (pred, enter), 0)
}

/// Whether a function body emits (`x.emit(...)`, `emitWithAck`, `send`).
pub(crate) fn mentions_emit(f: &Func) -> bool {
    any_expr(
        &f.body,
        &|e| matches!(e, Expr::Call(c) if matches!(&c.callee, Expr::Member(_, m) if m == "emit" || m == "emitWithAck")),
    )
}

/// Whether the statements call `name(...)` (also `name?.()`), outside nested functions that rebind it.
pub(crate) fn calls_name(stmts: &[Stmt], name: &str) -> bool {
    stmts.iter().any(|s| stmt_calls(s, name))
}

pub(crate) fn stmt_calls(s: &Stmt, n: &str) -> bool {
    match s {
        Stmt::Expr(e) | Stmt::Throw(e, _) | Stmt::ExportDefault(e) => expr_calls(e, n),
        Stmt::Return(Some(e)) => expr_calls(e, n),
        Stmt::Var(decls) => decls
            .iter()
            .any(|(_, e)| e.as_ref().is_some_and(|e| expr_calls(e, n))),
        Stmt::If(t, _, a, b, _) => expr_calls(t, n) || calls_name(a, n) || calls_name(b, n),
        Stmt::ForOf(_, it, _, body, _, _) => expr_calls(it, n) || calls_name(body, n),
        Stmt::While(w) => calls_name(&w.body, n),
        Stmt::Block(body) => calls_name(body, n),
        Stmt::For(f) => calls_name(&f.init, n) || calls_name(&f.body, n),
        Stmt::Labeled(_, inner) => stmt_calls(inner, n),
        Stmt::Try(a, _, b, c) => calls_name(a, n) || calls_name(b, n) || calls_name(c, n),
        Stmt::Switch(d, cases) => expr_calls(d, n) || cases.iter().any(|c| calls_name(&c.body, n)),
        _ => false,
    }
}

pub(crate) fn expr_calls(e: &Expr, n: &str) -> bool {
    match e {
        Expr::Call(c) => {
            matches!(&c.callee, Expr::Ident(x) if x == n)
                || matches!(&c.callee, Expr::Member(o, m) if matches!(o.as_ref(), Expr::Ident(x) if x == n) && (m == "call" || m == "apply"))
                || expr_calls(&c.callee, n)
                || c.args.iter().any(|a| expr_calls(a, n))
        }
        Expr::Func(f) => calls_name(&f.body, n),
        Expr::Member(o, _) => expr_calls(o, n),
        Expr::Index(a, b)
        | Expr::Add(a, b)
        | Expr::Logical(_, a, b)
        | Expr::Arith(_, a, b)
        | Expr::Compare(_, a, b) => expr_calls(a, n) || expr_calls(b, n),
        Expr::Cond(t, _, a, b) => expr_calls(t, n) || expr_calls(a, n) || expr_calls(b, n),
        Expr::Assign(_, v)
        | Expr::Await(v)
        | Expr::Unary(_, v)
        | Expr::Spread(v)
        | Expr::Typed(v, _) => expr_calls(v, n),
        Expr::Seq(items) | Expr::Array(items) => items.iter().any(|i| expr_calls(i, n)),
        Expr::New(c, args, _) => expr_calls(c, n) || args.iter().any(|a| expr_calls(a, n)),
        Expr::Template(_, items) => items.iter().any(|i| expr_calls(i, n)),
        Expr::Object(props) => props.iter().any(|p| match p {
            ObjProp::KeyValue(_, v) | ObjProp::Spread(v) => expr_calls(v, n),
            ObjProp::Method(_, f) | ObjProp::Getter(_, f) => calls_name(&f.body, n),
        }),
        _ => false,
    }
}

/// A short label for an emitted argument.
pub(crate) fn arg_label(e: &Expr) -> String {
    match e {
        Expr::Ident(n) => n.clone(),
        Expr::Member(_, p) => p.clone(),
        Expr::Object(_) => "{…}".into(),
        Expr::Array(_) => "[…]".into(),
        Expr::Str(_) | Expr::Template(..) => "string".into(),
        Expr::Num(_) => "number".into(),
        Expr::Bool(_) => "boolean".into(),
        Expr::Null => "null".into(),
        _ => "value".into(),
    }
}

/// The payload schema of emitted arguments, from what the literals state.
pub(crate) fn payload_schema(args: &[&Expr]) -> Option<serde_json::Value> {
    match args {
        [] => None,
        [one] => literal_schema(one, 0),
        many => {
            let items: Vec<serde_json::Value> = many
                .iter()
                .map(|a| literal_schema(a, 0).unwrap_or_else(|| serde_json::json!({})))
                .collect();
            Some(serde_json::json!({
                "type": "array",
                "prefixItems": items,
                "minItems": many.len(),
                "maxItems": many.len(),
            }))
        }
    }
}

/// JSON Schema for a literal expression (object literals by their property names).
pub(crate) fn literal_schema(e: &Expr, depth: u32) -> Option<serde_json::Value> {
    use serde_json::json;
    if depth > 6 {
        return Some(json!({}));
    }
    Some(match e {
        Expr::Str(_) | Expr::Template(..) => json!({"type": "string"}),
        Expr::Num(_) => json!({"type": "number"}),
        Expr::Bool(_) => json!({"type": "boolean"}),
        Expr::Null => json!({"type": "null"}),
        Expr::Array(items) => match items.first().and_then(|i| literal_schema(i, depth + 1)) {
            Some(s) => json!({"type": "array", "items": s}),
            None => json!({"type": "array"}),
        },
        Expr::Object(props) => {
            let mut map = serde_json::Map::new();
            // Keys whose value is a literal are always sent; any other value may
            // be `undefined`, which JSON leaves out.
            let mut required = Vec::new();
            for p in props {
                if let ObjProp::KeyValue(PropKey::Name(k), v) = p {
                    map.insert(
                        k.clone(),
                        literal_schema(v, depth + 1).unwrap_or_else(|| json!({})),
                    );
                    let always = matches!(
                        v,
                        Expr::Str(_)
                            | Expr::Template(..)
                            | Expr::Num(_)
                            | Expr::Bool(_)
                            | Expr::Null
                            | Expr::Array(_)
                            | Expr::Object(_)
                    );
                    if always && !required.contains(k) {
                        required.push(k.clone());
                    }
                }
            }
            if required.is_empty() {
                json!({"type": "object", "properties": map})
            } else {
                json!({"type": "object", "properties": map, "required": required})
            }
        }
        // `items || []`, `user ?? {}`: an empty fallback still tells the type.
        Expr::Logical(LogicalOp::Or | LogicalOp::Nullish, _, fallback) => match fallback.as_ref() {
            Expr::Array(items) if items.is_empty() => json!({"type": "array"}),
            Expr::Object(props) if props.is_empty() => json!({"type": "object"}),
            _ => return None,
        },
        _ => return None,
    })
}
