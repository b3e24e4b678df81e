//! Nitro's file-based server routes (Nuxt's `server/` folder, a Nitro app's
//! own).
//!
//! Nitro serves each module below a package's `server/api/` folder at
//! `/api/` and the file's path, and each below `server/routes/` at the
//! file's path: its default export, a handler an h3 helper makes (`export
//! default defineEventHandler(async (event) => …)`), answers the method the
//! file's name ends with (`session.get.ts`, `[id].delete.ts`) or every
//! method. No code of the repository registers these routes.
//!
//! Captures: which file is such a route, the method and the path it is
//! served at, so that its handler (a census item, `census::default_handler`)
//! is reported as an `unmodelled-framework` loss naming the route, not left
//! out in silence. A file counts when its package (the nearest
//! package.json) depends on `nuxt` or `nitropack`; the folder may sit below
//! the package's source folder (`src/server/api/`); `[id]` is `:id`,
//! `[...slug]` is `*`, `index` is its folder; `.d.ts` files are not routes.
//!
//! Deliberately not captured: the routes themselves (Nitro is not modelled:
//! no operation is charted), `server/middleware/`, the `apiBaseURL` and
//! `routeRules` settings of `nuxt.config`, Nuxt layers.

use crate::project::{FileId, Project};

/// The methods a route file's name may end with (`users.post.ts`).
const METHODS: &[&str] = &[
    "get", "post", "put", "patch", "delete", "head", "options", "connect", "trace",
];

/// The method (`None`: every method) and the path Nitro serves a file at
/// when it is below a `server/api/` or `server/routes/` folder
/// (`server/api/users/[id].get.ts` is `GET /api/users/:id`), whatever its
/// package depends on.
pub(crate) fn route_of(rel: &str) -> Option<(Option<&'static str>, String)> {
    let (at, prefix) = ["server/api/", "server/routes/"].iter().find_map(|dir| {
        let at = if rel.starts_with(dir) {
            Some(0)
        } else {
            rel.find(&format!("/{dir}")).map(|i| i + 1)
        }?;
        Some((
            at + dir.len(),
            if dir.ends_with("api/") { "/api" } else { "" },
        ))
    })?;
    let below = &rel[at..];
    let (dir, name) = below.rsplit_once('/').unwrap_or(("", below));
    if name.ends_with(".d.ts") {
        return None;
    }
    let (stem, ext) = name.rsplit_once('.')?;
    if !matches!(ext, "js" | "mjs" | "cjs" | "ts" | "mts" | "cts") {
        return None;
    }
    let (stem, method) = match stem.rsplit_once('.') {
        Some((s, m)) if METHODS.contains(&m) => (s, METHODS.iter().copied().find(|x| *x == m)),
        _ => (stem, None),
    };
    let mut route = super::next_pages::file_route(prefix, dir, stem, &["[..."]);
    if route.is_empty() {
        route.push('/');
    }
    Some((method, route))
}

/// How Nitro serves `file`, when it is a server route of a package that
/// depends on `nuxt` or `nitropack`: its method (`None`: every method) and
/// path (see the module doc).
pub(crate) fn served(project: &Project, file: FileId) -> Option<(Option<&'static str>, String)> {
    super::next_pages::served_by(project, file, route_of, |n| {
        matches!(n, "nuxt" | "nitropack" | "nitro")
    })
}

#[cfg(test)]
mod tests {
    use super::route_of;

    #[test]
    fn routes_of_files() {
        assert_eq!(
            route_of("server/api/session.get.ts"),
            Some((Some("get"), "/api/session".into()))
        );
        assert_eq!(
            route_of("src/server/api/admin/users/[id].delete.ts"),
            Some((Some("delete"), "/api/admin/users/:id".into()))
        );
        assert_eq!(
            route_of("apps/web/server/routes/metrics/index.ts"),
            Some((None, "/metrics".into()))
        );
        assert_eq!(
            route_of("server/routes/[...path].js"),
            Some((None, "/*".into()))
        );
        assert_eq!(route_of("server/routes/index.ts"), Some((None, "/".into())));
        assert_eq!(route_of("server/api/types.d.ts"), None);
        assert_eq!(route_of("server/api/data.json"), None);
        assert_eq!(route_of("server/utils/session.ts"), None);
        assert_eq!(route_of("myserver/api/x.ts"), None);
    }
}
