//! Request and response contracts: Zod schemas as values, and what route
//! handlers do with `req` and `res`.
//!
//! Captures: Zod builders (`z.object/string/number/boolean/array/enum/
//! literal/union/record/tuple/nativeEnum/any/unknown/date/null`, `z.coerce.*`)
//! and their chains (`optional`, `nullable`, `default`, `min`/`max`/`length`,
//! `int`, `email`/`url`/`uuid`/`datetime`, `regex`, `positive`/`nonnegative`,
//! `describe`, `refine` kept as a description, `extend`/`merge`/`pick`/
//! `omit`/`partial`/`required`, `strict`/`passthrough`, `array`, `or`/`and`)
//! as JSON Schema 2020-12; a schema applied to `req.body`/`req.query`/
//! `req.params` (`schema.parse(req.body)`, `safeParse`, any call that gets a
//! schema and a request part, such as `validateRequest(schema, req.body)`,
//! or a middleware factory given a schema); query parameters and headers the
//! handler reads; responses (`res.status(201).json({...})`, `sendStatus`).
//!
//! Deliberately not captured: Joi, express-validator and TypeScript request
//! types (not yet); schemas built at run time.

use super::*;
use serde_json::{Map, Value as J, json};

/// What one route's handlers state about the request and responses.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawContract {
    pub(crate) body: Option<(J, Option<String>, FileId, u32)>,
    pub(crate) query: Option<(J, Option<String>, FileId, u32)>,
    pub(crate) params: Option<(J, Option<String>, FileId, u32)>,
    pub(crate) query_read: BTreeSet<String>,
    pub(crate) headers_read: BTreeSet<String>,
    pub(crate) responses: Vec<(u16, Option<J>, FileId, u32)>,
}

fn zod(schema: J) -> Value {
    Value::Zod(Rc::new(ZodVal {
        schema,
        optional: false,
    }))
}

fn with(z: &ZodVal, f: impl FnOnce(&mut Map<String, J>)) -> Value {
    let mut s = z.schema.clone();
    if let J::Object(m) = &mut s {
        f(m);
    }
    Value::Zod(Rc::new(ZodVal {
        schema: s,
        optional: z.optional,
    }))
}

fn type_of(s: &J) -> &str {
    s.get("type").and_then(|t| t.as_str()).unwrap_or("")
}

impl Interp {
    /// `z.<name>(args)`.
    pub(super) fn zod_builder(&mut self, name: &str, argv: &[Value]) -> Value {
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        match name {
            "string" => zod(json!({"type": "string"})),
            "number" => zod(json!({"type": "number"})),
            "bigint" => zod(json!({"type": "integer"})),
            "boolean" => zod(json!({"type": "boolean"})),
            "date" => zod(json!({"type": "string", "format": "date-time"})),
            "null" => zod(json!({"type": "null"})),
            "any" | "unknown" => zod(json!({})),
            "object" | "strictObject" | "looseObject" => {
                let shape = self.force_deep(arg(0));
                let mut s = self.zod_object(&shape);
                if name == "strictObject" {
                    s["additionalProperties"] = json!(false);
                }
                zod(s)
            }
            "array" => {
                let items = self.zod_schema(&arg(0)).unwrap_or(json!({}));
                zod(json!({"type": "array", "items": items}))
            }
            "enum" => match self.force_deep(arg(0)) {
                Value::Arr(items) => {
                    let vals: Vec<J> = items.borrow().iter().filter_map(const_json).collect();
                    zod(json!({"type": "string", "enum": vals}))
                }
                Value::Obj(o) => {
                    let vals: Vec<J> = o.props.borrow().values().filter_map(const_json).collect();
                    zod(json!({"enum": vals}))
                }
                _ => zod(json!({"type": "string"})),
            },
            "nativeEnum" => match self.force_deep(arg(0)) {
                Value::Obj(o) => {
                    let vals: Vec<J> = o.props.borrow().values().filter_map(const_json).collect();
                    zod(json!({"enum": vals}))
                }
                _ => zod(json!({})),
            },
            "literal" => match const_json(&self.force_deep(arg(0))) {
                Some(v) => zod(json!({"const": v})),
                None => zod(json!({})),
            },
            "union" | "discriminatedUnion" => {
                let list = if name == "union" { arg(0) } else { arg(1) };
                let list = self.force_deep(list);
                let items: Vec<J> = match list {
                    Value::Arr(a) => a
                        .borrow()
                        .iter()
                        .map(|v| self.zod_schema(v).unwrap_or(json!({})))
                        .collect(),
                    _ => Vec::new(),
                };
                zod(json!({"anyOf": items}))
            }
            "intersection" => {
                let a = self.zod_schema(&arg(0)).unwrap_or(json!({}));
                let b = self.zod_schema(&arg(1)).unwrap_or(json!({}));
                zod(json!({"allOf": [a, b]}))
            }
            "record" => {
                let v = if argv.len() > 1 { arg(1) } else { arg(0) };
                let v = self.zod_schema(&v).unwrap_or(json!({}));
                zod(json!({"type": "object", "additionalProperties": v}))
            }
            "tuple" => {
                let items: Vec<J> = match self.force_deep(arg(0)) {
                    Value::Arr(a) => a
                        .borrow()
                        .iter()
                        .map(|v| self.zod_schema(v).unwrap_or(json!({})))
                        .collect(),
                    _ => Vec::new(),
                };
                let n = items.len();
                zod(json!({"type": "array", "prefixItems": items, "minItems": n, "maxItems": n}))
            }
            "optional" | "nullable" => match self.force_deep(arg(0)) {
                Value::Zod(z) => self.zod_method(&z, name, &[]),
                _ => zod(json!({})),
            },
            "preprocess" | "lazy" | "custom" | "instanceof" | "function" | "promise" => {
                zod(json!({}))
            }
            _ => Value::dynamic(),
        }
    }

    fn zod_object(&mut self, shape: &Value) -> J {
        let mut props = Map::new();
        let mut required = Vec::new();
        if let Value::Obj(o) = shape {
            let entries: Vec<(String, Value)> = o
                .props
                .borrow()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for (k, v) in entries {
                let v = self.force_deep(v);
                match &v {
                    Value::Zod(z) => {
                        props.insert(k.clone(), z.schema.clone());
                        if !z.optional {
                            required.push(J::String(k));
                        }
                    }
                    _ => {
                        props.insert(k, json!({}));
                    }
                }
            }
        }
        let mut s = Map::new();
        s.insert("type".into(), json!("object"));
        s.insert("properties".into(), J::Object(props));
        if !required.is_empty() {
            s.insert("required".into(), J::Array(required));
        }
        J::Object(s)
    }

    /// The JSON Schema of a value when it is a Zod schema.
    pub(super) fn zod_schema(&mut self, v: &Value) -> Option<J> {
        match self.force_deep(v.clone()) {
            Value::Zod(z) => Some(z.schema.clone()),
            _ => None,
        }
    }

    /// `<schema>.<name>(args)`.
    pub(super) fn zod_method(&mut self, z: &Rc<ZodVal>, name: &str, argv: &[Value]) -> Value {
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        let num = |v: &Value| match v {
            Value::Num(n) => Some(*n),
            _ => None,
        };
        let t = type_of(&z.schema).to_string();
        match name {
            "optional" | "nullish" => {
                let mut out = (**z).clone();
                out.optional = true;
                if name == "nullish" {
                    out.schema = nullable(out.schema);
                }
                Value::Zod(Rc::new(out))
            }
            "nullable" => Value::Zod(Rc::new(ZodVal {
                schema: nullable(z.schema.clone()),
                optional: z.optional,
            })),
            "default" | "catch" => {
                let d = const_json(&self.force_deep(arg(0)));
                let mut out = (**z).clone();
                out.optional = true;
                if let (Some(d), J::Object(m)) = (d, &mut out.schema) {
                    m.insert("default".into(), d);
                }
                Value::Zod(Rc::new(out))
            }
            "min" | "max" | "length" | "gte" | "lte" | "gt" | "lt" | "nonempty" | "size" => {
                let n = num(&self.force_deep(arg(0))).unwrap_or(1.0);
                let n = if n.fract() == 0.0 {
                    json!(n as i64)
                } else {
                    json!(n)
                };
                with(z, |m| {
                    let key = match (t.as_str(), name) {
                        ("string", "min" | "nonempty") => vec!["minLength"],
                        ("string", "max") => vec!["maxLength"],
                        ("string", "length") => vec!["minLength", "maxLength"],
                        ("array", "min" | "nonempty") => vec!["minItems"],
                        ("array", "max") => vec!["maxItems"],
                        ("array", "length") => vec!["minItems", "maxItems"],
                        (_, "min" | "gte") => vec!["minimum"],
                        (_, "max" | "lte") => vec!["maximum"],
                        (_, "gt") => vec!["exclusiveMinimum"],
                        (_, "lt") => vec!["exclusiveMaximum"],
                        _ => vec![],
                    };
                    for k in key {
                        m.insert(k.into(), n.clone());
                    }
                })
            }
            "int" | "safe" => with(z, |m| {
                m.insert("type".into(), json!("integer"));
            }),
            "positive" => with(z, |m| {
                m.insert("exclusiveMinimum".into(), json!(0));
            }),
            "nonnegative" => with(z, |m| {
                m.insert("minimum".into(), json!(0));
            }),
            "negative" => with(z, |m| {
                m.insert("exclusiveMaximum".into(), json!(0));
            }),
            "email" | "url" | "uuid" | "datetime" | "date" | "time" | "ip" | "cuid" | "ulid"
            | "emoji" | "base64" => {
                let f = match name {
                    "url" => "uri",
                    "datetime" => "date-time",
                    "ip" => "ipv4",
                    other => other,
                };
                with(z, |m| {
                    m.insert("format".into(), json!(f));
                })
            }
            "regex" => {
                let r = match self.force_deep(arg(0)) {
                    Value::Regex(r) => {
                        let r = r.to_string();
                        let body = r.trim_start_matches('/');
                        body.rsplit_once('/')
                            .map(|(b, _)| b.to_string())
                            .unwrap_or(r)
                    }
                    _ => String::new(),
                };
                with(z, |m| {
                    if !r.is_empty() {
                        m.insert("pattern".into(), json!(r));
                    }
                })
            }
            "startsWith" | "endsWith" | "includes" => z_same(z),
            "describe" => {
                let d = self.force_deep(arg(0)).as_text();
                with(z, |m| {
                    if let Some(d) = d {
                        m.insert("description".into(), json!(d));
                    }
                })
            }
            "refine" | "superRefine" | "check" => {
                let msg = match self.force_deep(arg(1)) {
                    Value::Str(s) => Some(s.to_string()),
                    Value::Obj(o) => o.get("message").and_then(|m| m.as_text()),
                    _ => None,
                };
                with(z, |m| {
                    let note = format!(
                        "Refined: {}",
                        msg.unwrap_or_else(|| "checked in code".into())
                    );
                    let d = match m.get("description").and_then(|d| d.as_str()) {
                        Some(prev) => format!("{prev} {note}"),
                        None => note,
                    };
                    m.insert("description".into(), json!(d));
                })
            }
            "extend" | "merge" | "augment" | "safeExtend" => {
                let add = match self.force_deep(arg(0)) {
                    Value::Zod(other) => other.schema.clone(),
                    shape @ Value::Obj(_) => self.zod_object(&shape),
                    _ => json!({}),
                };
                with(z, |m| merge_object(m, &add))
            }
            "pick" | "omit" => {
                let keys: Vec<String> = match self.force_deep(arg(0)) {
                    Value::Obj(o) => o.props.borrow().keys().cloned().collect(),
                    _ => Vec::new(),
                };
                let keep = name == "pick";
                with(z, |m| {
                    if let Some(J::Object(props)) = m.get_mut("properties") {
                        props.retain(|k, _| keys.contains(k) == keep);
                    }
                    if let Some(J::Array(req)) = m.get_mut("required") {
                        req.retain(|k| {
                            k.as_str()
                                .is_some_and(|k| keys.iter().any(|x| x == k) == keep)
                        });
                        if req.is_empty() {
                            m.remove("required");
                        }
                    }
                })
            }
            "partial" | "deepPartial" => with(z, |m| {
                m.remove("required");
            }),
            "required" => with(z, |m| {
                if let Some(J::Object(props)) = m.get("properties") {
                    let all: Vec<J> = props.keys().map(|k| json!(k)).collect();
                    m.insert("required".into(), J::Array(all));
                }
            }),
            "strict" => with(z, |m| {
                m.insert("additionalProperties".into(), json!(false));
            }),
            "passthrough" | "loose" => with(z, |m| {
                m.insert("additionalProperties".into(), json!(true));
            }),
            "catchall" => {
                let c = self.zod_schema(&arg(0)).unwrap_or(json!({}));
                with(z, |m| {
                    m.insert("additionalProperties".into(), c);
                })
            }
            "array" => zod(json!({"type": "array", "items": z.schema.clone()})),
            "or" => {
                let b = self.zod_schema(&arg(0)).unwrap_or(json!({}));
                zod(json!({"anyOf": [z.schema.clone(), b]}))
            }
            "and" => {
                let b = self.zod_schema(&arg(0)).unwrap_or(json!({}));
                zod(json!({"allOf": [z.schema.clone(), b]}))
            }
            "keyof" => {
                let keys: Vec<J> = z
                    .schema
                    .get("properties")
                    .and_then(|p| p.as_object())
                    .map(|p| p.keys().map(|k| json!(k)).collect())
                    .unwrap_or_default();
                zod(json!({"type": "string", "enum": keys}))
            }
            "shape" => Value::dynamic(),
            "trim" | "toLowerCase" | "toUpperCase" | "transform" | "pipe" | "brand"
            | "readonly" | "strip" | "finite" | "step" | "multipleOf" | "coerce" => z_same(z),
            _ => Value::dynamic(),
        }
    }

    /// A call that applies a schema to part of the request, or reads from it.
    pub(super) fn note_validation(&mut self, ctx: &Ctx, line: u32, argv: &[Value], callee: &str) {
        let Some(rc) = self.route_contract.clone() else {
            return;
        };
        let zod = argv.iter().find_map(|a| match a {
            Value::Zod(z) => Some(z.clone()),
            _ => None,
        });
        let part = argv.iter().find_map(|a| match a {
            Value::Http(HttpVal::Part(p)) => Some(*p),
            _ => None,
        });
        if let (Some(z), Some(part)) = (zod, part) {
            set_part(
                &mut rc.borrow_mut(),
                part,
                z.schema.clone(),
                callee,
                ctx.file,
                line,
            );
        }
    }
}

fn z_same(z: &Rc<ZodVal>) -> Value {
    Value::Zod(z.clone())
}

pub(super) fn set_part(
    c: &mut RawContract,
    part: &str,
    schema: J,
    name: &str,
    file: FileId,
    line: u32,
) {
    let name = (!name.is_empty()).then(|| name.to_string());
    let slot = match part {
        "query" => &mut c.query,
        "params" => &mut c.params,
        _ => &mut c.body,
    };
    if slot.is_none() {
        *slot = Some((schema, name, file, line));
    }
}

fn merge_object(m: &mut Map<String, J>, add: &J) {
    if let Some(J::Object(extra)) = add.get("properties") {
        let props = m
            .entry("properties")
            .or_insert_with(|| J::Object(Map::new()));
        if let J::Object(props) = props {
            for (k, v) in extra {
                props.insert(k.clone(), v.clone());
            }
        }
    }
    if let Some(J::Array(extra)) = add.get("required") {
        let req = m.entry("required").or_insert_with(|| J::Array(Vec::new()));
        if let J::Array(req) = req {
            for k in extra {
                if !req.contains(k) {
                    req.push(k.clone());
                }
            }
        }
    }
}

fn nullable(s: J) -> J {
    match &s {
        J::Object(m) => match m.get("type") {
            Some(J::String(t)) => {
                let mut m = m.clone();
                m.insert("type".into(), json!([t, "null"]));
                J::Object(m)
            }
            _ => json!({"anyOf": [s, {"type": "null"}]}),
        },
        _ => s,
    }
}

/// A constant as JSON.
pub(crate) fn const_json(v: &Value) -> Option<J> {
    match v {
        Value::Str(s) => Some(json!(s.as_ref())),
        Value::Num(n) => Some(if n.fract() == 0.0 && n.abs() < 1e15 {
            json!(*n as i64)
        } else {
            json!(n)
        }),
        Value::Bool(b) => Some(json!(b)),
        Value::Null => Some(J::Null),
        Value::Arr(a) => Some(J::Array(a.borrow().iter().filter_map(const_json).collect())),
        Value::Obj(o) => {
            let mut m = Map::new();
            for (k, v) in o.props.borrow().iter() {
                if let Some(v) = const_json(v) {
                    m.insert(k.clone(), v);
                }
            }
            Some(J::Object(m))
        }
        _ => None,
    }
}
