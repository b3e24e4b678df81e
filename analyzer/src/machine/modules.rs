//! Modules: loading a file's facts as a module (once), its exports, imports
//! (ESM and CommonJS interop, barrels, `import()`), JSON files as data
//! (`require('./constants')` naming `constants.json` gives its object, so
//! `c.PREFIX + '/x'` is a known path), and what a package specifier gives.
//!
//! Deliberately not here: resolving specifiers to files (`project.rs`).

use super::*;

impl Interp {
    /// Evaluate a module (once) and return its record.
    pub(crate) fn run_module(&mut self, id: FileId) {
        self.load_module(id);
    }

    pub(crate) fn load_module(&mut self, id: FileId) -> Rc<ModuleRec> {
        if let Some(rec) = self.js.modules.get(&id) {
            return rec.clone();
        }
        let module_obj = ObjData::new();
        module_obj.is_module_obj.set(true);
        let exports = ObjData::new();
        self.stamp(&module_obj);
        self.stamp(&exports);
        module_obj.set("exports", Value::Obj(exports.clone()));
        let rec = Rc::new(ModuleRec {
            exports,
            live: RefCell::new(None),
            module_obj: module_obj.clone(),
            esm: Cell::new(false),
            stars: RefCell::new(Vec::new()),
            done: Cell::new(false),
            star_names: RefCell::new(HashMap::new()),
        });
        self.js.modules.insert(id, rec.clone());
        self.note_loaded(id);
        self.rec.touched.insert(id);
        let loaded = self.loader.get(id);
        self.loader.prefetch_imports(id, &loaded);
        if let Some((code, msg)) = &loaded.problem {
            let code = if code == "invalid-utf8" {
                FindingCode::InvalidUtf8
            } else {
                FindingCode::UnreadableFile
            };
            self.finding(code, id, 1, msg.clone());
        }
        let facts = loaded.facts.clone();
        for (line, why) in &facts.parse_errors {
            self.finding(
                FindingCode::ParseError,
                id,
                *line,
                format!("syntax error: {why}"),
            );
        }
        for line in &facts.too_deep {
            self.finding(
                FindingCode::TooDeep,
                id,
                *line,
                "code nested too deeply to analyze; this part was skipped".into(),
            );
        }
        // Start parsing the modules this one imports while we interpret it.
        let mut prefetch = Vec::new();
        for src in facts.static_sources() {
            if let Resolved::File(t) = self.loader.project.resolve(id, src)
                && self.loader.needles_of(t) & needle::ROUTING != 0
            {
                prefetch.push(t);
            }
        }
        // (What its top level uses at once was queued when its facts were made.)
        self.loader.prefetch(prefetch);

        // CommonJS's wrapper gives each module its own `module`, `exports`
        // and `require`: `global.require = {…}` or `require = wrap(require)`
        // in one module changes no other module's `require`.
        let scope = Scope::new(Some(self.js.globals.clone()));
        scope.define("module", Value::Obj(module_obj.clone()));
        scope.define("exports", Value::Obj(rec.exports.clone()));
        scope.define("require", Value::Builtin(Builtin::Require));
        node::module_globals(&scope, self.loader.project.rel(id));
        let ctx = Ctx {
            file: id,
            scope: scope.clone(),
            this: Value::Undef,
            home: None,
        };
        // Imports bind first (hoisted), lazily.
        for stmt in &facts.body {
            match stmt {
                Stmt::Import(imp) => {
                    rec.esm.set(true);
                    self.bind_import(&ctx, imp);
                    // `import './boot'` binds nothing: it is there to run the module.
                    self.run_bare_import(ctx.file, imp);
                }
                Stmt::ExportNames(..)
                | Stmt::ExportAll(..)
                | Stmt::ExportDecl(..)
                | Stmt::ExportDefault(_) => rec.esm.set(true),
                _ => {}
            }
        }
        let mut export_names: Vec<(String, String)> = Vec::new();
        self.hoist(&ctx, &facts.body);
        for stmt in &facts.body {
            match stmt {
                Stmt::ExportNames(names, None, _) => {
                    for (local, exported) in names {
                        let v = scope.lookup(local).unwrap_or(Value::Undef);
                        rec.exports.set(exported, v);
                        export_names.push((local.clone(), exported.clone()));
                    }
                }
                Stmt::ExportNames(names, Some(src), line) => {
                    match self.resolve_spec(id, src, *line) {
                        Some(Resolved::File(t)) => {
                            for (name, alias) in names {
                                rec.exports
                                    .set(alias, Value::Lazy(t, Rc::from(name.as_str())));
                            }
                        }
                        other => {
                            for (name, alias) in names {
                                let v = self.import_value(other.as_ref(), Some(name));
                                rec.exports.set(alias, v);
                            }
                        }
                    }
                }
                Stmt::ExportAll(src, alias, line) => {
                    if let Some(Resolved::File(t)) = self.resolve_spec(id, src, *line) {
                        match alias {
                            Some(a) => rec.exports.set(a, Value::Module(t)),
                            None => rec.stars.borrow_mut().push(t),
                        }
                    }
                }
                Stmt::ExportDecl(inner, names) => {
                    self.exec_stmt(&ctx, inner);
                    for n in names {
                        let v = scope.lookup(n).unwrap_or(Value::Undef);
                        rec.exports.set(n, v);
                        export_names.push((n.clone(), n.clone()));
                    }
                }
                Stmt::ExportDefault(e) => {
                    let v = self.eval(&ctx, e);
                    if let (Expr::Func(f), Value::Func(_)) = (e, &v)
                        && let Some(n) = &f.name
                    {
                        scope.define(n, v.clone());
                    }
                    rec.exports.set("default", v);
                }
                s => {
                    if !matches!(self.exec_stmt(&ctx, s), Flow::Normal) {
                        break;
                    }
                }
            }
        }
        // ESM exports are live bindings: take the final values, and keep the
        // scope so later assignments (`io = new Server()` in an init function) show.
        let mut live = HashMap::new();
        for (local, exported) in export_names {
            if let Some(v) = scope.lookup(&local)
                && !matches!(v, Value::Undef)
            {
                rec.exports.set(&exported, v);
            }
            live.insert(exported, local);
        }
        *rec.live.borrow_mut() = Some((scope.clone(), live));
        // ES `import`s beside `module.exports = …` (TypeScript or Babel
        // compiled to CommonJS keeps both): the assigned value is the module's
        // export. In native ES modules (`.mjs`, `.mts`) `module` does not exist.
        let reassigned = match module_obj.get("exports") {
            Some(Value::Obj(o)) => !Rc::ptr_eq(&o, &rec.exports),
            Some(_) => true,
            None => false,
        };
        if rec.esm.get() && reassigned {
            let rel = self.loader.project.rel(id);
            if !(rel.ends_with(".mjs") || rel.ends_with(".mts")) {
                rec.esm.set(false);
            }
        }
        rec.done.set(true);
        rec
    }

    pub(crate) fn resolve_spec(&mut self, from: FileId, spec: &str, line: u32) -> Option<Resolved> {
        self.resolve_spec_as(from, spec, line, crate::project::Loading::Import)
    }

    /// [`Interp::resolve_spec`] for a module loaded the way `how` says.
    pub(crate) fn resolve_spec_as(
        &mut self,
        from: FileId,
        spec: &str,
        line: u32,
        how: crate::project::Loading,
    ) -> Option<Resolved> {
        let r = self.loader.project.resolve_as(from, spec, how);
        // Assets handled by a bundler (`./App.css`, `./logo.svg`, `./x.md?raw`) are not modules.
        let path = spec.split(['?', '#']).next().unwrap_or(spec);
        let asset = spec.contains('?')
            || path.rsplit_once('.').is_some_and(|(_, ext)| {
                matches!(
                    ext,
                    "css"
                        | "scss"
                        | "sass"
                        | "less"
                        | "svg"
                        | "png"
                        | "jpg"
                        | "jpeg"
                        | "gif"
                        | "webp"
                        | "ico"
                        | "avif"
                        | "bmp"
                        | "woff"
                        | "woff2"
                        | "ttf"
                        | "eot"
                        | "mp3"
                        | "mp4"
                        | "wav"
                        | "webm"
                        | "md"
                        | "txt"
                        | "html"
                        | "vue"
                        | "svelte"
                        | "wasm"
                        | "glsl"
                        | "graphql"
                        | "gql"
                        | "yaml"
                        | "yml"
                )
            });
        // A JSON module (`import pkg from '../package.json'`) is data, when it
        // exists (a path under the virtual root `/` is under ROOT: see `node`).
        let json_module = path.ends_with(".json")
            && match path.strip_prefix('/') {
                Some(rel) => self.loader.project.root.join(rel).is_file(),
                None => self
                    .loader
                    .project
                    .abs(from)
                    .parent()
                    .is_some_and(|dir| dir.join(path).is_file()),
            };
        let asset = asset || json_module;
        if r == Resolved::Missing && !asset {
            let source = |rel: &str| {
                [".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"]
                    .iter()
                    .any(|e| rel.ends_with(e))
            };
            let message = match self.left_out_target(from, path) {
                Some(rel) if source(&rel) => format!(
                    "cannot resolve `{spec}` in the analysis: the file is there (`{rel}`), but the project's ignore rules leave it out (`vendor/`, `*.min.js`, … or an ignore file), so its code is not read"
                ),
                // `require('./query.sql')` through a loader hook.
                Some(rel) => format!(
                    "cannot resolve `{spec}` in the analysis: the file is there (`{rel}`), but it is no JavaScript or TypeScript the analysis reads (a loader hook may handle it)"
                ),
                // A subpath import no `imports` entry maps (or one that
                // excludes it with `null`).
                None if spec.starts_with('#') => format!(
                    "cannot resolve `{spec}`: no `imports` entry of the package.json nearest this file maps it to a file in the project"
                ),
                None if let Some(first) = self.loader.project.folder_alias(from, spec) => format!(
                    "cannot resolve `{spec}`: no package.json declares a package `{first}` and none is installed, but `{first}` is a folder of the project: an alias the analysis did not find (a bundler's set up in code, or `NODE_PATH`); its code is not followed from here"
                ),
                None => format!("cannot resolve `{spec}`: no such file in the project"),
            };
            self.finding(FindingCode::UnresolvedImport, from, line, message);
        }
        Some(r)
    }

    /// A relative import Node would load from a file that is on disk but not
    /// in the project (an ignore rule leaves it out): that file, relative to
    /// the root.
    fn left_out_target(&self, from: FileId, path: &str) -> Option<String> {
        if !path.starts_with('.') {
            return None;
        }
        let project = &self.loader.project;
        let base = project.abs(from).parent()?.join(path);
        let with = |suffix: &str| std::path::PathBuf::from(format!("{}{suffix}", base.display()));
        let candidates = [
            base.clone(),
            with(".js"),
            with(".ts"),
            with(".cjs"),
            with(".mjs"),
            base.join("index.js"),
            base.join("index.ts"),
        ];
        let file = candidates.into_iter().find(|c| c.is_file())?;
        let file = std::fs::canonicalize(file).ok()?;
        let root = std::fs::canonicalize(&project.root).ok()?;
        let rel = file.strip_prefix(&root).ok()?;
        Some(crate::project::to_slash(rel))
    }

    pub(crate) fn bind_import(&mut self, ctx: &Ctx, imp: &Import) {
        let r = self.resolve_spec(ctx.file, &imp.source, imp.line);
        match r {
            Some(Resolved::File(t)) => {
                if let Some(d) = &imp.default {
                    ctx.scope.define(d, Value::Lazy(t, Rc::from("default")));
                }
                if let Some(ns) = &imp.namespace {
                    ctx.scope.define(ns, Value::Module(t));
                }
                for (name, local) in &imp.named {
                    ctx.scope
                        .define(local, Value::Lazy(t, Rc::from(name.as_str())));
                }
                // A module whose classes the program's own decorators
                // decorate runs when imported, as ES modules do: those
                // decorators record what the importer reads next (a
                // registry of controllers).
                if !imp.type_only && self.runs_own_decorators(t) {
                    self.load_module(t);
                }
            }
            other => {
                if let Some(d) = &imp.default {
                    let v = self.import_value(other.as_ref(), None);
                    ctx.scope.define(d, v);
                }
                if let Some(ns) = &imp.namespace {
                    let v = self.import_value(other.as_ref(), None);
                    let v = match other {
                        // `import * as c from './c.json'`: its `default` is the data.
                        Some(Resolved::Data(_)) => {
                            let ns = ObjData::new();
                            ns.set("default", v);
                            Value::Obj(ns)
                        }
                        _ => v,
                    };
                    ctx.scope.define(ns, v);
                }
                for (name, local) in &imp.named {
                    let v = self.import_value(other.as_ref(), Some(name));
                    ctx.scope.define(local, v);
                }
            }
        }
    }

    /// Whether module `t`'s top level declares a class decorated by one of
    /// the program's own functions: a decorator defined in the module or
    /// imported from a file of the project (a workspace package's too), not
    /// a package's (Angular's `@Component`, Nest's `@Controller`, whose
    /// meaning `libs` reads from the class). Kept per module.
    fn runs_own_decorators(&mut self, t: FileId) -> bool {
        if let Some(&known) = self.js.own_decorators.get(&t) {
            return known;
        }
        // Most modules have no decorator: their bytes say so without a parse
        // (a line that starts with `@` and a name).
        let decorated = std::fs::read(self.loader.project.abs(t)).is_ok_and(|bytes| {
            bytes.split(|&b| b == b'\n').any(|line| {
                let line = line.trim_ascii_start();
                line.first() == Some(&b'@')
                    && line
                        .get(1)
                        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            })
        });
        if !decorated {
            self.js.own_decorators.insert(t, false);
            return false;
        }
        let facts = self.loader.get(t).facts.clone();
        let roots = facts.class_decorator_roots();
        let own = roots.iter().any(|name| {
            let import = facts.body.iter().find_map(|st| match st {
                Stmt::Import(imp)
                    if imp.default.as_deref() == Some(*name)
                        || imp.namespace.as_deref() == Some(*name)
                        || imp.named.iter().any(|(_, local)| local == name) =>
                {
                    Some(imp)
                }
                _ => None,
            });
            match import {
                Some(imp) => matches!(
                    self.loader.project.resolve(t, &imp.source),
                    Resolved::File(_)
                ),
                None => true,
            }
        });
        self.js.own_decorators.insert(t, own);
        own
    }

    /// What a specifier that names no project source file gives: a JSON
    /// file's data, or a package's value (`name` None = default/namespace).
    pub(crate) fn import_value(&mut self, r: Option<&Resolved>, name: Option<&str>) -> Value {
        match r {
            Some(Resolved::Data(rel)) => {
                let data = self.data_module(rel);
                match name {
                    None | Some("default") => data,
                    Some(n) => self.member(&data, n),
                }
            }
            // tsoa's generated routes file, not in the repository.
            Some(Resolved::Missing) => name
                .and_then(|n| self.tsoa_generated_import(n))
                .unwrap_or_else(|| self.known_import(r, name)),
            _ => self.known_import(r, name),
        }
    }

    /// A JSON file as `require` gives it (read once; the same object each time).
    /// Larger than [`DATA_MODULE_MAX`] or not valid JSON: known only at run time.
    pub(crate) fn data_module(&mut self, rel: &str) -> Value {
        if let Some(v) = self.rec.data_modules.get(rel).and_then(|d| d.value.clone()) {
            return v;
        }
        let bytes = std::fs::read(self.loader.project.root.join(rel)).ok();
        let value = bytes
            .as_ref()
            .filter(|b| b.len() <= DATA_MODULE_MAX)
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
            .map_or_else(Value::dynamic, |j| json_value(&j));
        self.note_input_read(rel, bytes.as_deref(), !self.modes.event_mode);
        if let Some(d) = self.rec.data_modules.get_mut(rel) {
            d.value = Some(value.clone());
        }
        value
    }

    /// Record that the run read the repository file `rel` (a JSON module, a
    /// document, `fs.readFileSync`), so that a change to it is a change of
    /// input (`bytes` `None` when it could not be read), and whether it was
    /// read while charting HTTP.
    pub(crate) fn note_input_read(&mut self, rel: &str, bytes: Option<&[u8]>, http: bool) {
        let d = self
            .rec
            .data_modules
            .entry(rel.to_string())
            .or_insert_with(|| DataModule {
                value: None,
                hash: bytes.map_or_else(String::new, |b| blake3::hash(b).to_hex().to_string()),
                http,
            });
        d.http |= http;
    }

    /// The value of a modelled package import (`name` None = default/namespace).
    pub(crate) fn known_import(&self, r: Option<&Resolved>, name: Option<&str>) -> Value {
        match r {
            Some(Resolved::Known(pkg)) => {
                let base = crate::libs::modelled_module(pkg);
                match name {
                    None | Some("default") => base,
                    Some(n) => member_of_builtin(&base, n),
                }
            }
            Some(Resolved::External(pkg)) => match crate::libs::installed_module(pkg) {
                Some(v) if matches!(name, None | Some("default")) => v,
                Some(v) => member_of_builtin(&v, name.unwrap_or_default()),
                // A package (not a declaration file or a generated script
                // taken for one): its values keep its name.
                None if !pkg.starts_with(['.', '/']) => Value::of_package(pkg),
                None => Value::external(),
            },
            _ => Value::Unknown(Unknown::Reported),
        }
    }

    /// `require(x)` / `import(x)` result for a project file.
    pub(crate) fn module_value(&mut self, id: FileId) -> Value {
        let rec = self.load_module(id);
        if rec.esm.get() {
            // Compiled by Babel with add-module-exports, a module whose only
            // export is its default is that default.
            if self.loader.project.adds_module_exports(id)
                && self.namespace_names(id, 0).iter().eq(["default"].iter())
            {
                return self.export_of(id, "default", 0);
            }
            Value::Module(id)
        } else {
            rec.module_obj.get("exports").unwrap_or(Value::Undef)
        }
    }

    /// The names an ES module's namespace object has (`import * as ns`):
    /// its own exports and those of its `export *` modules (without their
    /// `default`), sorted as the namespace's keys are.
    pub(crate) fn namespace_names(&mut self, id: FileId, depth: u32) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        if depth > 16 {
            return out;
        }
        let rec = self.load_module(id);
        if let Some((_, names)) = rec.live.borrow().as_ref() {
            out.extend(names.keys().cloned());
        }
        out.extend(
            rec.exports
                .props
                .borrow()
                .iter()
                .map(|(k, _)| k.to_string()),
        );
        let stars = rec.stars.borrow().clone();
        for s in stars {
            let theirs = self.namespace_names(s, depth + 1);
            out.extend(theirs.into_iter().filter(|n| n != "default"));
        }
        out
    }

    /// `Object.entries(ns)` of a module namespace: (name, value) by name.
    pub(crate) fn namespace_entries(&mut self, id: FileId) -> Vec<(Value, Value)> {
        self.namespace_names(id, 0)
            .into_iter()
            .map(|n| {
                let v = self.export_of(id, &n, 0);
                (Value::str(&n), v)
            })
            .collect()
    }

    pub(crate) fn export_of(&mut self, id: FileId, name: &str, depth: u32) -> Value {
        if depth > 16 {
            return Value::dynamic();
        }
        let rec = self.load_module(id);
        if !rec.esm.get() {
            let exp = rec.module_obj.get("exports").unwrap_or(Value::Undef);
            if name == "default" {
                // `exports.default = x` (compiled ESM) wins over the object itself.
                if let Value::Obj(o) = &exp
                    && let Some(d) = o.get("default")
                    && o.get("__esModule").is_some()
                {
                    return self.force(d, depth + 1);
                }
                return exp;
            }
            return self.member(&exp, name);
        }
        let current = rec
            .live
            .borrow()
            .as_ref()
            .and_then(|(sc, names)| names.get(name).and_then(|local| sc.lookup(local)));
        if let Some(v) = current
            && !matches!(v, Value::Undef)
        {
            return self.force(v, depth + 1);
        }
        if let Some(v) = rec.exports.get(name) {
            return self.force(v, depth + 1);
        }
        let known = rec.star_names.borrow().get(name).copied();
        match known {
            Some(Some(s)) => return self.export_of(s, name, depth + 1),
            Some(None) => {}
            None => {
                let stars = rec.stars.borrow().clone();
                // Whether every module asked ran to its end: only then is
                // the answer kept.
                let mut settled = rec.done.get();
                let mut found = None;
                for s in stars {
                    // A barrel's modules that cannot hold the name are not loaded.
                    if !self.is_loaded(s) && !self.loader.may_export(s, name) {
                        continue;
                    }
                    let v = self.export_of(s, name, depth + 1);
                    settled &= self.js.modules.get(&s).is_some_and(|r| r.done.get());
                    if !matches!(v, Value::Undef | Value::Unknown(_)) {
                        found = Some((s, v));
                        break;
                    }
                }
                if settled {
                    let at = found.as_ref().map(|(s, _)| *s);
                    rec.star_names.borrow_mut().insert(name.to_string(), at);
                }
                if let Some((_, v)) = found {
                    return v;
                }
            }
        }
        if !rec.done.get() {
            // Import cycle: the binding is not initialised yet.
            return Value::dynamic();
        }
        Value::Undef
    }

    pub(crate) fn force(&mut self, v: Value, depth: u32) -> Value {
        match v {
            Value::Lazy(f, name) => self.export_of(f, &name, depth),
            v => v,
        }
    }

    /// Run a deferred call (or member of one) whose value is needed now;
    /// any other value as it is.
    pub(crate) fn force_deferred(&mut self, v: Value) -> Value {
        match v {
            Value::Deferred(_) => self.force_deep(v),
            v => v,
        }
    }

    /// Resolve lazy imports and deferred calls: the value is needed for
    /// routing. Deferred work whose forcing needs more than [`MAX_FORCING`]
    /// others forced first (a method that calls itself and reads a member
    /// of what it gave, once per step of the budget) is only known at run
    /// time: the recursion stays bounded.
    pub(crate) fn force_deep(&mut self, v: Value) -> Value {
        let mut v = v;
        for _ in 0..32 {
            v = match v {
                Value::Lazy(f, name) => self.export_of(f, &name, 0),
                Value::Deferred(t) => {
                    if let Some(r) = t.result.borrow().clone() {
                        r
                    } else if t.forcing.get() || self.running.forcing >= MAX_FORCING {
                        return Value::dynamic();
                    } else {
                        t.forcing.set(true);
                        self.running.forcing += 1;
                        let ctx = Ctx {
                            file: t.file,
                            scope: Scope::new(Some(self.js.globals.clone())),
                            this: Value::Undef,
                            home: None,
                        };
                        let r = match &t.kind {
                            ThunkKind::Call(callee, argv, this, line) => {
                                let callee = self.force_deep(callee.clone());
                                self.call_value_now(
                                    &ctx,
                                    &callee,
                                    argv.clone(),
                                    &[],
                                    *line,
                                    this.clone(),
                                )
                            }
                            ThunkKind::Member(base, prop) => {
                                let base = self.force_deep(base.clone());
                                self.member(&base, prop)
                            }
                        };
                        self.running.forcing -= 1;
                        t.forcing.set(false);
                        *t.result.borrow_mut() = Some(r.clone());
                        r
                    }
                }
                other => return other,
            };
        }
        Value::dynamic()
    }
}

/// How many deferred calls and members are forced inside one another at most.
const MAX_FORCING: u32 = 256;

/// The largest JSON file read as data (a bigger one is a data set, not configuration).
const DATA_MODULE_MAX: usize = 1 << 20;

/// A parsed JSON document as a value.
pub(crate) fn json_value(j: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match j {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => n.as_f64().map_or_else(Value::dynamic, Value::Num),
        J::String(t) => Value::str(t),
        J::Array(items) => Value::array(items.iter().map(json_value).collect()),
        J::Object(fields) => {
            let o = ObjData::new();
            for (k, v) in fields {
                o.set(k, json_value(v));
            }
            Value::Obj(o)
        }
    }
}
