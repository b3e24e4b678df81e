//! babel-plugin-module-resolver: the `root` and `alias` options of the Babel
//! configuration that compiles a file, which rewrite its bare specifiers
//! before Node sees them.
//!
//! Example: `.babelrc` `{ "plugins": [["module-resolver", { "alias": {
//! "routes": "./routes" } }]] }` makes `import routes from 'routes'` the
//! project's `routes/index.js`, not the package `routes`; `"root":
//! ["./src"]` makes `require('models/user')` `src/models/user.js` when that
//! file exists.
//!
//! Configurations read: the file-relative ones (`.babelrc`, `.babelrc.json`,
//! `.babelrc.js`/`.cjs`, package.json's `babel` key), which apply to the files
//! of their folder up to the package's own folder (Babel stops its search at
//! the nearest package.json), and the project-wide `babel.config.json`/`.js`/
//! `.cjs`, which apply below their folder; a file-relative configuration's
//! plugin options replace the project-wide ones (Babel merges plugins by
//! name). The plugin's own rules: aliases first, in the order written (a key
//! matches the specifier or a folder prefix of it; a key opening with `^` or
//! closing with `$` is a regular expression whose `\1` groups the value
//! takes), then the roots (a file or folder that exists there); a relative
//! value or root is the working folder's (`cwd`: the plugin's option, else
//! the package folder `npm start` runs in), any other value is a module
//! name that Node resolves as usual.
//!
//! Deliberately not read: options computed by code (a JavaScript
//! configuration is read for its literal values, and `path.resolve(__dirname,
//! '…')`/`path.join(__dirname, '…')`), `env`-specific plugin lists beyond the
//! first that names the plugin, `overrides`, `babelrcRoots`, alias functions.

use super::{
    PackageJson, Project, Resolved, ancestors, escapes_root, join_rel, normalize, to_slash,
    workspace_glob_matches,
};
use crate::jsonc::strip_json_comments;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// File-relative configuration files, in the order Babel looks in a folder.
const RELATIVE_FILES: &[&str] = &[".babelrc", ".babelrc.json", ".babelrc.js", ".babelrc.cjs"];

/// Project-wide configuration files.
const PROJECT_FILES: &[&str] = &["babel.config.json", "babel.config.js", "babel.config.cjs"];

/// The Babel configurations of a project that can rewrite specifiers, by
/// the folder they are in.
#[derive(Debug, Default)]
pub(super) struct BabelConfigs {
    /// File-relative configurations; `None` for one without the plugin (it
    /// still ends the search for a nearer one).
    relative: BTreeMap<String, Option<ModuleResolver>>,
    /// Project-wide configurations.
    project: BTreeMap<String, Option<ModuleResolver>>,
}

/// The options of one module-resolver plugin entry, with paths made
/// root-relative.
#[derive(Debug)]
pub(super) struct ModuleResolver {
    /// Root-relative folders bare specifiers are looked up in.
    pub(super) roots: Vec<String>,
    pub(super) aliases: Vec<Alias>,
    /// Root-relative working folder relative values are taken from.
    pub(super) cwd: String,
}

#[derive(Debug)]
pub(super) struct Alias {
    key: AliasKey,
    /// The value (one, or a list tried in order).
    targets: Vec<String>,
}

#[derive(Debug)]
enum AliasKey {
    /// The specifier, or a folder prefix of it.
    Name(String),
    /// `^@app/(.+)$`: a regular expression whose groups the value names.
    Pattern(regex::Regex),
}

impl ModuleResolver {
    /// The values the first matching alias rewrites `spec` to (empty when
    /// no alias matches).
    pub(super) fn rewrite(&self, spec: &str) -> Vec<String> {
        for a in &self.aliases {
            match &a.key {
                AliasKey::Name(k) => {
                    let rest = if spec == k {
                        ""
                    } else if let Some(r) =
                        spec.strip_prefix(k.as_str()).filter(|r| r.starts_with('/'))
                    {
                        r
                    } else {
                        continue;
                    };
                    return a.targets.iter().map(|t| format!("{t}{rest}")).collect();
                }
                AliasKey::Pattern(re) => {
                    let Some(caps) = re.captures(spec) else {
                        continue;
                    };
                    return a.targets.iter().map(|t| substitute(t, &caps)).collect();
                }
            }
        }
        Vec::new()
    }
}

/// A regular-expression alias's value with each `\N` replaced by the
/// key's group N (an unmatched group by nothing).
fn substitute(value: &str, caps: &regex::Captures<'_>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            out.push('\\');
            rest = after;
            continue;
        }
        if let Some(m) = after[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|n| caps.get(n))
        {
            out.push_str(m.as_str());
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

impl Project {
    /// Where `spec` leads through babel-plugin-module-resolver (see
    /// `babel.rs`); `None` when the configuration compiling a file in
    /// `from_dir` does not rewrite it.
    pub(super) fn babel_resolve(&self, from_dir: &str, spec: &str) -> Option<Resolved> {
        if self.babel.is_empty() {
            return None;
        }
        let cfg = self
            .babel
            .for_dir(from_dir, |d| self.package_at(d).is_some())?;
        let rewritten = cfg.rewrite(spec);
        // A value that is a path is the working folder's; another is a module
        // name Node resolves (an absolute path through the same door).
        let lead = |t: &str| -> Resolved {
            if t.starts_with("./") || t.starts_with("../") {
                let joined = join_rel(&cfg.cwd, t);
                if escapes_root(&joined) {
                    return Resolved::External(spec.to_string());
                }
                let target = normalize(&joined);
                match self.resolve_module(&target) {
                    Some(r) => r,
                    None if self.declarations_at(&target) => Resolved::External(spec.to_string()),
                    None => Resolved::Missing,
                }
            } else if t.starts_with('/') {
                self.resolve_in(from_dir, t)
            } else {
                self.resolve_bare(from_dir, t)
            }
        };
        match rewritten.as_slice() {
            [] => {}
            [one] => return Some(lead(one)),
            // A list of values: the first that leads to a file.
            many => {
                let all: Vec<Resolved> = many.iter().map(|t| lead(t)).collect();
                return all
                    .iter()
                    .find(|r| matches!(r, Resolved::File(_)))
                    .or(all.first())
                    .cloned();
            }
        }
        cfg.roots
            .iter()
            .find_map(|r| self.resolve_module(&normalize(&join_rel(r, spec))))
    }
}

impl BabelConfigs {
    /// Read the configurations in the project's folders (`dirs`, with the
    /// root), with the package manifests already read.
    pub(super) fn read(root: &Path, dirs: &[&str], packages: &[PackageJson]) -> BabelConfigs {
        // Absolute paths with `/`, as `path.resolve` gives them.
        let root_slash = absolute(root);
        let package_dir = |dir: &str| -> String {
            ancestors(dir)
                .find(|d| packages.iter().any(|p| p.dir == *d))
                .unwrap_or(dir)
                .to_string()
        };
        let mut out = BabelConfigs::default();
        for &dir in dirs {
            let relative = RELATIVE_FILES
                .iter()
                .find_map(|name| {
                    let rel = join_rel(dir, name);
                    let text = std::fs::read_to_string(root.join(&rel)).ok()?;
                    Some(plugin_options(&rel, &text, root, dir))
                })
                .or_else(|| {
                    let pkg = packages.iter().find(|p| p.dir == dir)?;
                    let babel = pkg.json.get("babel")?;
                    Some(find_plugin(babel).cloned())
                });
            if let Some(opts) = relative {
                let cwd = package_dir(dir);
                out.relative.insert(
                    dir.to_string(),
                    opts.map(|o| resolver(&o, dir, &cwd, &root_slash, dirs)),
                );
            }
            let project = PROJECT_FILES.iter().find_map(|name| {
                let rel = join_rel(dir, name);
                let text = std::fs::read_to_string(root.join(&rel)).ok()?;
                Some(plugin_options(&rel, &text, root, dir))
            });
            if let Some(opts) = project {
                let cwd = package_dir(dir);
                out.project.insert(
                    dir.to_string(),
                    opts.map(|o| resolver(&o, dir, &cwd, &root_slash, dirs)),
                );
            }
        }
        out
    }

    pub(super) fn is_empty(&self) -> bool {
        self.relative
            .values()
            .chain(self.project.values())
            .all(Option::is_none)
    }

    /// The plugin options that compile a file in `dir`: the nearest
    /// file-relative configuration up to the package folder (`is_package`),
    /// if it names the plugin, else the nearest project-wide one.
    pub(super) fn for_dir(
        &self,
        dir: &str,
        is_package: impl Fn(&str) -> bool,
    ) -> Option<&ModuleResolver> {
        for d in ancestors(dir) {
            if let Some(found) = self.relative.get(d) {
                if let Some(r) = found {
                    return Some(r);
                }
                break;
            }
            if is_package(d) {
                break;
            }
        }
        ancestors(dir)
            .find_map(|d| self.project.get(d))
            .and_then(Option::as_ref)
    }
}

/// The module-resolver options of a configuration file's text (JSON with
/// comments, or a script read for its literal values); `None` when it does
/// not name the plugin with options.
fn plugin_options(rel: &str, text: &str, root: &Path, dir: &str) -> Option<Value> {
    let is_script = [".js", ".cjs"].iter().any(|e| rel.ends_with(e));
    if !is_script {
        let json: Value = serde_json::from_str(&strip_json_comments(text)).ok()?;
        return find_plugin(&json).cloned();
    }
    let dirname = absolute(&root.join(dir));
    script_plugin_options(text, &dirname)
}

/// An absolute path written with `/` and no `/` at the end.
fn absolute(p: &Path) -> String {
    format!("/{}", to_slash(p).trim_matches('/'))
}

/// Whether a plugin name is babel-plugin-module-resolver's.
fn is_plugin_name(name: &str) -> bool {
    matches!(name, "module-resolver" | "babel-plugin-module-resolver")
}

/// The options of the plugin in a configuration object's `plugins`, or in
/// one of its `env` sections'.
fn find_plugin(config: &Value) -> Option<&Value> {
    fn in_list(plugins: &Value) -> Option<&Value> {
        plugins.as_array()?.iter().find_map(|p| {
            let entry = p.as_array()?;
            (is_plugin_name(entry.first()?.as_str()?)).then(|| entry.get(1))?
        })
    }
    config.get("plugins").and_then(in_list).or_else(|| {
        config
            .get("env")?
            .as_object()?
            .values()
            .find_map(|e| e.get("plugins").and_then(in_list))
    })
}

/// The options of the plugin in a JavaScript configuration: the first
/// array literal `['module-resolver', { … }]` (or `[require('…'), { … }]`),
/// its object read for literal values.
fn script_plugin_options(text: &str, dirname: &str) -> Option<Value> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_javascript::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(text, None)?;
    let src = text.as_bytes();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "array" {
            let mut cursor = node.walk();
            let mut items = node.named_children(&mut cursor);
            if let (Some(name), Some(opts)) = (items.next(), items.next())
                && plugin_name(name, src).is_some_and(|n| is_plugin_name(&n))
                && opts.kind() == "object"
            {
                return literal(opts, src, dirname);
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    None
}

/// A plugin entry's name: a string, or `require('…')`/`require.resolve('…')` of one.
fn plugin_name(node: tree_sitter::Node<'_>, src: &[u8]) -> Option<String> {
    match node.kind() {
        "string" => string_value(node, src),
        "call_expression" => {
            let callee = node.child_by_field_name("function")?.utf8_text(src).ok()?;
            if !matches!(callee, "require" | "require.resolve") {
                return None;
            }
            let args = node.child_by_field_name("arguments")?;
            let first = args.named_child(0)?;
            string_value(first, src)
        }
        _ => None,
    }
}

fn string_value(node: tree_sitter::Node<'_>, src: &[u8]) -> Option<String> {
    match node.kind() {
        "string" => {
            let t = node.utf8_text(src).ok()?;
            Some(crate::syntax::unescape(t.get(1..t.len().checked_sub(1)?)?))
        }
        "template_string" if node.named_child_count() == 0 => {
            let t = node.utf8_text(src).ok()?;
            Some(crate::syntax::unescape(t.get(1..t.len().checked_sub(1)?)?))
        }
        _ => None,
    }
}

/// A literal value as JSON: strings, numbers, booleans, arrays, objects with
/// literal keys, and `path.resolve(__dirname, '…')`/`path.join(__dirname,
/// '…')` as the absolute path; other values are left out.
fn literal(node: tree_sitter::Node<'_>, src: &[u8], dirname: &str) -> Option<Value> {
    match node.kind() {
        "string" | "template_string" => string_value(node, src).map(Value::String),
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "array" => {
            let mut cursor = node.walk();
            let items = node
                .named_children(&mut cursor)
                .filter_map(|c| literal(c, src, dirname))
                .collect();
            Some(Value::Array(items))
        }
        "object" => {
            let mut map = serde_json::Map::new();
            let mut cursor = node.walk();
            for pair in node.named_children(&mut cursor) {
                if pair.kind() != "pair" {
                    continue;
                }
                let Some(key) = pair.child_by_field_name("key") else {
                    continue;
                };
                let key = match key.kind() {
                    "string" => string_value(key, src),
                    "property_identifier" | "number" => key.utf8_text(src).ok().map(str::to_string),
                    _ => None,
                };
                if let (Some(k), Some(v)) = (
                    key,
                    pair.child_by_field_name("value")
                        .and_then(|v| literal(v, src, dirname)),
                ) {
                    map.insert(k, v);
                }
            }
            Some(Value::Object(map))
        }
        "call_expression" => {
            let callee = node.child_by_field_name("function")?.utf8_text(src).ok()?;
            if !matches!(callee, "path.resolve" | "path.join") {
                return None;
            }
            let args = node.child_by_field_name("arguments")?;
            let mut cursor = args.walk();
            let mut parts = args.named_children(&mut cursor);
            if parts.next()?.utf8_text(src).ok()? != "__dirname" {
                return None;
            }
            let mut out = dirname.to_string();
            for p in parts {
                out = format!("{out}/{}", string_value(p, src)?);
            }
            Some(Value::String(out))
        }
        _ => None,
    }
}

/// The plugin's options made root-relative: a configuration in `dir`,
/// whose working folder is the package folder `package_dir` unless the
/// options name one.
fn resolver(
    opts: &Value,
    dir: &str,
    package_dir: &str,
    root_slash: &str,
    dirs: &[&str],
) -> ModuleResolver {
    let cwd = match opts.get("cwd").and_then(Value::as_str) {
        Some("babelrc") => dir.to_string(),
        Some("packagejson") | None => package_dir.to_string(),
        Some(c) => normalize(&join_rel(package_dir, c)),
    };
    // An absolute path (`path.resolve(__dirname, 'src')`) inside the root.
    let folder = |v: &str| -> Option<String> {
        match v.strip_prefix(root_slash) {
            Some(rest) if v.starts_with('/') => Some(normalize(rest.trim_start_matches('/'))),
            None if v.starts_with('/') => None,
            _ => Some(normalize(&join_rel(&cwd, v))),
        }
    };
    let strings = |v: Option<&Value>| -> Vec<String> {
        match v {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut roots = Vec::new();
    for r in strings(opts.get("root")) {
        let Some(r) = folder(&r) else { continue };
        if r.contains('*') {
            // A glob (`./src/**/components`): the folders it matches.
            roots.extend(
                dirs.iter()
                    .filter(|d| !d.is_empty() && workspace_glob_matches(&r, d))
                    .map(|d| d.to_string()),
            );
        } else {
            roots.push(r);
        }
    }
    let mut aliases = Vec::new();
    let maps: Vec<&serde_json::Map<String, Value>> = match opts.get("alias") {
        Some(Value::Object(o)) => vec![o],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    };
    for (k, v) in maps.into_iter().flatten() {
        let targets = strings(Some(v));
        if targets.is_empty() || k.is_empty() {
            continue;
        }
        let key = if k.starts_with('^') || k.ends_with('$') {
            match regex::Regex::new(k) {
                Ok(re) => AliasKey::Pattern(re),
                Err(_) => continue,
            }
        } else {
            AliasKey::Name(k.clone())
        };
        aliases.push(Alias { key, targets });
    }
    ModuleResolver {
        roots,
        aliases,
        cwd,
    }
}

/// The folders whose Babel configuration runs babel-plugin-add-module-exports
/// (`"plugins": ["add-module-exports"]`): compiled to CommonJS, a module of
/// theirs whose only export is its default is that default
/// (`module.exports = exports.default`), so `require('./routes')(app)`
/// calls it. A folder maps to whether its configuration names the plugin;
/// the nearest folder with a configuration decides for a file.
///
/// Deliberately simple: the plugin is found by its name anywhere in the
/// configuration's text (a JSON list or a script's literal), `env` and
/// `overrides` sections included.
#[derive(Debug, Default)]
pub(super) struct AddModuleExports {
    folders: BTreeMap<String, bool>,
}

impl AddModuleExports {
    /// Read the configurations in `dirs` (with the root), with the package
    /// manifests already read.
    pub(super) fn read(root: &Path, dirs: &[&str], packages: &[PackageJson]) -> AddModuleExports {
        let names = |text: &str| {
            text.contains("\"add-module-exports\"")
                || text.contains("'add-module-exports'")
                || text.contains("babel-plugin-add-module-exports")
        };
        let mut folders = BTreeMap::new();
        for &dir in dirs {
            let file = RELATIVE_FILES
                .iter()
                .chain(PROJECT_FILES)
                .find_map(|name| std::fs::read_to_string(root.join(join_rel(dir, name))).ok());
            let found = file.map(|t| names(&t)).or_else(|| {
                let pkg = packages.iter().find(|p| p.dir == dir)?;
                let babel = pkg.json.get("babel")?;
                Some(names(&babel.to_string()))
            });
            if let Some(f) = found {
                folders.insert(dir.to_string(), f);
            }
        }
        AddModuleExports { folders }
    }

    /// Whether the configuration nearest `dir` runs the plugin.
    pub(super) fn applies(&self, dir: &str) -> bool {
        ancestors(dir)
            .find_map(|d| self.folders.get(d))
            .copied()
            .unwrap_or(false)
    }
}
