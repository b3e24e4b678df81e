//! Express's request and response objects: what a handler reads from `req`
//! (`body`, `query`, `params`, `headers`) and what it writes with `res`
//! (`status`, `json`, `send`, `sendStatus`, …), the statuses and bodies a
//! route's contract is made of.
//!
//! Deliberately not here: registering routes and mounts (`express.rs`).

use crate::machine::*;

impl Interp {
    pub(crate) fn http_member(&mut self, h: HttpVal, prop: &str) -> Value {
        match (h, prop) {
            (HttpVal::Req, "body" | "query" | "params" | "headers") => {
                match RequestPart::of_req(prop) {
                    Some(part) => Value::Http(HttpVal::Part(part)),
                    None => Value::dynamic(),
                }
            }
            (
                HttpVal::Part(
                    part @ (RequestPart::Query | RequestPart::Headers | RequestPart::Body),
                ),
                p,
            ) => {
                if let Some(c) = &self.running.route_contract {
                    let mut c = c.borrow_mut();
                    match part {
                        RequestPart::Query => {
                            c.query_read.insert(p.to_string());
                        }
                        RequestPart::Body => {
                            c.body_read.insert(p.to_string());
                        }
                        _ => {
                            c.headers_read.insert(p.to_ascii_lowercase());
                        }
                    }
                }
                Value::dynamic()
            }
            // What middleware before it wrote (`req.io = io`).
            (HttpVal::Req, p) => self
                .deferred
                .req_props
                .get(p)
                .cloned()
                .unwrap_or_else(Value::dynamic),
            _ => Value::dynamic(),
        }
    }

    /// `req.prop = v` in a handler or middleware: Express hands the same
    /// request object to every function after it, so a value that can
    /// carry sites (a Socket.IO server, a router, an object holding one)
    /// is what `req.prop` reads in the handlers (`app.use((req, res, next)
    /// => { req.io = io; next(); })`, then `req.io.emit('sent', …)` in a
    /// route). Other values (a user, a flag) stay only known at run time.
    pub(crate) fn set_req_prop(&mut self, prop: &str, v: Value) {
        if v.is_tracked(0) && RequestPart::of_req(prop).is_none() {
            self.deferred.req_props.insert(prop.to_string(), v);
        }
    }

    /// A function mounted with `use`: it runs for the requests after it.
    pub(crate) fn note_use_func(&mut self, v: &Value) {
        if self.modes.event_mode {
            return;
        }
        if let Value::Func(c) = v
            && self.deferred.use_func_keys.insert((c.file, c.func.id))
        {
            self.deferred.use_funcs.push(v.clone());
        }
    }

    /// Runs the functions mounted with `use`, in the order they were
    /// mounted, once each as a handler (before the routes' handlers run),
    /// so that what they write on the request is there for the handlers
    /// (see [`Interp::set_req_prop`]).
    pub(crate) fn run_use_funcs(&mut self) {
        let funcs = self.deferred.use_funcs.clone();
        for f in funcs {
            if self.js.steps > STEP_BUDGET {
                break;
            }
            if let Value::Func(c) = &f {
                let contract = Rc::new(RefCell::new(RawContract::default()));
                let saved = self.running.route_contract.replace(contract);
                self.run_as_handler(&f, c);
                self.running.route_contract = saved;
            }
        }
    }

    /// An expression statement in a route's code that sets the response's
    /// status and nothing else: `res.status(401);` (its value `res` with the
    /// status) or `res.statusCode = 401;`. Express keeps it on `res`.
    pub(crate) fn statement_status(&mut self, ctx: &Ctx, e: &Expr, v: &Value) {
        match e {
            Expr::Call(c) if matches!(&c.callee, Expr::Member(_, m) if m == "status") => {
                if let Value::Http(HttpVal::Res(n)) = v
                    && *n != 0
                {
                    self.running.res_status = Some(*n);
                }
            }
            Expr::Assign(target, rhs) => {
                let Pattern::Target(t) = target.as_ref() else {
                    return;
                };
                let Expr::Member(obj, m) = t.as_ref() else {
                    return;
                };
                // A name and a number only: evaluating them again does nothing.
                let (Expr::Ident(_), Expr::Num(n)) = (obj.as_ref(), rhs.as_ref()) else {
                    return;
                };
                if m == "statusCode"
                    && (100.0..600.0).contains(n)
                    && matches!(self.eval(ctx, obj), Value::Http(HttpVal::Res(_)))
                {
                    self.running.res_status = Some(*n as u16);
                }
            }
            _ => {}
        }
    }

    pub(crate) fn http_method(&mut self, ctx: &Ctx, h: HttpVal, name: &str, call: &Call) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        match (h, name) {
            (HttpVal::Req, "get" | "header") => {
                if let (Some(c), Some(k)) = (
                    &self.running.route_contract,
                    argv.first().and_then(|k| k.as_text()),
                ) {
                    c.borrow_mut().headers_read.insert(k.to_ascii_lowercase());
                }
                Value::dynamic()
            }
            (HttpVal::Res(_), "status") => match argv.first().map(|v| self.force(v.clone(), 0)) {
                Some(Value::Num(n)) if (100.0..600.0).contains(&n) => {
                    Value::Http(HttpVal::Res(n as u16))
                }
                // A status only known at run time: 0 (the OpenAPI `default` response).
                _ => Value::Http(HttpVal::Res(0)),
            },
            (HttpVal::Res(status), "json" | "send" | "jsonp" | "end" | "sendStatus") => {
                let status = match (name, argv.first().map(|v| self.force(v.clone(), 0))) {
                    ("sendStatus", Some(Value::Num(n))) if (100.0..600.0).contains(&n) => n as u16,
                    ("sendStatus", _) => 0,
                    // The plain `res` after `res.status(401);` alone.
                    (_, _) if status == 200 => self.running.res_status.unwrap_or(200),
                    _ => status,
                };
                let schema = match name {
                    "json" | "jsonp" => call
                        .args
                        .first()
                        .and_then(|e| crate::libs::socketio_syntax::literal_schema(e, 0))
                        // A value built elsewhere (a constant, a helper's argument).
                        .or_else(|| {
                            let v = self.force(argv.first()?.clone(), 0);
                            crate::libs::schemas::value_schema(&v, 0)
                        }),
                    _ => None,
                };
                if let Some(c) = &self.running.route_contract {
                    let mut c = c.borrow_mut();
                    if status < 400 {
                        c.answered = true;
                    }
                    if !c
                        .responses
                        .iter()
                        .any(|(s, sch, _, _)| *s == status && (sch.is_some() || schema.is_none()))
                    {
                        c.responses
                            .retain(|(s, sch, _, _)| !(*s == status && sch.is_none()));
                        c.responses.push((status, schema, ctx.file, call.line));
                    }
                }
                Value::Undef
            }
            (
                HttpVal::Res(_),
                "set" | "header" | "type" | "cookie" | "clearCookie" | "location" | "vary"
                | "append",
            ) => Value::Http(h),
            // (A redirect is how a guard sends a visitor to log in: not an answer.)
            (HttpVal::Res(status), "render" | "sendFile" | "download" | "write" | "writeHead") => {
                // A page that refuses (`res.status(404).render('404')`,
                // `res.writeHead(403)`) is a refusal, as `send` with it is; an
                // error page (5xx) is still the answer a route gives.
                let status = match (name, argv.first()) {
                    ("writeHead", Some(Value::Num(n))) if (100.0..600.0).contains(n) => *n as u16,
                    _ if status == 200 => self.running.res_status.unwrap_or(200),
                    _ => status,
                };
                if let Some(c) = &self.running.route_contract {
                    let mut c = c.borrow_mut();
                    if status >= 400 && !c.responses.iter().any(|r| r.0 == status) {
                        c.responses.push((status, None, ctx.file, call.line));
                    }
                    if !(400..500).contains(&status) {
                        c.answered = true;
                    }
                }
                // Express set the status on `res` itself: a callback that
                // ends it (`res.status(404).sendFile(page, (err) => …
                // res.end(body))`) ends it with that status.
                let was = self.running.res_status;
                if status != 200 && status != 0 {
                    self.running.res_status = Some(status);
                }
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                self.running.res_status = was;
                Value::dynamic()
            }
            _ => {
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::dynamic()
            }
        }
    }
}

/// The code of a status constant as the status-code packages name it
/// (`CREATED`, `NOT_FOUND`, `UNPROCESSABLE_ENTITY`; also `200`-style keys).
pub(crate) fn status_code_named(name: &str) -> Option<u16> {
    if let Ok(n) = name.parse::<u16>() {
        return (100..600).contains(&n).then_some(n);
    }
    Some(match name {
        "CONTINUE" => 100,
        "SWITCHING_PROTOCOLS" => 101,
        "PROCESSING" => 102,
        "OK" => 200,
        "CREATED" => 201,
        "ACCEPTED" => 202,
        "NON_AUTHORITATIVE_INFORMATION" => 203,
        "NO_CONTENT" => 204,
        "RESET_CONTENT" => 205,
        "PARTIAL_CONTENT" => 206,
        "MULTI_STATUS" => 207,
        "MULTIPLE_CHOICES" => 300,
        "MOVED_PERMANENTLY" => 301,
        "MOVED_TEMPORARILY" | "FOUND" => 302,
        "SEE_OTHER" => 303,
        "NOT_MODIFIED" => 304,
        "TEMPORARY_REDIRECT" => 307,
        "PERMANENT_REDIRECT" => 308,
        "BAD_REQUEST" => 400,
        "UNAUTHORIZED" => 401,
        "PAYMENT_REQUIRED" => 402,
        "FORBIDDEN" => 403,
        "NOT_FOUND" => 404,
        "METHOD_NOT_ALLOWED" => 405,
        "NOT_ACCEPTABLE" => 406,
        "PROXY_AUTHENTICATION_REQUIRED" => 407,
        "REQUEST_TIMEOUT" => 408,
        "CONFLICT" => 409,
        "GONE" => 410,
        "LENGTH_REQUIRED" => 411,
        "PRECONDITION_FAILED" => 412,
        "REQUEST_TOO_LONG" | "PAYLOAD_TOO_LARGE" | "REQUEST_ENTITY_TOO_LARGE" => 413,
        "REQUEST_URI_TOO_LONG" | "URI_TOO_LONG" => 414,
        "UNSUPPORTED_MEDIA_TYPE" => 415,
        "REQUESTED_RANGE_NOT_SATISFIABLE" | "RANGE_NOT_SATISFIABLE" => 416,
        "EXPECTATION_FAILED" => 417,
        "IM_A_TEAPOT" => 418,
        "MISDIRECTED_REQUEST" => 421,
        "UNPROCESSABLE_ENTITY" => 422,
        "LOCKED" => 423,
        "FAILED_DEPENDENCY" => 424,
        "TOO_EARLY" => 425,
        "UPGRADE_REQUIRED" => 426,
        "PRECONDITION_REQUIRED" => 428,
        "TOO_MANY_REQUESTS" => 429,
        "REQUEST_HEADER_FIELDS_TOO_LARGE" => 431,
        "UNAVAILABLE_FOR_LEGAL_REASONS" => 451,
        "INTERNAL_SERVER_ERROR" => 500,
        "NOT_IMPLEMENTED" => 501,
        "BAD_GATEWAY" => 502,
        "SERVICE_UNAVAILABLE" => 503,
        "GATEWAY_TIMEOUT" => 504,
        "HTTP_VERSION_NOT_SUPPORTED" => 505,
        "INSUFFICIENT_STORAGE" => 507,
        "NETWORK_AUTHENTICATION_REQUIRED" => 511,
        _ => return None,
    })
}

/// A member of a status-code package (`http-status`, `http-status-codes`):
/// the package itself under its export names, a status constant's code.
pub(crate) fn status_member(b: &Builtin, prop: &str) -> Option<Value> {
    Some(match (b, prop) {
        (Builtin::HttpStatus, "default" | "StatusCodes" | "status" | "httpStatus") => {
            Value::Builtin(Builtin::HttpStatus)
        }
        (Builtin::HttpStatus, name) => match status_code_named(name) {
            Some(code) => Value::Num(code as f64),
            None => Value::external(),
        },
        _ => return None,
    })
}
