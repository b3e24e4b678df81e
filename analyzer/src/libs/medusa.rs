//! Medusa v2's file-based API routes (`@medusajs/framework`'s
//! `ApiRoutesLoader`, `packages/core/framework/src/http/router.ts`).
//!
//! A Medusa application never calls `express()` itself: the framework makes
//! the app and registers the routes that the files of each plugin's `api`
//! folder, the project's own `src/api` and the core package's declare. The
//! repository determines them, so they are charted as that loader registers
//! them.
//!
//! Captures: for every package.json that is `@medusajs/medusa` itself or
//! depends on `@medusajs/medusa` or `@medusajs/framework` (dependencies,
//! devDependencies or peerDependencies) and has route files under its
//! `src/api` folder, one app, sited at that package.json (the framework
//! makes it; no code of the repository does). The route files are those
//! whose name without its extension is `route` (`route.ts`, `route.js`;
//! `route.test.ts` is not one), no path segment below `src/api` starting
//! with `_` (`__tests__`, `_helpers`) or being a `.d.ts`, `.map` or `.md`
//! file, as the loader's `#excludes` say. The route is the folder below
//! `src/api`, with `[...]` as `*` and `[name]` as `:name`
//! (`src/api/store/products/[id]/route.ts` is `/store/products/:id`). Each
//! of the file's exports named `GET`, `POST`, `PUT`, `PATCH`, `DELETE`,
//! `OPTIONS` or `HEAD` whose value is a function is that method's handler,
//! the operation sited at the function and read for its contract.
//!
//! Deliberately not captured: `middlewares.ts`
//! (`defineMiddlewares({ routes })`: the middleware of a matcher), the
//! `AUTHENTICATE` and `CORS` flags and the authentication the loader puts
//! on `/admin` and `/store` routes, plugins resolved from `medusa-config`
//! that are installed packages (not in the repository), and the routes'
//! priority order (every route is charted; which of two overlapping ones
//! answers first is not). An export of a method's name whose value is not a
//! function the analysis can read stays a census item.

use crate::machine::*;
use crate::project::Project;

/// The methods the loader takes from a route file's exports (`HTTP_METHODS`).
const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];

/// Whether a package.json is Medusa's or depends on its framework.
fn is_medusa_package(json: &serde_json::Value) -> bool {
    if json.get("name").and_then(|n| n.as_str()) == Some("@medusajs/medusa") {
        return true;
    }
    ["dependencies", "devDependencies", "peerDependencies"]
        .iter()
        .filter_map(|k| json.get(k).and_then(|d| d.as_object()))
        .any(|d| d.contains_key("@medusajs/medusa") || d.contains_key("@medusajs/framework"))
}

/// The route a file below `src/api` declares (its path below that folder,
/// `store/products/[id]/route.ts`), or `None` when the loader skips it.
fn route_of(below: &str) -> Option<String> {
    let mut segments: Vec<&str> = below.split('/').collect();
    let name = segments.pop()?;
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let excluded = |s: &str| {
        s.starts_with('_')
            || s.contains(".DS_Store")
            || [".ts.map", ".js.map", ".d.ts", ".md"]
                .iter()
                .any(|x| s.contains(x))
    };
    if stem != "route" || excluded(name) || segments.iter().any(|s| excluded(s)) {
        return None;
    }
    let mut route = String::new();
    for s in segments {
        route.push('/');
        route.push_str(&s.replace("[...]", "*").replace('[', ":").replace(']', ""));
    }
    if route.is_empty() {
        route.push('/');
    }
    Some(route)
}

/// The folders Medusa's loader scans: (the package.json, its `src/api/`
/// prefix), for each package that is Medusa's or depends on its framework.
fn api_folders(project: &Project) -> Vec<(String, String)> {
    project
        .packages
        .iter()
        .filter(|p| is_medusa_package(&p.json))
        .map(|p| {
            let api = if p.dir.is_empty() {
                "src/api/".to_string()
            } else {
                format!("{}/src/api/", p.dir)
            };
            (crate::project::manifest_of(&p.dir), api)
        })
        .collect()
}

/// Whether Medusa's loader serves a file: `None` when it is in no folder the
/// loader scans, else whether it is a route file there.
pub(crate) fn served(project: &Project, file: FileId) -> Option<bool> {
    let rel = project.rel(file);
    api_folders(project)
        .iter()
        .find_map(|(_, api)| rel.strip_prefix(api.as_str()))
        .map(|below| route_of(below).is_some())
}

impl Interp {
    /// The apps Medusa's loader makes for the repository's route files (see
    /// the module doc).
    pub(crate) fn medusa_file_routes(&mut self) {
        let project = self.loader.project.clone();
        for (manifest, api) in api_folders(&project) {
            let files: Vec<(FileId, String)> = project
                .files
                .iter()
                .enumerate()
                .filter_map(|(i, f)| Some((i as FileId, route_of(f.rel.strip_prefix(&api)?)?)))
                .collect();
            let Some(&(first, _)) = files.first() else {
                continue;
            };
            let Value::Router(app) = self.new_router(first, 1, true) else {
                continue;
            };
            self.rec.routers[app as usize].manifest = Some(Rc::from(manifest.as_str()));
            for (file, route) in files {
                self.run_module(file);
                for &m in METHODS {
                    let v = self.export_of(file, m, 0);
                    let Value::Func(c) = &v else { continue };
                    let at = (c.file, c.func.line);
                    let kind = RegKind::Route {
                        method: m.to_ascii_lowercase(),
                        paths: vec![PathArg::Str(route.clone())],
                        middleware: Vec::new(),
                        handler: Some(HandlerRef {
                            name: m.to_string(),
                            at: Some(at),
                        }),
                        contract: Rc::new(RefCell::new(RawContract::default())),
                        funcs: vec![v.clone()],
                        subpaths: false,
                    };
                    self.push_reg(app, kind, at.0, at.1, c.func.doc.clone(), None);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::route_of;

    #[test]
    fn routes_are_the_folders_below_api() {
        assert_eq!(
            route_of("store/products/route.ts").as_deref(),
            Some("/store/products")
        );
        assert_eq!(
            route_of("admin/orders/[id]/route.js").as_deref(),
            Some("/admin/orders/:id")
        );
        assert_eq!(
            route_of("files/[...]/route.ts").as_deref(),
            Some("/files/*")
        );
        assert_eq!(route_of("route.ts").as_deref(), Some("/"));
        assert_eq!(route_of("store/products/helpers.ts"), None);
        assert_eq!(route_of("store/products/route.test.ts"), None);
        assert_eq!(route_of("store/__tests__/route.ts"), None);
        assert_eq!(route_of("_utils/route.ts"), None);
        assert_eq!(route_of("store/route.d.ts"), None);
    }
}
