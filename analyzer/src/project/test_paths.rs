//! Which paths of a project are tests.

/// Whether a path (relative, with `/`) is a test file or lies in a test
/// folder: one of the usual names, or a folder whose name joins `test`,
/// `tests` or `e2e` with other words (`test-int`, `integration_tests`).
pub(crate) fn is_test_path(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let folders = rel.rsplit_once('/').map_or("", |(d, _)| d);
    name.contains(".test.")
        || name.contains(".spec.")
        || folders.split('/').any(|seg| {
            seg.contains(['-', '_'])
                && seg
                    .split(['-', '_'])
                    .any(|w| matches!(w, "test" | "tests" | "e2e"))
        })
        || rel.split('/').any(|seg| {
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
