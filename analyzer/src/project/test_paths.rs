//! Which paths of a project are tests, and which are build tools'
//! configurations: neither is the program.

/// Whether a path (relative, with `/`) is a test file (a suffix before the
/// extension says so: `.test.`, `.spec.`, `.slow-spec.`, `.e2e-test.`) or lies in a test
/// folder: one of the usual names, or a folder whose name joins `test`,
/// `tests` or `e2e` with other words (`test-int`, `integration_tests`).
pub(crate) fn is_test_path(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let folders = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let parts: Vec<&str> = name.split('.').collect();
    // A suffix before the extension names a test (`x.test.js`, `x.spec.ts`,
    // `x.slow-spec.ts`, `x.e2e-test.js`).
    let suffixes = parts.len().saturating_sub(1);
    parts[1.min(suffixes)..suffixes].iter().any(|p| {
        p.split(['-', '_'])
            .any(|w| matches!(w, "test" | "spec" | "e2e"))
    }) || folders.split('/').any(|seg| {
        seg.contains(['-', '_'])
            && seg
                .split(['-', '_'])
                .any(|w| matches!(w, "test" | "tests" | "e2e"))
    }) || rel.split('/').any(|seg| {
        matches!(
            seg,
            "__tests__"
                | "__mocks__"
                | "test"
                | "tests"
                | "spec"
                | "specs"
                | "__fixtures__"
                | "fixtures"
                | "e2e"
                | "cypress"
        )
    })
}

/// A build or test tool's configuration (`vite.config.mjs`, `webpack.config.js`,
/// `gulpfile.js`, …): the middleware it adds (`server.middlewares.use(…)`,
/// `devServer.setupMiddlewares`) serves the tool's development server, not
/// the program.
pub(crate) fn is_tool_config(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let stem = name.split('.').next().unwrap_or(name);
    let config = name.contains(".config.") || name.contains(".conf.");
    (config
        && matches!(
            stem,
            "vite"
                | "vitest"
                | "webpack"
                | "rollup"
                | "rspack"
                | "vue"
                | "nuxt"
                | "next"
                | "svelte"
                | "astro"
                | "karma"
                | "jest"
                | "playwright"
                | "cypress"
                | "protractor"
                | "tsup"
                | "esbuild"
                | "snowpack"
                | "quasar"
                | "angular"
        ))
        || matches!(stem, "gulpfile" | "Gruntfile" | "gruntfile")
}
