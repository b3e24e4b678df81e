//! The `opaque-middleware` finding: an app the run charts with no operation
//! while the requests it receives go to functions of the program mounted with
//! `use`. Portolan charts such a function as an endpoint only when it ends
//! every request it gets (`libs/answers.rs` `answers_alone`); a chain of
//! middleware that picks an operation from a table, runs it and writes the
//! answer through an object wrapping `res` (code generated from an API
//! description often does this) answers requests the catalog would otherwise
//! leave out without a word. The finding names each such function, where it
//! is mounted and defined, and why it stayed middleware.

use crate::inventory::{Finding, FindingCode};
use crate::machine::{Interp, RegKind, UseHandler};
use crate::mounts::loc;
use crate::project::Project;
use std::collections::{BTreeMap, HashSet};

/// One finding per app among `apps` (router ids) that charts no operation
/// (`counts`) while functions of the program take its requests.
pub(crate) fn opaque_middleware(
    project: &Project,
    interp: &Interp,
    apps: &[u32],
    counts: &BTreeMap<u32, usize>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for &app in apps {
        if counts.get(&app).copied().unwrap_or(0) > 0 {
            continue;
        }
        let mut lines = Vec::new();
        let mut seen = HashSet::new();
        collect(project, interp, app, &mut seen, &mut lines);
        if lines.is_empty() {
            continue;
        }
        let r = &interp.rec.routers[app as usize];
        let n = lines.len();
        out.push(Finding {
            code: FindingCode::OpaqueMiddleware,
            at: loc(project, r.file, r.line),
            message: format!(
                "this app charts no operation, though the requests it receives go to {n} function{} of the program mounted with `use`: {}. Portolan charts a function mounted with `use` as an endpoint only when it ends every request it gets (it never calls `next`, and sends on `res` or hands `res` to a call); these do not, so the operations they answer (for example ones they pick from a table by the request's method and path) are not charted",
                if n == 1 { "" } else { "s" },
                lines.join("; ")
            ),
            cause: None,
        });
    }
    out
}

/// The program's functions `use`d on router `id` and on the routers it
/// mounts, in registration order, as `` `name` (mounted at F:L, defined at
/// F:L): why ``.
fn collect(
    project: &Project,
    interp: &Interp,
    id: u32,
    seen: &mut HashSet<u32>,
    lines: &mut Vec<String>,
) {
    if !seen.insert(id) || seen.len() > 256 {
        return;
    }
    for reg in &interp.rec.routers[id as usize].regs {
        let RegKind::Use { handlers, .. } = &reg.kind else {
            continue;
        };
        for crate::machine::state::UseFunc { name, file, func } in interp
            .rec
            .use_funcs_at
            .get(&(reg.file, reg.line))
            .into_iter()
            .flatten()
        {
            let (line, why) = (func.line, crate::libs::answers::why_middleware(func));
            let entry = format!(
                "`{name}` (mounted at {}:{}, defined at {}:{line}): {why}",
                project.rel(reg.file),
                reg.line,
                project.rel(*file)
            );
            if !lines.contains(&entry) {
                lines.push(entry);
            }
        }
        for h in handlers {
            if let UseHandler::Router(r) = h {
                collect(project, interp, *r, seen, lines);
            }
        }
    }
}
