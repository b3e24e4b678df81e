//! Aliases of packages other than TypeScript's: module-alias's
//! `_moduleAliases` in a package.json (`{ "~": "." }`: `require('~/server/routes')`)
//! and the folders a package's scripts put on `NODE_PATH`
//! (`"start": "NODE_PATH=. node index.js"`), and npm aliases in a package's
//! dependencies (`"v4": "npm:socket.io-client@4.8.1"`). Not captured: `NODE_PATH` set
//! outside the package's scripts (a shell profile, a Dockerfile).
//!
//! Also the aliases frameworks define by convention, with no line of
//! configuration: Nuxt's `~`/`@` (its source folder: the folder of
//! `nuxt.config.*`, or its `app/` in Nuxt 4's layout) and `~~`/`@@` (that
//! folder), and SvelteKit's `$lib` (`src/lib` beside `svelte.config.*`), whose
//! `$app/…` and `$env/…` are the framework's own modules. Not captured:
//! `srcDir`, `alias` and `kit.alias` set in those configurations, and Nuxt's
//! auto-imports (a composable called with no import).

use super::{Project, Resolved, ancestors, escapes_root, join_rel, normalize, split_package};

/// The configuration files that make a folder a Nuxt app or a SvelteKit app.
const NUXT_CONFIGS: &[&str] = &["nuxt.config.ts", "nuxt.config.js", "nuxt.config.mjs"];
const SVELTE_CONFIGS: &[&str] = &["svelte.config.js", "svelte.config.mjs", "svelte.config.ts"];

impl Project {
    /// Where `spec` leads through module-alias's `_moduleAliases` (see
    /// [`Project::resolve_in`]); `None` when no alias names it. The longest
    /// alias that is `spec` or a folder prefix of it wins.
    pub(super) fn module_alias(&self, from_dir: &str, spec: &str) -> Option<Resolved> {
        let (dir, aliases) = ancestors(from_dir).find_map(|d| {
            let a = self
                .package_at(d)?
                .json
                .get("_moduleAliases")?
                .as_object()?;
            Some((d, a))
        })?;
        let (alias, target) = aliases
            .iter()
            .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
            .filter(|(k, _)| !k.is_empty() && (spec == *k || spec.starts_with(&format!("{k}/"))))
            .max_by_key(|(k, _)| k.len())?;
        let target = normalize(&join_rel(dir, &format!("{target}{}", &spec[alias.len()..])));
        Some(match self.resolve_module(&target) {
            Some(r) => r,
            None if self.declarations_at(&target) => Resolved::External(spec.to_string()),
            None => Resolved::Missing,
        })
    }

    /// `spec` with its package name replaced by the package an npm alias of
    /// the package that installs the importing file names (`"v4":
    /// "npm:socket.io-client@4.8.1"` makes `v4/dist/x` `socket.io-client/dist/x`);
    /// `None` when the package is no alias.
    pub(super) fn npm_alias(&self, from_dir: &str, spec: &str) -> Option<String> {
        if !self.npm_aliases {
            return None;
        }
        let (name, sub) = split_package(spec);
        let pkg = ancestors(from_dir).find_map(|d| {
            let p = self.package_at(d)?;
            super::DEPENDENCY_KEYS
                .iter()
                .any(|k| p.json.get(k).is_some())
                .then_some(p)
        })?;
        let range = super::DEPENDENCY_KEYS
            .iter()
            .find_map(|k| pkg.json.get(k)?.get(name)?.as_str())?;
        let target = range.strip_prefix("npm:")?;
        // `@scope/name@range` or `name@range`: the name ends at the `@` after
        // its first character.
        let real = match target.char_indices().skip(1).find(|(_, c)| *c == '@') {
            Some((at, _)) => &target[..at],
            None => target,
        };
        (!real.is_empty() && real != name).then(|| match sub {
            "" => real.to_string(),
            sub => format!("{real}/{sub}"),
        })
    }

    /// Where `spec` leads through a framework's conventional alias (see the
    /// module doc) from a file in `from_dir`: the nearest folder at or above
    /// it holding the framework's configuration, else the nearest package's.
    /// `None` when `spec` is no such alias (or an `@/…` the app does not
    /// hold: the Vite templates' `src/` alias may); `Missing` when the alias
    /// names no module (no package is named `~` or `$lib`).
    pub(super) fn framework_alias(&self, from_dir: &str, spec: &str) -> Option<Resolved> {
        // (Else the nearest package's folder: the configuration is optional.)
        let app_of = |configs: &[&str]| {
            ancestors(from_dir)
                .find(|d| {
                    configs
                        .iter()
                        .any(|c| self.root.join(join_rel(d, c)).is_file())
                })
                .or_else(|| Some(self.package_dir_of(from_dir)))
        };
        let under = |base: &str, rest: &str| self.resolve_module(&normalize(&join_rel(base, rest)));
        // (No package is named `~`: a `~/…` nothing maps is missing.)
        let tilde = spec.starts_with("~/") || spec.starts_with("~~/");
        if let Some(rest) = spec
            .strip_prefix("~~/")
            .or_else(|| spec.strip_prefix("@@/"))
        {
            let found = app_of(NUXT_CONFIGS).and_then(|dir| under(dir, rest));
            return found.or_else(|| tilde.then_some(Resolved::Missing));
        }
        if let Some(rest) = spec.strip_prefix("~/").or_else(|| spec.strip_prefix("@/")) {
            // The source folder: the app's own, Nuxt 4's `app/`, or a `src/`
            // a configuration names.
            let found = app_of(NUXT_CONFIGS).and_then(|dir| {
                under(dir, rest)
                    .or_else(|| under(&join_rel(dir, "app"), rest))
                    .or_else(|| under(&join_rel(dir, "src"), rest))
            });
            return found.or_else(|| tilde.then_some(Resolved::Missing));
        }
        if spec == "$lib" || spec.starts_with("$lib/") {
            let rest = spec.strip_prefix("$lib").unwrap_or_default();
            let found = app_of(SVELTE_CONFIGS).and_then(|dir| {
                self.resolve_module(&normalize(&format!("{}{rest}", join_rel(dir, "src/lib"))))
            });
            return Some(found.unwrap_or(Resolved::Missing));
        }
        if ["$app/", "$env/"].iter().any(|p| spec.starts_with(p)) || spec == "$service-worker" {
            return Some(Resolved::External(spec.to_string()));
        }
        None
    }

    /// A bare specifier found in a folder that the scripts of a package.json
    /// enclosing the file put on `NODE_PATH` (`"start": "NODE_PATH=. node
    /// index.js"`), nearest package first, unless a package on the way
    /// declares it as a dependency. Not only the nearest package's: a root
    /// script can run a workspace folder's program with its own `NODE_PATH`
    /// (`"dev:api": "cross-env NODE_PATH=./ … DIR=api backpack"`, where
    /// `api/` has a package.json of its own).
    pub(super) fn node_path(&self, from_dir: &str, spec: &str, bare: &str) -> Option<Resolved> {
        let (name, _) = split_package(bare);
        for (dir, pkg) in ancestors(from_dir).filter_map(|d| Some((d, self.package_at(d)?))) {
            let declared = super::DEPENDENCY_KEYS
                .iter()
                .any(|k| pkg.json.get(k).and_then(|d| d.get(name)).is_some());
            if declared {
                return None;
            }
            let Some(scripts) = pkg.json.get("scripts").and_then(|s| s.as_object()) else {
                continue;
            };
            let mut folders: Vec<&str> = Vec::new();
            for cmd in scripts.values().filter_map(|v| v.as_str()) {
                for word in cmd.split_whitespace() {
                    if let Some(list) = word.strip_prefix("NODE_PATH=") {
                        folders.extend(
                            list.split(':')
                                .filter(|f| !f.is_empty() && !f.starts_with('$')),
                        );
                    }
                }
            }
            folders.sort_unstable();
            folders.dedup();
            let found = folders.into_iter().find_map(|f| {
                let base = normalize(&join_rel(dir, f));
                if escapes_root(&base) {
                    return None;
                }
                self.resolve_module(&normalize(&join_rel(&base, spec)))
            });
            if found.is_some() {
                return found;
            }
        }
        None
    }
}
