//! Which packages are browser apps, whose HTTP-shaped calls are a client's
//! (see [`in_client_package`]).

/// Whether the package a file belongs to is a browser app: it depends on a
/// browser framework (Vue, React, Svelte, Angular, Preact, Solid) and on no
/// server (Express or another HTTP framework, Socket.IO's server, NestJS).
/// Its `restApi.post('/x', body)` is an HTTP client's call and its
/// `app.use(plugin)` a Vue plugin, not registrations (a Vue admin's axios
/// helpers were unreached-file errors). A package with both, a Next.js or
/// Vite app with a custom Express server, is not one; nor is a file an entry
/// reaches (the accounting asks only for unreached files).
pub(crate) fn in_client_package(project: &crate::project::Project, rel: &str) -> bool {
    let browser = |n: &str| {
        matches!(
            n,
            "vue" | "react" | "react-dom" | "svelte" | "preact" | "solid-js" | "@angular/core"
        )
    };
    let server = |n: &str| {
        matches!(
            n,
            "express"
                | "koa"
                | "fastify"
                | "@hapi/hapi"
                | "hapi"
                | "restify"
                | "polka"
                | "socket.io"
                | "next"
                | "nuxt"
                | "@sveltejs/kit"
                | "@remix-run/node"
                | "@nestjs/core"
        ) || n.starts_with("@feathersjs/")
            || n.starts_with("@loopback/")
            || n.starts_with("loopback")
    };
    project.package_depends_on(rel, browser) && !project.package_depends_on(rel, server)
}
