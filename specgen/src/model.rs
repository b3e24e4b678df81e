//! The normalized catalog every emitter reads: one row per (method, path,
//! app) with `all` expanded to the concrete methods, sorted in byte order,
//! with everything derived once (domain, summary, access, side effect,
//! merged contract, JSDoc, tool binding).
//!
//! Deliberately not captured: document shapes; each emitter decides those.

use crate::SpecError;
use crate::classify;
use crate::options::{SIDE_EFFECTS, SpecOptions};
use analyzer::Doc;
use analyzer::{Contract, Inventory, Method, Operation, ResponseInfo};
use indexmap::IndexMap;

/// A tool annotation on a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolMark {
    pub(crate) name: String,
    pub(crate) version: u32,
    pub(crate) scopes: Vec<String>,
    pub(crate) description: Option<String>,
    /// The side effect a `[[tools]]` entry sets; otherwise the row's.
    pub(crate) side_effect: Option<String>,
}

/// One concrete operation.
pub(crate) struct Row<'a> {
    /// Lower-case concrete method.
    pub(crate) method: String,
    pub(crate) op: &'a Operation,
    pub(crate) domain: String,
    pub(crate) summary: String,
    pub(crate) description: Option<String>,
    pub(crate) access: &'static str,
    pub(crate) side_effect: String,
    /// Every declaration's contract, merged.
    pub(crate) contract: Contract,
    /// Files declaring it, sorted, unique.
    pub(crate) sources: Vec<String>,
    /// Index into `SpecOptions::exposed`.
    pub(crate) exposed: Option<usize>,
    pub(crate) tool: Option<ToolMark>,
}

/// Whether an operation sits under the unknown prefix of a router nothing mounts (`{?}/users/:id`).
pub(crate) fn unknown_prefix(op: &Operation) -> bool {
    op.path.express.starts_with(analyzer::UNKNOWN_PREFIX)
}

impl Row<'_> {
    pub(crate) fn upper(&self) -> String {
        self.method.to_ascii_uppercase()
    }
    pub(crate) fn express(&self) -> &str {
        &self.op.path.express
    }
    /// Whether the row answers to `METHOD path` (Express path or OpenAPI template).
    pub(crate) fn answers(&self, method: &str, path: &str) -> bool {
        self.method.eq_ignore_ascii_case(method)
            && (self.op.path.express == path || self.op.path.openapi == path)
    }
}

/// Rows, domains and the warnings met while deriving them.
pub(crate) struct Model<'a> {
    pub(crate) rows: Vec<Row<'a>>,
    /// Domain id → operation count, in order of first appearance.
    pub(crate) domains: IndexMap<String, usize>,
    pub(crate) warnings: Vec<String>,
}

fn merge_contracts(op: &Operation) -> Contract {
    let mut c = Contract::default();
    for d in &op.declarations {
        let dc = &d.contract;
        if c.body.is_none() {
            c.body = dc.body.clone();
        }
        if c.query.is_none() {
            c.query = dc.query.clone();
        }
        if c.params.is_none() {
            c.params = dc.params.clone();
        }
        c.query_read.extend(dc.query_read.iter().cloned());
        c.headers_read.extend(dc.headers_read.iter().cloned());
        c.body_read.extend(dc.body_read.iter().cloned());
        c.responses.extend(dc.responses.iter().cloned());
    }
    c.query_read.sort();
    c.query_read.dedup();
    c.body_read.sort();
    c.body_read.dedup();
    c.headers_read.sort();
    c.headers_read.dedup();
    c.responses
        .sort_by(|a: &ResponseInfo, b: &ResponseInfo| (a.status, &a.at).cmp(&(b.status, &b.at)));
    c
}

fn under_prefix(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    prefix.is_empty()
        || path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Build the rows. Errors: a configured tool or side effect that names no
/// operation, or a bad side-effect value in configuration.
pub(crate) fn build<'a>(inv: &'a Inventory, opts: &SpecOptions) -> Result<Model<'a>, SpecError> {
    let mut warnings = Vec::new();
    let mut rows: Vec<Row<'a>> = Vec::new();
    for op in &inv.operations {
        // Every emitter reads the first declaration; an operation without one says nothing.
        if op.declarations.is_empty() {
            continue;
        }
        let methods: Vec<String> = match Method::parse(&op.method) {
            Some(Method::All) => Method::ALL_ANSWERS
                .iter()
                .map(|m| m.as_str().to_string())
                .collect(),
            _ => vec![op.method.clone()],
        };
        let doc = op
            .declarations
            .iter()
            .find_map(|d| d.doc.as_deref())
            .map(Doc::parse)
            .unwrap_or_default();
        let contract = merge_contracts(op);
        let mut sources: Vec<String> = op
            .declarations
            .iter()
            .flat_map(|d| std::iter::once(&d.at).chain(d.via.as_ref()))
            .map(|at| at.file.clone())
            .collect();
        sources.sort();
        sources.dedup();
        let middleware = op
            .declarations
            .first()
            .map(|d| d.middleware.as_slice())
            .unwrap_or(&[]);
        let access = match classify::access(middleware, &opts.access) {
            // A middleware on the chain answers 401/403 (the analyzer ran it).
            "public" if op.declarations.first().is_some_and(|d| d.guard.is_some()) => {
                "authenticated"
            }
            a => a,
        };
        // Under the unknown prefix, the path is a guess: never public.
        let unknown = unknown_prefix(op);
        let exposed = opts
            .exposed
            .iter()
            .position(|api| under_prefix(&op.path.express, &api.prefix))
            .filter(|_| !unknown);
        let doc_side_effect = doc
            .tag("sideEffect")
            .map(str::trim)
            .filter(|s| !s.is_empty());
        if let Some(se) = doc_side_effect
            && !SIDE_EFFECTS.contains(&se)
        {
            let at = &op.declarations[0].at;
            warnings.push(format!(
                "{}:{}: `@sideEffect {se}` is not one of {}; using the derived side effect",
                at.file,
                at.line,
                SIDE_EFFECTS.join(", ")
            ));
        }
        let doc_side_effect = doc_side_effect.filter(|s| SIDE_EFFECTS.contains(s));
        for method in methods {
            let upper = method.to_ascii_uppercase();
            let tool = match doc.tag("tool").map(str::trim).filter(|s| !s.is_empty()) {
                Some(_) if op.method == "all" => {
                    let at = &op.declarations[0].at;
                    if method == Method::ALL_ANSWERS[0].as_str() {
                        warnings.push(format!(
                            "{}:{}: `@tool` on an `all()` route is ignored (which method would it call?); bind it with [[tools]] and a method",
                            at.file, at.line
                        ));
                    }
                    None
                }
                Some(name) => Some(ToolMark {
                    name: name.split_whitespace().next().unwrap_or(name).to_string(),
                    version: 1,
                    scopes: doc
                        .tag("scopes")
                        .map(|s| s.split_whitespace().map(str::to_string).collect())
                        .unwrap_or_default(),
                    description: None,
                    // The row's side effect already holds `@sideEffect`; config may override it.
                    side_effect: None,
                }),
                None => None,
            };
            rows.push(Row {
                // Operations under the unknown prefix form one domain of their own.
                domain: if unknown {
                    "unknown-prefix".to_string()
                } else {
                    classify::domain(&op.path.express)
                },
                summary: doc
                    .summary()
                    .map(str::to_string)
                    .unwrap_or_else(|| classify::summary(&upper, &op.path.express)),
                description: doc.description.clone(),
                access,
                side_effect: doc_side_effect
                    .map(str::to_string)
                    .unwrap_or_else(|| classify::side_effect(&upper, &op.path.express).to_string()),
                contract: contract.clone(),
                sources: sources.clone(),
                exposed,
                tool,
                method,
                op,
            });
        }
    }
    // Byte order by path, then method, then app (PortOS uses locale collation; we do not).
    rows.sort_by(|a, b| {
        (a.op.path.express.as_bytes(), &a.method, &a.op.app).cmp(&(
            b.op.path.express.as_bytes(),
            &b.method,
            &b.op.app,
        ))
    });
    for o in &opts.side_effects {
        if !SIDE_EFFECTS.contains(&o.side_effect.as_str()) {
            return Err(SpecError::Config(format!(
                "side effect `{}` for `{} {}` is not one of {}",
                o.side_effect,
                o.method.to_ascii_uppercase(),
                o.path,
                SIDE_EFFECTS.join(", ")
            )));
        }
        let mut hit = false;
        for row in rows.iter_mut().filter(|r| r.answers(&o.method, &o.path)) {
            row.side_effect = o.side_effect.clone();
            hit = true;
        }
        if !hit {
            return Err(SpecError::Config(format!(
                "side effect set for `{} {}`, but no operation has that method and path (see `portolan scan --list`)",
                o.method.to_ascii_uppercase(),
                o.path
            )));
        }
    }
    bind_configured_tools(&mut rows, opts)?;
    dedupe_tools(&mut rows, &mut warnings);
    // A declaration reached through several mounts would repeat its warning.
    let mut seen = std::collections::HashSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    let mut domains: IndexMap<String, usize> = IndexMap::new();
    // Operations under the unknown prefix are not counted in domains.
    for r in rows.iter().filter(|r| !unknown_prefix(r.op)) {
        *domains.entry(r.domain.clone()).or_default() += 1;
    }
    Ok(Model {
        rows,
        domains,
        warnings,
    })
}

fn bind_configured_tools(rows: &mut [Row<'_>], opts: &SpecOptions) -> Result<(), SpecError> {
    for t in &opts.tools {
        if t.name.trim().is_empty() {
            return Err(SpecError::Config(format!(
                "a [[tools]] entry bound to `{} {}` has no name",
                t.method, t.path
            )));
        }
        if let Some(se) = &t.side_effect
            && !SIDE_EFFECTS.contains(&se.as_str())
        {
            return Err(SpecError::Config(format!(
                "tool `{}`: side effect `{se}` is not one of {}",
                t.name,
                SIDE_EFFECTS.join(", ")
            )));
        }
        let Some(row) = rows.iter_mut().find(|r| r.answers(&t.method, &t.path)) else {
            return Err(SpecError::ToolBinding(format!(
                "tool `{}` is bound to `{} {}`, but no operation has that method and path (run `portolan scan --list` to see the operations; paths are Express paths like /api/items/:id)",
                t.name,
                t.method.to_ascii_uppercase(),
                t.path
            )));
        };
        // A configured binding replaces any JSDoc annotation of the same name.
        row.tool = Some(ToolMark {
            name: t.name.clone(),
            version: t.version.unwrap_or(1),
            scopes: t.scopes.clone(),
            description: t.description.clone(),
            side_effect: t.side_effect.clone(),
        });
    }
    Ok(())
}

/// One tool name, one operation: a JSDoc-annotated declaration reached
/// through several mounts keeps the first path (byte order) and says so.
fn dedupe_tools(rows: &mut [Row<'_>], warnings: &mut Vec<String>) {
    let mut first: IndexMap<String, String> = IndexMap::new();
    for row in rows.iter_mut() {
        let Some(tool) = &row.tool else { continue };
        let here = format!("{} {}", row.upper(), row.op.path.express);
        match first.get(&tool.name) {
            None => {
                first.insert(tool.name.clone(), here);
            }
            Some(kept) => {
                warnings.push(format!(
                    "tool `{}` is also reachable as `{here}`; it stays bound to `{kept}` (bind it in [[tools]] to choose)",
                    tool.name
                ));
                row.tool = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_match_on_segment_boundaries() {
        assert!(under_prefix("/api/voice/public/x", "/api/voice/public/"));
        assert!(under_prefix("/api/voice/public", "/api/voice/public"));
        assert!(!under_prefix("/api/voice/publicity", "/api/voice/public"));
    }
}
