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
//! TypeScript request types and JSDoc tags as schemas; Joi, celebrate and
//! express-validator are in `validators.rs`.
//!
//! Deliberately not captured: schemas built at run time.

use crate::machine::*;
use serde_json::{Map, Value as J, json};

/// Which library or notation stated a schema (a contract's `source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemaSource {
    Zod,
    Joi,
    /// A JSON Schema as written (Ajv, express-json-validator-middleware).
    JsonSchema,
    Celebrate,
    ExpressValidator,
    ClassValidator,
    TypeScript,
    JsDoc,
}

impl SchemaSource {
    /// The name the documents give it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SchemaSource::Zod => "zod",
            SchemaSource::Joi => "joi",
            SchemaSource::JsonSchema => "json-schema",
            SchemaSource::Celebrate => "celebrate",
            SchemaSource::ExpressValidator => "express-validator",
            SchemaSource::ClassValidator => "class-validator",
            SchemaSource::TypeScript => "typescript",
            SchemaSource::JsDoc => "jsdoc",
        }
    }
}

/// Where a stated schema comes from: its source and the binding it was read
/// from (`createTaskSchema`), when named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SchemaLabel {
    pub(crate) source: SchemaSource,
    pub(crate) name: Option<String>,
}

impl SchemaLabel {
    /// A label; an empty name is no name.
    pub(crate) fn new(source: SchemaSource, name: &str) -> SchemaLabel {
        SchemaLabel {
            source,
            name: (!name.is_empty()).then(|| name.to_string()),
        }
    }

    /// A Zod schema with no name: what a slot says when nothing names it.
    pub(crate) fn says_nothing(&self) -> bool {
        self.source == SchemaSource::Zod && self.name.is_none()
    }
}

/// What one route's handlers state about the request and responses.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawContract {
    pub(crate) body: Option<(J, SchemaLabel, FileId, u32)>,
    pub(crate) query: Option<(J, SchemaLabel, FileId, u32)>,
    pub(crate) params: Option<(J, SchemaLabel, FileId, u32)>,
    pub(crate) query_read: BTreeSet<String>,
    pub(crate) headers_read: BTreeSet<String>,
    /// Top-level body properties the handlers read (`req.body.user`).
    pub(crate) body_read: BTreeSet<String>,
    pub(crate) responses: Vec<(u16, Option<J>, FileId, u32)>,
    /// A schema handed to a middleware factory that could not be run
    /// (`validate(schema)`), with the request part its name suggests; used
    /// only when running the middleware stated nothing for that part.
    pub(crate) guesses: Vec<(RequestPart, J, SchemaLabel, FileId, u32)>,
    /// A route middleware (anonymous ones too) that answered 401/403 when it
    /// ran: (its name, status, file, line).
    pub(crate) guard: Option<(String, u16, FileId, u32)>,
    /// The route's last handler called `next()`: it passes the request on
    /// to what is registered after it, as middleware does.
    pub(crate) passes: bool,
    /// A handler argument of the route gave no function the run can follow
    /// (a controller method of a package, a value known at run time).
    pub(crate) unrun: bool,
    /// The handlers answered other than with a refusal: a send with a
    /// status under 400 (or one known only at run time), or `render`,
    /// `sendFile`, `download`, `write`, `writeHead` (a redirect is how a
    /// guard sends a visitor to log in, so it is not one); or the last
    /// handler may answer so in a callback the run did not follow
    /// ([`crate::libs::answers::answers_later`]).
    pub(crate) answered: bool,
}

impl RawContract {
    /// A copy with responses of these statuses (no schema) stated by
    /// decorators at these lines of `file` (`@HttpCode(201)`, `@SuccessResponse('201')`).
    pub(crate) fn with_statuses(&self, statuses: &[(u16, u32)], file: FileId) -> RawContract {
        let mut c = self.clone();
        c.responses
            .extend(statuses.iter().map(|&(s, l)| (s, None, file, l)));
        c
    }

    /// The schema slot of a request part (anything but query and params is the
    /// body; callers handle `headers`, which has no schema slot).
    pub(crate) fn part_mut(
        &mut self,
        part: RequestPart,
    ) -> &mut Option<(J, SchemaLabel, FileId, u32)> {
        match part {
            RequestPart::Query => &mut self.query,
            RequestPart::Params => &mut self.params,
            _ => &mut self.body,
        }
    }
}

pub(crate) fn zod(schema: J) -> Value {
    Value::Zod(Rc::new(ZodVal {
        schema,
        optional: false,
        joi: false,
        json_schema: false,
    }))
}

/// A JSON Schema as written (handed to Ajv): stated as it is, labelled `json-schema`.
pub(crate) fn json_schema(schema: J) -> Value {
    Value::Zod(Rc::new(ZodVal {
        schema,
        optional: false,
        joi: false,
        json_schema: true,
    }))
}

pub(crate) fn with(z: &ZodVal, f: impl FnOnce(&mut Map<String, J>)) -> Value {
    let mut s = z.schema.clone();
    if let J::Object(m) = &mut s {
        f(m);
    }
    Value::Zod(Rc::new(ZodVal {
        schema: s,
        optional: z.optional,
        joi: z.joi,
        json_schema: z.json_schema,
    }))
}

fn type_of(s: &J) -> &str {
    s.get("type").and_then(|t| t.as_str()).unwrap_or("")
}

impl Interp {
    /// A value written as plain data (a JSON Schema object literal for Ajv) as
    /// JSON; parts that are not data become `{}`, `undefined` members are left out.
    pub(crate) fn plain_json(&mut self, v: &Value, depth: u32) -> J {
        if depth > 32 {
            return json!({});
        }
        match self.force(v.clone(), 0) {
            Value::Str(s) => J::String(s.to_string()),
            Value::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => json!(n as i64),
            Value::Num(n) => json!(n),
            Value::Bool(b) => J::Bool(b),
            Value::Null => J::Null,
            Value::Arr(a) => {
                let items = a.borrow().clone();
                J::Array(
                    items
                        .iter()
                        .map(|x| self.plain_json(x, depth + 1))
                        .collect(),
                )
            }
            Value::Obj(o) => {
                let props: Vec<(String, Value)> = o
                    .props
                    .borrow()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let mut out = Map::new();
                for (k, v) in props {
                    if depth == 0 && k == "$schema" {
                        continue;
                    }
                    let v = self.force(v, 0);
                    if matches!(v, Value::Undef) {
                        continue;
                    }
                    out.insert(k, self.plain_json(&v, depth + 1));
                }
                J::Object(out)
            }
            Value::Zod(z) => z.schema.clone(),
            _ => json!({}),
        }
    }

    /// `z.<name>(args)`.
    pub(crate) fn zod_builder(&mut self, name: &str, argv: &[Value]) -> Value {
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
                Value::Arr(items) => match all_const(&items.borrow()) {
                    Some(vals) => zod(json!({"type": "string", "enum": vals})),
                    // Values only known at run time: a string, not a partial list.
                    None => zod(json!({"type": "string"})),
                },
                Value::Obj(o) => {
                    let vals: Vec<Value> = o.props.borrow().values().cloned().collect();
                    match all_const(&vals) {
                        Some(vals) => zod(json!({"enum": vals})),
                        None => zod(json!({})),
                    }
                }
                _ => zod(json!({"type": "string"})),
            },
            "nativeEnum" => match self.force_deep(arg(0)) {
                Value::Obj(o) => {
                    let vals: Vec<Value> = o.props.borrow().values().cloned().collect();
                    match all_const(&vals) {
                        Some(vals) => zod(json!({"enum": vals})),
                        None => zod(json!({})),
                    }
                }
                _ => zod(json!({})),
            },
            "literal" => match const_json(&self.force_deep(arg(0))) {
                Some(v) => zod(json!({"const": v})),
                None => zod(json!({})),
            },
            "union" | "discriminatedUnion" => {
                let list = if name == "union" { arg(0) } else { arg(1) };
                let items = self.zod_schemas_of(list);
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
                let items = self.zod_schemas_of(arg(0));
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
            // Zod 4 top-level string formats (`z.email()`, `z.iso.datetime()`).
            "email" | "uuid" | "guid" | "url" | "ipv4" | "ipv6" | "cuid" | "cuid2" | "ulid"
            | "base64" | "emoji" | "nanoid" | "iso.datetime" | "iso.date" | "iso.time"
            | "iso.duration" => {
                let f = match name {
                    "url" => "uri",
                    "guid" => "uuid",
                    "iso.datetime" => "date-time",
                    "iso.date" => "date",
                    "iso.time" => "time",
                    "iso.duration" => "duration",
                    other => other,
                };
                zod(json!({"type": "string", "format": f}))
            }
            _ => Value::dynamic(),
        }
    }

    pub(crate) fn zod_object(&mut self, shape: &Value) -> J {
        let mut props = Map::new();
        let mut required = Vec::new();
        if let Value::Obj(o) = shape {
            let entries = o.entries();
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
        object_schema(props, required)
    }

    /// The schemas of an array of Zod schemas (`z.union([a, b])`); the array
    /// is copied first, since resolving a member may run code.
    fn zod_schemas_of(&mut self, list: Value) -> Vec<J> {
        let items: Vec<Value> = match self.force_deep(list) {
            Value::Arr(a) => a.borrow().clone(),
            _ => Vec::new(),
        };
        items
            .iter()
            .map(|v| self.zod_schema(v).unwrap_or(json!({})))
            .collect()
    }

    /// The JSON Schema of a value when it is a Zod schema.
    pub(crate) fn zod_schema(&mut self, v: &Value) -> Option<J> {
        match self.force_deep(v.clone()) {
            Value::Zod(z) => Some(z.schema.clone()),
            _ => None,
        }
    }

    /// `<schema>.<name>(args)`.
    /// `schema.name(…)`: parsing the request with it notes a validation;
    /// other methods build Joi or Zod schemas.
    pub(crate) fn schema_method(
        &mut self,
        ctx: &Ctx,
        z: &Rc<ZodVal>,
        name: &str,
        call: &Call,
    ) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        if matches!(
            name,
            "parse"
                | "safeParse"
                | "parseAsync"
                | "safeParseAsync"
                | "spa"
                | "validate"
                | "validateAsync"
        ) {
            let mut all = vec![Value::Zod(z.clone())];
            all.extend(argv.iter().cloned());
            let label = match &call.callee {
                Expr::Member(o, _) => expr_text(o),
                _ => String::new(),
            };
            self.note_validation(ctx, call.line, &all, &label);
            return Value::dynamic();
        }
        if z.joi {
            return self.joi_method(z, name, &argv);
        }
        self.zod_method(z, name, &argv)
    }

    pub(crate) fn zod_method(&mut self, z: &Rc<ZodVal>, name: &str, argv: &[Value]) -> Value {
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
                joi: z.joi,
                json_schema: z.json_schema,
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
                // `nonempty()` is `min(1)`; a bound only known at run time
                // states none.
                let n = match num(&self.force_deep(arg(0))) {
                    Some(n) => n,
                    None if name == "nonempty" => 1.0,
                    None => return Value::Zod(z.clone()),
                };
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
            "ip" | "ipv4" | "ipv6" => {
                let version = match self.force_deep(arg(0)) {
                    Value::Obj(o) => o.get("version").and_then(|v| v.as_text()),
                    _ => None,
                };
                let version = match name {
                    "ipv4" => Some("v4".to_string()),
                    "ipv6" => Some("v6".to_string()),
                    _ => version,
                };
                with(z, |m| match version.as_deref() {
                    Some("v4") => {
                        m.insert("format".into(), json!("ipv4"));
                    }
                    Some("v6") => {
                        m.insert("format".into(), json!("ipv6"));
                    }
                    _ => {
                        m.insert(
                            "anyOf".into(),
                            json!([{"format": "ipv4"}, {"format": "ipv6"}]),
                        );
                    }
                })
            }
            "multipleOf" | "step" => match self.force_deep(arg(0)) {
                Value::Num(n) => with(z, |m| {
                    let v = if n.fract() == 0.0 {
                        json!(n as i64)
                    } else {
                        json!(n)
                    };
                    m.insert("multipleOf".into(), v);
                }),
                _ => z_same(z),
            },
            "email" | "url" | "uuid" | "datetime" | "date" | "time" | "cuid" | "ulid" | "emoji"
            | "base64" => {
                let f = match name {
                    "url" => "uri",
                    "datetime" => "date-time",
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
            | "readonly" | "strip" | "finite" | "coerce" => z_same(z),
            _ => Value::dynamic(),
        }
    }

    /// JSON Schema for a TypeScript type, resolving declared names in `env`
    /// (names inside a declared type resolve where it was declared).
    pub(crate) fn ts_schema(&mut self, env: &Rc<Scope>, t: &TypeExpr, depth: u32) -> J {
        if depth > 8 {
            return json!({});
        }
        match t {
            TypeExpr::Prim(p) => match p.as_str() {
                "string" => json!({"type": "string"}),
                "number" | "bigint" => json!({"type": "number"}),
                "boolean" => json!({"type": "boolean"}),
                "null" => json!({"type": "null"}),
                _ => json!({}),
            },
            TypeExpr::StrLit(s) => json!({"const": s}),
            TypeExpr::NumLit(n) => json!({"const": n}),
            TypeExpr::Ref(name, args) if args.is_empty() => {
                let found = env.lookup(name).map(|v| self.force(v, 0));
                match found {
                    Some(Value::Type(decl, home)) => self.ts_schema(&home, &decl, depth + 1),
                    // A DTO class (its typed fields, class-validator decorators).
                    Some(Value::Class(cv)) => self.dto_schema(&cv, depth + 1),
                    _ => json!({"description": format!("TypeScript type `{name}`")}),
                }
            }
            TypeExpr::Ref(name, args) => match (name.as_str(), args.as_slice()) {
                ("Array", [inner]) => {
                    json!({"type": "array", "items": self.ts_schema(env, inner, depth + 1)})
                }
                ("Record", [_, v]) => {
                    json!({"type": "object", "additionalProperties": self.ts_schema(env, v, depth + 1)})
                }
                _ => json!({"description": format!("TypeScript type `{name}`")}),
            },
            TypeExpr::Object(fields) => {
                let mut props = Map::new();
                let mut required = Vec::new();
                for (n, opt, ty) in fields {
                    props.insert(n.clone(), self.ts_schema(env, ty, depth + 1));
                    if !opt {
                        required.push(json!(n));
                    }
                }
                object_schema(props, required)
            }
            TypeExpr::Described(inner, text) => {
                let mut s = self.ts_schema(env, inner, depth + 1);
                if let J::Object(m) = &mut s {
                    m.insert("description".into(), json!(text));
                }
                s
            }
            TypeExpr::Array(inner) => {
                json!({"type": "array", "items": self.ts_schema(env, inner, depth + 1)})
            }
            TypeExpr::Tuple(items) => {
                let items: Vec<J> = items
                    .iter()
                    .map(|i| self.ts_schema(env, i, depth + 1))
                    .collect();
                let n = items.len();
                json!({"type": "array", "prefixItems": items, "minItems": n, "maxItems": n})
            }
            TypeExpr::Union(items) => {
                json!({"anyOf": items.iter().map(|i| self.ts_schema(env, i, depth + 1)).collect::<Vec<_>>()})
            }
            TypeExpr::Function(_) | TypeExpr::Other => json!({}),
        }
    }

    /// Schemas a handler's JSDoc states: `@param {string} req.body.url`,
    /// `@param {number} [req.query.page]` (brackets: optional).
    pub(crate) fn jsdoc_handler(&mut self, c: &Closure, contract: &Rc<RefCell<RawContract>>) {
        let Some(doc) = c.func.doc.as_deref() else {
            return;
        };
        let req = match c.func.params.first() {
            Some(Pattern::Ident(n)) => n.clone(),
            _ => return,
        };
        let mut parts = PartFields::default();
        let doc = crate::syntax::Doc::parse(doc);
        for value in doc.tags_named("param") {
            let Some((ty, rest)) = crate::syntax::typed(value) else {
                continue;
            };
            let Some((name, optional, desc)) = crate::syntax::named(rest) else {
                continue;
            };
            let mut segs = name.split('.');
            if segs.next() != Some(req.as_str()) {
                continue;
            }
            let part = match segs.next() {
                Some("body") => RequestPart::Body,
                Some("query") => RequestPart::Query,
                Some("params") => RequestPart::Params,
                _ => continue,
            };
            let Some(field) = segs.next() else {
                continue;
            };
            if segs.next().is_some() {
                continue;
            }
            let mut schema = jsdoc_type(ty.trim());
            let desc = desc.trim().trim_start_matches('-').trim();
            if !desc.is_empty()
                && let J::Object(m) = &mut schema
            {
                m.insert("description".into(), json!(desc));
            }
            parts.add(part, field, schema, !optional);
        }
        for (part, o) in parts.into_schemas() {
            set_part(
                &mut contract.borrow_mut(),
                part,
                o,
                SchemaLabel::new(SchemaSource::JsDoc, ""),
                c.file,
                c.func.line,
            );
        }
    }

    /// Schemas a typed handler states: `(req: Request<Params, ResBody, ReqBody, Query>)`.
    pub(crate) fn typed_handler(&mut self, c: &Closure, contract: &Rc<RefCell<RawContract>>) {
        // The TypeScript annotation, else a JSDoc `@param {Request<...>} req`.
        let (declared, from_jsdoc) = match c.func.param_types.first() {
            Some(Some(t)) => (Some(t.clone()), false),
            _ => (jsdoc_request_type(c), true),
        };
        let Some(TypeExpr::Ref(name, args)) = declared else {
            return;
        };
        if name != "Request" && !name.ends_with(".Request") {
            return;
        }
        let useful = |t: &TypeExpr| {
            !matches!(t, TypeExpr::Prim(p) if p == "any" || p == "unknown")
                && !matches!(t, TypeExpr::Other)
        };
        for (i, part) in [
            (0usize, RequestPart::Params),
            (2, RequestPart::Body),
            (3, RequestPart::Query),
        ] {
            if let Some(t) = args.get(i)
                && useful(t)
            {
                let env = c.env.clone();
                let schema = self.ts_schema(&env, t, 0);
                // A type the analyzer cannot read says nothing, nor does `{}`.
                if schema.get("type").is_none() && schema.get("anyOf").is_none() {
                    continue;
                }
                if schema
                    .get("properties")
                    .and_then(|p| p.as_object())
                    .is_some_and(|p| p.is_empty())
                    && schema.get("additionalProperties").is_none()
                {
                    continue;
                }
                let label = if from_jsdoc {
                    SchemaLabel::new(SchemaSource::JsDoc, "")
                } else {
                    SchemaLabel::new(SchemaSource::TypeScript, "")
                };
                set_part(
                    &mut contract.borrow_mut(),
                    part,
                    schema,
                    label,
                    c.file,
                    c.func.line,
                );
            }
        }
    }

    /// An error thrown (or passed to `next`) with an HTTP status is a response:
    /// an instance whose `status`/`statusCode` is set (`new HttpError(404)`,
    /// `new ServerError('x', { status: 404 })`), or a call or `new` whose first
    /// argument is a status (`createError(403)`).
    /// `line` is where it is thrown (or passed to `next`): the response's
    /// place when the error is made elsewhere (`throw err`).
    pub(crate) fn note_error_status(&mut self, ctx: &Ctx, v: &Value, e: &Expr, at: u32) {
        fn status_of(v: &Value) -> Option<u16> {
            match v {
                Value::Num(n) if (100.0..600.0).contains(n) && n.fract() == 0.0 => Some(*n as u16),
                Value::Obj(o) => o
                    .get("status")
                    .or_else(|| o.get("statusCode"))
                    .and_then(|s| status_of(&s)),
                _ => None,
            }
        }
        let (args, line): (&[Expr], u32) = match e {
            Expr::New(_, args, line) => (args, *line),
            Expr::Call(c) => (&c.args, c.line),
            _ => (&[], at),
        };
        // A status written where the error is made (`new WebError('…', 401)`,
        // `createError(404)`) first: what the error's constructor then stores
        // may be one value of several (`if (!valid(code)) code = 400` keeps
        // one path's), and the status the throw states is the one it means.
        // The arguments were evaluated with the error already; look again only
        // at those that cannot run code (`404`, `{ status: 404 }`, a constant).
        let mut status = None;
        for a in args.iter().take(2) {
            if status.is_some() {
                break;
            }
            let runs_code =
                crate::libs::socketio_syntax::any_expr(&[Stmt::Expr(a.clone())], &|x| {
                    matches!(
                        x,
                        Expr::Call(_) | Expr::New(..) | Expr::Func(_) | Expr::Assign(..)
                    )
                });
            if !runs_code {
                let av = self.eval(ctx, a);
                status = status_of(&av);
            }
        }
        let status = status.or_else(|| status_of(v));
        if let (Some(status), Some(c)) = (status, &self.running.route_contract) {
            let mut c = c.borrow_mut();
            if !c.responses.iter().any(|(s, _, _, _)| *s == status) {
                c.responses.push((status, None, ctx.file, line));
            }
        }
    }

    /// A call that applies a schema to part of the request, or reads from it.
    pub(crate) fn note_validation(&mut self, ctx: &Ctx, line: u32, argv: &[Value], callee: &str) {
        let zod = argv.iter().find_map(|a| match a {
            Value::Zod(z) => Some(z.clone()),
            _ => None,
        });
        let part = argv.iter().find_map(|a| match a {
            Value::Http(HttpVal::Part(p)) => Some(*p),
            _ => None,
        });
        // A Socket.IO listener's payload validated by a schema.
        if let (Some(z), Some(RequestPart::Payload), Some(i)) =
            (&zod, part, self.running.listener_site)
            && let Some(site) = self.rec.sites.get_mut(i)
            && site.payload.is_none()
        {
            site.payload = Some(z.schema.clone());
            site.payload_source = Some("zod");
            return;
        }
        let Some(rc) = self.running.route_contract.clone() else {
            return;
        };
        if let (Some(z), Some(part)) = (zod, part) {
            let label = SchemaLabel::new(z.source(), callee);
            set_part(
                &mut rc.borrow_mut(),
                part,
                z.schema.clone(),
                label,
                ctx.file,
                line,
            );
        }
    }
}

/// Add one validator field (or a whole part schema when `field` is empty).
pub(crate) fn merge_validator(
    c: &mut RawContract,
    part: RequestPart,
    field: &str,
    schema: &J,
    required: bool,
    file: FileId,
    line: u32,
) {
    if field.is_empty() {
        let label = SchemaLabel::new(SchemaSource::Celebrate, "");
        set_part(c, part, schema.clone(), label, file, line);
        return;
    }
    if part == RequestPart::Headers {
        c.headers_read.insert(field.to_ascii_lowercase());
        return;
    }
    let entry = c.part_mut(part).get_or_insert_with(|| {
        (
            json!({"type": "object", "properties": {}}),
            SchemaLabel::new(SchemaSource::ExpressValidator, ""),
            file,
            line,
        )
    });
    if let J::Object(m) = &mut entry.0 {
        if let Some(J::Object(props)) = m.get_mut("properties") {
            props.insert(field.to_string(), schema.clone());
        }
        if required {
            let req = m.entry("required").or_insert_with(|| J::Array(Vec::new()));
            if let J::Array(req) = req
                && !req.iter().any(|r| r.as_str() == Some(field))
            {
                req.push(json!(field));
            }
        }
    }
}

fn z_same(z: &Rc<ZodVal>) -> Value {
    Value::Zod(z.clone())
}

/// The schemas of express-json-validator-middleware's `validate({body, ...})`.
pub(crate) fn set_json_schema_parts(
    c: &mut RawContract,
    parts: &[(RequestPart, J)],
    file: FileId,
    line: u32,
) {
    for (part, schema) in parts {
        let label = SchemaLabel::new(SchemaSource::JsonSchema, "validate");
        set_part(c, *part, schema.clone(), label, file, line);
    }
}

pub(crate) fn set_part(
    c: &mut RawContract,
    part: RequestPart,
    schema: J,
    label: SchemaLabel,
    file: FileId,
    line: u32,
) {
    if part == RequestPart::Headers {
        // Headers are parameters, not a body: the names the schema states.
        if let Some(J::Object(props)) = schema.get("properties") {
            c.headers_read
                .extend(props.keys().map(|k| k.to_ascii_lowercase()));
        }
        return;
    }
    let slot = c.part_mut(part);
    if slot.is_none() {
        *slot = Some((schema, label, file, line));
    }
}

fn merge_object(m: &mut Map<String, J>, add: &J) {
    // Keys the extension restates take its optionality too.
    if let Some(J::Object(extra)) = add.get("properties") {
        let add_req: Vec<&J> = match add.get("required") {
            Some(J::Array(r)) => r.iter().collect(),
            _ => Vec::new(),
        };
        if let Some(J::Array(req)) = m.get_mut("required") {
            req.retain(|k| {
                k.as_str().is_none_or(|k| {
                    !extra.contains_key(k) || add_req.iter().any(|r| r.as_str() == Some(k))
                })
            });
            if req.is_empty() {
                m.shift_remove("required");
            }
        }
    }
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
                // An enum lists every allowed value: null is one now.
                if let Some(J::Array(vals)) = m.get_mut("enum")
                    && !vals.contains(&J::Null)
                {
                    vals.push(J::Null);
                }
                J::Object(m)
            }
            _ => json!({"anyOf": [s, {"type": "null"}]}),
        },
        _ => s,
    }
}

/// `{"type": "object", "properties": ..., "required": [...]}` (no `required` when empty).
/// Request-part schemas assembled one field at a time (`@param {T}
/// req.body.x` lines, `@Body('x')` parameters), in the order parts appear.
#[derive(Default)]
pub(crate) struct PartFields(Vec<(RequestPart, Map<String, J>, Vec<J>)>);

impl PartFields {
    /// Add field `name` of request part `part`.
    pub(crate) fn add(&mut self, part: RequestPart, name: &str, schema: J, required: bool) {
        let slot = match self.0.iter().position(|(p, _, _)| *p == part) {
            Some(i) => i,
            None => {
                self.0.push((part, Map::new(), Vec::new()));
                self.0.len() - 1
            }
        };
        self.0[slot].1.insert(name.to_string(), schema);
        if required {
            self.0[slot].2.push(json!(name));
        }
    }

    /// Each part with its object schema.
    pub(crate) fn into_schemas(self) -> impl Iterator<Item = (RequestPart, J)> {
        self.0
            .into_iter()
            .map(|(part, props, required)| (part, object_schema(props, required)))
    }
}

fn object_schema(props: Map<String, J>, required: Vec<J>) -> J {
    let mut o = Map::new();
    o.insert("type".into(), json!("object"));
    o.insert("properties".into(), J::Object(props));
    if !required.is_empty() {
        o.insert("required".into(), J::Array(required));
    }
    J::Object(o)
}

/// The JSDoc type of a handler's first parameter (`@param {Request<P, R, B>} req`).
fn jsdoc_request_type(c: &Closure) -> Option<TypeExpr> {
    let doc = crate::syntax::Doc::parse(c.func.doc.as_deref()?);
    let Some(Pattern::Ident(req)) = c.func.params.first() else {
        return None;
    };
    doc.tags_named("param").find_map(|value| {
        let (ty, rest) = crate::syntax::typed(value)?;
        let name = rest.split_whitespace().next().unwrap_or("");
        (name == req.as_str()).then(|| crate::syntax::jsdoc_type_expr(ty))
    })
}

/// JSON Schema for a JSDoc type expression (`string`, `number[]`, `Array<string>`, `'a'|'b'`).
fn jsdoc_type(t: &str) -> J {
    let t = t.trim();
    if let Some(inner) = t.strip_suffix("[]") {
        return json!({"type": "array", "items": jsdoc_type(inner)});
    }
    if let Some(inner) = t.strip_prefix("Array<").and_then(|r| r.strip_suffix('>')) {
        return json!({"type": "array", "items": jsdoc_type(inner)});
    }
    if t.contains('|') {
        let alts: Vec<&str> = t.split('|').map(str::trim).collect();
        if alts
            .iter()
            .all(|a| a.starts_with('\'') || a.starts_with('"'))
        {
            let vals: Vec<J> = alts
                .iter()
                .map(|a| json!(a.trim_matches(['\'', '"'])))
                .collect();
            return json!({"type": "string", "enum": vals});
        }
        return json!({"anyOf": alts.iter().map(|a| jsdoc_type(a)).collect::<Vec<_>>()});
    }
    match t.to_ascii_lowercase().as_str() {
        "string" => json!({"type": "string"}),
        "number" => json!({"type": "number"}),
        "integer" | "int" => json!({"type": "integer"}),
        "boolean" | "bool" => json!({"type": "boolean"}),
        "object" => json!({"type": "object"}),
        "array" => json!({"type": "array"}),
        "null" => json!({"type": "null"}),
        _ => json!({}),
    }
}

/// `schema.shape`: the object of member schemas (with their optionality).
pub(crate) fn shape_of(z: &ZodVal) -> Value {
    let obj = ObjData::new();
    let required: Vec<&str> = match z.schema.get("required") {
        Some(J::Array(r)) => r.iter().filter_map(|k| k.as_str()).collect(),
        _ => Vec::new(),
    };
    if let Some(J::Object(props)) = z.schema.get("properties") {
        for (k, v) in props {
            obj.set(
                k,
                Value::Zod(Rc::new(ZodVal {
                    schema: v.clone(),
                    optional: !required.contains(&k.as_str()),
                    joi: z.joi,
                    json_schema: z.json_schema,
                })),
            );
        }
    }
    Value::Obj(obj)
}

/// JSON Schema for a value the analyzer holds (a response built elsewhere).
pub(crate) fn value_schema(v: &Value, depth: u32) -> Option<J> {
    if depth > 6 {
        return Some(json!({}));
    }
    Some(match v {
        Value::Str(_) | Value::Pattern(_) => json!({"type": "string"}),
        Value::Num(_) => json!({"type": "number"}),
        Value::Bool(_) | Value::Unknown(Unknown::Bool) => json!({"type": "boolean"}),
        Value::Null => json!({"type": "null"}),
        Value::Arr(items) => match items
            .borrow()
            .first()
            .and_then(|i| value_schema(i, depth + 1))
        {
            Some(s) => json!({"type": "array", "items": s}),
            None => json!({"type": "array"}),
        },
        Value::Obj(o) if o.class.borrow().is_none() => {
            let mut props = Map::new();
            for (k, v) in o.entries() {
                props.insert(k, value_schema(&v, depth + 1).unwrap_or_else(|| json!({})));
            }
            json!({"type": "object", "properties": props})
        }
        _ => return None,
    })
}

/// Every value as JSON, or `None` when any is not a non-empty set of constants.
pub(crate) fn all_const(vals: &[Value]) -> Option<Vec<J>> {
    let out: Vec<J> = vals.iter().map(const_json).collect::<Option<_>>()?;
    (!out.is_empty()).then_some(out)
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

impl ZodVal {
    /// The source a schema value was built with.
    pub(crate) fn source(&self) -> SchemaSource {
        if self.joi {
            SchemaSource::Joi
        } else if self.json_schema {
            SchemaSource::JsonSchema
        } else {
            SchemaSource::Zod
        }
    }
}

/// A member of Zod's value: the namespace under its export names, a builder
/// (`z.string`), and the `iso`/`string` format builders (`z.iso.datetime`).
pub(crate) fn zod_member(b: &Builtin, prop: &str) -> Option<Value> {
    Some(match (b, prop) {
        (Builtin::Zod, "z" | "default" | "coerce" | "zod") => Value::Builtin(Builtin::Zod),
        (Builtin::Zod, p) => Value::Builtin(Builtin::ZodBuilder(Rc::from(p))),
        (Builtin::ZodBuilder(ns), p) if ns.as_ref() == "iso" || ns.as_ref() == "string" => {
            Value::Builtin(Builtin::ZodBuilder(Rc::from(format!("iso.{p}").as_str())))
        }
        _ => return None,
    })
}
