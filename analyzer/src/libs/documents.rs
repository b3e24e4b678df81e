//! Document readers: a known YAML or JSON text (or a repository file's)
//! gives the value the package would, so a document or route table kept in a
//! file of the repository reaches the code that reads it.
//!
//! Captures, as the packages do it:
//! - `js-yaml` (nodeca/js-yaml 3 and 4): `load(text)` and `safeLoad(text)`;
//! - `yaml` (eemeli/yaml 1 and 2): `parse(text)`;
//! - `yamljs` (jeremyfa/yaml.js): `parse(text)`, and `load(path)`, which
//!   reads the file itself (with a callback, `load(path, cb)` hands it the
//!   value);
//! - `json-schema-ref-parser` and `swagger-parser` (APIDevTools, also under
//!   `@apidevtools/`): `dereference`, `bundle`, `parse` and (swagger-parser)
//!   `validate`, given a document object (the same object: its local
//!   `$ref`s are left for the OpenAPI routers, which follow them) or the path
//!   of a YAML or JSON file of the repository (read as above), with an
//!   optional options object and callback `(err, doc)`; the promise is the
//!   document, as the machine takes a promise as its value.
//!
//! The text is read by `oas3.rs`'s YAML reader (JSON is YAML): maps are
//! objects in key order, plain scalars `true`, `false`, `null`, `~` and
//! numbers are those values, other scalars strings; `$ref`s are kept as they
//! are.
//!
//! Example: `yaml.load(fs.readFileSync(path.join(__dirname, 'api.yaml'),
//! 'utf8'))` is the document's object, which `express-openapi`'s `apiDoc`
//! reads; so is `await $RefParser.dereference(doc)`.
//!
//! Deliberately not captured: options (`schema`, `json`, a reviver: the
//! value is read with the default schema), YAML 1.1 booleans (`yes`, `on`),
//! anchors and aliases (an alias reads as an empty string), several
//! documents in one text (the first is read; `loadAll` stays unknown),
//! `dump`/`stringify`, `$ref`s to other files, the ref parsers' instances
//! (`new $RefParser()`) and `$refs`. A text only known at run time, or one
//! that does not parse, gives an unknown value, as before.

use super::oas3;
use crate::machine::modules::json_value;
use crate::machine::node::to_rel;
use crate::machine::*;

/// Reads a YAML text given as the first argument.
const TEXT: &str = "documents.text";
/// Reads the YAML file whose path is the first argument.
const FILE: &str = "documents.file";
/// Gives the document object given first, or reads the file it names.
const DOC: &str = "documents.doc";

/// The packages, and the `Framework` name of each function modelled.
const FUNCTIONS: &[(&str, &str, &str)] = &[
    ("js-yaml", "load", TEXT),
    ("js-yaml", "safeLoad", TEXT),
    ("yaml", "parse", TEXT),
    ("yamljs", "parse", TEXT),
    ("yamljs", "load", FILE),
];

/// The `$ref` parsers, whose functions in [`REF_FUNCTIONS`] are [`DOC`].
const REF_PARSERS: &[&str] = &[
    "@apidevtools/json-schema-ref-parser",
    "json-schema-ref-parser",
    "@apidevtools/swagger-parser",
    "swagger-parser",
];
const REF_FUNCTIONS: &[&str] = &["dereference", "bundle", "parse", "validate"];

/// A member of one of the packages: its readers, and an opaque value for the
/// rest (as an unmodelled package gives).
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    let framework = |name: &str| Value::Builtin(Builtin::Framework(Rc::from(name)));
    if REF_PARSERS.contains(&pkg) {
        return Some(match prop {
            "default" => Value::Builtin(Builtin::OpaqueModule(Rc::from(pkg))),
            p if REF_FUNCTIONS.contains(&p) => framework(DOC),
            _ => Value::external(),
        });
    }
    if !FUNCTIONS.iter().any(|(p, ..)| *p == pkg) {
        return None;
    }
    if prop == "default" {
        return Some(Value::Builtin(Builtin::OpaqueModule(Rc::from(pkg))));
    }
    Some(
        FUNCTIONS
            .iter()
            .find(|(p, f, _)| *p == pkg && *f == prop)
            .map_or_else(Value::external, |(.., name)| framework(name)),
    )
}

/// The value a YAML text gives (unknown when it does not parse).
fn value_of(text: &str) -> Value {
    match oas3::parse(text) {
        // Depth 8: `$ref`s are kept, not followed.
        Ok(n) => json_value(&oas3::to_json(&n, &n, 8)),
        Err(_) => Value::dynamic(),
    }
}

impl Interp {
    /// A call of one of the readers (`None` for other `Framework` names).
    pub(crate) fn document_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        if ![TEXT, FILE, DOC].contains(&name) {
            return None;
        }
        let first = argv.first().map(|v| self.force_deep(v.clone()));
        let value = match (name, first) {
            (TEXT, Some(Value::Str(t))) => value_of(&t),
            (DOC, Some(doc @ Value::Obj(_))) => doc,
            (FILE | DOC, Some(p)) => match p.as_text().and_then(|p| to_rel(&p)) {
                Some(rel) => match self.read_repo_file(&rel) {
                    Value::Str(t) => value_of(&t),
                    _ => Value::dynamic(),
                },
                None => Value::dynamic(),
            },
            _ => Value::dynamic(),
        };
        // yamljs's `load(path, cb)` hands the value alone; the ref parsers'
        // callbacks take `(err, doc)`.
        let cb = argv.iter().skip(1).find(|v| matches!(v, Value::Func(_)));
        if let Some(cb) = cb {
            let args = if name == FILE {
                vec![value]
            } else {
                vec![Value::Null, value]
            };
            self.call_value_now(ctx, cb, args, &[], line, None);
            return Some(Value::Undef);
        }
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_text_gives_plain_values() {
        let v = value_of("a: 1\nb: [x, 'true', true]\nc: { $ref: '#/a' }\n");
        let Value::Obj(o) = v else { panic!() };
        assert!(matches!(o.get("a"), Some(Value::Num(n)) if n == 1.0));
        let Some(Value::Arr(b)) = o.get("b") else {
            panic!()
        };
        let b = b.borrow();
        assert_eq!(b[0].as_text().as_deref(), Some("x"));
        assert!(matches!(b[1], Value::Str(_)));
        assert!(matches!(b[2], Value::Bool(true)));
        let Some(Value::Obj(c)) = o.get("c") else {
            panic!()
        };
        assert_eq!(
            c.get("$ref").and_then(|r| r.as_text()).as_deref(),
            Some("#/a")
        );
        assert!(value_of("a: [").is_unknown());
    }
}
