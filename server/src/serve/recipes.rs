//! Saved read recipes: `[[recipes]]` in `portolan.toml`, each a named tool
//! made of at most five read-only registry tools run in order, whose
//! arguments come from the recipe's own input (a JSON pointer) or are
//! constants. The recipe declares its input schema; its output is the
//! ordered step results.
//!
//! ```toml
//! [[recipes]]
//! name = "recipe.berths-overview"
//! description = "Find berth operations and describe one."
//! input_schema = { type = "object", properties = { query = { type = "string" }, path = { type = "string" } }, required = ["query", "path"], additionalProperties = false }
//! [[recipes.steps]]
//! tool = "catalog.search"
//! arguments = { query = { pointer = "/query" }, limit = { value = 3 } }
//! [[recipes.steps]]
//! tool = "catalog.describe"
//! arguments = { method = { value = "GET" }, path = { pointer = "/path" } }
//! ```
//!
//! Two checks, both start-up errors naming the recipe and the step (a
//! `--watch` reload that fails them keeps the previous set): [`parse`] reads
//! the section strictly (unknown keys, 1 to 5 steps, one source per
//! argument, pointers that name a property of the input schema), and
//! [`build`] checks it against the registry (every step a known read-only
//! tool, never a recipe, so there are no cycles; argument names the step's
//! tool declares). A recipe is then a registry [`Tool`] with
//! [`Adapter::Recipe`]: listed in every catalog format with its `recipe`
//! block ([`Registry::recipe_block`]) and called through the registry's call
//! path, which runs each step through that path again (each step authorized,
//! rate-limited, validated and audited under `REQUESTID#N`), the whole
//! recipe idempotent under its own request id.
//!
//! Deliberately not done: PortOS's versioned recipe library (authoring,
//! archive, restore over HTTP); the revision is a content hash of the
//! definition in the file.

use super::calls::canonical;
use super::registry::{Adapter, Registry, SCOPES, Tool};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most steps a recipe may have.
pub const MAX_STEPS: usize = 5;

/// Where a step argument's value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgSource {
    /// A JSON pointer into the recipe's input (`/query`); an absent value
    /// leaves the argument out.
    Pointer(String),
    /// A constant.
    Const(Value),
}

/// One step as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepDef {
    /// The registry tool it calls (any of its names).
    pub tool: String,
    /// Its arguments, by name.
    pub arguments: BTreeMap<String, ArgSource>,
}

/// One `[[recipes]]` entry, read and checked on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeDef {
    /// The tool name it is listed and called under.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its declared input schema (a closed object is advised).
    pub input_schema: Value,
    /// 1 to [`MAX_STEPS`] steps, run in order.
    pub steps: Vec<StepDef>,
}

/// A recipe ready to run: steps resolved to canonical tool names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// Content hash of the definition (16 hex digits).
    pub revision: String,
    /// The steps, canonical names.
    pub steps: Vec<StepDef>,
}

impl Recipe {
    /// The canonical names of the step tools, first use first.
    pub fn underlying_tools(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for s in &self.steps {
            if !names.contains(&s.tool) {
                names.push(s.tool.clone());
            }
        }
        names
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeSection {
    name: String,
    description: Option<String>,
    input_schema: Value,
    #[serde(default)]
    steps: Vec<StepSection>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepSection {
    tool: String,
    #[serde(default)]
    arguments: BTreeMap<String, ArgSection>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArgSection {
    pointer: Option<String>,
    value: Option<Value>,
}

/// Read the `[[recipes]]` array strictly (None: no recipes).
pub fn parse(value: Option<toml::Value>) -> Result<Vec<RecipeDef>, String> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let toml::Value::Array(entries) = value else {
        return Err("[[recipes]]: must be an array of tables ([[recipes]] entries)".into());
    };
    let mut defs: Vec<RecipeDef> = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        let label = entry
            .get("name")
            .and_then(toml::Value::as_str)
            .map(|n| format!("[[recipes]] `{n}`"))
            .unwrap_or_else(|| format!("[[recipes]] #{}", i + 1));
        let r = RecipeSection::deserialize(entry).map_err(|e| format!("{label}: {e}"))?;
        let def = check(r).map_err(|e| format!("{label}{e}"))?;
        if defs.iter().any(|d| d.name == def.name) {
            return Err(format!("{label}: the name is used by another recipe"));
        }
        defs.push(def);
    }
    Ok(defs)
}

/// The checks one entry passes on its own; errors start with `: ` or ` step N`.
fn check(r: RecipeSection) -> Result<RecipeDef, String> {
    if !super::calls::valid_id(&r.name, 100, &['.', '_', '-']) {
        return Err(": name must be 1-100 characters of letters, digits and ._-".into());
    }
    if r.input_schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(": input_schema must be a JSON Schema with type = \"object\"".into());
    }
    if r.steps.is_empty() {
        return Err(": has no steps (add [[recipes.steps]] entries)".into());
    }
    if r.steps.len() > MAX_STEPS {
        return Err(format!(
            " step {}: a recipe has at most {MAX_STEPS} steps (this one has {})",
            MAX_STEPS + 1,
            r.steps.len()
        ));
    }
    let mut steps = Vec::new();
    for (i, s) in r.steps.into_iter().enumerate() {
        let mut arguments = BTreeMap::new();
        for (name, a) in s.arguments {
            let at = || format!(" step {} (`{}`) argument `{name}`", i + 1, s.tool);
            let source = match (a.pointer, a.value) {
                (Some(p), None) => {
                    resolve_in_schema(&r.input_schema, &p).map_err(|e| format!("{}: {e}", at()))?;
                    ArgSource::Pointer(p)
                }
                (None, Some(v)) => ArgSource::Const(v),
                _ => {
                    return Err(format!(
                        "{}: give exactly one of `pointer` (into the recipe's input) or `value` (a constant)",
                        at()
                    ));
                }
            };
            arguments.insert(name, source);
        }
        steps.push(StepDef {
            tool: s.tool,
            arguments,
        });
    }
    Ok(RecipeDef {
        name: r.name,
        description: r.description.unwrap_or_default(),
        input_schema: r.input_schema,
        steps,
    })
}

/// A pointer must be RFC 6901 and name something the input schema declares
/// (through `properties`, and `items` for an array index).
fn resolve_in_schema(schema: &Value, pointer: &str) -> Result<(), String> {
    if pointer.is_empty() {
        return Ok(());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!(
            "pointer `{pointer}` must be a JSON pointer starting with `/` (e.g. `/query`)"
        ));
    };
    let mut at = schema;
    for raw in rest.split('/') {
        let mut token = String::new();
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c != '~' {
                token.push(c);
                continue;
            }
            match chars.next() {
                Some('0') => token.push('~'),
                Some('1') => token.push('/'),
                _ => {
                    return Err(format!(
                        "pointer `{pointer}`: `~` must be followed by 0 or 1"
                    ));
                }
            }
        }
        let next = at
            .get("properties")
            .and_then(|p| p.get(&token))
            .or_else(|| {
                token
                    .parse::<usize>()
                    .ok()
                    .and_then(|_| at.get("items"))
                    .filter(|i| i.is_object())
            });
        at = next.ok_or_else(|| {
            format!(
                "pointer `{pointer}` names nothing the recipe's input_schema declares (`{token}`)"
            )
        })?;
    }
    Ok(())
}

/// The step arguments for one input.
pub fn arguments(step: &StepDef, input: &Value) -> Value {
    let mut m = serde_json::Map::new();
    for (name, source) in &step.arguments {
        let v = match source {
            ArgSource::Pointer(p) => input.pointer(p).cloned(),
            ArgSource::Const(v) => Some(v.clone()),
        };
        if let Some(v) = v {
            m.insert(name.clone(), v);
        }
    }
    Value::Object(m)
}

fn source_json(s: &ArgSource) -> Value {
    match s {
        ArgSource::Pointer(p) => json!({"pointer": p}),
        ArgSource::Const(v) => json!({"value": v}),
    }
}

/// The recipes as registry tools, checked against the tools already there.
/// Errors name the recipe and the step.
pub(crate) fn build(
    defs: &[RecipeDef],
    registry: &Registry,
    tenant_field: &str,
) -> Result<Vec<Tool>, String> {
    let mut out = Vec::new();
    for d in defs {
        let label = format!("[[recipes]] `{}`", d.name);
        if let Some(t) = registry.resolve(&d.name) {
            return Err(format!(
                "{label}: the name is already the tool `{}`",
                t.name
            ));
        }
        if d.input_schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key(tenant_field))
        {
            return Err(format!(
                "{label}: input_schema declares `{tenant_field}`; the tenant comes from the caller's token only"
            ));
        }
        let mut steps = Vec::new();
        let mut tools: Vec<&Tool> = Vec::new();
        for (i, s) in d.steps.iter().enumerate() {
            let at = format!("{label} step {} (`{}`)", i + 1, s.tool);
            if defs.iter().any(|o| o.name == s.tool) {
                return Err(format!(
                    "{at}: names a recipe; steps are registry tools, so a recipe never calls a recipe (no cycles)"
                ));
            }
            let t = registry
                .resolve(&s.tool)
                .ok_or_else(|| format!("{at}: no tool has this name"))?;
            if !t.is_read() {
                return Err(format!(
                    "{at}: `{}` is a {} tool; recipe steps are read-only",
                    t.name, t.side_effect
                ));
            }
            let props = t.input_schema.get("properties").and_then(Value::as_object);
            let closed = t.input_schema.get("additionalProperties") == Some(&Value::Bool(false));
            for name in s.arguments.keys() {
                if closed && !props.is_some_and(|p| p.contains_key(name)) {
                    return Err(format!("{at}: `{}` takes no argument `{name}`", t.name));
                }
            }
            steps.push(StepDef {
                tool: t.name.clone(),
                arguments: s.arguments.clone(),
            });
            tools.push(t);
        }
        let scopes: Vec<String> = SCOPES
            .iter()
            .filter(|sc| tools.iter().all(|t| t.scopes.iter().any(|x| x == *sc)))
            .map(|sc| sc.to_string())
            .collect();
        if scopes.is_empty() {
            return Err(format!(
                "{label}: no scope holds every step's tool ({})",
                tools
                    .iter()
                    .map(|t| format!("{}: {}", t.name, t.scopes.join("/")))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let mut capabilities: Vec<String> = Vec::new();
        for c in tools.iter().flat_map(|t| &t.required_capabilities) {
            if !capabilities.contains(c) {
                capabilities.push(c.clone());
            }
        }
        let unavailable = tools.iter().enumerate().find_map(|(i, t)| {
            t.unavailable
                .as_ref()
                .map(|r| format!("step {} ({}): {r}", i + 1, t.name))
        });
        let definition = json!({
            "name": d.name,
            "description": d.description,
            "input_schema": d.input_schema,
            "steps": steps.iter().map(|s| json!({
                "tool": s.tool,
                "arguments": s.arguments.iter().map(|(k, v)| (k.clone(), source_json(v))).collect::<serde_json::Map<_, _>>(),
            })).collect::<Vec<_>>(),
        });
        let revision = blake3::hash(canonical(&definition).as_bytes()).to_hex()[..16].to_string();
        let validator = jsonschema::validator_for(&d.input_schema)
            .map(Arc::new)
            .map_err(|e| format!("{label}: input_schema is not valid JSON Schema: {e}"))?;
        out.push(Tool {
            name: d.name.clone(),
            version: 1,
            provider_name: d.name.replace(['.', '-'], "_"),
            aliases: vec![],
            description: d.description.clone(),
            input_schema: d.input_schema.clone(),
            output_schema: output_schema(&steps),
            scopes,
            required_capabilities: capabilities,
            side_effect: "read".into(),
            idempotent: true,
            is_async: false,
            confirmation: "none".into(),
            adapter: Adapter::Recipe(Arc::new(Recipe { revision, steps })),
            failures: vec![],
            unavailable,
            validator,
        });
    }
    Ok(out)
}

/// `{steps: [...]}`, one record per step run, in order.
fn output_schema(steps: &[StepDef]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "maxItems": steps.len(),
                "items": {
                    "type": "object",
                    "properties": {
                        "step": {"type": "integer"},
                        "tool": {"type": "string"},
                        "requestId": {"type": "string"},
                        "state": {"enum": ["completed", "failed", "pending"]},
                        "duplicate": {"type": "boolean"},
                        "result": {},
                        "error": {},
                        "code": {"type": "string"}
                    },
                    "required": ["step", "tool", "requestId", "state"]
                }
            }
        },
        "required": ["steps"]
    })
}

impl Registry {
    /// A recipe's `recipe` block for a caller in `scope` with `grants`:
    /// `revision`, `underlyingTools` and, when a step cannot run for this
    /// caller, `disabledReason`. None for other tools.
    pub fn recipe_block(&self, t: &Tool, scope: &str, grants: &[String]) -> Option<Value> {
        let Adapter::Recipe(r) = &t.adapter else {
            return None;
        };
        let mut m = serde_json::Map::new();
        m.insert("revision".into(), json!(r.revision));
        m.insert("underlyingTools".into(), json!(r.underlying_tools()));
        if let Some(why) = self.disabled_reason(r, scope, grants) {
            m.insert("disabledReason".into(), json!(why));
        }
        Some(Value::Object(m))
    }

    /// Why a recipe cannot run for this caller: the first step whose tool is
    /// missing, not read-only, unavailable here, outside the scope or not
    /// granted. (Start-up refuses the first two; a registry built otherwise
    /// still answers them here.)
    fn disabled_reason(&self, r: &Recipe, scope: &str, grants: &[String]) -> Option<String> {
        for (i, s) in r.steps.iter().enumerate() {
            let n = i + 1;
            let Some(t) = self.resolve(&s.tool) else {
                return Some(format!("step {n}: the tool {} is missing", s.tool));
            };
            if !t.is_read() {
                return Some(format!("step {n}: {} is not read-only", t.name));
            }
            if let Some(u) = &t.unavailable {
                return Some(format!("step {n}: {} cannot be called here: {u}", t.name));
            }
            if scope != "all" && !t.scopes.iter().any(|x| x == scope) {
                return Some(format!(
                    "step {n}: {} is not available in scope {scope}",
                    t.name
                ));
            }
            if (scope == "agent" || scope == "mind")
                && let Some(c) = t.required_capabilities.iter().find(|c| !grants.contains(c))
            {
                return Some(format!(
                    "step {n}: {} needs the grant {c}, which the caller does not have",
                    t.name
                ));
            }
        }
        None
    }
}
