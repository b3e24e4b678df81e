//! Next.js's API routes of the Pages Router (`pages/api/`).
//!
//! Next.js serves each module below a package's `pages/api/` (or
//! `src/pages/api/`) folder at `/api/` and the file's path: its default
//! export is the handler of every method (`export default function
//! handler(req, res)`). No code of the repository registers these routes.
//!
//! Captures: which file is such a route and the path it is served at, so
//! that its handler (a census item, `census::default_handler`) is reported
//! as an `unmodelled-framework` loss naming the route, not left out in
//! silence. A file counts when its package (the nearest package.json)
//! depends on `next`; `[id]` is `:id`, `[...slug]` and `[[...slug]]` are `*`,
//! `index` is its folder; files whose name starts with `_` and `.d.ts`
//! files are not routes.
//!
//! Deliberately not captured: the routes themselves (Next.js is not
//! modelled: no operation is charted), `basePath` and rewrites in
//! `next.config.js`, the App Router's `route.ts` (its exports named after
//! methods are census items of their own).

use crate::project::{FileId, Project};

/// The path Next.js serves a file at when it is below a `pages/api/`
/// folder (`pages/api/users/[id].ts` is `/api/users/:id`), whatever its
/// package depends on.
pub(crate) fn route_of(rel: &str) -> Option<String> {
    let at = if rel.starts_with("pages/api/") || rel.starts_with("src/pages/api/") {
        rel.find("pages/api/")?
    } else {
        rel.find("/pages/api/")? + 1
    };
    let below = &rel[at + "pages/api/".len()..];
    let (dir, name) = below.rsplit_once('/').unwrap_or(("", below));
    if name.starts_with('_') || name.ends_with(".d.ts") {
        return None;
    }
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    Some(file_route("/api", dir, stem, &["[...", "[[..."]))
}

/// The path a file-based router serves a file at: `prefix`, then the
/// folders below the router's folder (`dir`) and the file's name without
/// its extensions (`stem`, left out when `index`), a `[name]` segment as
/// `:name` and one starting with any of `rest` (`[...slug]`) as `*`.
pub(crate) fn file_route(prefix: &str, dir: &str, stem: &str, rest: &[&str]) -> String {
    let mut route = String::from(prefix);
    let segments = dir.split('/').filter(|s| !s.is_empty());
    for s in segments.chain((stem != "index").then_some(stem)) {
        route.push('/');
        if rest.iter().any(|r| s.starts_with(r)) {
            route.push('*');
        } else if let Some(p) = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            route.push(':');
            route.push_str(p);
        } else {
            route.push_str(s);
        }
    }
    route
}

/// The path Next.js serves `file` at, when it is an API route of a package
/// that depends on `next` (see the module doc).
pub(crate) fn served(project: &Project, file: FileId) -> Option<String> {
    served_by(project, file, route_of, |n| n == "next")
}

/// What a file-based router serves `file` as (`route_of` its path), when
/// the package holding it depends on the framework (`framework` picks the
/// dependency's name): Next.js's API routes, Nitro's server routes.
pub(crate) fn served_by<R>(
    project: &Project,
    file: FileId,
    route_of: impl Fn(&str) -> Option<R>,
    framework: impl Fn(&str) -> bool,
) -> Option<R> {
    let rel = project.rel(file);
    let route = route_of(rel)?;
    project.package_depends_on(rel, framework).then_some(route)
}

#[cfg(test)]
mod tests {
    use super::route_of;

    #[test]
    fn routes_of_files() {
        assert_eq!(
            route_of("pages/api/hello.ts").as_deref(),
            Some("/api/hello")
        );
        assert_eq!(route_of("src/pages/api/index.js").as_deref(), Some("/api"));
        assert_eq!(
            route_of("apps/web/src/pages/api/users/[id].ts").as_deref(),
            Some("/api/users/:id")
        );
        assert_eq!(
            route_of("apps/web/pages/api/auth/[...nextauth].ts").as_deref(),
            Some("/api/auth/*")
        );
        assert_eq!(
            route_of("pages/api/_monitor/healthcheck.ts").as_deref(),
            Some("/api/_monitor/healthcheck")
        );
        assert_eq!(route_of("pages/api/_middleware.ts"), None);
        assert_eq!(route_of("pages/about.tsx"), None);
        assert_eq!(route_of("lib/mypages/api/x.ts"), None);
    }
}
