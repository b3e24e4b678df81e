//! JSON Schema 2020-12 → OpenAPI 3.0.3 Schema Objects (reference §3.6), and
//! local `$ref` inlining for every document that embeds schemas.
//!
//! Captures PortOS's rewrites: `null` branches and `type: [X, "null"]` become
//! `nullable`, numeric exclusive bounds become the boolean form, `const`
//! becomes a one-value `enum`, `examples` becomes `example`, `prefixItems`
//! becomes `items: {anyOf}` with `minItems`/`maxItems`; `$schema` and
//! `propertyNames` are dropped. Beyond PortOS: a true multi-type union
//! becomes an `anyOf` of single types instead of losing `type`; `true`/`false`
//! schemas become `{}` / `{not: {}}`; an array without `items` gets
//! `items: {}` and an empty `required` is dropped (both required by 3.0.3);
//! keywords 3.0.3 has no room for (`if`, `dependentRequired`,
//! `unevaluatedProperties`, …) are dropped rather than emitted invalid.
//! `$ref`/`$defs` do not make the build fail: [`inline_refs`] expands local
//! references first (a recursive one becomes `{}` with a description).
//!
//! Deliberately not captured: semantics that 3.0.3 cannot state (dropped
//! keywords loosen the schema; they never tighten it).

use serde_json::{Map, Value, json};

/// Keywords an OpenAPI 3.0.3 Schema Object accepts (besides `x-*`).
const OAS30_KEYWORDS: &[&str] = &[
    "title",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "required",
    "enum",
    "type",
    "not",
    "allOf",
    "oneOf",
    "anyOf",
    "items",
    "properties",
    "additionalProperties",
    "description",
    "format",
    "default",
    "nullable",
    "discriminator",
    "readOnly",
    "writeOnly",
    "example",
    "externalDocs",
    "deprecated",
    "xml",
];

/// Expand local `$ref`s (`#/$defs/X`, `#/definitions/X`, any `#/…` pointer
/// into the schema) and drop `$defs`/`definitions`. A reference that is
/// recursive or points outside the schema becomes `{}` with a description
/// saying so, so the result never contains `$ref`.
pub fn inline_refs(schema: &Value) -> Value {
    let mut stack = Vec::new();
    let mut out = expand(schema, schema, &mut stack);
    if let Value::Object(m) = &mut out {
        m.shift_remove("$defs");
        m.shift_remove("definitions");
    }
    out
}

fn expand(node: &Value, root: &Value, stack: &mut Vec<String>) -> Value {
    match node {
        Value::Array(items) => Value::Array(items.iter().map(|v| expand(v, root, stack)).collect()),
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                let target = r
                    .strip_prefix('#')
                    .filter(|_| !stack.contains(r))
                    .and_then(|ptr| root.pointer(ptr));
                let mut base = match target {
                    Some(t) => {
                        stack.push(r.clone());
                        let v = expand(t, root, stack);
                        stack.pop();
                        v
                    }
                    None => {
                        let why = if stack.contains(r) {
                            "recursive"
                        } else {
                            "unresolvable"
                        };
                        json!({ "description": format!("{why} reference `{r}`, not expanded") })
                    }
                };
                // Keywords beside `$ref` apply too (2020-12); they win on a clash.
                if let Value::Object(b) = &mut base {
                    for (k, v) in m {
                        if k != "$ref" {
                            b.insert(k.clone(), expand(v, root, stack));
                        }
                    }
                    b.shift_remove("$defs");
                    b.shift_remove("definitions");
                }
                return base;
            }
            let mut out = Map::new();
            for (k, v) in m {
                if k == "$defs" || k == "definitions" {
                    continue;
                }
                // `properties` maps names to schemas; `enum`/`const`/`default`/`examples` hold data.
                let v = if matches!(
                    k.as_str(),
                    "enum" | "const" | "default" | "examples" | "example"
                ) {
                    v.clone()
                } else {
                    expand(v, root, stack)
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// Rewrite a JSON Schema 2020-12 value as an OpenAPI 3.0.3 Schema Object.
/// Local references are inlined first.
pub fn to_openapi30(schema: &Value) -> Value {
    down(&inline_refs(schema))
}

fn down(v: &Value) -> Value {
    match v {
        Value::Bool(true) => json!({}),
        Value::Bool(false) => json!({ "not": {} }),
        Value::Object(m) => down_object(m),
        // Not a schema: an open one, the value kept visible beside it.
        other => json!({ "x-portolan-not-a-schema": other }),
    }
}

/// Whether `v` is a value the OpenAPI 3.0.3 Schema Object allows for
/// keyword `key` (keywords holding schemas are checked by [`down`]): source
/// schemas can be damaged or hand-written wrongly, and a keyword with a
/// wrong value is dropped (a looser schema) rather than emitted invalid.
fn valid_value(key: &str, v: &Value) -> bool {
    let non_negative_int =
        || v.as_u64().is_some() || v.as_f64().is_some_and(|n| n >= 0.0 && n.fract() == 0.0);
    match key {
        "type" => matches!(
            v.as_str(),
            Some("array" | "boolean" | "integer" | "number" | "object" | "string")
        ),
        "title" | "description" | "format" => v.is_string(),
        "pattern" => v
            .as_str()
            .is_some_and(jsonschema_regex::is_valid_ecma_regex),
        "multipleOf" => v.as_f64().is_some_and(|n| n > 0.0),
        "maximum" | "minimum" => v.is_number(),
        "exclusiveMaximum" | "exclusiveMinimum" | "uniqueItems" | "nullable" | "readOnly"
        | "writeOnly" | "deprecated" => v.is_boolean(),
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties" | "minProperties" => {
            non_negative_int()
        }
        "required" => v.as_array().is_some_and(|a| {
            let mut seen = std::collections::BTreeSet::new();
            !a.is_empty() && a.iter().all(|x| x.as_str().is_some_and(|s| seen.insert(s)))
        }),
        "enum" => v.as_array().is_some_and(|a| !a.is_empty()),
        "discriminator" => v.get("propertyName").is_some_and(Value::is_string),
        "xml" => v.is_object(),
        "externalDocs" => v.get("url").is_some_and(Value::is_string),
        "items" | "not" | "additionalProperties" => v.is_object() || v.is_boolean(),
        _ => true,
    }
}

fn down_object(m: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    let mut nullable = false;
    for (k, v) in m {
        match k.as_str() {
            "properties" => {
                if let Value::Object(props) = v {
                    let mut p = Map::new();
                    for (name, s) in props {
                        p.insert(name.clone(), down(s));
                    }
                    out.insert(k.clone(), Value::Object(p));
                }
            }
            "items" => match v {
                // Draft 7 tuple form: same as prefixItems.
                Value::Array(members) if !m.contains_key("prefixItems") => {
                    tuple(&mut out, members, m.get("additionalItems"));
                }
                Value::Array(_) => {}
                other => {
                    if !m.contains_key("prefixItems") {
                        out.insert(k.clone(), down(other));
                    }
                }
            },
            "prefixItems" => {
                if let Value::Array(members) = v {
                    tuple(&mut out, members, m.get("items"));
                }
            }
            "additionalProperties" | "not" => {
                out.insert(k.clone(), down(v));
            }
            "anyOf" | "oneOf" | "allOf" => {
                if let Value::Array(members) = v {
                    out.insert(k.clone(), Value::Array(members.iter().map(down).collect()));
                }
            }
            "type" => match v {
                Value::String(t) if t == "null" => nullable = true,
                Value::Array(types) => {
                    let mut rest: Vec<&Value> = Vec::new();
                    for t in types {
                        if t == "null" {
                            nullable = true;
                        } else {
                            rest.push(t);
                        }
                    }
                    match rest.as_slice() {
                        [] => {}
                        [one] => {
                            out.insert("type".into(), (*one).clone());
                        }
                        many if !m.contains_key("anyOf") => {
                            out.insert(
                                "anyOf".into(),
                                Value::Array(many.iter().map(|t| json!({ "type": t })).collect()),
                            );
                        }
                        _ => {}
                    }
                }
                other => {
                    if valid_value("type", other) {
                        out.insert("type".into(), other.clone());
                    }
                }
            },
            "exclusiveMinimum" | "exclusiveMaximum" => {
                if v.is_boolean() {
                    out.insert(k.clone(), v.clone());
                } else if let Some(n) = v.as_f64() {
                    let bound = if k == "exclusiveMinimum" {
                        "minimum"
                    } else {
                        "maximum"
                    };
                    let inclusive = m.get(bound).and_then(Value::as_f64);
                    let stricter = match inclusive {
                        None => true,
                        Some(b) if bound == "minimum" => n >= b,
                        Some(b) => n <= b,
                    };
                    if stricter {
                        out.insert(bound.into(), v.clone());
                        out.insert(k.clone(), Value::Bool(true));
                    }
                }
            }
            // A stricter exclusive bound written beside it replaces it (above).
            "minimum" | "maximum" if !out.contains_key(k.as_str()) && valid_value(k, v) => {
                out.insert(k.clone(), v.clone());
            }
            "minimum" | "maximum" => {}
            "const" => {
                if v.is_null() {
                    nullable = true;
                }
                out.insert("enum".into(), json!([v]));
            }
            "enum" if valid_value("enum", v) => {
                if v.as_array().is_some_and(|a| a.iter().any(Value::is_null)) {
                    nullable = true;
                }
                out.insert(k.clone(), v.clone());
            }
            "enum" => {}
            "examples" => {
                if let Some(first) = v.as_array().and_then(|a| a.first()) {
                    out.entry("example").or_insert_with(|| first.clone());
                }
            }
            "required" if valid_value("required", v) => {
                out.insert(k.clone(), v.clone());
            }
            "required" => {}
            "nullable" => nullable |= v == &Value::Bool(true),
            key if key.starts_with("x-") => {
                out.insert(k.clone(), v.clone());
            }
            key if OAS30_KEYWORDS.contains(&key) && valid_value(key, v) => {
                out.insert(k.clone(), v.clone());
            }
            _ => {} // $schema, $id, propertyNames, if/then/else, …: no 3.0.3 equivalent.
        }
    }
    if out.get("type").and_then(Value::as_str) == Some("array") && !out.contains_key("items") {
        out.insert("items".into(), json!({}));
    }
    if nullable {
        out.insert("nullable".into(), Value::Bool(true));
    }
    collapse_null_branches(out)
}

/// `prefixItems` (or draft-7 `items: [...]`) as one `items` schema plus bounds.
fn tuple(out: &mut Map<String, Value>, members: &[Value], rest: Option<&Value>) {
    let mut branches: Vec<Value> = members.iter().map(down).collect();
    let closed = matches!(rest, Some(Value::Bool(false)));
    if let Some(r) = rest.filter(|r| !r.is_boolean()) {
        branches.push(down(r));
    }
    let open_rest = matches!(rest, None | Some(Value::Bool(true)));
    let items = if branches.is_empty() || open_rest {
        // Further items are unconstrained: an item may be anything.
        json!({})
    } else if branches.len() == 1 {
        branches.remove(0)
    } else {
        json!({ "anyOf": branches })
    };
    out.insert("items".into(), items);
    if !members.is_empty() {
        out.entry("minItems").or_insert(json!(members.len()));
    }
    if closed {
        out.entry("maxItems").or_insert(json!(members.len()));
    }
}

fn is_null_marker(v: &Value) -> bool {
    match v.as_object() {
        Some(m) => {
            (m.len() == 1 && m.get("type").and_then(Value::as_str) == Some("null"))
                || (m.len() == 1 && m.get("nullable") == Some(&Value::Bool(true)))
                // A bare null branch already downgraded by `typed_nullable`.
                || (m.len() == 3
                    && m.get("nullable") == Some(&Value::Bool(true))
                    && m.get("enum") == Some(&json!([null])))
        }
        None => false,
    }
}

/// Remove null branches from `anyOf`/`oneOf`, marking the parent nullable;
/// a single survivor is inlined (the parent's keywords win).
fn collapse_null_branches(mut out: Map<String, Value>) -> Value {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(members)) = out.get(key) else {
            continue;
        };
        if !members.iter().any(is_null_marker) {
            continue;
        }
        let survivors: Vec<Value> = members
            .iter()
            .filter(|m| !is_null_marker(m))
            .cloned()
            .collect();
        out.shift_remove(key);
        out.insert("nullable".into(), Value::Bool(true));
        match survivors.len() {
            0 => {}
            1 => {
                if let Value::Object(inner) = &survivors[0] {
                    let parent = std::mem::take(&mut out);
                    out = inner.clone();
                    for (k, v) in parent {
                        out.insert(k, v);
                    }
                }
            }
            _ => {
                out.insert(key.into(), Value::Array(survivors));
            }
        }
    }
    typed_nullable(out)
}

/// OpenAPI 3.0 wants a `type` next to `nullable` (redocly's
/// `nullable-type-sibling`): infer it from the other keywords; a schema that
/// only says "null" becomes a nullable object whose one value is `null`; a
/// nullable union hands `nullable` to its typed branches.
fn typed_nullable(mut out: Map<String, Value>) -> Value {
    if out.get("nullable") != Some(&Value::Bool(true)) || out.contains_key("type") {
        return Value::Object(out);
    }
    let inferred = if out.contains_key("properties") || out.contains_key("additionalProperties") {
        Some("object")
    } else if out.contains_key("items") {
        Some("array")
    } else if let Some(Value::Array(vals)) = out.get("enum") {
        let kinds: std::collections::BTreeSet<&str> = vals
            .iter()
            .filter_map(|v| match v {
                Value::String(_) => Some("string"),
                Value::Bool(_) => Some("boolean"),
                Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
                Value::Number(_) => Some("number"),
                Value::Object(_) => Some("object"),
                Value::Array(_) => Some("array"),
                Value::Null => None,
            })
            .collect();
        match kinds.len() {
            1 => kinds.into_iter().next(),
            0 => Some("object"),
            _ => None,
        }
    } else {
        None
    };
    if let Some(t) = inferred {
        out.insert("type".into(), json!(t));
        return Value::Object(out);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = out.get_mut(key) {
            for m in members.iter_mut() {
                if let Value::Object(b) = m
                    && b.contains_key("type")
                {
                    b.insert("nullable".into(), Value::Bool(true));
                }
            }
            out.shift_remove("nullable");
            return Value::Object(out);
        }
    }
    let only_null = out
        .keys()
        .all(|k| k == "nullable" || k == "description" || k == "title");
    if only_null {
        // Always null: the one value a nullable object with `enum: [null]` admits.
        out.insert("type".into(), json!("object"));
        out.insert("enum".into(), json!([null]));
    } else {
        // Something else without a type: keep it, say in words that null is allowed.
        out.shift_remove("nullable");
        let note = "May be null.";
        let d = match out.get("description").and_then(Value::as_str) {
            Some(prev) => format!("{prev} {note}"),
            None => note.to_string(),
        };
        out.insert("description".into(), json!(d));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_always_has_a_type_sibling() {
        assert_eq!(
            to_openapi30(&json!({"type": "null"})),
            json!({"nullable": true, "type": "object", "enum": [null]})
        );
        assert_eq!(
            to_openapi30(
                &json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}, {"enum": ["x", "y"]}]}}})
            ),
            json!({"type": "object", "properties": {"a": {"enum": ["x", "y"], "nullable": true, "type": "string"}}})
        );
        assert_eq!(
            to_openapi30(
                &json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]})
            ),
            json!({"anyOf": [{"type": "string", "nullable": true}, {"type": "number", "nullable": true}]})
        );
    }

    #[test]
    fn type_array_with_null_becomes_nullable() {
        assert_eq!(
            to_openapi30(&json!({"type": ["string", "null"], "maxLength": 3})),
            json!({"type": "string", "maxLength": 3, "nullable": true})
        );
        // PortOS writes a bare `{nullable: true}`, which redocly rejects
        // (`nullable-type-sibling`); we add the type.
        assert_eq!(
            to_openapi30(&json!({"type": "null"})),
            json!({"nullable": true, "type": "object", "enum": [null]})
        );
    }

    #[test]
    fn multi_type_union_becomes_any_of() {
        assert_eq!(
            to_openapi30(&json!({"type": ["string", "integer", "null"]})),
            // `nullable` goes to the typed branches (a parent without `type` may not carry it).
            json!({"anyOf": [{"type": "string", "nullable": true}, {"type": "integer", "nullable": true}]})
        );
    }

    #[test]
    fn null_branch_is_removed_and_single_survivor_inlined() {
        // Zod's `.nullable()` shape; the parent's description wins.
        let s = json!({"anyOf": [{"type": "string", "maxLength": 8000, "description": "inner"}, {"type": "null"}], "description": "outer"});
        assert_eq!(
            to_openapi30(&s),
            json!({"type": "string", "maxLength": 8000, "description": "outer", "nullable": true})
        );
        let s = json!({"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]});
        assert_eq!(
            to_openapi30(&s),
            json!({"oneOf": [{"type": "string", "nullable": true}, {"type": "integer", "nullable": true}]})
        );
    }

    #[test]
    fn converted_branches_collapse_again() {
        // The inner branch only becomes a null marker after conversion.
        let s = json!({"anyOf": [{"type": ["null"]}, {"type": "boolean"}]});
        assert_eq!(
            to_openapi30(&s),
            json!({"type": "boolean", "nullable": true})
        );
    }

    #[test]
    fn numeric_exclusive_bounds_become_boolean() {
        assert_eq!(
            to_openapi30(
                &json!({"type": "number", "exclusiveMinimum": 0, "maximum": 10, "exclusiveMaximum": 5})
            ),
            json!({"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 5, "exclusiveMaximum": true})
        );
        // An inclusive bound that is already stricter stays.
        assert_eq!(
            to_openapi30(&json!({"minimum": 3, "exclusiveMinimum": 1})),
            json!({"minimum": 3})
        );
    }

    #[test]
    fn const_examples_and_dropped_keywords() {
        assert_eq!(
            to_openapi30(
                &json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "const": "a", "examples": ["x", "y"], "propertyNames": {"pattern": "^a"}, "if": {}, "x-keep": 1})
            ),
            json!({"enum": ["a"], "example": "x", "x-keep": 1})
        );
    }

    #[test]
    fn prefix_items_become_items_any_of() {
        assert_eq!(
            to_openapi30(
                &json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false})
            ),
            json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "minItems": 2, "maxItems": 2})
        );
        assert_eq!(
            to_openapi30(
                &json!({"type": "array", "prefixItems": [{"type": "string"}], "items": false})
            ),
            json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1})
        );
        // An empty tuple constrains nothing.
        assert_eq!(
            to_openapi30(&json!({"type": "array", "prefixItems": []})),
            json!({"type": "array", "items": {}})
        );
        // Open tuple: further items are unconstrained.
        assert_eq!(
            to_openapi30(&json!({"type": "array", "prefixItems": [{"type": "string"}]})),
            json!({"type": "array", "items": {}, "minItems": 1})
        );
    }

    #[test]
    fn recurses_into_nested_schemas() {
        let s = json!({
            "type": "object",
            "properties": {"a": {"type": ["integer", "null"]}, "b": {"type": "array", "items": {"const": 1}}},
            "additionalProperties": {"examples": [1]},
            "required": [],
            "not": {"type": "null"}
        });
        assert_eq!(
            to_openapi30(&s),
            json!({
                "type": "object",
                "properties": {"a": {"type": "integer", "nullable": true}, "b": {"type": "array", "items": {"enum": [1]}}},
                "additionalProperties": {"example": 1},
                "not": {"nullable": true, "type": "object", "enum": [null]}
            })
        );
    }

    #[test]
    fn defs_are_inlined_and_recursion_is_cut() {
        let s = json!({
            "$defs": {"Id": {"type": "string", "format": "uuid"}, "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
            "type": "object",
            "properties": {"id": {"$ref": "#/$defs/Id", "description": "the id"}, "node": {"$ref": "#/$defs/Node"}, "far": {"$ref": "other.json"}}
        });
        let out = inline_refs(&s);
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "format": "uuid", "description": "the id"},
                    "node": {"type": "object", "properties": {"next": {"description": "recursive reference `#/$defs/Node`, not expanded"}}},
                    "far": {"description": "unresolvable reference `other.json`, not expanded"}
                }
            })
        );
        assert!(!to_openapi30(&s).to_string().contains("$ref"));
    }

    #[test]
    fn boolean_schemas_and_bare_arrays() {
        assert_eq!(to_openapi30(&json!(true)), json!({}));
        assert_eq!(to_openapi30(&json!(false)), json!({"not": {}}));
        assert_eq!(
            to_openapi30(&json!({"type": "array"})),
            json!({"type": "array", "items": {}})
        );
    }

    #[test]
    fn keywords_with_wrong_values_are_dropped() {
        // As a damaged or hand-written source schema can have them (seen in
        // the fuzz run: `type` holding the properties, a broken `pattern`).
        let damaged = json!({
            "type": {"sku": {"type": "string"}},
            "properties": {
                "color": {"type": "string", "pattern": "^#[0-9a-[[f]{6}$", "minLength": -1},
                "tag": {"type": "strin", "enum": [], "required": ["a", "a"], "maximum": {}},
                "note": "string"
            },
            "required": ["color"]
        });
        assert_eq!(
            to_openapi30(&damaged),
            json!({
                "properties": {
                    "color": {"type": "string"},
                    "tag": {},
                    "note": {"x-portolan-not-a-schema": "string"}
                },
                "required": ["color"]
            })
        );
        // Valid values stay, lookarounds included (ECMAScript allows them).
        let fine =
            json!({"type": "string", "pattern": "^(?!x)[a-z]+$", "minLength": 2, "enum": ["ab"]});
        assert_eq!(to_openapi30(&fine), fine);
    }
}
