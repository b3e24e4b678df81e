//! Joi, celebrate and express-validator as values: `Joi.<type>()` and its
//! chains as JSON Schema (sharing the Zod value's representation),
//! `celebrate({ body, query, params })` and express-validator's `checkSchema`,
//! `body('f')`/`query('f')`/`param('f')` chains as validators of request parts.
//!
//! Deliberately not: validators built at run time.

use crate::libs::schemas::*;
use crate::machine::*;
use serde_json::{Map, Value as J, json};

/// A Joi schema value: optional until `.required()`, as Joi keys are.
fn joi(schema: J) -> Value {
    Value::Zod(Rc::new(ZodVal {
        schema,
        optional: true,
        joi: true,
        json_schema: false,
    }))
}

impl Interp {
    /// `Joi.<name>(args)`.
    pub(crate) fn joi_builder(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Value {
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        match name {
            "string" => joi(json!({"type": "string"})),
            "number" => joi(json!({"type": "number"})),
            "boolean" | "bool" => joi(json!({"type": "boolean"})),
            "date" => joi(json!({"type": "string", "format": "date-time"})),
            "any" => joi(json!({})),
            "array" => joi(json!({"type": "array"})),
            "object" => {
                let shape = self.force_deep(arg(0));
                // Joi rejects keys an object does not list, unless `.unknown()`.
                let mut s = self.zod_object(&shape);
                s["additionalProperties"] = json!(false);
                joi(s)
            }
            "alternatives" => {
                let items: Vec<J> = argv.iter().filter_map(|a| self.zod_schema(a)).collect();
                joi(json!({"anyOf": items}))
            }
            "valid" | "allow" => {
                let forced: Vec<Value> = argv.iter().map(|a| self.force_deep(a.clone())).collect();
                match all_const(&forced) {
                    Some(vals) => joi(json!({"enum": vals})),
                    None => joi(json!({})),
                }
            }
            "attempt" | "assert" => {
                let all: Vec<Value> = argv.iter().map(|a| self.force_deep(a.clone())).collect();
                self.note_validation(ctx, line, &all, "Joi.attempt");
                Value::dynamic()
            }
            _ => joi(json!({})),
        }
    }

    /// `<joi schema>.<name>(args)`.
    pub(crate) fn joi_method(&mut self, z: &Rc<ZodVal>, name: &str, argv: &[Value]) -> Value {
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        let set_opt = |z: &ZodVal, optional: bool| {
            Value::Zod(Rc::new(ZodVal {
                optional,
                ..z.clone()
            }))
        };
        match name {
            "required" | "exist" => set_opt(z, false),
            "optional" => set_opt(z, true),
            "integer" => self.zod_method(z, "int", argv),
            "uri" => self.zod_method(z, "url", argv),
            "guid" => self.zod_method(z, "uuid", argv),
            "isoDate" => self.zod_method(z, "datetime", argv),
            "pattern" => self.zod_method(z, "regex", argv),
            "description" | "label" | "note" => self.zod_method(z, "describe", argv),
            "greater" => self.zod_method(z, "gt", argv),
            "less" => self.zod_method(z, "lt", argv),
            "keys" | "append" => self.zod_method(z, "extend", argv),
            "unknown" => {
                let on = !matches!(self.force_deep(arg(0)), Value::Bool(false));
                with(z, |m| {
                    m.insert("additionalProperties".into(), json!(on));
                })
            }
            "items" => {
                let items = self.zod_schema(&arg(0)).unwrap_or(json!({}));
                with(z, |m| {
                    m.insert("items".into(), items);
                })
            }
            "valid" | "allow" | "only" | "equal" => {
                let forced: Vec<Value> = argv.iter().map(|a| self.force_deep(a.clone())).collect();
                let Some(vals) = all_const(&forced) else {
                    return Value::Zod(z.clone());
                };
                if vals.iter().all(|v| v.is_null()) && !vals.is_empty() {
                    return self.zod_method(z, "nullable", &[]);
                }
                with(z, |m| {
                    if name == "allow" {
                        return;
                    }
                    m.insert("enum".into(), J::Array(vals));
                })
            }
            "try" => {
                let items: Vec<J> = match self.force_deep(arg(0)) {
                    Value::Arr(a) => a
                        .borrow()
                        .clone()
                        .iter()
                        .filter_map(|v| self.zod_schema(v))
                        .collect(),
                    _ => argv.iter().filter_map(|a| self.zod_schema(a)).collect(),
                };
                with(z, |m| {
                    m.insert("anyOf".into(), J::Array(items));
                })
            }
            "validate" | "validateAsync" => Value::dynamic(),
            "messages" | "message" | "error" | "strip" | "trim" | "lowercase" | "uppercase"
            | "empty" | "raw" | "options" | "prefs" | "custom" | "when" | "concat" | "id"
            | "example" | "meta" | "tag" | "unit" | "presence" | "insensitive" | "hex"
            | "alphanum" | "token" | "precision" | "port" | "sign" | "unique" | "sparse"
            | "single" | "rename" => Value::Zod(z.clone()),
            _ => self.zod_method(z, name, argv),
        }
    }

    /// `celebrate({ [Segments.BODY]: Joi.object(...), ... })`.
    pub(crate) fn celebrate(&mut self, argv: &[Value]) -> Value {
        let mut parts = Vec::new();
        if let Some(Value::Obj(o)) = argv.first().map(|a| self.force_deep(a.clone())) {
            let entries = o.entries();
            for (k, v) in entries {
                let part = match RequestPart::of_req(&k.to_ascii_lowercase()) {
                    Some(
                        p @ (RequestPart::Body
                        | RequestPart::Query
                        | RequestPart::Params
                        | RequestPart::Headers),
                    ) => p,
                    _ => continue,
                };
                let schema = match self.force_deep(v) {
                    Value::Zod(z) => z.schema.clone(),
                    // A plain object is `Joi.object(...)`: unknown keys are rejected.
                    shape @ Value::Obj(_) => {
                        let mut s = self.zod_object(&shape);
                        s["additionalProperties"] = json!(false);
                        s
                    }
                    _ => continue,
                };
                parts.push((part, String::new(), schema, true));
            }
        }
        Value::Validator(Rc::new(parts))
    }

    /// `checkSchema({ email: { in: ['body'], isEmail: true, optional: true }, ... })`.
    fn check_schema(&mut self, argv: &[Value]) -> Value {
        let mut parts = Vec::new();
        let Some(Value::Obj(spec)) = argv.first().map(|a| self.force_deep(a.clone())) else {
            return Value::Validator(Rc::new(parts));
        };
        for (field, rules) in spec.entries() {
            let Value::Obj(rules) = self.force_deep(rules) else {
                continue;
            };
            let locations: Vec<String> = match rules.get("in").map(|v| self.force_deep(v)) {
                Some(Value::Arr(a)) => a.borrow().iter().filter_map(|v| v.as_text()).collect(),
                Some(v) => v.as_text().into_iter().collect(),
                None => vec!["body".into()],
            };
            // Each validator named in the rules, with its options, as a chain step.
            let mut chain = Value::Validator(Rc::new(vec![(
                RequestPart::Body,
                field.clone(),
                json!({}),
                true,
            )]));
            for (rule, opts) in rules.entries() {
                if rule == "in" || rule == "errorMessage" {
                    continue;
                }
                let opts = self.force_deep(opts);
                let arg = match &opts {
                    Value::Obj(o) => o.get("options").unwrap_or(Value::Undef),
                    _ => Value::Undef,
                };
                if rule == "optional" && opts.truthy() == Some(false) {
                    continue;
                }
                if let Value::Validator(v) = &chain {
                    let v = v.clone();
                    chain = self.validator_method(&v, &rule, &[arg]);
                }
            }
            if let Value::Validator(v) = chain
                && let Some((_, _, schema, required)) = v.first()
            {
                for loc in &locations {
                    let part = match loc.as_str() {
                        "query" => RequestPart::Query,
                        "params" => RequestPart::Params,
                        "headers" => RequestPart::Headers,
                        _ => RequestPart::Body,
                    };
                    parts.push((part, field.clone(), schema.clone(), *required));
                }
            }
        }
        Value::Validator(Rc::new(parts))
    }

    /// `body('email')` and the like: a one-field validator chain.
    pub(crate) fn check_field(&mut self, kind: CheckField, argv: &[Value]) -> Value {
        let part = match kind {
            CheckField::Part(p) => p,
            CheckField::Schema => return self.check_schema(argv),
            // Not a chain starter: what `check` builds, as before a member read.
            CheckField::Module => RequestPart::Body,
        };
        let field = argv
            .first()
            .and_then(|a| self.force_deep(a.clone()).as_text())
            .unwrap_or_default();
        Value::Validator(Rc::new(vec![(part, field, json!({}), true)]))
    }

    /// A method on an express-validator chain.
    pub(crate) fn validator_method(
        &mut self,
        v: &Rc<Vec<(RequestPart, String, J, bool)>>,
        name: &str,
        argv: &[Value],
    ) -> Value {
        let Some((part, field, schema, required)) = v.first().cloned() else {
            return Value::Validator(v.clone());
        };
        if v.len() != 1 || field.is_empty() {
            return Value::Validator(v.clone());
        }
        let opts = match argv.first().map(|a| self.force_deep(a.clone())) {
            Some(Value::Obj(o)) => Some(o),
            _ => None,
        };
        let opt_num = |k: &str| {
            opts.as_ref()
                .and_then(|o| o.get(k))
                .and_then(|v| if let Value::Num(n) = v { Some(n) } else { None })
        };
        let mut s = match schema {
            J::Object(m) => m,
            _ => Map::new(),
        };
        let mut required = required;
        let mut set = |k: &str, v: J| {
            s.insert(k.into(), v);
        };
        let int = |n: f64| {
            if n.fract() == 0.0 {
                json!(n as i64)
            } else {
                json!(n)
            }
        };
        match name {
            "isEmail" => {
                set("type", json!("string"));
                set("format", json!("email"));
            }
            "isURL" => {
                set("type", json!("string"));
                set("format", json!("uri"));
            }
            "isUUID" => {
                set("type", json!("string"));
                set("format", json!("uuid"));
            }
            "isISO8601" | "isDate" => {
                set("type", json!("string"));
                set("format", json!("date-time"));
            }
            "isInt" | "isFloat" | "isNumeric" | "isDecimal" => {
                set(
                    "type",
                    json!(if name == "isInt" { "integer" } else { "number" }),
                );
                if let Some(n) = opt_num("min") {
                    set("minimum", int(n));
                }
                if let Some(n) = opt_num("max") {
                    set("maximum", int(n));
                }
            }
            "isBoolean" => set("type", json!("boolean")),
            "isString" | "isAlpha" | "isAlphanumeric" => set("type", json!("string")),
            "isArray" => set("type", json!("array")),
            "isObject" => set("type", json!("object")),
            "isLength" => {
                if let Some(n) = opt_num("min") {
                    set("minLength", int(n));
                }
                if let Some(n) = opt_num("max") {
                    set("maxLength", int(n));
                }
            }
            "isIn" => {
                if let Some(Value::Arr(a)) = argv.first().map(|a| self.force_deep(a.clone()))
                    && let Some(vals) = all_const(&a.borrow())
                {
                    set("enum", J::Array(vals));
                }
            }
            "matches" => {
                if let Some(Value::Regex(r)) = argv.first().map(|a| self.force_deep(a.clone())) {
                    let body = r.trim_start_matches('/');
                    let body = body.rsplit_once('/').map(|(b, _)| b).unwrap_or(body);
                    set("pattern", json!(body));
                }
            }
            "optional" => required = false,
            "notEmpty" | "exists"
                if s.get("type").and_then(|t| t.as_str()) == Some("string")
                    || s.get("type").is_none() =>
            {
                s.entry("minLength").or_insert(json!(1));
            }
            _ => {}
        }
        Value::Validator(Rc::new(vec![(part, field, J::Object(s), required)]))
    }
}

/// A member of a validation package's value: Ajv (the class, an instance's
/// `compile`/`validate` and chaining methods), `jsonschema`, Joi, celebrate
/// (`Joi`, `Segments`) and express-validator's request-part functions.
pub(crate) fn module_member(b: &Builtin, prop: &str) -> Option<Value> {
    Some(match (b, prop) {
        (Builtin::Ajv, "default" | "Ajv" | "Ajv2019" | "Ajv2020") => Value::Builtin(Builtin::Ajv),
        (Builtin::AjvInstance, m) => match m {
            "compile" => Value::Builtin(Builtin::AjvMethod("compile")),
            "validate" => Value::Builtin(Builtin::AjvMethod("validate")),
            "addSchema" | "addFormat" | "addKeyword" | "addVocabulary" | "removeSchema" => {
                Value::Builtin(Builtin::AjvMethod("chain"))
            }
            _ => Value::external(),
        },
        (Builtin::JsonValidator, "Validator" | "default") => Value::Builtin(Builtin::JsonValidator),
        (Builtin::JsonValidator, "validate") => Value::Builtin(Builtin::JsonValidate),
        (Builtin::JsonValidator, "ajv") => Value::Builtin(Builtin::AjvInstance),
        (Builtin::Joi, "default" | "Joi") => Value::Builtin(Builtin::Joi),
        (Builtin::Joi, p) => Value::Builtin(Builtin::JoiBuilder(Rc::from(p))),
        (Builtin::Celebrate, "Joi") => Value::Builtin(Builtin::Joi),
        (Builtin::Celebrate, "celebrate" | "default") => Value::Builtin(Builtin::Celebrate),
        (Builtin::Celebrate, "Segments") => {
            let o = ObjData::new();
            for (k, v) in [
                ("BODY", "body"),
                ("QUERY", "query"),
                ("PARAMS", "params"),
                ("HEADERS", "headers"),
                ("COOKIES", "cookies"),
            ] {
                o.set(k, Value::str(v));
            }
            Value::Obj(o)
        }
        (Builtin::CheckField(CheckField::Module), p) => {
            Value::Builtin(Builtin::CheckField(match p {
                "body" | "check" | "checkBody" => CheckField::Part(RequestPart::Body),
                "query" | "checkQuery" => CheckField::Part(RequestPart::Query),
                "param" | "checkParams" => CheckField::Part(RequestPart::Params),
                "header" | "checkHeaders" => CheckField::Part(RequestPart::Headers),
                "cookie" => CheckField::Part(RequestPart::Cookies),
                "checkSchema" => CheckField::Schema,
                _ => return Some(Value::external()),
            }))
        }
        _ => return None,
    })
}

impl Interp {
    /// A call of an Ajv, `jsonschema` or status-code package value:
    /// `ajv.compile(schema)` gives the schema's validator, `ajv.validate(
    /// schema, req.body)` states the request part, `validate({ body, query,
    /// params })` (express-jsonschema) makes the middleware that states
    /// them when a route runs it; the others give a value only known at run
    /// time (a status package called, an Ajv instance called).
    pub(crate) fn validator_call(
        &mut self,
        ctx: &Ctx,
        b: &Builtin,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        Some(match b {
            Builtin::AjvMethod("compile") => match argv.first() {
                Some(v) => crate::libs::json_schema(self.plain_json(v, 0)),
                None => Value::dynamic(),
            },
            Builtin::AjvMethod("validate") => {
                // `ajv.validate(schema, req.body)`.
                if let (Some(schema), Some(data)) = (argv.first(), argv.get(1)) {
                    let all = vec![
                        crate::libs::json_schema(self.plain_json(schema, 0)),
                        data.clone(),
                    ];
                    self.note_validation(ctx, line, &all, "ajv.validate");
                }
                Value::dynamic()
            }
            Builtin::AjvMethod(_) | Builtin::Ajv => Value::Builtin(Builtin::AjvInstance),
            Builtin::JsonValidator => Value::Builtin(Builtin::JsonValidator),
            Builtin::AjvInstance | Builtin::HttpStatus => Value::dynamic(),
            Builtin::JsonValidate => {
                let mut parts = Vec::new();
                if let Some(Value::Obj(o)) = argv.first().map(|v| self.force(v.clone(), 0)) {
                    for part in [RequestPart::Body, RequestPart::Query, RequestPart::Params] {
                        if let Some(v) = o.get(part.as_str()) {
                            let schema = self.plain_json(&v, 0);
                            parts.push((part, schema));
                        }
                    }
                }
                Value::Builtin(Builtin::JsonSchemaMiddleware(Rc::new(parts)))
            }
            Builtin::JsonSchemaMiddleware(parts) => {
                if let Some(rc) = self.running.route_contract.clone() {
                    crate::libs::set_json_schema_parts(&mut rc.borrow_mut(), parts, ctx.file, line);
                }
                Value::dynamic()
            }
            _ => return None,
        })
    }
}
