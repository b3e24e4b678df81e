//! Module aliases a bundler's configuration declares for the code it
//! compiles: Vite's and webpack's `resolve.alias` (also Vue CLI's
//! `configureWebpack.resolve.alias`), read from `vite.config.*`,
//! `webpack.config.*` and `vue.config.js` and applied to the files in the
//! configuration's folder and below.
//!
//! Captures: an object of aliases (`{ '@server': path.resolve(__dirname,
//! 'server') }`; webpack's `key$` matches the key alone) and Vite's array
//! of `{ find, replacement }` with a string or a prefix regex
//! (`/^@server\/(.+)/` with `` `${path.resolve(__dirname, 'server')}/$1` ``),
//! found anywhere in the configuration (an `alias` property, also one named
//! by a top-level variable); targets built from `__dirname`,
//! `process.cwd()` or `import.meta.url` (`fileURLToPath(new
//! URL('./src', import.meta.url))`) with `path.resolve`/`path.join` and
//! template literals.
//!
//! Example: `alias: [{ find: /^@server\/(.+)/, replacement:
//! `${path.resolve(__dirname, 'server')}/$1` }]` in the root's
//! `vite.config.mjs`: `import { socketEvents } from
//! '@server/lib/SocketEvents'` in `src/App.vue` is `server/lib/SocketEvents`
//! (or the source it is built from).
//!
//! Deliberately not captured: targets that are package names or relative
//! strings (`vue$: 'vue/dist/vue.esm.js'`: a package's file, not source
//! here), regexes other than a literal prefix followed by one group, values
//! computed by the configuration's own functions, aliases set through
//! `chainWebpack`, and any alias whose target lies outside the root.

use super::{Project, join_rel, normalize};
use crate::ir::{Expr, ObjProp, PropKey, Stmt};
use std::collections::HashMap;

/// The configuration files read, by file name.
const CONFIGS: &[&str] = &[
    "vite.config.js",
    "vite.config.mjs",
    "vite.config.cjs",
    "vite.config.ts",
    "vite.config.mts",
    "webpack.config.js",
    "webpack.config.cjs",
    "webpack.config.mjs",
    "webpack.config.ts",
    "vue.config.js",
];

/// One alias of a configuration in the root-relative folder `dir`: a
/// specifier equal to `find` (exact) or starting with it (prefix) leads to
/// `target` followed by the rest of the specifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BundlerAlias {
    dir: String,
    find: String,
    exact: bool,
    target: String,
}

/// A path expression's value: a root-relative folder or file, or a segment
/// not anchored anywhere yet (`'src'`).
enum PathVal {
    Anchored(String),
    Segment(String),
}

impl Project {
    /// The aliases of every bundler configuration in the project.
    pub(super) fn read_bundler_aliases(&mut self) {
        let configs: Vec<String> = self
            .files
            .iter()
            .map(|f| f.rel.as_str())
            .filter(|rel| {
                let name = rel.rsplit('/').next().unwrap_or(rel);
                CONFIGS.contains(&name) && !crate::is_test_path(rel)
            })
            .map(str::to_string)
            .collect();
        let mut out = Vec::new();
        for rel in configs {
            let path = self.root.join(&rel);
            let Some(text) = path
                .metadata()
                .ok()
                .filter(|m| m.len() <= 256 << 10)
                .and_then(|_| std::fs::read(&path).ok())
            else {
                continue;
            };
            let Some(grammar) = crate::syntax::Grammar::for_path(&rel) else {
                continue;
            };
            let facts = crate::syntax::SyntaxContext::new().lower(grammar, &text);
            let dir = rel.rsplit_once('/').map_or("", |(d, _)| d).to_string();
            out.extend(aliases_of(&facts.body, &dir));
        }
        // The longest `find` first: it wins, as the most specific key does.
        out.sort_by(|a, b| b.find.len().cmp(&a.find.len()).then(a.dir.cmp(&b.dir)));
        out.dedup();
        self.bundler_aliases = out;
    }

    /// Where `spec` leads from a file in `from_dir` through an alias of a
    /// bundler configuration in that folder or above, when the target is a
    /// module of the project.
    pub(super) fn bundler_alias(&self, from_dir: &str, spec: &str) -> Option<super::Resolved> {
        self.bundler_aliases
            .iter()
            .filter(|a| {
                // (No string made per alias: this runs for every bare import.)
                a.dir.is_empty()
                    || from_dir
                        .strip_prefix(a.dir.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
            .find_map(|a| {
                let rest = if a.exact {
                    (spec == a.find).then_some("")?
                } else {
                    spec.strip_prefix(a.find.as_str())?
                };
                self.resolve_module(&normalize(&format!("{}{rest}", a.target)))
            })
    }
}

/// The aliases an `alias` property anywhere in `body` declares.
fn aliases_of(body: &[Stmt], dir: &str) -> Vec<BundlerAlias> {
    let mut vars: HashMap<&str, &Expr> = HashMap::new();
    for st in body {
        let st = match st {
            Stmt::ExportDecl(inner, _) => inner.as_ref(),
            st => st,
        };
        if let Stmt::Var(decls) = st {
            for (p, init) in decls {
                if let (crate::ir::Pattern::Ident(n), Some(e)) = (p, init) {
                    vars.insert(n.as_str(), e);
                }
            }
        }
    }
    let mut found: Vec<&Expr> = Vec::new();
    for st in body {
        stmt_aliases(st, &mut found, 0);
    }
    let mut out = Vec::new();
    for value in found {
        let value = match value {
            Expr::Ident(n) => vars.get(n.as_str()).copied().unwrap_or(value),
            v => v,
        };
        alias_entries(value, dir, &vars, &mut out);
    }
    out
}

/// Collect the values of `alias` properties under a statement.
fn stmt_aliases<'a>(st: &'a Stmt, out: &mut Vec<&'a Expr>, depth: u32) {
    if depth > 40 {
        return;
    }
    let d = depth + 1;
    match st {
        Stmt::Expr(e) | Stmt::ExportDefault(e) | Stmt::Return(Some(e)) => expr_aliases(e, out, d),
        Stmt::Var(decls) => decls
            .iter()
            .filter_map(|(_, e)| e.as_ref())
            .for_each(|e| expr_aliases(e, out, d)),
        Stmt::ExportDecl(inner, _) => stmt_aliases(inner, out, d),
        Stmt::Function(_, f) => f.body.iter().for_each(|s| stmt_aliases(s, out, d)),
        Stmt::If(_, _, a, b, _) => a.iter().chain(b).for_each(|s| stmt_aliases(s, out, d)),
        Stmt::Block(b) => b.iter().for_each(|s| stmt_aliases(s, out, d)),
        _ => {}
    }
}

/// Collect the values of `alias` properties under an expression.
fn expr_aliases<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>, depth: u32) {
    if depth > 40 {
        return;
    }
    let d = depth + 1;
    match e {
        Expr::Object(props) => {
            for p in props {
                match p {
                    ObjProp::KeyValue(PropKey::Name(k), v) if k == "alias" => out.push(v),
                    ObjProp::KeyValue(_, v) | ObjProp::Spread(v) => expr_aliases(v, out, d),
                    ObjProp::Method(_, f) | ObjProp::Getter(_, f) => {
                        f.body.iter().for_each(|s| stmt_aliases(s, out, d))
                    }
                }
            }
        }
        Expr::Call(c) => {
            expr_aliases(&c.callee, out, d);
            c.args.iter().for_each(|a| expr_aliases(a, out, d));
        }
        Expr::Func(f) => f.body.iter().for_each(|s| stmt_aliases(s, out, d)),
        Expr::Array(items) | Expr::Seq(items) => items.iter().for_each(|a| expr_aliases(a, out, d)),
        Expr::Cond(_, _, a, b) | Expr::Logical(_, a, b) | Expr::Arith(_, a, b) => {
            expr_aliases(a, out, d);
            expr_aliases(b, out, d);
        }
        Expr::Typed(x, _) | Expr::Await(x) | Expr::Spread(x) => expr_aliases(x, out, d),
        Expr::Assign(_, v) => expr_aliases(v, out, d),
        _ => {}
    }
}

/// The aliases one `alias` value declares: an object of keys and targets,
/// or an array of `{ find, replacement }`.
fn alias_entries(
    value: &Expr,
    dir: &str,
    vars: &HashMap<&str, &Expr>,
    out: &mut Vec<BundlerAlias>,
) {
    let anchored = |e: &Expr| match path_value(e, dir, vars, 0)? {
        PathVal::Anchored(p) => Some(p),
        PathVal::Segment(_) => None,
    };
    let mut regex_found = Vec::new();
    let mut push = |find: &str, target: String| {
        // Only a target inside the root is source here.
        if target.starts_with("..") || find.is_empty() {
            return;
        }
        let (find, exact) = match find.strip_suffix('$') {
            Some(f) => (f, true),
            None => (find, false),
        };
        out.push(BundlerAlias {
            dir: dir.to_string(),
            find: find.to_string(),
            exact: true,
            target: target.clone(),
        });
        if !exact {
            out.push(BundlerAlias {
                dir: dir.to_string(),
                find: format!("{find}/"),
                exact: false,
                target: format!("{}/", target.trim_end_matches('/')),
            });
        }
    };
    match value {
        Expr::Object(props) => {
            for p in props {
                if let ObjProp::KeyValue(PropKey::Name(k), v) = p
                    && let Some(t) = anchored(v)
                {
                    push(k, t);
                }
            }
        }
        Expr::Array(items) => {
            for item in items {
                let Expr::Object(props) = item else { continue };
                let get = |name: &str| {
                    props.iter().find_map(|p| match p {
                        ObjProp::KeyValue(PropKey::Name(k), v) if k == name => Some(v),
                        _ => None,
                    })
                };
                let (Some(find), Some(replacement)) = (get("find"), get("replacement")) else {
                    continue;
                };
                match find {
                    Expr::Str(f) => {
                        if let Some(t) = anchored(replacement) {
                            push(f, t);
                        }
                    }
                    Expr::Regex(r) => {
                        // `/^@server\/(.+)/` with a replacement ending in `$1`.
                        if let Some(prefix) = regex_prefix(r)
                            && let Some(t) = anchored(replacement)
                            && let Some(t) = t.strip_suffix("$1")
                            && !t.starts_with("..")
                        {
                            regex_found.push(BundlerAlias {
                                dir: dir.to_string(),
                                find: prefix,
                                exact: false,
                                target: t.to_string(),
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out.append(&mut regex_found);
}

/// The literal prefix of `/^prefix(.+)/` (or `(.*)`), unescaped.
fn regex_prefix(regex: &str) -> Option<String> {
    let body = regex.strip_prefix('/')?.rsplit_once('/')?.0;
    let body = body.strip_prefix('^')?;
    let prefix = body
        .strip_suffix("(.+)")
        .or_else(|| body.strip_suffix("(.*)"))
        .or_else(|| body.strip_suffix("(.+)$"))
        .or_else(|| body.strip_suffix("(.*)$"))?;
    let mut out = String::new();
    let mut chars = prefix.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            // Any other regex syntax: not a literal prefix.
            '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '^' | '$' => {
                return None;
            }
            c => out.push(c),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// What a path expression of the configuration in `dir` gives.
fn path_value(e: &Expr, dir: &str, vars: &HashMap<&str, &Expr>, depth: u32) -> Option<PathVal> {
    if depth > 8 {
        return None;
    }
    let at = |p: &str| PathVal::Anchored(normalize(&join_rel(dir, p)));
    match e {
        Expr::Str(s) => Some(PathVal::Segment(s.clone())),
        Expr::Ident(n) if n == "__dirname" => Some(at("")),
        Expr::Ident(n) => path_value(vars.get(n.as_str())?, dir, vars, depth + 1),
        Expr::Typed(x, _) => path_value(x, dir, vars, depth + 1),
        Expr::Template(quasis, exprs) => {
            let mut out = String::new();
            let mut anchored = false;
            for (i, q) in quasis.iter().enumerate() {
                out.push_str(q);
                if let Some(x) = exprs.get(i) {
                    match path_value(x, dir, vars, depth + 1)? {
                        PathVal::Anchored(p) if i == 0 && out.is_empty() => {
                            anchored = true;
                            out.push_str(&p);
                        }
                        PathVal::Segment(s) => out.push_str(&s),
                        PathVal::Anchored(_) => return None,
                    }
                }
            }
            Some(match anchored {
                true => PathVal::Anchored(out),
                false => PathVal::Segment(out),
            })
        }
        Expr::Call(c) => {
            let callee = match &c.callee {
                Expr::Ident(n) => n.as_str(),
                Expr::Member(_, m) => m.as_str(),
                _ => return None,
            };
            match callee {
                // `process.cwd()`: the configuration's folder, where the
                // bundler runs.
                "cwd" if c.args.is_empty() => Some(at("")),
                "resolve" | "join" => {
                    let mut cur: Option<String> = None;
                    let mut anchored = false;
                    for a in &c.args {
                        match path_value(a, dir, vars, depth + 1)? {
                            PathVal::Anchored(p) => {
                                cur = Some(p);
                                anchored = true;
                            }
                            PathVal::Segment(s) if s.starts_with('/') => return None,
                            PathVal::Segment(s) => {
                                cur = Some(match cur {
                                    Some(c) => join_rel(&c, &s),
                                    None => s,
                                })
                            }
                        }
                    }
                    let cur = cur?;
                    Some(match (anchored, callee) {
                        (true, _) => PathVal::Anchored(normalize(&cur)),
                        // `path.resolve('src')` is from the working folder.
                        (false, "resolve") => at(&cur),
                        (false, _) => PathVal::Segment(cur),
                    })
                }
                // `fileURLToPath(new URL('./src', import.meta.url))`.
                "fileURLToPath" => path_value(c.args.first()?, dir, vars, depth + 1),
                _ => None,
            }
        }
        Expr::New(callee, args, _) if matches!(callee.as_ref(), Expr::Ident(n) if n == "URL") => {
            let (Some(Expr::Str(s)), Some(Expr::Member(base, url))) = (args.first(), args.get(1))
            else {
                return None;
            };
            (url == "url" && matches!(base.as_ref(), Expr::Ident(m) if m == "import.meta"))
                .then(|| at(s))
        }
        Expr::Member(x, m) if m == "pathname" => path_value(x, dir, vars, depth + 1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::regex_prefix;

    #[test]
    fn a_prefix_regex_gives_its_literal_prefix() {
        assert_eq!(
            regex_prefix(r"/^@server\/(.+)/").as_deref(),
            Some("@server/")
        );
        assert_eq!(regex_prefix(r"/^~(.*)$/").as_deref(), Some("~"));
        assert_eq!(regex_prefix(r"/^@(.+)/").as_deref(), Some("@"));
        assert_eq!(regex_prefix(r"/@server\/(.+)/"), None, "not anchored");
        assert_eq!(regex_prefix(r"/^a.b\/(.+)/"), None, "not a literal");
        assert_eq!(regex_prefix(r"/^(.+)/"), None, "no prefix");
    }
}
