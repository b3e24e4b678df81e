//! Express's `use()`: what a mount argument is (a path, a router, an app,
//! a package's middleware, an endpoint function) and what it registers.
//!
//! Deliberately not here: verbs and `route()` chains (`express.rs`) and the
//! mount-graph walk that joins prefixes (`mounts.rs`).

use crate::machine::*;

impl Interp {
    pub(crate) fn register_use(&mut self, ctx: &Ctx, id: u32, call: &Call) {
        if self.modes.event_mode || self.salvage_blocks(id) {
            self.eval_args(ctx, &call.args);
            return;
        }
        let mut argv = Vec::new();
        for a in &call.args {
            let v = self.eval(ctx, a);
            let v = self.force_deep(v);
            // An unknown value the program wrote properties on mounts as the unknown.
            let v = crate::value::ObjData::rest_of(&v).unwrap_or(v);
            argv.push((a, v));
        }
        self.register_use_values(ctx, id, call, argv);
    }

    /// `use(...)` with its arguments evaluated (and forced).
    pub(crate) fn register_use_values(
        &mut self,
        ctx: &Ctx,
        id: u32,
        call: &Call,
        argv: Vec<(&Expr, Value)>,
    ) {
        let assumed = argv
            .first()
            .map(|(_, v)| self.assumptions(v))
            .unwrap_or_default();
        // A path a choice only known at run time made: a mount at each path
        // it may give, under its condition (`machine/choices.rs`).
        if let Some(ways) = argv.first().and_then(|(_, v)| self.chosen_ways(v)) {
            for (path, cond) in ways.iter() {
                let mut one = argv.clone();
                one[0].1 = Value::Str(path.clone());
                self.running.cond.push(cond.clone());
                self.register_use_of(ctx, id, call, one);
                self.running.cond.pop();
            }
        } else if !assumed.is_empty() {
            let conds = self.assumed_path(ctx, call, "use", &assumed);
            let depth = self.running.cond.len();
            self.running.cond.extend(conds);
            self.register_use_of(ctx, id, call, argv);
            self.running.cond.truncate(depth);
        } else {
            self.register_use_of(ctx, id, call, argv);
        }
    }

    /// `use(...)` with its arguments evaluated.
    fn register_use_of(&mut self, ctx: &Ctx, id: u32, call: &Call, argv: Vec<(&Expr, Value)>) {
        let (paths, start) = match argv.first() {
            Some((_, v @ (Value::Str(_) | Value::Regex(_)))) => {
                (path_list(v).unwrap_or_default(), 1)
            }
            // A template with run-time parts; an array is paths when its
            // first element (arrays flattened) is not a function, as Express
            // decides: `use([a, b], router)`.
            Some((_, v))
                if matches!(v, Value::Pattern(_))
                    || matches!(v, Value::Arr(a) if first_is_path(a)) =>
            {
                match path_list(v) {
                    Ok(p) => {
                        self.note_unknown_head(ctx, id, call, "use", &p);
                        (p, 1)
                    }
                    // A router mounted at a path known only in part
                    // (`${prefix}/${key}`) is mounted: its routes are
                    // charted under the unknown prefix, not "never mounted".
                    Err(())
                        if argv
                            .iter()
                            .skip(1)
                            .any(|(_, v)| matches!(v, Value::Router(_))) =>
                    {
                        self.mount_at_unknown_prefix(ctx, id, call)
                    }
                    Err(()) => {
                        self.dynamic_path(ctx, call, "use");
                        return;
                    }
                }
            }
            // A router mounted at a path only known at run time
            // (`app.use(nconf.get('baseurl'), router)`) is mounted: its
            // routes go under the unknown prefix.
            Some((_, Value::Unknown(Unknown::Dynamic)))
                if argv
                    .iter()
                    .skip(1)
                    .any(|(_, v)| matches!(v, Value::Router(_))) =>
            {
                self.mount_at_unknown_prefix(ctx, id, call)
            }
            // A property read off a value of a package or the runtime
            // (`app.use(config.apiPrefix, router)` with `config` from the
            // `config` package) in front of a router: Express takes what is
            // not a function as the path, and a property read is a setting
            // far more often than middleware left uncalled. Its routes go
            // under the unknown prefix rather than silently at `/`.
            Some((Expr::Member(..) | Expr::Index(..), Value::Unknown(k)))
                if !matches!(k, Unknown::Param | Unknown::Bool)
                    && argv
                        .iter()
                        .skip(1)
                        .any(|(_, v)| matches!(v, Value::Router(_))) =>
            {
                self.mount_at_unknown_prefix(ctx, id, call)
            }
            Some((_, Value::Unknown(Unknown::Dynamic))) if argv.len() >= 2 => {
                self.dynamic_path(ctx, call, "use");
                return;
            }
            _ => (vec![PathArg::Str("/".into())], 0),
        };
        self.note_unmatchable(ctx.file, call.line, &paths);
        let mut handlers = Vec::new();
        for (e, v) in argv.iter().skip(start) {
            self.use_handlers(e, v, &mut handlers, 0);
            // A router could hide behind it: say so rather than drop it.
            if matches!(v, Value::Unknown(Unknown::Dynamic)) && !self.modes.loading_unreached {
                let text = expr_text(e);
                self.finding(
                    FindingCode::DynamicMount,
                    ctx.file,
                    call.line,
                    format!(
                        "`use(..., {text})` mounts a value only known at run time; routes it may add are not in the inventory"
                    ),
                );
            }
        }
        for h in &handlers {
            if let UseHandler::Router(r) = h {
                self.mark_mounted(*r);
            }
        }
        self.package_mounts(ctx, call, &paths, start, &argv);
        let values: Vec<Value> = argv.iter().skip(start).map(|(_, v)| v.clone()).collect();
        self.graphql_mounts(ctx, id, &paths, &values, call);
        self.served_mounts(ctx, id, &paths, &values, call);
        if self.openapi_backend_mount(ctx, id, &paths, &values, call.line)
            || self.use_endpoint(ctx, id, &paths, &handlers, &values, call)
        {
            self.forwarders_registered(id, false);
            return;
        }
        self.note_use_funcs(ctx, call, &argv[start..]);
        self.push_reg(
            id,
            RegKind::Use { paths, handlers },
            ctx.file,
            call.line,
            call.doc.clone(),
            None,
        );
        self.forwarders_registered(id, true);
    }

    /// Keeps the program's own functions a `use` mounts as middleware, for
    /// the `opaque-middleware` finding of an app that charts no operation
    /// (`opaque.rs`): each one's name as written and where it is defined.
    fn note_use_funcs(&mut self, ctx: &Ctx, call: &Call, argv: &[(&Expr, Value)]) {
        let mut found = Vec::new();
        for (e, v) in argv {
            let items: Vec<(String, Value)> = match v {
                Value::Arr(a) => a
                    .borrow()
                    .iter()
                    .map(|it| (value_name(it).unwrap_or_else(|| expr_text(e)), it.clone()))
                    .collect(),
                _ => vec![(
                    match e {
                        Expr::Func(f) => f.name.clone().unwrap_or_else(|| "<anonymous>".into()),
                        _ => expr_text(e),
                    },
                    v.clone(),
                )],
            };
            for (name, it) in items {
                if let Value::Func(c) = it
                    && !self.loader.project.rel(c.file).contains("node_modules/")
                {
                    found.push(crate::machine::state::UseFunc {
                        name,
                        file: c.file,
                        func: c.func.clone(),
                    });
                }
            }
        }
        if !found.is_empty() {
            self.rec
                .use_funcs_at
                .entry((ctx.file, call.line))
                .or_default()
                .extend(found);
        }
    }

    /// `use(path, x)` where `x` is a value of an installed package that may
    /// answer routes of its own and is not known middleware
    /// ([`crate::libs::may_serve_routes`]): an object built with `new` from
    /// its class (`new ScimRouters({...})`, a class extending
    /// `express.Router`), mounted anywhere, or, mounted at a path of its
    /// own, what one of its functions returns (`app.use('/scim',
    /// scimRouter(opts))`, the call written there) or one of its exports,
    /// however it travelled (`this.rasaRoute = require('pkg').router;
    /// app.use('/rasa', this.rasaRoute)`, a variable, a destructured name, a
    /// member of an imported object). The routes it answers are not charted, which a
    /// `package-router` finding says, naming the package and the path.
    fn package_mounts(
        &mut self,
        ctx: &Ctx,
        call: &Call,
        paths: &[PathArg],
        start: usize,
        argv: &[(&Expr, Value)],
    ) {
        let own_path = start == 1
            && paths
                .iter()
                .any(|p| matches!(p, PathArg::Str(s) if crate::paths::join("", s) != "/"));
        let at: Vec<&str> = paths
            .iter()
            .map(|p| match p {
                PathArg::Str(s) | PathArg::Regex(s) => s.as_str(),
            })
            .collect();
        for (e, v) in argv.iter().skip(start) {
            let (pkg, how) = match v {
                Value::Unknown(Unknown::Instance(pkg)) => {
                    (pkg.to_string(), "an object built with `new` from")
                }
                // A value that came from the package (`this.route =
                // require('pkg').router`, however it travelled) or that a
                // call of one of its functions made.
                // What a call of one of its functions made, however it
                // travelled (`const r = plugin.createRouter(); app.use('/c',
                // r)`, `new Adapter().getRouter()`).
                Value::Unknown(Unknown::Made(pkg)) if own_path => {
                    (pkg.to_string(), "a value made by")
                }
                Value::Unknown(Unknown::External(from)) if own_path => {
                    let made = matches!(e, Expr::Call(_) | Expr::New(..));
                    let how = if made {
                        "a value made by"
                    } else {
                        "a value of"
                    };
                    match from.as_deref().map(str::to_string) {
                        Some(pkg) => (pkg, how),
                        None if made => match self.package_of(ctx, e) {
                            Some(pkg) => (pkg, how),
                            None => continue,
                        },
                        None => continue,
                    }
                }
                _ => continue,
            };
            if !crate::libs::may_serve_routes(&pkg) {
                continue;
            }
            let text = expr_text(e);
            self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                call.line,
                format!(
                    "`{text}`, mounted with `use` at `{}`, is {how} the package `{pkg}`, which the analysis does not follow: the routes it answers there are not charted",
                    if start == 1 { at.join("`, `") } else { "/".to_string() },
                ),
            );
        }
    }

    /// `use(path, ..., fn)` whose last function answers and never passes the
    /// request on ([`crate::libs::answers::answers_alone`]): Express runs it for every method on
    /// that path and every path under it, so it is an endpoint, charted as an
    /// `all` route that answers sub-paths too. So is one used without a path,
    /// at `/` or at a regular expression (`app.use(/^((?!api).)*/, (req, res)
    /// => res.sendFile(index))`, `app.use('/', (req, res) => res.redirect(u))`):
    /// it answers whatever reached it. One that only ever answers 404 is the
    /// fallback for what no route answered, which the mount walk leaves out
    /// (`mounts.rs`).
    fn use_endpoint(
        &mut self,
        ctx: &Ctx,
        id: u32,
        paths: &[PathArg],
        handlers: &[UseHandler],
        values: &[Value],
        call: &Call,
    ) -> bool {
        let Some(Value::Func(last)) = values.last() else {
            return false;
        };
        if handlers.iter().any(|h| matches!(h, UseHandler::Router(_))) {
            return false;
        }
        // One that may also pass the request on stays middleware (its `use`
        // is recorded as well), and answers only below a route that hands
        // requests to its router.
        // An async wrapper's function answers alone when the function it
        // wraps does (`asyncHandler(async (req, res) => res.send(…))`).
        // (A function it calls with `next` that takes no `next` of its own,
        // `handler(req, res, next)` on a wrapped `async (req) => …`, cannot
        // pass the request on.)
        let ignores_next = |name: &str| {
            matches!(last.env.lookup(name), Some(Value::Func(g))
                if !g.func.rest && g.func.params.len() < 3 && g.bound.is_none())
        };
        let alone = crate::libs::answers::answers_alone_with(&last.func, &ignores_next)
            || crate::libs::answers::wrapper_answers_alone(&last.func, &|name| match last
                .env
                .lookup(name)
            {
                Some(Value::Func(g)) => Some(crate::libs::answers::answers_alone(&g.func)),
                _ => None,
            });
        // Tests of `req.method` may leave it fewer methods: those are its
        // operations, and the others pass on (or are refused).
        let methods = crate::libs::use_methods::use_methods(&last.func);
        if methods.is_none() && !alone {
            if !crate::libs::answers::may_answer(&last.func) {
                return false;
            }
            self.rec
                .dispatch_answers
                .insert(((last.file, last.func.line), (ctx.file, call.line)));
        }
        let mut names: Vec<String> = handlers
            .iter()
            .filter_map(|h| match h {
                UseHandler::Middleware(n, _) => Some(n.clone()),
                UseHandler::Router(_) => None,
            })
            .collect();
        let name = names.pop().unwrap_or_else(|| "<anonymous>".into());
        let mut funcs = Vec::new();
        let contract = Rc::new(RefCell::new(RawContract::default()));
        for v in values {
            self.route_funcs(ctx, v, &contract, &mut funcs, call.line, 0);
        }
        for p in paths {
            if let PathArg::Regex(r) = p {
                self.finding(
                    FindingCode::RegexPath,
                    ctx.file,
                    call.line,
                    format!("`use` path is a regular expression `{r}`; OpenAPI cannot express it exactly"),
                );
            }
        }
        let methods: Vec<&str> = match &methods {
            Some(ms) => ms.iter().map(|m| m.as_str()).collect(),
            None => vec!["all"],
        };
        // A helper's `use(src, …)` is declared where the helper is called
        // with its path (`redirect('/old', '/new')`), as a verb's is.
        let via = self.path_supplier(ctx, call, paths);
        for method in methods {
            self.push_reg(
                id,
                RegKind::Route {
                    method: method.into(),
                    paths: paths.to_vec(),
                    middleware: names.clone(),
                    handler: Some(HandlerRef {
                        name: name.clone(),
                        at: Some((last.file, last.func.line)),
                    }),
                    contract: contract.clone(),
                    funcs: funcs.clone(),
                    subpaths: true,
                },
                ctx.file,
                call.line,
                call.doc.clone(),
                via,
            );
        }
        alone
    }

    pub(crate) fn use_handlers(
        &mut self,
        e: &Expr,
        v: &Value,
        out: &mut Vec<UseHandler>,
        depth: u32,
    ) {
        if depth > 4 {
            return;
        }
        match v {
            Value::Router(r) => out.push(UseHandler::Router(*r)),
            Value::Arr(items) => {
                let items = items.borrow().clone();
                let exprs: Option<&Vec<Expr>> = match e {
                    Expr::Array(x) => Some(x),
                    _ => None,
                };
                for (i, it) in items.iter().enumerate() {
                    let ie = exprs.and_then(|x| x.get(i)).unwrap_or(e);
                    let it = self.force_deep(it.clone());
                    self.use_handlers(ie, &it, out, depth + 1);
                }
            }
            _ => {
                let name = match e {
                    Expr::Func(f) => f.name.clone().unwrap_or_else(|| "<anonymous>".into()),
                    Expr::Array(_) => value_name(v).unwrap_or_else(|| "<anonymous>".into()),
                    _ => expr_text(e),
                };
                if let Some(r) = self.forwarded_router(&name, v) {
                    out.push(UseHandler::Router(r));
                    return;
                }
                self.note_middleware(&name, v);
                self.note_use_func(v);
                let anonymous = match v {
                    Value::Func(c) if name == "<anonymous>" => {
                        self.note_anonymous_middleware(c);
                        Some((c.file, c.func.id))
                    }
                    _ => None,
                };
                out.push(UseHandler::Middleware(name, anonymous));
            }
        }
    }
}

/// Whether `use`'s array argument holds paths: its first element, arrays
/// flattened, is a path (a string, a pattern with run-time parts, a regex)
/// rather than a function, as Express decides.
fn first_is_path(a: &Rc<RefCell<Vec<Value>>>) -> bool {
    let mut cur = a.borrow().first().cloned();
    for _ in 0..8 {
        match cur {
            Some(Value::Arr(inner)) => cur = inner.borrow().first().cloned(),
            Some(Value::Str(_) | Value::Regex(_) | Value::Pattern(_)) => return true,
            _ => return false,
        }
    }
    false
}
