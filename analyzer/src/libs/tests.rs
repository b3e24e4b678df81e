//! Tests of the package table (`libs/mod.rs`).

use super::*;

#[test]
fn one_row_per_package() {
    let mut names: Vec<&str> = PACKAGES.iter().map(|p| p.name).collect();
    names.sort_unstable();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "a package is listed twice");
}

#[test]
fn the_table_decides_resolution_and_values() {
    assert!(is_modelled("express") && is_modelled("express-promise-router"));
    assert!(!is_modelled("lodash") && !is_modelled("left-pad"));
    assert!(matches!(
        modelled_module("zod"),
        Value::Builtin(Builtin::Zod)
    ));
    assert!(matches!(
        modelled_module("express-promise-router"),
        Value::Builtin(Builtin::RouterCtor)
    ));
    assert!(matches!(
        modelled_module("@nestjs/common"),
        Value::Builtin(Builtin::OpaqueModule(_))
    ));
    assert!(matches!(
        installed_module("require-all"),
        Some(Value::Builtin(Builtin::Node(NodeFn::Loader("require-all"))))
    ));
    assert!(matches!(
        installed_module("lodash-es"),
        Some(Value::Builtin(Builtin::Lodash(_)))
    ));
    assert!(matches!(
        installed_module("react"),
        Some(Value::Builtin(Builtin::Framework(n))) if &*n == "react"
    ));
    assert!(installed_module("express").is_none() && installed_module("left-pad").is_none());
}
