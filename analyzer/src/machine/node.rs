//! Node built-ins over the repository: the file system, paths and module
//! lookup, answered from the project's own folders.
//!
//! Captures: a module's `__dirname`, `__filename`, `import.meta.url`
//! (`.dirname`, `.filename`) and `process.cwd()` as paths under a virtual
//! root `/` that stands for the analyzed folder (`server/app.js` has
//! `__dirname` `/server`); `path.join/resolve/dirname/basename/extname/
//! relative/isAbsolute/sep`; `url.fileURLToPath`/`pathToFileURL`; the WHATWG
//! `URL` class (`new URL('../x.json', import.meta.url)` resolves, and `fs`
//! takes a URL object as its path);
//! `fs.readdirSync`/`readdir`/`promises.readdir` (also `withFileTypes` and
//! `recursive`), `existsSync`, `statSync`/`lstatSync` (`isDirectory()`,
//! `isFile()`); the `glob`, `fast-glob`, `globby` and `tiny-glob` packages
//! (sync, promise and callback forms, `cwd` (by default the program's
//! working folder), `absolute`, `ignore`, `!` patterns, minimatch's extended
//! forms: `project/glob.rs`; folders as each package lists them: node-glob
//! and tiny-glob by default, fast-glob and globby on request); `require.resolve`; `module.createRequire(import.meta.url)`;
//! `require`/`import()` of such a path or of a `file://` URL; `util.inherits`
//! (see `protos`), `util.promisify`/`callbackify` (the function itself);
//! `AsyncLocalStorage` from `async_hooks` (`run(store, fn, ...args)` calls
//! `fn(...args)` at once); `fs.readFileSync`/`readFile`/`promises.readFile`
//! of a file inside the root (at most [`READ_FILE_MAX`] bytes, UTF-8; a
//! `Buffer` is its text) and `JSON.parse` of a known text (the YAML readers
//! are `libs/documents.rs`). So
//! `readdirSync(join(__dirname, 'routes')).forEach(f => require('./routes/' + f)(app))`
//! loads every route file there, in byte order.
//!
//! Deliberately not: folders the project does not contain (ignored or
//! generated ones, or outside the root) stay unknown, so a loop over them is a
//! `dynamic-loop` finding as before; a listing holds the source files and
//! folders the analyzer discovered (no `.json`, images or other data files);
//! `existsSync` of a path the repository could hold but does not (in one of
//! its folders, neither hidden nor matched by an ignore file) is false, and
//! of one it could not hold (an ignored or generated folder, a hidden or
//! ignored name, outside the root) unknown rather than false (it may be a
//! build output or a local file; a data file inside the root that
//! `readFileSync` could read exists); a file read that is larger, not UTF-8,
//! or named by a path only known at run time is unknown; `JSON.parse` with a
//! reviver is unknown. The process is taken to start in the folder of the
//! package.json that names the running program's entry (npm runs its scripts
//! there; else the nearest one above the entry, else the analyzed folder).

use super::modules::json_value;
use super::{Ctx, Interp, posix_join};
use crate::ir::Expr;
use crate::project::Resolved;
use crate::value::{Builtin, ObjData, Scope, Value};

/// A Node built-in the machine answers from the repository.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NodeFn {
    /// `path.<name>` other than `join`/`normalize` (see `Builtin::PathJoin`).
    Path(&'static str),
    /// `fs.<name>` (also `fs.promises.<name>` and `fs/promises`).
    Fs(&'static str),
    /// The global `process`.
    Process,
    /// `process.env` (see `env.rs`).
    Env,
    /// `process.cwd`.
    Cwd,
    /// The `url` module.
    UrlModule,
    /// `url.fileURLToPath`.
    FileUrlToPath,
    /// `url.pathToFileURL`.
    PathToFileUrl,
    /// The WHATWG `URL` class (global, and `url.URL`): `new URL(input, base)`
    /// of known strings (or URL objects) is the resolved URL (see [`url_object`]).
    UrlCtor,
    /// The `module` module.
    ModuleModule,
    /// `module.createRequire`.
    CreateRequire,
    /// `require.resolve`.
    RequireResolve,
    /// A method that answers a constant (`stats.isDirectory()`).
    Answer(bool),
    /// A method that answers a constant text (a call site's `getFileName()`,
    /// `libs/callsite.rs`).
    AnswerText(std::rc::Rc<str>),
    /// The `callsite` package's `stack()` (`libs/callsite.rs`).
    CallSites,
    /// A glob package or one of its functions: every call lists matches
    /// (folders too when the package lists them by default).
    Glob(bool),
    /// The `util` module.
    Util,
    /// `util.inherits` (also the `inherits` package).
    Inherits,
    /// A directory loader package (`require-tree`, …): see `loaders`.
    Loader(&'static str),
    /// A `consign()`/`express-load` chain: see `loaders`.
    LoadChain(std::rc::Rc<crate::libs::LoadChain>),
    /// The `async_hooks` module.
    AsyncHooks,
    /// Its `AsyncLocalStorage` class: an instance's `run(store, fn, ...args)`
    /// and `exit(fn, ...args)` call `fn(...args)` at once.
    AsyncLocalStorage,
    /// A function that calls its argument at this index with the arguments after it.
    CallsArg(usize),
    /// JavaScript's `JSON` (here because it reads what `fs` gives).
    Json,
    /// `JSON.parse`: a known text gives its value.
    JsonParse,
    /// The global `encodeURIComponent`, `decodeURIComponent`, `encodeURI`,
    /// `decodeURI` (`decodeURIComponent('%2E')` is `.`).
    UriCodec(&'static str),
}

/// The largest repository file `fs.readFile*` reads (bytes); a larger one
/// is only known at run time.
const READ_FILE_MAX: u64 = 2 << 20;

/// The virtual path of a root-relative path.
fn vpath(rel: &str) -> String {
    format!("/{rel}")
}

/// The root-relative folder or file a path names (relative paths are
/// relative to the process's folder, the root); `None` outside the root.
pub(crate) fn to_rel(p: &str) -> Option<String> {
    let p = p.strip_prefix("file://").unwrap_or(p);
    let mut out: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            // Above the analyzed folder: not the project's.
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

/// Define a module's path globals: `__dirname`, `__filename`, `import.meta`.
pub(crate) fn module_globals(scope: &Scope, rel: &str) {
    let dir = rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    scope.define("__dirname", Value::str(&vpath(dir)));
    scope.define("__filename", Value::str(&vpath(rel)));
    let meta = ObjData::new();
    meta.set("url", Value::str(&format!("file://{}", vpath(rel))));
    meta.set("dirname", Value::str(&vpath(dir)));
    meta.set("filename", Value::str(&vpath(rel)));
    scope.define("import.meta", Value::Obj(meta));
}

/// The text of a URL argument: a string, or a URL object's `href`.
pub(crate) fn url_text(v: &Value) -> Option<String> {
    match v {
        Value::Obj(o) => o.get("href").and_then(|h| h.as_text()),
        v => v.as_text(),
    }
}

/// `new URL(input, base)`: `input` when it has a scheme, else `input`
/// resolved against `base` as a relative reference (RFC 3986, section 5.2:
/// `../x` from `file:///server/app.js` is `file:///x`, `/x` keeps the base's
/// scheme and host, `?q` and `#f` keep its path). `None` when the result is
/// not determined (no base for a relative input, a base without a scheme).
pub(crate) fn resolve_url(input: &str, base: Option<&str>) -> Option<String> {
    let scheme_end = |s: &str| {
        let i = s.find(':')?;
        let ok = i > 0
            && s[..i].starts_with(|c: char| c.is_ascii_alphabetic())
            && s[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        ok.then_some(i)
    };
    if scheme_end(input).is_some() {
        return Some(input.to_string());
    }
    let base = base?;
    let scheme = scheme_end(base)?;
    let rest = &base[scheme + 1..];
    // The authority (`//host`) and the path, query and fragment after it.
    let (authority, tail) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find(['/', '?', '#']).unwrap_or(r.len());
            (format!("//{}", &r[..end]), &r[end..])
        }
        None => (String::new(), rest),
    };
    let base_path = &tail[..tail.find(['?', '#']).unwrap_or(tail.len())];
    let base_query = &tail[base_path.len()..tail.find('#').unwrap_or(tail.len())];
    let prefix = format!("{}:{authority}", &base[..scheme]);
    if let Some(r) = input.strip_prefix("//") {
        return Some(format!("{}://{r}", &base[..scheme]));
    }
    if input.is_empty() || input.starts_with('#') {
        return Some(format!("{prefix}{base_path}{base_query}{input}"));
    }
    if input.starts_with('?') {
        return Some(format!("{prefix}{base_path}{input}"));
    }
    let split = input.find(['?', '#']).unwrap_or(input.len());
    let (rel, after) = input.split_at(split);
    let merged = if rel.starts_with('/') {
        rel.to_string()
    } else {
        let dir = base_path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        format!("{dir}/{rel}")
    };
    // Dot segments removed; `..` never climbs above the root.
    let mut out: Vec<&str> = Vec::new();
    let segs: Vec<&str> = merged.split('/').collect();
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let mut path = out.join("/");
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    Some(format!("{prefix}{path}{after}"))
}

/// A URL object for an absolute URL text: `href`, `protocol`, `host`,
/// `hostname`, `port`, `origin`, `pathname`, `search` and `hash`, as the
/// WHATWG `URL` class gives them (no percent-encoding is applied).
pub(crate) fn url_object(href: &str) -> Value {
    let o = ObjData::new();
    o.set("href", Value::str(href));
    let (scheme, rest) = href.split_once(':').unwrap_or(("", href));
    o.set("protocol", Value::str(&format!("{scheme}:")));
    let (host, tail) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find(['/', '?', '#']).unwrap_or(r.len());
            (&r[..end], &r[end..])
        }
        None => ("", rest),
    };
    let host = host.rsplit_once('@').map(|(_, h)| h).unwrap_or(host);
    let (hostname, port) = match host.rsplit_once(':') {
        Some((h, p)) if p.chars().all(|c| c.is_ascii_digit()) => (h, p),
        _ => (host, ""),
    };
    o.set("host", Value::str(host));
    o.set("hostname", Value::str(hostname));
    o.set("port", Value::str(port));
    let origin = if host.is_empty() {
        "null".to_string()
    } else {
        format!("{scheme}://{host}")
    };
    o.set("origin", Value::str(&origin));
    let hash_at = tail.find('#').unwrap_or(tail.len());
    let query_at = tail[..hash_at].find('?').unwrap_or(hash_at);
    let path = &tail[..query_at];
    o.set(
        "pathname",
        Value::str(if path.is_empty() && !host.is_empty() {
            "/"
        } else {
            path
        }),
    );
    let search = &tail[query_at..hash_at];
    o.set(
        "search",
        Value::str(if search == "?" { "" } else { search }),
    );
    let hash = &tail[hash_at..];
    o.set("hash", Value::str(if hash == "#" { "" } else { hash }));
    Value::Obj(o)
}

/// A specifier for `require`/`import()`: a `file://` URL names its path.
pub(crate) fn specifier(spec: &str) -> &str {
    spec.strip_prefix("file://").unwrap_or(spec)
}

/// The value of a Node module the machine models here, by its bare name.
pub(crate) fn module(pkg: &str) -> Option<Value> {
    let f = match pkg {
        "url" => NodeFn::UrlModule,
        "module" => NodeFn::ModuleModule,
        "util" => NodeFn::Util,
        "async_hooks" => NodeFn::AsyncHooks,
        _ => return None,
    };
    Some(Value::Builtin(Builtin::Node(f)))
}

/// `path.<prop>` for the members `Builtin::PathJoin` does not cover.
pub(crate) fn path_member(prop: &str) -> Option<Value> {
    let f = match prop {
        "resolve" => "resolve",
        "dirname" => "dirname",
        "basename" => "basename",
        "extname" => "extname",
        "parse" => "parse",
        "relative" => "relative",
        "isAbsolute" => "isAbsolute",
        "sep" => return Some(Value::str("/")),
        "delimiter" => return Some(Value::str(":")),
        _ => return None,
    };
    Some(Value::Builtin(Builtin::Node(NodeFn::Path(f))))
}

/// `fs.<prop>`: the functions answered here; others stay opaque.
pub(crate) fn fs_member(prop: &str) -> Value {
    let f = match prop {
        "readdirSync" => "readdirSync",
        "readdir" => "readdir",
        "existsSync" => "existsSync",
        "statSync" | "lstatSync" => "statSync",
        "stat" | "lstat" => "stat",
        "readFileSync" => "readFileSync",
        "readFile" => "readFile",
        _ => return Value::Builtin(Builtin::FsModule),
    };
    Value::Builtin(Builtin::Node(NodeFn::Fs(f)))
}

/// Properties Node defines on `process`: what a program writes over them is
/// not kept (see `Interp::set_member`).
pub(crate) const PROCESS_OWN: &[&str] = &[
    "env",
    "argv",
    "argv0",
    "execArgv",
    "execPath",
    "exitCode",
    "pid",
    "ppid",
    "platform",
    "arch",
    "version",
    "versions",
    "title",
    "release",
    "config",
    "features",
    "stdout",
    "stderr",
    "stdin",
    "cwd",
    "chdir",
    "nextTick",
    "on",
    "once",
    "off",
    "emit",
    "addListener",
    "removeListener",
    "removeAllListeners",
    "listeners",
    "exit",
    "kill",
    "hrtime",
    "uptime",
    "memoryUsage",
    "umask",
    "browser",
    "mainModule",
    "binding",
];

/// A member of a modelled Node value.
pub(crate) fn member(f: &NodeFn, prop: &str) -> Value {
    let node = |f| Value::Builtin(Builtin::Node(f));
    match (f, prop) {
        (NodeFn::Process, "cwd") => node(NodeFn::Cwd),
        (NodeFn::Process, "env") => node(NodeFn::Env),
        (NodeFn::UrlModule, "fileURLToPath") => node(NodeFn::FileUrlToPath),
        (NodeFn::UrlModule, "pathToFileURL") => node(NodeFn::PathToFileUrl),
        (NodeFn::UrlModule, "URL") => node(NodeFn::UrlCtor),
        (NodeFn::UrlModule, "default") => node(NodeFn::UrlModule),
        (NodeFn::ModuleModule, "createRequire") => node(NodeFn::CreateRequire),
        (NodeFn::ModuleModule, "default" | "Module") => node(NodeFn::ModuleModule),
        (NodeFn::Glob(dirs), _) => node(NodeFn::Glob(*dirs)),
        (NodeFn::Loader(l), "default") => node(NodeFn::Loader(l)),
        (NodeFn::Util, "inherits") => node(NodeFn::Inherits),
        (NodeFn::Util, "default") => node(NodeFn::Util),
        (NodeFn::AsyncHooks, "AsyncLocalStorage") => node(NodeFn::AsyncLocalStorage),
        (NodeFn::AsyncHooks, "default") => node(NodeFn::AsyncHooks),
        (NodeFn::Json, "parse") => node(NodeFn::JsonParse),
        // A promisified function is called without its callback, and the
        // machine treats a promise as its value: the function itself.
        (NodeFn::Util, "promisify" | "callbackify" | "deprecate") => {
            Value::Builtin(Builtin::Identity)
        }
        _ => Value::external(),
    }
}

/// `new AsyncLocalStorage()`: `run` and `exit` call their function now.
pub(crate) fn async_local_storage() -> Value {
    let o = ObjData::new();
    o.set("run", Value::Builtin(Builtin::Node(NodeFn::CallsArg(1))));
    o.set("exit", Value::Builtin(Builtin::Node(NodeFn::CallsArg(0))));
    Value::Obj(o)
}

/// `stats`/`Dirent`: answers `isDirectory()` and `isFile()`.
fn stats(name: Option<&str>, dir: bool) -> Value {
    let o = ObjData::new();
    if let Some(n) = name {
        o.set("name", Value::str(n));
    }
    let answer = |b| Value::Builtin(Builtin::Node(NodeFn::Answer(b)));
    o.set("isDirectory", answer(dir));
    o.set("isFile", answer(!dir));
    o.set("isSymbolicLink", answer(false));
    Value::Obj(o)
}

impl Interp {
    /// Call a modelled Node built-in.
    pub(crate) fn node_call(
        &mut self,
        ctx: &Ctx,
        f: &NodeFn,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
    ) -> Value {
        let argv: Vec<Value> = argv.into_iter().map(|a| self.force_deep(a)).collect();
        let text = |i: usize| argv.get(i).and_then(Value::as_text);
        match f {
            NodeFn::Path(name) => {
                let parts: Option<Vec<String>> = argv.iter().map(Value::as_text).collect();
                match parts {
                    // `path.resolve` starts from the working folder.
                    Some(mut parts)
                        if *name == "resolve" && !parts.iter().any(|p| p.starts_with('/')) =>
                    {
                        let cwd = self.js.cwd.as_deref().unwrap_or_default();
                        parts.insert(0, format!("/{cwd}"));
                        path_fn(name, &parts)
                    }
                    Some(parts) => path_fn(name, &parts),
                    None => Value::dynamic(),
                }
            }
            NodeFn::Cwd => match self.js.cwd.as_deref() {
                Some(dir) if !dir.is_empty() => Value::str(&format!("/{dir}")),
                _ => Value::str("/"),
            },
            NodeFn::FileUrlToPath => match argv.first() {
                Some(Value::Obj(o)) => o
                    .get("href")
                    .and_then(|h| h.as_text())
                    .map(|h| Value::str(specifier(&h)))
                    .unwrap_or(Value::dynamic()),
                Some(v) => v
                    .as_text()
                    .map(|t| Value::str(specifier(&t)))
                    .unwrap_or(Value::dynamic()),
                None => Value::dynamic(),
            },
            NodeFn::PathToFileUrl => match text(0) {
                Some(p) => url_object(&format!("file://{p}")),
                None => Value::dynamic(),
            },
            NodeFn::CreateRequire => Value::Builtin(Builtin::Require),
            NodeFn::RequireResolve => match text(0) {
                Some(spec) => match self.resolve_spec_as(
                    ctx.file,
                    specifier(&spec),
                    line,
                    crate::project::Loading::Require,
                ) {
                    Some(Resolved::File(t)) => Value::str(&vpath(self.loader.project.rel(t))),
                    Some(Resolved::Data(rel)) => Value::str(&vpath(&rel)),
                    Some(Resolved::Known(_) | Resolved::External(_)) => Value::str(&spec),
                    _ => Value::dynamic(),
                },
                None => Value::dynamic(),
            },
            NodeFn::Answer(b) => Value::Bool(*b),
            NodeFn::AnswerText(t) => Value::Str(t.clone()),
            NodeFn::CallSites => self.call_sites(ctx),
            NodeFn::Loader(pkg) => self.dir_loader(ctx, pkg, &argv, line),
            NodeFn::Inherits => {
                if let (Some(c), Some(p)) = (argv.first(), argv.get(1)) {
                    self.inherits(c, p);
                }
                Value::Undef
            }
            NodeFn::CallsArg(i) => match argv.get(*i) {
                Some(f @ Value::Func(_)) => {
                    let rest = argv[i + 1..].to_vec();
                    self.call_value_now(ctx, f, rest, &[], line, None)
                }
                _ => Value::dynamic(),
            },
            NodeFn::UriCodec(name) => match argv.first().and_then(Value::as_text) {
                Some(t) => uri_codec(name, &t).map_or_else(Value::dynamic, |t| Value::str(&t)),
                None => Value::dynamic(),
            },
            NodeFn::JsonParse => match (argv.first(), argv.get(1)) {
                // A text that is only what the variable may be (an env
                // template's value, a default for a run-time value) parses to
                // what the run gives: `JSON.parse(process.env.DEBUG)` with
                // `DEBUG=false` in `.env.example` decides no `if`.
                (Some(t @ Value::Str(_)), _)
                    if self.env_documented(t) || !self.assumptions(t).is_empty() =>
                {
                    Value::dynamic()
                }
                // A reviver may change any value: only known at run time.
                (Some(Value::Str(t)), None | Some(Value::Undef)) => {
                    serde_json::from_str::<serde_json::Value>(t)
                        .map_or_else(|_| Value::dynamic(), |j| json_value(&j))
                }
                _ => Value::dynamic(),
            },
            NodeFn::Process
            | NodeFn::Env
            | NodeFn::Json
            | NodeFn::UrlModule
            | NodeFn::ModuleModule
            | NodeFn::Util
            | NodeFn::LoadChain(_)
            | NodeFn::AsyncHooks
            | NodeFn::AsyncLocalStorage
            // `URL(…)` without `new` throws a TypeError.
            | NodeFn::UrlCtor => Value::dynamic(),
            NodeFn::Fs(name) => self.fs_call(ctx, name, &argv, args, line),
            NodeFn::Glob(dirs) => {
                let list = self.glob(&argv, *dirs);
                self.with_callback(ctx, &argv, list, line)
            }
        }
    }

    /// A result handed to a trailing callback (`fs.readdir(dir, (err, files) => …)`)
    /// or returned (sync and promise forms; `await` is the value itself).
    fn with_callback(&mut self, ctx: &Ctx, argv: &[Value], result: Value, line: u32) -> Value {
        match argv.last() {
            Some(cb @ Value::Func(_)) if argv.len() > 1 => {
                let cb = cb.clone();
                let err = if result.is_unknown() {
                    Value::dynamic()
                } else {
                    Value::Null
                };
                self.call_value_now(ctx, &cb, vec![err, result], &[], line, None);
                Value::Undef
            }
            _ => result,
        }
    }

    fn fs_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        args: &[Expr],
        line: u32,
    ) -> Value {
        let project = self.loader.project.clone();
        // A path, or a `file:` URL (string or URL object), as Node's fs takes.
        let rel = argv.first().and_then(url_text).and_then(|p| to_rel(&p));
        let opt = |k: &str| match argv.get(1) {
            Some(Value::Obj(o)) => o.get(k).and_then(|v| v.truthy()).unwrap_or(false),
            _ => false,
        };
        let result = match name {
            "readdirSync" | "readdir" => match rel.as_deref().and_then(|r| project.list_dir(r)) {
                Some(entries) => {
                    let typed = opt("withFileTypes");
                    let mut out = Vec::new();
                    let mut todo: Vec<(String, Vec<(String, bool)>)> =
                        vec![(String::new(), entries)];
                    let base = rel.clone().unwrap_or_default();
                    while let Some((prefix, entries)) = todo.pop() {
                        for (n, dir) in entries {
                            let shown = format!("{prefix}{n}");
                            if dir && opt("recursive") {
                                let sub = if base.is_empty() {
                                    shown.clone()
                                } else {
                                    format!("{base}/{shown}")
                                };
                                if let Some(more) = project.list_dir(&sub) {
                                    todo.push((format!("{shown}/"), more));
                                }
                            }
                            out.push(if typed {
                                stats(Some(&shown), dir)
                            } else {
                                Value::str(&shown)
                            });
                        }
                    }
                    if opt("recursive") {
                        out.sort_by_key(|v| v.as_text().unwrap_or_default());
                    }
                    Value::array(out)
                }
                None => Value::dynamic(),
            },
            "existsSync" => match &rel {
                Some(r) if project.is_dir(r) || project.file_id(r).is_some() => Value::Bool(true),
                // A data file of the repository (`route.json` beside a handler).
                Some(r) if self.repo_file_bytes(r).is_some() => Value::Bool(true),
                // One the repository would hold but does not: absent.
                Some(r) if absent_from_repository(&project, r) => Value::Bool(false),
                _ => Value::dynamic(),
            },
            "readFileSync" | "readFile" => match &rel {
                Some(r) => self.read_repo_file(r),
                None => Value::dynamic(),
            },
            "statSync" | "stat" => match &rel {
                Some(r) if project.is_dir(r) => stats(None, true),
                Some(r) if project.file_id(r).is_some() => stats(None, false),
                _ => Value::dynamic(),
            },
            _ => Value::dynamic(),
        };
        if result.is_unknown() {
            // Callbacks still run, over values only known at run time.
            self.run_callbacks(ctx, argv, args, line);
            return result;
        }
        self.with_callback(ctx, argv, result, line)
    }

    /// The text of the file at `rel` in the repository (`readFileSync` and
    /// friends; a `Buffer` is taken as its text), recorded as an input read
    /// (see `DataModule`): unknown when it is not a regular file inside the
    /// root, is larger than [`READ_FILE_MAX`] or is not UTF-8.
    pub(crate) fn read_repo_file(&mut self, rel: &str) -> Value {
        match self.repo_file_bytes(rel).map(String::from_utf8) {
            Some(Ok(text)) => Value::str(&text),
            _ => Value::dynamic(),
        }
    }

    /// The bytes of the regular file at `rel` inside the root, at most
    /// [`READ_FILE_MAX`] of them, recorded as an input read; `None` for
    /// anything else.
    fn repo_file_bytes(&mut self, rel: &str) -> Option<Vec<u8>> {
        let root = &self.loader.project.root;
        let path = root.join(rel);
        let inside = match (path.canonicalize(), root.canonicalize()) {
            (Ok(p), Ok(r)) => p.starts_with(r),
            _ => false,
        };
        let small = std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= READ_FILE_MAX);
        if !inside || !small {
            return None;
        }
        let bytes = std::fs::read(&path).ok()?;
        self.note_input_read(rel, Some(&bytes), !self.modes.event_mode);
        Some(bytes)
    }

    /// The project files a glob call matches, in byte order.
    pub(crate) fn glob(&mut self, argv: &[Value], dirs_by_default: bool) -> Value {
        let mut patterns = Vec::new();
        match argv.first() {
            Some(Value::Arr(a)) => {
                for p in a.borrow().iter() {
                    match p.as_text() {
                        Some(t) => patterns.push(t),
                        None => return Value::dynamic(),
                    }
                }
            }
            Some(v) => match v.as_text() {
                Some(t) => patterns.push(t),
                None => return Value::dynamic(),
            },
            None => return Value::dynamic(),
        }
        let opts = match argv.get(1) {
            Some(Value::Obj(o)) => Some(o.clone()),
            _ => None,
        };
        let get = |k: &str| opts.as_ref().and_then(|o| o.get(k));
        let cwd = match get("cwd") {
            Some(v) => match v.as_text().and_then(|c| to_rel(&c)) {
                Some(c) => c,
                None => return Value::dynamic(),
            },
            // node-glob's default is the process's working folder.
            None => self
                .js
                .cwd
                .as_deref()
                .map(str::to_string)
                .unwrap_or_default(),
        };
        let absolute = get("absolute").and_then(|v| v.truthy()).unwrap_or(false);
        let flag = |k: &str| get(k).and_then(|v| v.truthy());
        // Folders are listed by node-glob and tiny-glob (not with `nodir`,
        // `filesOnly`), by fast-glob and globby with `onlyFiles: false` or
        // `onlyDirectories`; a pattern ending in `/` lists folders only.
        let only_dirs = flag("onlyDirectories") == Some(true)
            || (!patterns.is_empty()
                && patterns
                    .iter()
                    .filter(|p| !p.starts_with('!') || p.starts_with("!("))
                    .all(|p| p.ends_with('/')));
        let list_dirs = only_dirs
            || match (flag("nodir"), flag("filesOnly"), flag("onlyFiles")) {
                (Some(true), _, _) | (_, Some(true), _) => false,
                (_, _, Some(false)) => true,
                (_, _, Some(true)) => false,
                _ => dirs_by_default,
            };
        let mark = only_dirs || flag("mark") == Some(true) || flag("markDirectories") == Some(true);
        let mut ignore: Vec<String> = Vec::new();
        match get("ignore") {
            Some(Value::Arr(a)) => ignore.extend(a.borrow().iter().filter_map(Value::as_text)),
            Some(v) => ignore.extend(v.as_text()),
            None => {}
        }
        let build = crate::project::glob::Glob::new;
        let mut include = Vec::new();
        let mut exclude = Vec::new();
        for p in patterns.iter().map(String::as_str) {
            // `!x` negates; `!(x)` is an extended form.
            let (neg, p) = match p.strip_prefix('!') {
                Some(rest) if !rest.starts_with('(') => (true, rest),
                _ => (false, p),
            };
            // An absolute pattern is matched against absolute paths.
            let abs = p.starts_with('/');
            let p = p.strip_prefix("./").unwrap_or(p);
            let Some(m) = build(p) else {
                return Value::dynamic();
            };
            if neg {
                exclude.push((abs, m));
            } else {
                include.push((abs, m));
            }
        }
        for p in &ignore {
            if let Some(m) = build(p.strip_prefix("./").unwrap_or(p)) {
                exclude.push((p.starts_with('/'), m));
            }
        }
        let prefix = if cwd.is_empty() {
            String::new()
        } else {
            format!("{cwd}/")
        };
        let project = self.loader.project.clone();
        // (Listed in byte order below, whatever order the folders come in.)
        let files = project.files.iter().map(|f| (f.rel.as_str(), false));
        let dirs = project.dirs().filter(|d| list_dirs && !d.is_empty());
        let paths = files.filter(|_| !only_dirs).chain(dirs.map(|d| (d, true)));
        let mut out = Vec::new();
        for (rel, is_dir) in paths {
            let Some(local) = rel.strip_prefix(prefix.as_str()) else {
                continue;
            };
            let full = vpath(rel);
            let hit = |list: &[(bool, crate::project::glob::Glob)]| {
                list.iter()
                    .any(|(abs, m)| m.is_match(if *abs { full.as_str() } else { local }))
            };
            if hit(&include) && !hit(&exclude) {
                let pattern_abs = include.iter().any(|(abs, _)| *abs);
                let mut shown = if absolute || pattern_abs {
                    full
                } else {
                    local.to_string()
                };
                if is_dir && mark {
                    shown.push('/');
                }
                out.push(shown);
            }
        }
        out.sort();
        Value::array(out.iter().map(|s| Value::str(s)).collect())
    }
}

/// What `encodeURIComponent`, `encodeURI`, `decodeURIComponent` and
/// `decodeURI` give for a known text; `None` where JavaScript throws a
/// `URIError` (a malformed escape, bytes that are not UTF-8).
fn uri_codec(name: &str, text: &str) -> Option<String> {
    // What `encodeURI` leaves, and `decodeURI` does not decode, beyond the
    // unreserved marks that neither encoder escapes.
    const RESERVED: &str = ";/?:@&=+$,#";
    let whole = matches!(name, "encodeURI" | "decodeURI");
    if name.starts_with("encode") {
        let mut out = String::new();
        for c in text.chars() {
            if c.is_ascii_alphanumeric()
                || "-_.!~*'()".contains(c)
                || (whole && RESERVED.contains(c))
            {
                out.push(c);
            } else {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
        return Some(out);
    }
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let hex = text.get(i + 1..i + 3)?;
        let b = u8::from_str_radix(hex, 16).ok()?;
        if whole && b.is_ascii() && RESERVED.contains(b as char) {
            out.extend_from_slice(&bytes[i..i + 3]);
        } else {
            out.push(b);
        }
        i += 3;
    }
    String::from_utf8(out).ok()
}

/// A `path` function over known strings (POSIX).
fn path_fn(name: &str, parts: &[String]) -> Value {
    let first = parts.first().map(String::as_str).unwrap_or("");
    match name {
        "resolve" => Value::str(&resolve(parts)),
        "dirname" => Value::str(&dirname(first)),
        "basename" => {
            let trimmed = first.trim_end_matches('/');
            let base = trimmed.rsplit('/').next().unwrap_or("");
            let base = match parts.get(1) {
                Some(ext) if base.len() > ext.len() => {
                    base.strip_suffix(ext.as_str()).unwrap_or(base)
                }
                _ => base,
            };
            Value::str(base)
        }
        "extname" => {
            let base = first.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            match base.rfind('.') {
                Some(i) if i > 0 => Value::str(&base[i..]),
                _ => Value::str(""),
            }
        }
        // `{ root, dir, base, ext, name }` (`path.parse(f).name` is the
        // file name without its extension).
        "parse" => {
            let base = path_fn("basename", &parts[..1.min(parts.len())]);
            let ext = path_fn("extname", &parts[..1.min(parts.len())]);
            let (b, e) = (
                base.as_text().unwrap_or_default(),
                ext.as_text().unwrap_or_default(),
            );
            let trimmed = first.trim_end_matches('/');
            let dir = match trimmed.rfind('/') {
                Some(0) => "/".to_string(),
                Some(i) => trimmed[..i].to_string(),
                None => String::new(),
            };
            let o = ObjData::new();
            o.set(
                "root",
                Value::str(if first.starts_with('/') { "/" } else { "" }),
            );
            o.set("dir", Value::str(&dir));
            o.set("base", Value::str(&b));
            o.set("ext", Value::str(&e));
            o.set("name", Value::str(b.strip_suffix(e.as_str()).unwrap_or(&b)));
            Value::Obj(o)
        }
        "isAbsolute" => Value::Bool(first.starts_with('/')),
        "relative" => {
            let from = resolve(&parts[..1.min(parts.len())]);
            let to = resolve(parts.get(1..2).unwrap_or(&[]));
            let a: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
            let b: Vec<&str> = to.split('/').filter(|s| !s.is_empty()).collect();
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            let mut out: Vec<&str> = vec![".."; a.len() - common];
            out.extend(&b[common..]);
            Value::str(&out.join("/"))
        }
        _ => Value::dynamic(),
    }
}

/// `path.resolve`: from the process's folder (the root), right to left until absolute.
fn resolve(parts: &[String]) -> String {
    let start = parts.iter().rposition(|p| p.starts_with('/')).unwrap_or(0);
    let mut all = vec!["/".to_string()];
    all.extend(parts[start..].iter().filter(|p| !p.is_empty()).cloned());
    let joined = posix_join(&all);
    if joined.len() > 1 {
        joined.trim_end_matches('/').to_string()
    } else {
        joined
    }
}

fn dirname(p: &str) -> String {
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return if p.starts_with('/') {
            "/".into()
        } else {
            ".".into()
        };
    }
    match t.rfind('/') {
        Some(0) => "/".into(),
        Some(i) => t[..i].to_string(),
        None => ".".into(),
    }
}

/// Whether `rel` (root-relative) names a file or folder the repository
/// would hold and does not: nothing is there, its folder is one the project
/// holds (not ignored, not generated), and neither its name is hidden nor
/// an ignore file (`.gitignore`, `.ignore` of its folder or one above,
/// `.git/info/exclude`, the default ignores) matches it, so it is not a
/// build output or a local file that may exist where the program runs.
fn absent_from_repository(project: &crate::project::Project, rel: &str) -> bool {
    use ignore::gitignore::{Gitignore, GitignoreBuilder};
    use std::path::Path;
    let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    if name.is_empty() || name.starts_with('.') || !project.is_dir(dir) {
        return false;
    }
    let path = project.root.join(rel);
    if path.symlink_metadata().is_ok() {
        return false;
    }
    // (The path does not exist, so it may be a folder: `dist/` in an ignore
    // file matches `client/dist` as a folder.)
    let ignores = |g: Option<Gitignore>| {
        g.is_some_and(|g| {
            [false, true]
                .iter()
                .any(|&dir| g.matched_path_or_any_parents(&path, dir).is_ignore())
        })
    };
    let of_files = |base: &Path, names: &[&str]| {
        let mut b = GitignoreBuilder::new(base);
        for n in names {
            let f = base.join(n);
            if f.is_file() {
                b.add(f);
            }
        }
        b.build().ok()
    };
    let root = project.root.as_path();
    let mut defaults = GitignoreBuilder::new(root);
    for line in crate::project::DEFAULT_IGNORES.lines() {
        let _ = defaults.add_line(None, line);
    }
    if ignores(defaults.build().ok()) || ignores(of_files(root, &[".git/info/exclude"])) {
        return false;
    }
    // The ignore files of the root and of every folder down to `dir`.
    let mut base = root.to_path_buf();
    for part in std::iter::once("").chain(dir.split('/').filter(|s| !s.is_empty())) {
        if !part.is_empty() {
            base.push(part);
        }
        if ignores(of_files(&base, &[".gitignore", ".ignore"])) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn urls_resolve_as_the_url_class_does() {
        use super::resolve_url;
        let r = |i: &str, b: &str| resolve_url(i, Some(b)).unwrap();
        assert_eq!(
            r("../plugins.json", "file:///src/server.js"),
            "file:///plugins.json"
        );
        assert_eq!(r("x.js", "file:///src/routes/"), "file:///src/routes/x.js");
        assert_eq!(r("./", "file:///a/b"), "file:///a/");
        assert_eq!(r("..", "file:///a/b/c"), "file:///a/");
        assert_eq!(r("../../..", "file:///a/b"), "file:///");
        assert_eq!(r("/a?b#c", "http://h:80/p/q"), "http://h:80/a?b#c");
        assert_eq!(r("?q", "http://h/p?z#f"), "http://h/p?q");
        assert_eq!(r("#f", "http://h/p?z"), "http://h/p?z#f");
        assert_eq!(r("", "http://h/p?z#f"), "http://h/p?z");
        assert_eq!(r("//cdn/x", "https://h/"), "https://cdn/x");
        assert_eq!(r("https://o/x", "file:///a"), "https://o/x");
        assert_eq!(resolve_url("rel", None), None);
        assert_eq!(resolve_url("rel", Some("no-scheme")), None);
    }

    use super::*;

    #[test]
    fn paths_follow_node_posix() {
        let s = |v: Value| v.as_text().unwrap();
        let p = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            s(path_fn("resolve", &p(&["/srv", "routes"]))),
            "/srv/routes"
        );
        assert_eq!(s(path_fn("resolve", &p(&["modules"]))), "/modules");
        assert_eq!(s(path_fn("resolve", &p(&["/a", "/b", "c/"]))), "/b/c");
        assert_eq!(s(path_fn("dirname", &p(&["/srv/app.js"]))), "/srv");
        assert_eq!(s(path_fn("dirname", &p(&["/app.js"]))), "/");
        assert_eq!(s(path_fn("basename", &p(&["/r/users.js", ".js"]))), "users");
        assert_eq!(s(path_fn("extname", &p(&["users.test.js"]))), ".js");
        assert_eq!(s(path_fn("extname", &p(&[".env"]))), "");
        let uri = |f: &str, t: &str| uri_codec(f, t);
        assert_eq!(
            uri("decodeURIComponent", "%2Ewell-known%2Fx").as_deref(),
            Some(".well-known/x")
        );
        assert_eq!(
            uri("decodeURI", "%2Ewell-known%2Fx").as_deref(),
            Some(".well-known%2Fx")
        );
        assert_eq!(
            uri("encodeURIComponent", "a b/é").as_deref(),
            Some("a%20b%2F%C3%A9")
        );
        assert_eq!(uri("encodeURI", "/a b?x=1").as_deref(), Some("/a%20b?x=1"));
        assert_eq!(uri("decodeURIComponent", "%E0%A4%A"), None);
        let Value::Obj(parsed) = path_fn("parse", &p(&["/srv/routes/user.route.js"])) else {
            panic!("path.parse gives an object");
        };
        let field = |k: &str| parsed.get(k).and_then(|v| v.as_text()).unwrap();
        assert_eq!(field("dir"), "/srv/routes");
        assert_eq!(field("name"), "user.route");
        assert_eq!(field("ext"), ".js");
        assert_eq!(s(path_fn("relative", &p(&["/a/b", "/a/c/d"]))), "../c/d");
        assert_eq!(to_rel("/server/routes/").as_deref(), Some("server/routes"));
        assert_eq!(to_rel("file:///x.js").as_deref(), Some("x.js"));
        assert_eq!(to_rel("/../etc"), None);
    }
}
