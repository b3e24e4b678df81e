//! Salvage: apps and routers built by code the entries never ran.
//!
//! Captures: a function, class method (static included), getter or exported
//! default function that nobody called, in a module that mentions Express,
//! and that creates an app (`express()` and its variants, directly or through
//! what it calls: `start()` doing `new App()` whose constructor calls
//! `express()` and whose `config()` mounts the routers) or a router with
//! routes. It runs once with placeholder (unknown) arguments, with route
//! registrations recorded only on the apps and routers created while it runs;
//! what it builds is charted in full (every mount prefix joined inside that
//! code), tagged with how it was reached ([`Salvage`]). A run that builds
//! nothing leaves no trace: the functions it called are uncalled again (the
//! event pass still runs them), its findings and the files it read are
//! forgotten, and the routers it made are emptied.
//!
//! Deliberately not captured: registrations the salvaged code makes on apps
//! and routers that existed before it ran (they belong to the program's own
//! run, and adding to them would change what the entries reach); functions
//! nested in other functions (they run with their parent); Socket.IO sites
//! (the event pass finds them, as before).

use super::*;

/// How the salvage pass reached an app or router the entries do not reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SalvageKind {
    /// Built by a function (or method, getter) nobody called.
    Uncalled,
    /// A router with routes that nothing mounts: its prefix is unknown.
    Unmounted,
    /// A registration function nobody called (`module.exports = function (app) { app.get(...) }`),
    /// run with a placeholder router for the parameter it registers on: its prefix is unknown.
    Unregistered,
}

impl SalvageKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SalvageKind::Uncalled => "uncalled",
            SalvageKind::Unmounted => "unmounted",
            SalvageKind::Unregistered => "unregistered",
        }
    }
}

/// The tag of a salvaged app or router: how, through which function, where.
#[derive(Clone, Debug)]
pub(crate) struct Salvage {
    pub(crate) kind: SalvageKind,
    /// The function that was run (`start`, `ParseServer.app`, `default`).
    pub(crate) func: String,
    pub(crate) file: FileId,
    pub(crate) line: u32,
}

/// A function first called during a salvage run, with its closure when it waited as uncalled.
type FirstCall = ((FileId, u32), Option<Rc<Closure>>);

/// The salvage run in progress.
#[derive(Default)]
pub(crate) struct SalvageState {
    /// Its tag (routers created meanwhile carry it).
    pub(crate) current: Option<Rc<Salvage>>,
    /// Routers below this index existed before the run: registrations on them are not recorded.
    pub(crate) floor: usize,
    /// Functions first called during the run, with their closure when it waited as uncalled.
    pub(crate) log: Vec<FirstCall>,
    /// Functions some salvage run already ran (not tried again on their own).
    pub(crate) ran: HashSet<(FileId, u32)>,
}

impl Interp {
    /// Whether a registration on router `id` is left out: the salvage pass
    /// records only what the code it runs builds.
    pub(crate) fn salvage_blocks(&self, id: u32) -> bool {
        self.salvage.current.is_some() && (id as usize) < self.salvage.floor
    }

    /// The tag of routers created now.
    pub(crate) fn salvage_tag(&self) -> Option<Rc<Salvage>> {
        self.salvage.current.clone()
    }

    /// A function called for the first time (`closure`: it waited as uncalled).
    pub(crate) fn salvage_note_call(&mut self, key: (FileId, u32), closure: Option<Rc<Closure>>) {
        if self.salvage.current.is_some() {
            self.salvage.log.push((key, closure));
        }
    }

    /// Run, with placeholder arguments, the functions nobody called that may
    /// build an app (see the module documentation). After the entries and the
    /// unreached-router files, before the event pass.
    pub(crate) fn salvage_uncalled(&mut self) {
        // The pass has its own budget: what it runs does not eat into the
        // event pass's (the steps are given back at the end).
        let start = self.js.steps;
        let reported = self.js.budget_reported;
        self.salvage_candidates();
        self.js.steps = start;
        self.js.budget_reported = reported;
    }

    /// The functions modules export: `module.exports` itself, and the
    /// functions on the exports object (CommonJS properties, ES exports).
    fn exported_functions(&self) -> HashSet<(FileId, u32)> {
        let mut out = HashSet::new();
        for rec in self.js.modules.values() {
            let mut take = |v: &Value| {
                if let Value::Func(c) = v {
                    out.insert((c.file, c.func.id));
                }
            };
            if let Some(v) = rec.module_obj.get("exports") {
                take(&v);
            }
            for v in rec.exports.props.borrow().values() {
                take(v);
            }
        }
        out
    }

    fn salvage_candidates(&mut self) {
        self.mark_route_handlers_called();
        let eligible = |me: &Self, file: FileId| {
            let n = me.loader.needles_of(file);
            n & (needle::APP | needle::ROUTER) != 0 && n & needle::EXPRESS != 0
        };
        // Module-level functions (exported defaults and static methods included), in file order.
        let module_level =
            |c: &Rc<Closure>| c.env.parent.as_ref().is_some_and(|p| p.parent.is_none());
        let mut todo: Vec<((FileId, u32), Rc<Closure>)> = self
            .deferred
            .uncalled
            .iter()
            .filter(|(k, c)| {
                !self.deferred.called.contains(k) && eligible(self, k.0) && module_level(c)
            })
            .map(|(k, c)| (*k, c.clone()))
            .collect();
        // A module's exported functions first: a host calls them (a service
        // runner calls `module.exports = (options) => initApp(options).then(…)`),
        // and they call the module's helpers with what those need.
        let exported = self.exported_functions();
        todo.sort_by_key(|(k, _)| (k.0, !exported.contains(k), k.1));
        for (k, c) in todo {
            if self.deferred.called.contains(&k)
                || self.salvage.ran.contains(&k)
                || self.js.steps > STEP_BUDGET
                || !self.may_build(&c.env, c.home.as_ref(), &c.func.body, 0)
            {
                continue;
            }
            // A static method runs with its class as `this`.
            let this = c.home.as_ref().and_then(|cv| {
                cv.class
                    .static_methods
                    .iter()
                    .chain(&cv.class.static_getters)
                    .any(|(_, f)| f.id == c.func.id)
                    .then(|| Value::Class(cv.clone()))
            });
            let name = match (&c.home, &c.func.name) {
                (Some(cv), Some(n)) if this.is_some() => {
                    format!("{}.{n}", cv.class.name.as_deref().unwrap_or("<class>"))
                }
                (_, Some(n)) => n.clone(),
                (_, None) => "default".into(),
            };
            let tag = Salvage {
                kind: SalvageKind::Uncalled,
                func: name,
                file: c.file,
                line: c.func.line,
            };
            let n = c.func.params.len();
            self.salvage_run(tag, move |me| {
                me.invoke(&c, vec![Value::Unknown(Unknown::Param); n], this);
            });
        }
        // Methods and getters of classes nobody called, on the program's
        // instance when there is one, else on one built in the run.
        let classes = self.rec.classes.clone();
        for (cv, inst) in classes {
            if !eligible(self, cv.file) {
                continue;
            }
            let mut inst = inst;
            let members: Vec<(String, Arc<Func>, bool)> = cv
                .class
                .methods
                .iter()
                .map(|(n, f)| (n.clone(), f.clone(), false))
                .chain(
                    cv.class
                        .getters
                        .iter()
                        .map(|(n, f)| (n.clone(), f.clone(), true)),
                )
                .collect();
            for (name, f, getter) in members {
                let k = (cv.file, f.id);
                if self.deferred.called.contains(&k)
                    || self.salvage.ran.contains(&k)
                    || self.js.steps > STEP_BUDGET
                    || !self.may_build(&cv.env, Some(&cv), &f.body, 0)
                {
                    continue;
                }
                let tag = Salvage {
                    kind: SalvageKind::Uncalled,
                    func: format!("{}.{name}", cv.class.name.as_deref().unwrap_or("<class>")),
                    file: cv.file,
                    line: f.line,
                };
                let cv2 = cv.clone();
                let mut made = None;
                let have = inst.clone();
                self.salvage_run(tag, |me| {
                    let this = match have {
                        Some(i) => i,
                        None => {
                            let n = cv2.class.constructor.as_ref().map_or(0, |c| c.params.len());
                            let ctx = Ctx {
                                file: cv2.file,
                                scope: Scope::new(Some(me.js.globals.clone())),
                                this: Value::Undef,
                                home: None,
                            };
                            let v = Value::Class(cv2.clone());
                            let i = me.construct(
                                &ctx,
                                &v,
                                vec![Value::Unknown(Unknown::Param); n],
                                &[],
                                cv2.class.line,
                            );
                            made = Some(i.clone());
                            i
                        }
                    };
                    let m = Closure::method(&cv2, &f, &this);
                    let argv = if getter {
                        Vec::new()
                    } else {
                        vec![Value::Unknown(Unknown::Param); f.params.len()]
                    };
                    me.invoke(&m, argv, Some(this));
                });
                if inst.is_none() {
                    inst = made;
                }
            }
        }
        // Last: a function run with a placeholder router stands for callers the
        // analysis cannot see, so every run that may call it with its real
        // arguments (the class methods above included) comes first.
        self.salvage_registration_functions();
    }

    /// Module-level functions nobody called that register routes on a
    /// parameter (`function (app) { app.get('/x', h) }`): run with a
    /// placeholder router for that parameter (charted under `{?}`).
    fn salvage_registration_functions(&mut self) {
        let module_level =
            |c: &Rc<Closure>| c.env.parent.as_ref().is_some_and(|p| p.parent.is_none());
        let mut todo: Vec<((FileId, u32), Rc<Closure>, usize)> = self
            .deferred
            .uncalled
            .iter()
            .filter(|(k, c)| {
                !self.deferred.called.contains(k) && module_level(c) && c.home.is_none()
            })
            .filter_map(|(k, c)| registers_on_param(&c.func).map(|i| (*k, c.clone(), i)))
            .collect();
        todo.sort_by_key(|(k, _, _)| *k);
        for (k, c, i) in todo {
            if self.deferred.called.contains(&k)
                || self.salvage.ran.contains(&k)
                || self.js.steps > STEP_BUDGET
            {
                continue;
            }
            let tag = Salvage {
                kind: SalvageKind::Unregistered,
                func: c.func.name.clone().unwrap_or_else(|| "<anonymous>".into()),
                file: c.file,
                line: c.func.line,
            };
            self.salvage_run(tag, move |me| {
                let mut argv = vec![Value::Unknown(Unknown::Param); c.func.params.len()];
                argv[i] = me.new_router(c.file, c.func.line, false);
                me.invoke(&c, argv, None);
            });
        }
    }

    /// Whether code may build an app or a router, read from its text: it calls
    /// `express()`, `Router()`, `express.Router()` (compiled forms included),
    /// or a function, class (constructor and fields) or static method of its
    /// module that does, a few levels deep. Keeps the pass away from the many
    /// uncalled functions that build nothing (middleware, helpers).
    fn may_build(
        &self,
        env: &Rc<Scope>,
        home: Option<&Rc<ClassVal>>,
        body: &[Stmt],
        depth: u32,
    ) -> bool {
        let refs: RefCell<Vec<(String, Option<String>)>> = RefCell::new(Vec::new());
        let direct = crate::libs::any_expr(body, &|e| {
            let callee = match e {
                Expr::Call(c) => &c.callee,
                Expr::New(c, _, _) => c.as_ref(),
                _ => return false,
            };
            let callee = match callee {
                Expr::Seq(items) => items.last().unwrap_or(callee),
                c => c,
            };
            match callee {
                Expr::Ident(n) if n == "express" || n == "Router" => return true,
                Expr::Member(_, m) if m == "Router" => return true,
                Expr::Member(o, m)
                    if m == "default"
                        && matches!(o.as_ref(), Expr::Ident(x) if x.starts_with("express")) =>
                {
                    return true;
                }
                Expr::Call(c)
                    if matches!(&c.callee, Expr::Ident(r) if r == "require")
                        && matches!(c.args.first(), Some(Expr::Str(x)) if x == "express") =>
                {
                    return true;
                }
                Expr::Ident(n) => refs.borrow_mut().push((n.clone(), None)),
                Expr::Member(o, m) => match o.as_ref() {
                    Expr::Ident(n) => refs.borrow_mut().push((n.clone(), Some(m.clone()))),
                    Expr::This => refs.borrow_mut().push(("this".into(), Some(m.clone()))),
                    _ => {}
                },
                _ => {}
            }
            false
        });
        if direct {
            return true;
        }
        if depth >= 4 {
            return false;
        }
        let class_builds = |me: &Self, cv: &Rc<ClassVal>| {
            let ctor = cv
                .class
                .constructor
                .as_ref()
                .is_some_and(|c| me.may_build(&cv.env, Some(cv), &c.body, depth + 1));
            let fields: Vec<Stmt> = cv
                .class
                .fields
                .iter()
                .filter_map(|(_, e)| e.clone().map(Stmt::Expr))
                .collect();
            ctor || me.may_build(&cv.env, Some(cv), &fields, depth + 1)
        };
        for (name, member) in refs.into_inner() {
            let target = if name == "this" {
                home.map(|h| Value::Class(h.clone()))
            } else {
                env.lookup(&name)
            };
            let hit = match (target, member) {
                (Some(Value::Func(c)), None) => {
                    self.may_build(&c.env, c.home.as_ref(), &c.func.body, depth + 1)
                }
                (Some(Value::Class(cv)), None) => class_builds(self, &cv),
                (Some(Value::Class(cv)), Some(m)) => cv
                    .class
                    .static_methods
                    .iter()
                    .chain(&cv.class.methods)
                    .chain(&cv.class.getters)
                    .filter(|(n, _)| *n == m)
                    .any(|(_, f)| self.may_build(&cv.env, Some(&cv), &f.body, depth + 1)),
                _ => false,
            };
            if hit {
                return true;
            }
        }
        false
    }

    /// One salvage run of `run`, tagged `tag`; kept when it built an app or a
    /// router with routes, else undone.
    fn salvage_run(&mut self, tag: Salvage, run: impl FnOnce(&mut Self)) {
        let floor = self.rec.routers.len();
        let touched = self.rec.touched.clone();
        let findings = self.rec.findings.len();
        self.salvage.current = Some(Rc::new(tag));
        self.salvage.floor = floor;
        self.salvage.log.clear();
        self.with_mode(Mode::QuietSites, true, run);
        self.salvage.current = None;
        // What the run called stays uncalled for the event pass.
        for (k, c) in std::mem::take(&mut self.salvage.log) {
            self.deferred.called.remove(&k);
            self.salvage.ran.insert(k);
            if let Some(c) = c {
                self.deferred.uncalled.insert(k, c);
            }
        }
        let built = self.rec.routers[floor..]
            .iter()
            .any(|r| r.is_app || !r.regs.is_empty());
        if built {
            return;
        }
        for r in &mut self.rec.routers[floor..] {
            r.regs.clear();
            r.param_callbacks.clear();
            r.salvage = None;
            r.in_event_pass = true;
        }
        for f in self.rec.findings.drain(findings..) {
            self.rec.finding_keys.remove(&(f.code, f.file, f.line));
        }
        // Modules it loaded are loaded again, as before, by whoever needs them.
        for f in self.rec.touched.difference(&touched) {
            self.js.modules.remove(f);
        }
        self.rec.touched = touched;
    }
}

/// The parameter (index) a function registers routes on: `p.get('/x', h)`,
/// `p.post(`/x`, a, b)`, `p.use('/x', r)`, `p.route('/x')` with `p` a plain
/// parameter, a path-like first argument (starting with `/`) and, but for
/// `route`, a handler after it.
fn registers_on_param(f: &Func) -> Option<usize> {
    let names: Vec<&str> = f
        .params
        .iter()
        .map(|p| match p {
            Pattern::Ident(n) => n.as_str(),
            _ => "",
        })
        .collect();
    let hit: RefCell<Option<usize>> = RefCell::new(None);
    crate::libs::any_expr(&f.body, &|e| {
        let Expr::Call(c) = e else { return false };
        let Expr::Member(o, m) = &c.callee else {
            return false;
        };
        let Expr::Ident(recv) = o.as_ref() else {
            return false;
        };
        let Some(i) = names.iter().position(|n| !n.is_empty() && n == recv) else {
            return false;
        };
        let verb = HTTP_VERBS.contains(&m.as_str()) || m == "use";
        if !verb && m != "route" {
            return false;
        }
        let pathy = match c.args.first() {
            Some(Expr::Str(p)) => p.starts_with('/'),
            Some(Expr::Template(q, _)) => q.first().is_some_and(|p| p.starts_with('/')),
            _ => false,
        };
        let handler = m == "route"
            || c.args.get(1).is_some_and(|a| {
                matches!(
                    a,
                    Expr::Func(_) | Expr::Ident(_) | Expr::Member(..) | Expr::Call(_)
                )
            });
        if pathy && handler {
            *hit.borrow_mut() = Some(i);
            return true;
        }
        false
    });
    hit.into_inner()
}
