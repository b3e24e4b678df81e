//! Which files and packages are browser code, whose HTTP-shaped calls are a
//! client's: by path ([`is_client_path`]), by imports
//! ([`imports_client_framework`]), by the package's dependencies
//! ([`in_client_package`]).

use crate::ir::FileFacts;

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

/// Files whose code runs in a browser: their verb calls are HTTP clients,
/// not routes (their Socket.IO sites still count). Judged from the path
/// (markup files, `client/`, `frontend/`, `public/`, `static/`, `www/`,
/// `browser/` folders) and, once parsed, from imports of browser frameworks.
pub(crate) fn is_client_path(rel: &str) -> bool {
    let markup = [".vue", ".html", ".svelte", ".hbs"]
        .iter()
        .any(|e| rel.ends_with(e));
    markup
        || rel.split('/').any(|seg| {
            matches!(
                seg,
                "client" | "frontend" | "public" | "static" | "www" | "browser" | "webapp"
            )
        })
}

/// Whether a file's imports name a browser framework, its router or state
/// store, a package's binding for one (`@unhead/vue`, `vue-i18n`), a
/// stylesheet, or the Socket.IO client.
pub(crate) fn imports_client_framework(facts: &FileFacts) -> bool {
    let client = |s: &str| {
        matches!(
            s,
            "react"
                | "react-dom"
                | "react-dom/client"
                | "vue"
                | "svelte"
                | "svelte/store"
                | "preact"
                | "solid-js"
                | "pinia"
                | "vuex"
                | "vue-router"
                | "zustand"
                | "redux"
                | "react-redux"
                | "@reduxjs/toolkit"
                | "react-router"
                | "react-router-dom"
                | "next/router"
                | "next/navigation"
        ) || s.starts_with("@angular/")
            || s.starts_with("@vue/")
            || s.starts_with("@vueuse/")
            || s.starts_with("socket.io-client")
            // A package's binding for a browser framework: `@unhead/vue`,
            // `dioc/vue`, `@sentry/react`, `vue-i18n`, `@x/vue-toasted`.
            || s.rsplit_once('/').is_some_and(|(_, last)| {
                matches!(last, "vue" | "react" | "svelte" | "preact")
            })
            || package_name(s).starts_with("vue-")
            // A stylesheet: only a bundler imports one (Node cannot).
            || [".css", ".scss", ".sass", ".less"]
                .iter()
                .any(|e| s.ends_with(e))
    };
    /// The package's own name, without its scope (`@x/vue-toasted/dist` → `vue-toasted`).
    fn package_name(s: &str) -> &str {
        let mut parts = s.split('/');
        let first = parts.next().unwrap_or("");
        if first.starts_with('@') {
            parts.next().unwrap_or("")
        } else {
            first
        }
    }
    facts.static_sources().any(client)
}
