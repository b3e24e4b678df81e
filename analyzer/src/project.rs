//! The project model: which files exist, and how a module specifier resolves.
//!
//! Captures: gitignore-aware discovery (also outside a git checkout, with
//! negations), package.json files (entry hints, workspaces, `main`/`exports`),
//! tsconfig `baseUrl`/`paths`/`outDir`/`rootDir` (through relative `extends`,
//! with `${configDir}`), and Node's module resolution for relative, aliased
//! and bare specifiers: a source file (`.js`, the TypeScript extensions), a
//! JSON file (data), a folder's `main` or `index`, and build output that is
//! not checked in mapped back to its source (`require('./dist')` with
//! `outDir: "dist", rootDir: "src"` is `src/index.ts`).
//!
//! Also: module-alias's `_moduleAliases` (`{ "~": "." }` in the package.json
//! nearest the importing file: `require('~/server/routes')`), and
//! babel-plugin-module-resolver's `root` and `alias` in the Babel
//! configuration that compiles the importing file (`babel.rs`), and the
//! aliases of a bundler's configuration (Vite, webpack: `bundler.rs`).
//!
//! A package's conditional `exports` are read for how the module is loaded
//! (`require()` takes the entry's first `require`/`node`/`default`, as Node
//! does; an import prefers `import`), after a bundler's `source`.
//!
//! Also: npm aliases (`"web": "npm:express@^4"`: `require('web')` is Express).
//!
//! Also: a file a package script copies into place before the program
//! runs (`cp config.template.js config.js`: `script_copies.rs`).
//!
//! Also: Node's subpath imports (package.json `imports`: `#app`,
//! `#routes/*`), and a package's `exports` subpath patterns (`./*`).
//!
//! Deliberately not captured: conditional `exports` beyond
//! `import`/`require`/`node`/`default`, Yarn PnP.

mod aliases;
mod babel;
mod bundler;
mod git_index;
pub(crate) mod glob;
mod outputs;
mod script_copies;
mod test_paths;
mod walk;

pub(crate) use test_paths::{is_test_path, is_tool_config};
pub(crate) use walk::verify_walk_cache;
use walk::{WalkCache, Walked, walk};

use crate::AnalyzeError;
use crate::jsonc::strip_json_comments;
use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

/// Index of a source file in [`Project::files`].
pub(crate) type FileId = u32;

/// Source extensions, in Node/TypeScript resolution order.
pub(crate) const SOURCE_EXTS: &[&str] = &["js", "ts", "tsx", "jsx", "mjs", "cjs", "mts", "cts"];

/// One discovered source file.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct SourceFile {
    /// Path relative to the root, with `/`.
    pub(crate) rel: String,
    /// File size in bytes.
    pub(crate) size: u64,
    /// Modification time (nanoseconds since the epoch), for the cache index.
    pub(crate) mtime: u128,
}

/// A package.json that is part of the project.
#[derive(Debug, Clone)]
pub(crate) struct PackageJson {
    /// Folder holding it, relative to the root ("" for the root).
    pub(crate) dir: String,
    pub(crate) json: serde_json::Value,
}

/// The package.json fields that list what a package installs.
const DEPENDENCY_KEYS: [&str; 4] = [
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "optionalDependencies",
];

/// Where a specifier leads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Resolved {
    /// A project source file.
    File(FileId),
    /// A package the analyzer models or a Node builtin (`express`, `path`, ...).
    Known(String),
    /// An installed dependency or unknown package: not analyzed.
    External(String),
    /// A JSON file of the project (root-relative path), which `require`
    /// and `import` give as data (`require('./constants')` naming
    /// `constants.json`).
    Data(String),
    /// A relative or aliased specifier with no file behind it.
    Missing,
}

/// The discovered project.
pub(crate) struct Project {
    pub(crate) root: PathBuf,
    pub(crate) files: Vec<SourceFile>,
    by_rel: HashMap<String, FileId>,
    dirs: std::collections::HashSet<String>,
    pub(crate) packages: Vec<PackageJson>,
    workspace_packages: HashMap<String, String>,
    tsconfigs: BTreeMap<String, TsConfig>,
    /// babel-plugin-module-resolver's options, by the configuration's folder.
    babel: babel::BabelConfigs,
    /// babel-plugin-add-module-exports, by the configuration's folder.
    add_module_exports: babel::AddModuleExports,
    /// Where TypeScript writes its output and the source it compiles from,
    /// from every tsconfig file (see [`Project::source_of_output`]).
    outputs: Vec<OutputDir>,
    /// Aliases of the bundlers' configurations (see `project/bundler.rs`).
    bundler_aliases: Vec<bundler::BundlerAlias>,
    /// The files the packages' scripts copy into place (`script_copies.rs`).
    script_copies: Vec<script_copies::ScriptCopy>,
    /// Whether a package.json declares an npm alias (`"v4": "npm:x@4"`):
    /// bare specifiers are only looked up as aliases then.
    npm_aliases: bool,
    /// Why the cached walk was discarded, if it was (shown under `--timings`).
    pub(crate) cache_note: Option<String>,
    /// Scripts left out because their bytes are generated (see [`crate::generated`]).
    pub(crate) generated: Vec<SourceFile>,
}

#[derive(Debug, Clone, Default)]
struct TsConfig {
    /// Absolute-from-root folder of `baseUrl`, if set.
    base_url: Option<String>,
    /// (pattern, targets) relative to the folder paths are resolved from.
    paths: Vec<(String, Vec<String>)>,
    paths_base: String,
    /// `compilerOptions.outDir`, root-relative.
    out_dir: Option<String>,
    /// `compilerOptions.rootDir`, root-relative.
    root_dir: Option<String>,
    /// The folder every `include` pattern lies in (`["lib/**/*"]` → `lib`),
    /// root-relative: where TypeScript's default `rootDir`, the common
    /// folder of the inputs, is.
    include_root: Option<String>,
}

/// A tsconfig's `outDir` and the source folder it is built from: output
/// named in a manifest or an import (`"main": "dist/index.js"`,
/// `require('./dist')`) that is not checked in maps back to the source.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct OutputDir {
    /// `outDir`, root-relative (`packages/server/dist`).
    out: String,
    /// `rootDir`, root-relative; `None` when unset (TypeScript then takes the
    /// common folder of the inputs, usually `src/` beside the config).
    source: Option<String>,
    /// The folder of the tsconfig file.
    config_dir: String,
}

/// A package the resolver models instead of reading (see `libs::PACKAGES`).
fn is_known_package(name: &str) -> bool {
    crate::libs::is_modelled(name)
}

const NODE_BUILTINS: &[&str] = &[
    "assert",
    "buffer",
    "child_process",
    "cluster",
    "crypto",
    "dgram",
    "dns",
    "http",
    "http2",
    "https",
    "net",
    "os",
    "process",
    "querystring",
    "readline",
    "stream",
    "string_decoder",
    "timers",
    "tls",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "worker_threads",
    "zlib",
    "perf_hooks",
    "async_hooks",
    "module",
];

/// Whether `spec` names one of Node's own modules (`http`, `node:fs`, `fs/promises`).
pub(crate) fn is_node_builtin(spec: &str) -> bool {
    let bare = spec.strip_prefix("node:").unwrap_or(spec);
    let top = bare.split('/').next().unwrap_or(bare);
    NODE_BUILTINS.contains(&top)
}

/// Folders never analyzed unless a `.gitignore` negation re-includes them.
pub(crate) const DEFAULT_IGNORES: &str = "node_modules/\nbower_components/\nvendor/\njspm_packages/\nflow-typed/\n.git/\ncoverage/\n.next/\n.nuxt/\n.turbo/\n.yarn/\n*.min.js\n*.bundle.js\n";

impl Project {
    /// Everything besides source bytes that changes resolution: package
    /// manifests and tsconfig settings, as stable text.
    pub(crate) fn config_fingerprint(&self) -> String {
        let mut out = String::new();
        for p in &self.packages {
            out.push_str(&p.dir);
            out.push('\0');
            out.push_str(&p.json.to_string());
            out.push('\0');
        }
        out.push_str(&format!("{:?}", self.tsconfigs));
        out.push_str(&format!("{:?}", self.babel));
        out.push_str(&format!("{:?}", self.add_module_exports));
        out
    }

    /// Whether Babel compiles the file `id` with babel-plugin-add-module-exports
    /// (see `babel.rs`).
    pub(crate) fn adds_module_exports(&self, id: FileId) -> bool {
        let rel = self.rel(id);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        self.add_module_exports.applies(dir)
    }

    /// Walk `root`, honouring `.gitignore`/`.ignore` files and the defaults.
    pub(crate) fn discover(
        root: &Path,
        scratch: &Path,
        use_cache: bool,
    ) -> Result<Project, AnalyzeError> {
        let root = root
            .canonicalize()
            .map_err(|e| AnalyzeError::Root(root.display().to_string(), e.to_string()))?;
        if !root.is_dir() {
            return Err(AnalyzeError::Root(
                root.display().to_string(),
                "not a directory".into(),
            ));
        }
        std::fs::create_dir_all(scratch).ok();
        let default_ignore = scratch.join("default.ignore");
        if std::fs::read_to_string(&default_ignore).ok().as_deref() != Some(DEFAULT_IGNORES) {
            // Atomically: another process may be walking with this file.
            crate::cachefile::write_atomic(&default_ignore, DEFAULT_IGNORES.as_bytes()).map_err(
                |e| AnalyzeError::Cache(default_ignore.display().to_string(), e.to_string()),
            )?;
        }
        let mut cache_note = None;
        let cached = if use_cache {
            WalkCache::load(scratch, &root).unwrap_or_else(|damage| {
                cache_note = Some(format!(
                    "cache: walk.bin discarded ({damage}); the tree was walked again"
                ));
                None
            })
        } else {
            None
        };
        let walked = match cached {
            Some(w) => w,
            None => {
                let w = walk(&root, &default_ignore);
                if use_cache {
                    WalkCache::save(scratch, &root, &w);
                }
                w
            }
        };
        let Walked {
            dirs,
            mut files,
            mut generated,
            package_files,
            tsconfig_paths,
        } = walked;
        let dirs: std::collections::HashSet<String> = dirs.into_iter().collect();
        let mut packages = Vec::new();
        let mut package_files: Vec<(String, PathBuf)> = package_files
            .into_iter()
            .map(|rel| {
                let abs = root.join(&rel);
                (rel, abs)
            })
            .collect();
        let mut tsconfig_paths = tsconfig_paths;
        package_files.sort();
        tsconfig_paths.sort();
        for (rel, path) in package_files {
            if let Ok(text) = std::fs::read_to_string(&path)
                && let Ok(json) = serde_json::from_str(&text)
            {
                let dir = rel
                    .rsplit_once('/')
                    .map(|(d, _)| d.to_string())
                    .unwrap_or_default();
                packages.push(PackageJson { dir, json });
            }
        }
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        generated.sort_by(|a, b| a.rel.cmp(&b.rel));
        let by_rel = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.rel.clone(), i as FileId))
            .collect();
        // Babel plugins apply only where they are installed: with no
        // manifest depending on one, no folder's Babel config is read for it
        // (that is seven file lookups per folder on every run, warm ones too).
        let installed = |plugin: &str| {
            packages.iter().any(|p| {
                ["dependencies", "devDependencies", "peerDependencies"]
                    .iter()
                    .any(|k| p.json.get(*k).is_some_and(|d| d.get(plugin).is_some()))
            })
        };
        let folders = || {
            let mut folders: Vec<&str> = std::iter::once("")
                .chain(dirs.iter().map(String::as_str))
                .collect();
            folders.sort_unstable();
            folders
        };
        let babel = if installed("babel-plugin-module-resolver") {
            babel::BabelConfigs::read(&root, &folders(), &packages)
        } else {
            babel::BabelConfigs::default()
        };
        let add_module_exports = if installed("babel-plugin-add-module-exports") {
            babel::AddModuleExports::read(&root, &folders(), &packages)
        } else {
            babel::AddModuleExports::default()
        };
        let mut workspace_packages = HashMap::new();
        for p in &packages {
            if let Some(name) = p.json.get("name").and_then(|n| n.as_str())
                && !p.dir.is_empty()
            {
                workspace_packages.insert(name.to_string(), p.dir.clone());
            }
        }
        let mut project = Project {
            root,
            files,
            by_rel,
            dirs,
            packages,
            workspace_packages,
            tsconfigs: BTreeMap::new(),
            babel,
            add_module_exports,
            outputs: Vec::new(),
            bundler_aliases: Vec::new(),
            script_copies: Vec::new(),
            npm_aliases: false,
            cache_note,
            generated,
        };
        for rel in tsconfig_paths {
            let dir = rel
                .rsplit_once('/')
                .map(|(d, _)| d.to_string())
                .unwrap_or_default();
            if let Some(cfg) = project.read_tsconfig(&rel, &dir, 0) {
                if let Some(out) = &cfg.out_dir {
                    project.outputs.push(OutputDir {
                        out: out.clone(),
                        source: cfg.root_dir.clone().or_else(|| cfg.include_root.clone()),
                        config_dir: dir.clone(),
                    });
                }
                // `tsconfig.json` wins over `tsconfig.*.json` and `jsconfig.json` in the same folder.
                if rel.ends_with("/tsconfig.json") || rel == "tsconfig.json" {
                    project.tsconfigs.insert(dir, cfg);
                } else {
                    project.tsconfigs.entry(dir).or_insert(cfg);
                }
            }
        }
        // Output folders the packages' own build scripts write.
        for p in &project.packages {
            for b in crate::entries::build_outputs(&p.json) {
                let base = normalize(&join_rel(&p.dir, &b.base));
                project.outputs.push(OutputDir {
                    out: normalize(&join_rel(&p.dir, &b.out)),
                    // Paths on a command line are the package folder's.
                    source: b.source.map(|s| normalize(&join_rel(&p.dir, &s))),
                    config_dir: base,
                });
            }
        }
        project.outputs.sort();
        project.outputs.dedup();
        project.set_aside_built_copies();
        project.read_bundler_aliases();
        project.script_copies = project.read_script_copies();
        project.npm_aliases = project.packages.iter().any(|p| {
            DEPENDENCY_KEYS.iter().any(|k| {
                p.json.get(k).and_then(|d| d.as_object()).is_some_and(|d| {
                    d.values()
                        .any(|v| v.as_str().is_some_and(|v| v.starts_with("npm:")))
                })
            })
        });
        Ok(project)
    }

    pub(crate) fn file_id(&self, rel: &str) -> Option<FileId> {
        self.by_rel.get(rel).copied()
    }

    /// The project's folders (relative, without a trailing `/`), in no order.
    pub(crate) fn dirs(&self) -> impl Iterator<Item = &str> {
        self.dirs.iter().map(String::as_str)
    }

    /// Whether a root-relative folder is part of the project ("" is the root).
    pub(crate) fn is_dir(&self, rel: &str) -> bool {
        rel.is_empty() || self.dirs.contains(rel)
    }

    /// The entries of a project folder, as `fs.readdir` lists them: source
    /// files and folders (with `true`), in byte order. `None` when the folder
    /// is not part of the project.
    pub(crate) fn list_dir(&self, rel: &str) -> Option<Vec<(String, bool)>> {
        if !self.is_dir(rel) {
            return None;
        }
        let prefix = if rel.is_empty() {
            String::new()
        } else {
            format!("{rel}/")
        };
        let direct = |p: &str| {
            p.strip_prefix(prefix.as_str())
                .filter(|n| !n.is_empty() && !n.contains('/'))
                .map(str::to_string)
        };
        let mut out: Vec<(String, bool)> = self
            .files
            .iter()
            .filter_map(|f| direct(&f.rel).map(|n| (n, false)))
            .chain(
                self.dirs
                    .iter()
                    .filter_map(|d| direct(d).map(|n| (n, true))),
            )
            .collect();
        out.sort();
        out.dedup();
        Some(out)
    }

    pub(crate) fn rel(&self, id: FileId) -> &str {
        &self.files[id as usize].rel
    }

    pub(crate) fn abs(&self, id: FileId) -> PathBuf {
        self.root.join(&self.files[id as usize].rel)
    }

    /// One tsconfig file with what it extends; `config_dir` is the folder of
    /// the file first read (what `${configDir}` stands for).
    fn read_tsconfig(&self, rel: &str, config_dir: &str, depth: u32) -> Option<TsConfig> {
        let text = std::fs::read_to_string(self.root.join(rel)).ok()?;
        let json: serde_json::Value = serde_json::from_str(&strip_json_comments(&text)).ok()?;
        let dir = rel
            .rsplit_once('/')
            .map(|(d, _)| d.to_string())
            .unwrap_or_default();
        let mut cfg = match json.get("extends").and_then(|e| e.as_str()) {
            Some(ext) if depth < 3 && (ext.starts_with('.') || ext.starts_with('/')) => {
                let mut target = normalize(&join_rel(&dir, ext));
                if !target.ends_with(".json") {
                    target.push_str(".json");
                }
                self.read_tsconfig(&target, config_dir, depth + 1)
                    .unwrap_or_default()
            }
            _ => TsConfig::default(),
        };
        let opts = json.get("compilerOptions");
        // Paths are relative to the file that sets them, or to `${configDir}`.
        let folder = |key: &str| {
            let v = opts.and_then(|o| o.get(key)).and_then(|b| b.as_str())?;
            Some(match v.strip_prefix("${configDir}") {
                Some(rest) => normalize(&join_rel(config_dir, rest.trim_start_matches('/'))),
                None => normalize(&join_rel(&dir, v)),
            })
        };
        if let Some(base) = folder("baseUrl") {
            cfg.base_url = Some(base);
        }
        if let Some(out) = folder("outDir") {
            cfg.out_dir = Some(out);
        }
        if let Some(root) = folder("rootDir") {
            cfg.root_dir = Some(root);
        }
        cfg.include_root = json
            .get("include")
            .and_then(|i| i.as_array())
            .and_then(|patterns| outputs::include_root(patterns, &dir));
        if let Some(paths) = opts
            .and_then(|o| o.get("paths"))
            .and_then(|p| p.as_object())
        {
            cfg.paths = paths
                .iter()
                .map(|(k, v)| {
                    let targets = v
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|t| t.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    (k.clone(), targets)
                })
                .collect();
            cfg.paths_base = cfg.base_url.clone().unwrap_or_else(|| dir.clone());
        }
        Some(cfg)
    }

    /// Resolve `spec` imported from file `from`.
    /// The name of a modeled package whose folder, main file or
    /// `lib/<name>.js` is this root-relative path (extension optional).
    fn modeled_package_at(&self, target: &str) -> Option<String> {
        let target = target.trim_end_matches('/');
        let bare = target
            .strip_suffix(".js")
            .or_else(|| target.strip_suffix(".cjs"))
            .or_else(|| target.strip_suffix(".mjs"))
            .unwrap_or(target);
        self.packages.iter().find_map(|p| {
            let name = p.json.get("name").and_then(|n| n.as_str())?;
            if !is_known_package(name) {
                return None;
            }
            let dir = p.dir.trim_end_matches('/');
            let at = |rel: &str| normalize(&join_rel(dir, rel));
            let main = p
                .json
                .get("main")
                .and_then(|m| m.as_str())
                .unwrap_or("index.js");
            let main = at(main);
            let main = main.strip_suffix(".js").unwrap_or(&main).to_string();
            let candidates = [
                dir.to_string(),
                at("index"),
                main,
                at(&format!("lib/{name}")),
            ];
            candidates
                .contains(&bare.to_string())
                .then(|| name.to_string())
        })
    }

    pub(crate) fn resolve(&self, from: FileId, spec: &str) -> Resolved {
        self.resolve_as(from, spec, Loading::Import)
    }

    /// [`Project::resolve`] for a module loaded the way `how` says (a
    /// package's `exports` conditions differ for `require`).
    pub(crate) fn resolve_as(&self, from: FileId, spec: &str, how: Loading) -> Resolved {
        let from_rel = self.rel(from);
        let from_dir = from_rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        self.resolve_in_as(from_dir, spec, how)
    }

    /// Where `spec` leads from a module in the root-relative folder `from_dir`.
    pub(crate) fn resolve_in(&self, from_dir: &str, spec: &str) -> Resolved {
        self.resolve_in_as(from_dir, spec, Loading::Import)
    }

    fn resolve_in_as(&self, from_dir: &str, spec: &str, how: Loading) -> Resolved {
        if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
            let depth = from_dir.split('/').filter(|s| !s.is_empty()).count() as i64;
            let ups = spec.split('/').filter(|s| *s == "..").count() as i64;
            if ups > depth {
                // Outside the analyzed root: a package there is named by its package.json.
                let abs = self.root.join(from_dir).join(spec);
                // The nearest package.json at or above the target names the package.
                let name = abs.ancestors().take(4).find_map(|dir| {
                    std::fs::read_to_string(dir.join("package.json"))
                        .ok()
                        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                        .and_then(|j| j.get("name").and_then(|n| n.as_str()).map(str::to_string))
                });
                return match name {
                    Some(n) if is_known_package(&n) => Resolved::Known(n),
                    Some(n) => Resolved::External(n),
                    None => Resolved::External(spec.to_string()),
                };
            }
            let target = normalize(&join_rel(from_dir, spec));
            // A package the analyzer models, imported by path from inside its own
            // repository (express's examples: `require('../../')`,
            // `require('../../lib/express')`): that package, not its source.
            if let Some(name) = self.modeled_package_at(&target) {
                return Resolved::Known(name);
            }
            return match self.resolve_module(&target) {
                Some(r) => r,
                // A declaration file (`import { Tag } from './types'` naming
                // types.d.ts): types only, nothing of it runs.
                None if self.declarations_at(&target) => Resolved::External(spec.to_string()),
                // A generated script (a vendored, minified library) is left
                // out like a package: not analyzed, and not missing.
                None if self.generated_at(&target) => Resolved::External(spec.to_string()),
                None => Resolved::Missing,
            };
        }
        if let Some(abs) = spec.strip_prefix('/') {
            // An absolute path inside the project.
            let root = to_slash(&self.root);
            let rel = abs
                .strip_prefix(root.trim_start_matches('/'))
                .unwrap_or(abs);
            // (Normalized: `/srv/plugins/billing/` is the folder.)
            if let Some(r) = self.resolve_module(&normalize(rel)) {
                return r;
            }
            // A root-relative URL a browser module imports (`import { connect }
            // from '/shared/socket.js'`): the browser fetches it from the
            // site's root, the folder a static server serves the page from,
            // an ancestor of the importing file's folder; the nearest one
            // holding that file. (Browsers load only full file names.)
            let file_name = abs.rsplit('/').next().unwrap_or("");
            if file_name.ends_with(".js") || file_name.ends_with(".mjs") {
                for dir in ancestors(from_dir).filter(|d| !d.is_empty()) {
                    if let Some(Resolved::File(f)) =
                        self.resolve_module(&normalize(&join_rel(dir, &format!("./{abs}"))))
                    {
                        return Resolved::File(f);
                    }
                }
            }
            return Resolved::Missing;
        }
        // Node's subpath imports (`#routes/users` from the `imports` of the
        // package the importing file belongs to).
        if spec.starts_with('#')
            && let Some(r) = self.resolve_imports(from_dir, spec, how)
        {
            return r;
        }
        // Babel's module-resolver rewrites the specifier before Node sees it.
        if let Some(r) = self.babel_resolve(from_dir, spec) {
            return r;
        }
        match self.resolve_bare_as(from_dir, spec, how) {
            // No package is named `#…` (npm names cannot start with `#`): a
            // subpath import no map resolves is missing, as Node says
            // (ERR_PACKAGE_IMPORT_NOT_DEFINED).
            Resolved::External(_) if spec.starts_with('#') => Resolved::Missing,
            r => r,
        }
    }

    /// A subpath import (`#app`, `#routes/users`) from the `imports` map of
    /// the package.json nearest the importing file (the package scope, as
    /// Node reads it): an exact key, else the `*` pattern with the longest
    /// prefix, its target's conditions read for how the module is loaded and
    /// every `*` in it replaced by what the pattern matched. A `./` target is
    /// a file of that package (build output mapped back to its source, as a
    /// package's `exports` are); another names a package. None when no
    /// package.json maps the specifier (a tsconfig or bundler alias may).
    fn resolve_imports(&self, from_dir: &str, spec: &str, how: Loading) -> Option<Resolved> {
        let scope = ancestors(from_dir).find(|d| self.package_at(d).is_some())?;
        let map = self.package_at(scope)?.json.get("imports")?.as_object()?;
        let (target, star) = subpath_match(map, spec)?;
        let t = export_target(target, how)?;
        let t = match star {
            Some(s) => t.replace('*', &s),
            None => t,
        };
        if t.starts_with("./") {
            return Some(
                self.resolve_built(scope, &t)
                    .map(Resolved::File)
                    .or_else(|| self.resolve_module(&normalize(&join_rel(scope, &t))))
                    .unwrap_or(Resolved::Missing),
            );
        }
        Some(self.resolve_bare_as(from_dir, &t, how))
    }

    /// Where a bare specifier leads once Babel has had its say: modelled
    /// packages, Node's modules, the aliases of tsconfig and module-alias,
    /// `NODE_PATH`, workspaces and `node_modules`.
    pub(super) fn resolve_bare(&self, from_dir: &str, spec: &str) -> Resolved {
        self.resolve_bare_as(from_dir, spec, Loading::Import)
    }

    fn resolve_bare_as(&self, from_dir: &str, spec: &str, how: Loading) -> Resolved {
        // An npm alias (`"socket.io-client-v4": "npm:socket.io-client@4.8.1"`):
        // node_modules holds the aliased package under the alias's name.
        match self.npm_alias(from_dir, spec) {
            Some(real) => self.resolve_bare_unaliased(from_dir, &real, how),
            None => self.resolve_bare_unaliased(from_dir, spec, how),
        }
    }

    fn resolve_bare_unaliased(&self, from_dir: &str, spec: &str, how: Loading) -> Resolved {
        let bare = spec.strip_prefix("node:").unwrap_or(spec);
        if is_known_package(spec) || is_known_package(bare) {
            return Resolved::Known(bare.to_string());
        }
        if is_node_builtin(bare) {
            return Resolved::Known(bare.to_string());
        }
        // tsconfig paths and baseUrl, from the nearest tsconfig up the tree.
        if let Some(cfg) = self.tsconfig_for(from_dir) {
            // TypeScript tries one pattern: the exact one, else the one with
            // the longest prefix before its `*` (`@core/*` before `*`).
            let best = cfg
                .paths
                .iter()
                .filter_map(|(pattern, targets)| {
                    let star = match_path_pattern(pattern, spec)?;
                    let rank = match pattern.split_once('*') {
                        Some((pre, _)) => pre.len(),
                        None => usize::MAX,
                    };
                    Some((rank, pattern, targets, star))
                })
                .max_by_key(|(rank, ..)| *rank);
            if let Some((_, pattern, targets, star)) = best {
                for t in targets {
                    let t = t.replacen('*', &star, 1);
                    let joined = join_rel(&cfg.paths_base, &t);
                    // An alias into code outside the analyzed folder (a
                    // monorepo library): not source here, not missing.
                    if escapes_root(&joined) {
                        let (pkg, _) = split_package(bare);
                        return Resolved::External(pkg.to_string());
                    }
                    let target = normalize(&joined);
                    if let Some(r) = self.resolve_module(&target) {
                        return r;
                    }
                    // An alias naming a declaration file (`back-end/types/api`
                    // → types/api.d.ts): types only, nothing of it runs.
                    if self.declarations_at(&target) {
                        return Resolved::External(spec.to_string());
                    }
                }
                // A catch-all `"*": ["node_modules/*", "src/types/*"]` maps
                // every package; when it names no source file, TypeScript
                // resolves the package as usual. So it does for a named
                // alias that leads nowhere (`"@mono/shared":
                // ["./packages/shared/"]` under a `baseUrl` that doubles the
                // folder), and Node never reads `paths`: a workspace package
                // of that name is what both load. Otherwise it is missing.
                if pattern != "*" {
                    let (pkg_name, sub) = split_package(bare);
                    if let Some(dir) = self.workspace_packages.get(pkg_name)
                        && let Some(id) = self.resolve_package(dir, sub, how)
                    {
                        return Resolved::File(id);
                    }
                    return Resolved::Missing;
                }
            }
            if let Some(base) = &cfg.base_url
                && let Some(r) = self.resolve_module(&normalize(&join_rel(base, spec)))
            {
                return r;
            }
        }
        // module-alias: the `_moduleAliases` of the nearest package.json that
        // declares them (`{ "~": "." }`, `{ "@lib": "src/lib" }`), which
        // module-alias applies to every `require` once the package registers
        // it; an alias that leads to no file is missing, not a package.
        if let Some(r) = self.module_alias(from_dir, spec) {
            return r;
        }
        // `NODE_PATH=. node index.js`: the folders a package's scripts put on
        // NODE_PATH, which Node searches for a bare specifier no
        // `node_modules` holds (a declared dependency is taken to be there).
        if let Some(r) = self.node_path(from_dir, spec, bare) {
            return r;
        }
        // A bundler's alias (Vite's, webpack's), for the files it compiles.
        if let Some(r) = self.bundler_alias(from_dir, spec) {
            return r;
        }
        // A framework's alias by convention (Nuxt's `~/`, SvelteKit's `$lib`).
        if let Some(r) = self.framework_alias(from_dir, spec) {
            return r;
        }
        // `@/x`: never a package (a scope has a name); the `@` → `src` alias of
        // the Vite and Vue CLI templates, from the nearest package.json.
        if let Some(rest) = spec.strip_prefix("@/") {
            let base = ancestors(from_dir)
                .find(|d| self.package_at(d).is_some())
                .unwrap_or("");
            let target = normalize(&join_rel(base, &format!("src/{rest}")));
            return self.resolve_module(&target).unwrap_or(Resolved::Missing);
        }
        // Workspace packages (npm/yarn/pnpm) that live in the repository.
        let (pkg_name, sub) = split_package(bare);
        if let Some(dir) = self.workspace_packages.get(pkg_name)
            && let Some(id) = self.resolve_package(dir, sub, how)
        {
            return Resolved::File(id);
        }
        // node_modules up the directory chain: a symlink into the project is source.
        let mut dir = self.root.join(from_dir);
        loop {
            let candidate = dir.join("node_modules").join(pkg_name);
            if candidate.exists() {
                if let Ok(real) = candidate.canonicalize()
                    && let Ok(rel) = real.strip_prefix(&self.root)
                {
                    let rel = to_slash(rel);
                    if !rel.split('/').any(|c| c == "node_modules")
                        && let Some(id) = self.resolve_package(&rel, sub, how)
                    {
                        return Resolved::File(id);
                    }
                }
                return Resolved::External(pkg_name.to_string());
            }
            if dir == self.root || !dir.pop() {
                break;
            }
        }
        if self.undeclared_folder_alias(from_dir, pkg_name) {
            return Resolved::Missing;
        }
        Resolved::External(pkg_name.to_string())
    }

    /// Whether the bare specifier's first segment `name` is, from the folder
    /// `from_dir`, no package (no package.json up the tree declares it, and
    /// none is installed) but a folder of the project at or above it
    /// (`import routes from 'api/routes/http'` beside an `api/` folder): an
    /// alias the analysis did not find (a bundler's set up in code,
    /// `NODE_PATH` given outside the package's scripts), so the import is
    /// missing, not a package's. (As written Node throws `MODULE_NOT_FOUND`.)
    /// The first segment of the bare specifier `spec` imported from `from`,
    /// when it is such an alias ([`Project::undeclared_folder_alias`]).
    pub(crate) fn folder_alias<'s>(&self, from: FileId, spec: &'s str) -> Option<&'s str> {
        let from_rel = self.rel(from);
        let dir = from_rel.rsplit_once('/').map_or("", |(d, _)| d);
        let first = split_package(spec).0;
        self.undeclared_folder_alias(dir, first).then_some(first)
    }

    fn undeclared_folder_alias(&self, from_dir: &str, name: &str) -> bool {
        if name.starts_with(['@', '.', '/', '#']) || name.is_empty() {
            return false;
        }
        let declared = ancestors(from_dir)
            .filter_map(|d| self.package_at(d))
            .any(|p| {
                DEPENDENCY_KEYS
                    .iter()
                    .any(|k| p.json.get(k).and_then(|d| d.get(name)).is_some())
            });
        !declared && ancestors(from_dir).any(|d| self.root.join(d).join(name).is_dir())
    }

    /// Whether a root-relative path (no extension) names a TypeScript
    /// declaration file (`x.d.ts`, `x/index.d.ts`), which is not source.
    fn declarations_at(&self, target: &str) -> bool {
        ["d.ts", "d.mts", "d.cts"].iter().any(|ext| {
            self.root.join(format!("{target}.{ext}")).is_file()
                || self.root.join(format!("{target}/index.{ext}")).is_file()
        })
    }

    /// Whether `target` (or it with a script extension, or the folder's
    /// `index` script, as Node resolves `require('./libs/async')`) is a
    /// generated script.
    fn generated_at(&self, target: &str) -> bool {
        let is = |rel: &str| {
            self.generated
                .binary_search_by(|f| f.rel.as_str().cmp(rel))
                .is_ok()
        };
        is(target)
            || ["js", "mjs", "cjs"].iter().any(|e| {
                is(&format!("{target}.{e}")) || is(&normalize(&format!("{target}/index.{e}")))
            })
    }

    fn tsconfig_for(&self, dir: &str) -> Option<&TsConfig> {
        ancestors(dir).find_map(|d| self.tsconfigs.get(d))
    }

    /// The folder of the nearest package.json at or above `dir` ("" for the
    /// root, also when there is none).
    pub(crate) fn package_dir_of<'a>(&self, dir: &'a str) -> &'a str {
        ancestors(dir)
            .find(|d| self.package_at(d).is_some())
            .unwrap_or("")
    }

    /// Whether the folder of the package.json at or above `dir` lies outside
    /// the root package's `workspaces` (when it declares them): tooling, test
    /// servers or examples with a manifest of their own, not the program.
    pub(crate) fn outside_workspaces(&self, dir: &str) -> bool {
        let pkg = self.package_dir_of(dir);
        if pkg.is_empty() {
            return false;
        }
        let Some(ws) = self.package_at("").and_then(|p| p.json.get("workspaces")) else {
            return false;
        };
        let globs: Vec<&str> = match ws {
            serde_json::Value::Array(a) => a.iter().filter_map(|g| g.as_str()).collect(),
            serde_json::Value::Object(o) => o
                .get("packages")
                .and_then(|p| p.as_array())
                .map(|a| a.iter().filter_map(|g| g.as_str()).collect())
                .unwrap_or_default(),
            _ => return false,
        };
        !globs.iter().any(|g| workspace_glob_matches(g, pkg))
    }

    /// Whether the package of the file `rel` ([`Project::installing_package_of`])
    /// lists a dependency (any kind) whose name `pred` accepts.
    pub(crate) fn package_depends_on(&self, rel: &str, pred: impl Fn(&str) -> bool) -> bool {
        let Some(pkg) = self.installing_package_of(rel) else {
            return false;
        };
        DEPENDENCY_KEYS
            .iter()
            .filter_map(|k| pkg.json.get(k).and_then(|d| d.as_object()))
            .any(|deps| deps.keys().any(|n| pred(n)))
    }

    /// The nearest package.json at or above the file `rel` that is a package
    /// (one with a `name` or dependencies), whose installed packages the file
    /// uses. A folder's `{ "type": "module" }` only tells Node how to read
    /// the files below it: they still use the enclosing package's dependencies.
    fn installing_package_of(&self, rel: &str) -> Option<&PackageJson> {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let is_package = |p: &PackageJson| {
            p.json.get("name").is_some() || DEPENDENCY_KEYS.iter().any(|k| p.json.get(k).is_some())
        };
        ancestors(dir)
            .filter_map(|d| self.package_at(d))
            .find(|p| is_package(p))
    }

    /// The version range the package of the file `rel`
    /// ([`Project::installing_package_of`]) gives the dependency `name` (any
    /// kind), as written.
    pub(crate) fn package_dep_version(&self, rel: &str, name: &str) -> Option<String> {
        let pkg = self.installing_package_of(rel)?;
        DEPENDENCY_KEYS
            .iter()
            .find_map(|k| pkg.json.get(k)?.get(name)?.as_str().map(str::to_string))
    }

    pub(crate) fn package_at(&self, dir: &str) -> Option<&PackageJson> {
        self.packages.iter().find(|p| p.dir == dir)
    }

    fn resolve_package(&self, dir: &str, sub: &str, how: Loading) -> Option<FileId> {
        let pkg = self.package_at(dir);
        if !sub.is_empty() {
            if let Some(exports) = pkg.and_then(|p| p.json.get("exports"))
                && let Some(obj) = exports.as_object()
                && let Some((v, star)) = subpath_match(obj, &format!("./{sub}"))
                && let Some(t) = export_target(v, how)
                && let Some(id) =
                    self.resolve_built(dir, &star.map_or(t.clone(), |s| t.replace('*', &s)))
            {
                return Some(id);
            }
            return self.resolve_path(&normalize(&join_rel(dir, sub)));
        }
        if let Some(p) = pkg {
            let mut targets = Vec::new();
            if let Some(exports) = p.json.get("exports") {
                let main = match exports.as_object() {
                    Some(obj) if obj.keys().any(|k| k.starts_with('.')) => obj.get("."),
                    _ => Some(exports),
                };
                if let Some(t) = main.and_then(|v| export_target(v, how)) {
                    targets.push(t);
                }
            }
            for key in ["source", "module", "main"] {
                if let Some(t) = p.json.get(key).and_then(|m| m.as_str()) {
                    targets.push(t.to_string());
                }
            }
            for t in targets {
                if let Some(id) = self.resolve_built(dir, &t) {
                    return Some(id);
                }
            }
        }
        self.resolve_path(&normalize(&join_rel(dir, "index")))
            .or_else(|| self.resolve_path(&normalize(&join_rel(dir, "src/index"))))
    }

    /// A package target that may point at build output: fall back to `src/`.
    fn resolve_built(&self, dir: &str, target: &str) -> Option<FileId> {
        self.resolve_built_in(dir, target, 0)
    }

    fn resolve_built_in(&self, dir: &str, target: &str, depth: u32) -> Option<FileId> {
        let t = target.trim_start_matches("./");
        if let Some(id) = self.resolve_path_in(&normalize(&join_rel(dir, t)), depth) {
            return Some(id);
        }
        for out in ["dist/", "build/", "lib/", "out/"] {
            if let Some(rest) = t.strip_prefix(out) {
                let rest = rest
                    .trim_end_matches(".js")
                    .trim_end_matches(".mjs")
                    .trim_end_matches(".cjs");
                if let Some(id) =
                    self.resolve_path_in(&normalize(&join_rel(dir, &format!("src/{rest}"))), depth)
                {
                    return Some(id);
                }
            }
        }
        None
    }

    /// A root-relative path (no extension needed): file, `.js`→`.ts`, folder
    /// index, or build output mapped back to its source.
    pub(crate) fn resolve_path(&self, target: &str) -> Option<FileId> {
        self.resolve_path_in(target, 0)
    }

    /// Where a root-relative path leads as a module, in Node's order: a
    /// source file (with an extension added), a JSON file, a folder (its
    /// package.json `main`, its `index`), then build output's source.
    fn resolve_module(&self, target: &str) -> Option<Resolved> {
        if let Some(id) = self.resolve_file(target) {
            return Some(Resolved::File(id));
        }
        if let Some(data) = self.data_file(target) {
            return Some(Resolved::Data(data));
        }
        if let Some(id) = self.resolve_dir(target, 0) {
            return Some(Resolved::File(id));
        }
        if self.is_dir(target)
            && let Some(data) = self.data_file(&join_rel(target, "index"))
        {
            return Some(Resolved::Data(data));
        }
        if let Some(id) = self.source_of_output(target, 0) {
            return Some(Resolved::File(id));
        }
        // A file a package script copies into place (`cp config.template.js
        // config.js`), not checked in: the file it is copied from.
        let copied = self.copied_by_script(target)?;
        match self.resolve_file(&copied) {
            Some(id) => Some(Resolved::File(id)),
            None => self.data_file(&copied).map(Resolved::Data),
        }
    }

    /// A root-relative path as a file or folder that is in the project
    /// (build output not mapped back to its source).
    pub(crate) fn resolve_checked_in(&self, target: &str) -> Option<FileId> {
        self.resolve_file(target)
            .or_else(|| self.resolve_dir(target, 0))
    }

    /// `recursion` bounds the hops through manifests and output folders.
    fn resolve_path_in(&self, target: &str, recursion: u32) -> Option<FileId> {
        self.resolve_file(target)
            .or_else(|| self.resolve_dir(target, recursion))
            .or_else(|| self.source_of_output(target, recursion))
    }

    /// A JSON file at `target` or `target.json` (Node tries `.json` after `.js`).
    fn data_file(&self, target: &str) -> Option<String> {
        if target.ends_with(".json") && self.root.join(target).is_file() {
            return Some(target.to_string());
        }
        let with = format!("{target}.json");
        self.root.join(&with).is_file().then_some(with)
    }

    /// Build output that is not in the project, mapped back to the source
    /// its tsconfig compiles from: `packages/server/dist/index.js` with
    /// `outDir: "./dist", rootDir: "."` is `packages/server/index.js`; with
    /// no `rootDir`, `src/` beside the tsconfig, then its folder.
    pub(crate) fn source_of_output(&self, target: &str, recursion: u32) -> Option<FileId> {
        if recursion > 3 {
            return None;
        }
        for o in &self.outputs {
            let rest = if target == o.out {
                ""
            } else if let Some(r) = target
                .strip_prefix(o.out.as_str())
                .and_then(|r| r.strip_prefix('/'))
            {
                r
            } else {
                continue;
            };
            let stem = [".js", ".mjs", ".cjs", ".jsx"]
                .iter()
                .find_map(|e| rest.strip_suffix(e))
                .unwrap_or(rest);
            let sources = match &o.source {
                Some(s) => vec![s.clone()],
                None => vec![join_rel(&o.config_dir, "src"), o.config_dir.clone()],
            };
            for src in sources {
                let candidate = normalize(&join_rel(&src, stem));
                if candidate != target
                    && let Some(id) = self.resolve_path_in(&candidate, recursion + 1)
                {
                    return Some(id);
                }
            }
        }
        None
    }

    /// A source file at `target`, with an extension added, or `./x.js` naming `x.ts`.
    fn resolve_file(&self, target: &str) -> Option<FileId> {
        if let Some(id) = self.file_id(target) {
            return Some(id);
        }
        for ext in SOURCE_EXTS {
            if let Some(id) = self.file_id(&format!("{target}.{ext}")) {
                return Some(id);
            }
        }
        // Bundlers resolve single-file components without their extension
        // (Vue CLI's `import Chat from './components/Chat'`).
        for ext in ["vue", "svelte"] {
            if let Some(id) = self.file_id(&format!("{target}.{ext}")) {
                return Some(id);
            }
        }
        // `./x.js` naming `./x.ts` (TypeScript's ESM convention).
        for (from, tos) in [
            (".js", &["ts", "tsx"][..]),
            (".jsx", &["tsx"][..]),
            (".mjs", &["mts"][..]),
            (".cjs", &["cts"][..]),
        ] {
            if let Some(stem) = target.strip_suffix(from) {
                for to in tos {
                    if let Some(id) = self.file_id(&format!("{stem}.{to}")) {
                        return Some(id);
                    }
                }
            }
        }
        None
    }

    /// A project folder's module: its package.json `main`, else its `index`.
    fn resolve_dir(&self, target: &str, recursion: u32) -> Option<FileId> {
        if !(self.dirs.contains(target) || target.is_empty()) || recursion > 3 {
            return None;
        }
        if let Some(p) = self.package_at(target)
            && let Some(main) = p.json.get("main").and_then(|m| m.as_str())
            && let Some(id) = self.resolve_built_in(target, main, recursion + 1)
        {
            return Some(id);
        }
        let prefix = if target.is_empty() {
            String::new()
        } else {
            format!("{target}/")
        };
        SOURCE_EXTS
            .iter()
            .find_map(|ext| self.file_id(&format!("{prefix}index.{ext}")))
    }
}

/// The root-relative path of the package.json in folder `dir`.
pub(crate) fn manifest_of(dir: &str) -> String {
    if dir.is_empty() {
        "package.json".to_string()
    } else {
        format!("{dir}/package.json")
    }
}

/// How a module is loaded, which decides the conditions of a package's
/// `exports` that apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loading {
    /// `import` (static or `import()`), and every use that does not say.
    Import,
    /// `require()`.
    Require,
}

/// The target of an `exports` entry: a bundler's `source` first (the
/// source of what is built); then, for `require`, the first of `require`,
/// `node` and `default` in the entry's own order, as Node picks it (a
/// dual package's `{ "types", "require": "./cjs/x.cjs", "import":
/// "./dist/x.js" }` is its CommonJS file), `import` last; for an import,
/// `import`, `node`, `require`, `default`.
fn export_target(v: &serde_json::Value, how: Loading) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(o) => {
            if let Some(t) = o.get("source").and_then(|v| export_target(v, how)) {
                return Some(t);
            }
            if how == Loading::Require {
                for (key, v) in o {
                    if matches!(key.as_str(), "require" | "node" | "default")
                        && let Some(t) = export_target(v, how)
                    {
                        return Some(t);
                    }
                }
                return o.get("import").and_then(|v| export_target(v, how));
            }
            for key in ["import", "node", "require", "default"] {
                if let Some(t) = o.get(key).and_then(|v| export_target(v, how)) {
                    return Some(t);
                }
            }
            None
        }
        serde_json::Value::Array(a) => a.iter().find_map(|v| export_target(v, how)),
        _ => None,
    }
}

/// A `workspaces` pattern (`./packages/*`, `apps/**`, `server`) against a folder.
fn workspace_glob_matches(glob: &str, dir: &str) -> bool {
    let glob = normalize(glob.trim_start_matches('!'));
    let pat: Vec<&str> = glob.split('/').collect();
    let segs: Vec<&str> = dir.split('/').collect();
    fn go(p: &[&str], s: &[&str]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(&"**"), _) => go(&p[1..], s) || (!s.is_empty() && go(p, &s[1..])),
            (Some(x), Some(y)) => segment_matches(x, y) && go(&p[1..], &s[1..]),
            _ => false,
        }
    }
    go(&pat, &segs)
}

/// One path segment against a pattern segment with `*` wildcards.
fn segment_matches(pat: &str, seg: &str) -> bool {
    match pat.split_once('*') {
        None => pat == seg,
        Some((pre, rest)) => {
            seg.starts_with(pre)
                && (0..=seg.len() - pre.len()).any(|i| {
                    seg.is_char_boundary(pre.len() + i)
                        && segment_matches(rest, &seg[pre.len() + i..])
                })
        }
    }
}

fn split_package(spec: &str) -> (&str, &str) {
    let mut idx = spec.find('/');
    if spec.starts_with('@')
        && let Some(first) = idx
    {
        idx = spec[first + 1..].find('/').map(|i| first + 1 + i);
    }
    match idx {
        Some(i) => (&spec[..i], &spec[i + 1..]),
        None => (spec, ""),
    }
}

/// The entry of a package's `imports` or `exports` map that `key` selects,
/// as Node's PACKAGE_IMPORTS_EXPORTS_RESOLVE does: the exact key, else the
/// pattern (one `*`) with the longest part before its `*` (then the longest
/// key) whose ends `key` has, with what the `*` matched. A `null` target
/// excludes the key (none).
fn subpath_match<'a>(
    map: &'a serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<(&'a serde_json::Value, Option<String>)> {
    if let Some(v) = map.get(key)
        && !key.contains('*')
    {
        return (!v.is_null()).then_some((v, None));
    }
    let (v, star, _) = map
        .iter()
        .filter_map(|(pattern, v)| {
            let (pre, post) = pattern.split_once('*')?;
            if post.contains('*') || key.len() <= pre.len() {
                return None;
            }
            let star = match_path_pattern(pattern, key)?;
            Some((v, star, (pre.len(), pattern.len())))
        })
        .max_by_key(|(_, _, rank)| *rank)?;
    (!v.is_null()).then_some((v, Some(star)))
}

fn match_path_pattern(pattern: &str, spec: &str) -> Option<String> {
    match pattern.split_once('*') {
        Some((pre, post)) => {
            if spec.len() >= pre.len() + post.len() && spec.starts_with(pre) && spec.ends_with(post)
            {
                Some(spec[pre.len()..spec.len() - post.len()].to_string())
            } else {
                None
            }
        }
        None => (pattern == spec).then(String::new),
    }
}

pub(crate) fn to_slash(p: &Path) -> String {
    let mut out = String::new();
    for c in p.components() {
        if let Component::Normal(s) = c {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&s.to_string_lossy());
        }
    }
    out
}

fn join_rel(dir: &str, spec: &str) -> String {
    if dir.is_empty() {
        spec.to_string()
    } else {
        format!("{dir}/{spec}")
    }
}

/// A folder (relative to the root) and the folders above it, up to the root (`""`).
pub(crate) fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(dir), |d| {
        (!d.is_empty()).then(|| d.rsplit_once('/').map_or("", |(p, _)| p))
    })
}

/// Whether a `/` path relative to the root climbs above it (`../../libs/x`).
fn escapes_root(p: &str) -> bool {
    let mut depth = 0i32;
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

/// Collapse `.` and `..` in a `/` path relative to the root (never above it).
pub(crate) fn normalize(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// The major version a dependency's range names (`^4.4.1`, `~3.0`, `5.x`:
/// the first number); `None` when it names none (`latest`, `workspace:*`).
pub(crate) fn range_major(spec: &str) -> Option<u32> {
    spec.trim_start_matches(|c: char| !c.is_ascii_digit())
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn test_paths_are_told_by_name_and_folder() {
        for t in [
            "spec/helper.js",
            "server/specs/app.js",
            "src/__tests__/routes.js",
            "src/app.test.ts",
            "src/app.spec.js",
            "test/server.js",
            "test-int/bot.js",
            "packages/api/integration_tests/app.js",
            "e2e-tests/server.ts",
            "packages/task/src/node/task-server.slow-spec.ts",
            "src/app.e2e-test.js",
        ] {
            assert!(super::is_test_path(t), "{t} is a test path");
        }
        for t in [
            "src/specification.js",
            "src/routes/inspect.js",
            "spec.js",
            "src/testing-tools/app.js",
            "src/routes/test-results.js",
            "src/latest-news/app.js",
            "api-spec/handlers/pets.js",
            "src/ab-test.js",
            "src/routes/test.js",
        ] {
            assert!(!super::is_test_path(t), "{t} is not a test path");
        }
    }

    #[test]
    fn build_tool_configurations_are_told_by_name() {
        for t in [
            "vite.config.mjs",
            "web/webpack.config.js",
            "gulpfile.js",
            "karma.conf.js",
        ] {
            assert!(super::is_tool_config(t), "{t} is a tool's configuration");
        }
        for t in [
            "config.js",
            "src/config/server.config.js",
            "server.js",
            "app.config.ts",
        ] {
            assert!(
                !super::is_tool_config(t),
                "{t} is not a tool's configuration"
            );
        }
    }

    use super::*;

    #[test]
    fn normalize_collapses_dots() {
        assert_eq!(normalize("src/routes/../lib/./x"), "src/lib/x");
    }

    #[test]
    fn package_split_handles_scopes() {
        assert_eq!(split_package("@acme/api/sub/x"), ("@acme/api", "sub/x"));
        assert_eq!(split_package("express"), ("express", ""));
    }

    #[test]
    fn path_patterns_match_one_star() {
        assert_eq!(
            match_path_pattern("@/*", "@/routes/x"),
            Some("routes/x".into())
        );
        assert_eq!(match_path_pattern("~lib", "~lib"), Some(String::new()));
        assert_eq!(match_path_pattern("@/*", "lodash"), None);
    }

    #[test]
    fn tsconfig_comments_and_trailing_commas() {
        let t = "{ // c\n \"a\": [1,2,], /* x */ \"b\": {\"c\": \"//not\",}, }";
        let v: serde_json::Value = serde_json::from_str(&strip_json_comments(t)).unwrap();
        assert_eq!(v["b"]["c"], "//not");
    }
}
