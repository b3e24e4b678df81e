//! `oas3-tools`: an Express app whose routes are the operations of an
//! OpenAPI 3 document in the repository, each answered by a function of a
//! controllers folder (swagger-codegen's `nodejs-server`).
//!
//! Captures: `expressAppConfig(definitionPath, { routing: { controllers } })`
//! (before 2.1: `{ controllers }`)
//! and its `getApp()`, the app the library makes. The document (YAML or
//! JSON, read from the repository) gives the operations: every method of
//! every path, under the path of each `servers[].url` (`{id}` as `:id`, as
//! express-openapi-validator matches them). Each is answered, as the
//! library's `SwaggerRouter` does, by the handler named
//! `<x-swagger-router-controller>_<operationId>` (the operation's controller,
//! else its path's; the operation id with `-` pieces camel-cased, the method
//! when there is none) among the functions the files of the `controllers`
//! folder export (`Pet.js` exporting `addPet` is `Pet_addPet`), or among the
//! functions of a `controllers` object. The operation is sited at that
//! function and read for the contract, with what the document states:
//! the `requestBody`'s schema (its `application/json` content, else the
//! first), the `query` and `path` parameters (the path's and the
//! operation's) as object schemas, each numbered response's schema, local
//! `$ref`s replaced by what they name (read the Swagger 2 way too, for
//! `express_openapi.rs`: the `in: body` parameter, parameters and responses
//! stating their schema themselves).
//!
//! Example: `paths: { /pets/{id}: { get: { operationId: getPet,
//! x-swagger-router-controller: Pets } } }` under `servers: [{ url: /v2 }]`,
//! with `controllers/Pets.js` exporting `getPet`, is `GET /v2/pets/:id`.
//!
//! Findings (`package-router`, at the `expressAppConfig` call, naming the
//! document and its line): a document that cannot be read, and an operation
//! whose handler is not found (the library answers it with 405 or 500).
//!
//! Deliberately not captured: `$ref`s to other files, header and cookie
//! parameters, the library's own middleware (parsers, logger, swagger-ui's
//! `/docs`, the validator).

use crate::machine::*;
use serde_json::{Map, Value as J, json};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

const PKG: &str = "oas3-tools";

/// A member of the package.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && prop == "expressAppConfig")
        .then(|| Value::Builtin(Builtin::Framework(Rc::from("oas3-tools.expressAppConfig"))))
}

/// A node of a YAML or JSON document, with the line it starts on.
#[derive(Debug)]
pub(super) struct Node {
    pub(super) line: u32,
    pub(super) kind: Kind,
}

#[derive(Debug)]
pub(super) enum Kind {
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
    /// A scalar, and whether it is plain (unquoted: `12` is a number).
    Scalar(String, bool),
}

impl Node {
    /// An empty map (a path without a document).
    pub(super) fn empty() -> Node {
        Node {
            line: 0,
            kind: Kind::Map(Vec::new()),
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(super) fn text(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar(s, _) => Some(s),
            _ => None,
        }
    }
}

/// Builds [`Node`]s from the parser's events (aliases read as empty
/// scalars). A map's value is sited at its key's line (`get:` for an
/// operation).
#[derive(Default)]
struct Builder {
    /// Open collections: the node, and for a map the key waiting for its
    /// value, with the key's line.
    stack: Vec<(Node, Option<(String, u32)>)>,
    root: Option<Node>,
}

impl Builder {
    fn push_value(&mut self, mut n: Node) {
        let Some((top, key)) = self.stack.last_mut() else {
            self.root.get_or_insert(n);
            return;
        };
        match &mut top.kind {
            Kind::Seq(items) => items.push(n),
            Kind::Map(entries) => match key.take() {
                Some((k, line)) => {
                    n.line = line;
                    entries.push((k, n));
                }
                None => *key = Some((n.text().unwrap_or_default().to_string(), n.line)),
            },
            Kind::Scalar(..) => {}
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let line = mark.line() as u32;
        match ev {
            Event::MappingStart(..) => self.stack.push((
                Node {
                    line,
                    kind: Kind::Map(Vec::new()),
                },
                None,
            )),
            Event::SequenceStart(..) => self.stack.push((
                Node {
                    line,
                    kind: Kind::Seq(Vec::new()),
                },
                None,
            )),
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some((n, _)) = self.stack.pop() {
                    self.push_value(n);
                }
            }
            Event::Scalar(s, style, ..) => self.push_value(Node {
                line,
                kind: Kind::Scalar(s, style == TScalarStyle::Plain),
            }),
            Event::Alias(_) => self.push_value(Node {
                line,
                kind: Kind::Scalar(String::new(), false),
            }),
            _ => {}
        }
    }
}

/// Read a YAML or JSON document (JSON is YAML).
pub(super) fn parse(text: &str) -> Result<Node, String> {
    let mut b = Builder::default();
    Parser::new_from_str(text)
        .load(&mut b, false)
        .map_err(|e| e.to_string())?;
    b.root.ok_or_else(|| "the document is empty".to_string())
}

/// A node as JSON, local `$ref`s (`#/components/schemas/Pet`) replaced by
/// what they point to (to a depth of 8; deeper ones stay `$ref`s).
pub(super) fn to_json(doc: &Node, n: &Node, depth: u32) -> J {
    match &n.kind {
        Kind::Map(entries) => {
            if let Some(r) = n.get("$ref").and_then(Node::text)
                && depth < 8
                && let Some(target) = pointer(doc, r)
            {
                return to_json(doc, target, depth + 1);
            }
            let mut m = Map::new();
            for (k, v) in entries {
                m.insert(k.clone(), to_json(doc, v, depth));
            }
            J::Object(m)
        }
        Kind::Seq(items) => J::Array(items.iter().map(|i| to_json(doc, i, depth)).collect()),
        Kind::Scalar(s, true) => match s.as_str() {
            "true" => J::Bool(true),
            "false" => J::Bool(false),
            "null" | "~" => J::Null,
            s => s
                .parse::<i64>()
                .map(J::from)
                .or_else(|_| s.parse::<f64>().map(J::from))
                .unwrap_or_else(|_| J::String(s.to_string())),
        },
        Kind::Scalar(s, false) => J::String(s.clone()),
    }
}

/// The node a local JSON pointer (`#/a/b`) names.
fn pointer<'a>(doc: &'a Node, r: &str) -> Option<&'a Node> {
    let mut at = doc;
    for part in r.strip_prefix("#/")?.split('/') {
        let part = part.replace("~1", "/").replace("~0", "~");
        at = at.get(&part)?;
    }
    Some(at)
}

/// The JSON schema of a `content` map: its `application/json` entry's, else
/// the first entry's.
fn content_schema(doc: &Node, content: Option<&Node>) -> Option<J> {
    let Kind::Map(entries) = &content?.kind else {
        return None;
    };
    let media = entries
        .iter()
        .find(|(k, _)| k == "application/json")
        .or_else(|| entries.first())?;
    Some(to_json(doc, media.1.get("schema")?, 0))
}

/// What an operation states: the body's schema, the query's and the path
/// parameters' (as object schemas), and each numbered response's.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Stated {
    body: Option<J>,
    query: Option<J>,
    params: Option<J>,
    responses: Vec<(u16, Option<J>)>,
}

pub(super) fn stated(doc: &Node, item: &Node, op: &Node) -> Stated {
    let mut out = Stated {
        body: content_schema(
            doc,
            op.get("requestBody")
                .map(|b| resolve(doc, b))
                .and_then(|b| b.get("content")),
        ),
        ..Stated::default()
    };
    let params = [item.get("parameters"), op.get("parameters")];
    for (slot, place) in [(&mut out.query, "query"), (&mut out.params, "path")] {
        let mut props = Map::new();
        let mut required = Vec::new();
        for list in params.iter().flatten() {
            let Kind::Seq(items) = &list.kind else {
                continue;
            };
            for p in items.iter().map(|p| resolve(doc, p)) {
                let (Some(name), Some(at)) = (
                    p.get("name").and_then(Node::text),
                    p.get("in").and_then(Node::text),
                ) else {
                    continue;
                };
                if at != place {
                    continue;
                }
                let schema = match p.get("schema") {
                    Some(s) => to_json(doc, s, 0),
                    // (Swagger 2: the parameter states its schema itself.)
                    None => match to_json(doc, p, 0) {
                        J::Object(mut m) => {
                            for k in [
                                "name",
                                "in",
                                "required",
                                "description",
                                "collectionFormat",
                                "allowEmptyValue",
                            ] {
                                m.remove(k);
                            }
                            J::Object(m)
                        }
                        _ => json!({}),
                    },
                };
                props.insert(name.to_string(), schema);
                if place == "path" || p.get("required").and_then(Node::text) == Some("true") {
                    required.push(J::String(name.to_string()));
                }
            }
        }
        if !props.is_empty() {
            let mut schema = json!({ "type": "object", "properties": props });
            if !required.is_empty() {
                schema["required"] = J::Array(required);
            }
            *slot = Some(schema);
        }
    }
    // (Swagger 2: the body is an `in: body` parameter; a response states its
    // `schema` itself.)
    if out.body.is_none() {
        out.body = params
            .iter()
            .flatten()
            .filter_map(|list| match &list.kind {
                Kind::Seq(items) => Some(items),
                _ => None,
            })
            .flatten()
            .map(|p| resolve(doc, p))
            .find(|p| p.get("in").and_then(Node::text) == Some("body"))
            .and_then(|p| p.get("schema"))
            .map(|s| to_json(doc, s, 0));
    }
    if let Some(Kind::Map(responses)) = op.get("responses").map(|r| &r.kind) {
        for (code, r) in responses {
            if let Ok(status) = code.parse::<u16>() {
                let r = resolve(doc, r);
                let schema = content_schema(doc, r.get("content"))
                    .or_else(|| r.get("schema").map(|s| to_json(doc, s, 0)));
                out.responses.push((status, schema));
            }
        }
    }
    out
}

/// A node, or what its local `$ref` names.
fn resolve<'a>(doc: &'a Node, n: &'a Node) -> &'a Node {
    n.get("$ref")
        .and_then(Node::text)
        .and_then(|r| pointer(doc, r))
        .unwrap_or(n)
}

/// One operation of the document.
#[derive(Debug, PartialEq)]
struct SpecOp {
    method: &'static str,
    /// The Express path, without the server's base path.
    path: String,
    /// The handler `SwaggerRouter` looks up.
    handler: String,
    line: u32,
    stated: Stated,
}

pub(super) const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The base paths of `servers` (`/` when there are none).
pub(super) fn base_paths(doc: &Node) -> Vec<String> {
    let mut out: Vec<String> = match doc.get("servers").map(|s| &s.kind) {
        Some(Kind::Seq(servers)) => servers
            .iter()
            .filter_map(|s| s.get("url")?.text())
            .map(url_path)
            .collect(),
        _ => Vec::new(),
    };
    if out.is_empty() {
        out.push(String::new());
    }
    out.dedup();
    out
}

/// The path of a server URL (`http://host/v2/` is `/v2`; `{v}` is `:v`).
fn url_path(url: &str) -> String {
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |i| &rest[i..]),
        None => url,
    };
    express_params(path.trim_end_matches('/'))
}

/// `{id}` as `:id`.
pub(super) fn express_params(path: &str) -> String {
    path.replace('{', ":").replace('}', "")
}

/// `removeDashElementToCamelCase`: `get-pet-by-id` is `getPetById`.
fn camel(id: &str) -> String {
    let mut pieces = id.split('-');
    let mut out = pieces.next().unwrap_or_default().to_string();
    for p in pieces {
        let mut cs = p.chars();
        if let Some(c) = cs.next() {
            out.extend(c.to_uppercase());
            out.push_str(&cs.as_str().to_lowercase());
        }
    }
    out
}

/// Every operation of the document's `paths`, in its order: its path, path
/// item, method and operation.
pub(super) fn path_operations(doc: &Node) -> Vec<(&str, &Node, &str, &Node)> {
    let mut out = Vec::new();
    if let Some(Kind::Map(paths)) = doc.get("paths").map(|p| &p.kind) {
        for (path, item) in paths {
            if let Kind::Map(entries) = &item.kind {
                for (method, op) in entries {
                    if METHODS.contains(&method.as_str()) {
                        out.push((path.as_str(), item, method.as_str(), op));
                    }
                }
            }
        }
    }
    out
}

/// The operations of the document's `paths`, in its order.
fn operations(doc: &Node) -> Vec<SpecOp> {
    let mut out = Vec::new();
    let Some(Kind::Map(paths)) = doc.get("paths").map(|p| &p.kind) else {
        return out;
    };
    for (path, item) in paths {
        let item_controller = item.get("x-swagger-router-controller").and_then(Node::text);
        let Kind::Map(entries) = &item.kind else {
            continue;
        };
        for (key, op) in entries {
            let Some(method) = METHODS.into_iter().find(|m| m == key) else {
                continue;
            };
            let id = op.get("operationId").and_then(Node::text);
            let controller = op
                .get("x-swagger-router-controller")
                .and_then(Node::text)
                .or(item_controller);
            let handler = match controller {
                Some(c) => format!("{c}_{}", camel(id.unwrap_or(method))),
                None => camel(id.unwrap_or_default()),
            };
            out.push(SpecOp {
                method,
                path: express_params(path),
                handler,
                line: op.line,
                stated: stated(doc, item, op),
            });
        }
    }
    out
}

impl Stated {
    /// The contract an operation's handler at `at` is charted with.
    pub(super) fn contract(&self, at: (FileId, u32)) -> RawContract {
        let label = || {
            crate::libs::schemas::SchemaLabel::new(
                crate::libs::schemas::SchemaSource::JsonSchema,
                "",
            )
        };
        RawContract {
            body: self.body.clone().map(|j| (j, label(), at.0, at.1)),
            query: self.query.clone().map(|j| (j, label(), at.0, at.1)),
            params: self.params.clone().map(|j| (j, label(), at.0, at.1)),
            responses: self
                .responses
                .iter()
                .map(|(st, j)| (*st, j.clone(), at.0, at.1))
                .collect(),
            ..RawContract::default()
        }
    }
}

impl Interp {
    /// The document a value gives: an object (as JSON), or the path of a
    /// YAML or JSON file in the repository. `Err` completes "the document
    /// …" ("is only known at run time").
    pub(super) fn document_of(&mut self, v: Option<Value>) -> Result<Node, String> {
        match v.map(|v| self.force_deep(v)) {
            Some(v @ Value::Obj(_)) => crate::libs::schemas::const_json(&v)
                .ok_or_else(|| "is only known at run time".to_string())
                .and_then(|j| parse(&j.to_string())),
            Some(v) => match v.as_text() {
                Some(t) => {
                    let Some(rel) = crate::machine::node::to_rel(&t) else {
                        return Err(format!("names `{t}`, outside the repository"));
                    };
                    self.read_document(&rel)
                        .map_err(|why| format!("names `{rel}`, which cannot be read ({why})"))
                }
                None => Err("is only known at run time".into()),
            },
            None => Err("is missing".into()),
        }
    }

    /// Read the OpenAPI document at `rel` (YAML or JSON) in the repository,
    /// recording it as a data module so a change to it is a change of input.
    pub(super) fn read_document(&mut self, rel: &str) -> Result<Node, String> {
        let bytes = std::fs::read(self.loader.project.root.join(rel));
        self.note_input_read(rel, bytes.as_deref().ok(), true);
        match bytes {
            Ok(b) => parse(&String::from_utf8_lossy(&b)),
            Err(e) => Err(e.to_string()),
        }
    }

    /// `expressAppConfig(definitionPath, appOptions)`: an object whose
    /// `getApp()` is the app serving the document's operations.
    pub(crate) fn oas3_app_config(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let Value::Router(app) = self.new_router(ctx.file, line, true) else {
            return Value::dynamic();
        };
        let config = ObjData::new();
        config.set("getApp", Value::Builtin(Builtin::AppGetter(app)));
        if !self.modes.event_mode {
            self.oas3_register(ctx, app, argv, line);
        }
        Value::Obj(config)
    }

    fn oas3_register(&mut self, ctx: &Ctx, app: u32, argv: &[Value], line: u32) {
        let say = |me: &mut Self, why: String| {
            me.finding(FindingCode::PackageRouter, ctx.file, line, why);
        };
        let spec = argv.first().map(|v| self.force_deep(v.clone()));
        let Some(rel) = spec
            .as_ref()
            .and_then(Value::as_text)
            .and_then(|p| crate::machine::node::to_rel(&p))
        else {
            return say(
                self,
                "the OpenAPI document `expressAppConfig` serves is only known at run time: its operations are not charted".into(),
            );
        };
        let doc = match self.read_document(&rel) {
            Ok(d) => d,
            Err(why) => {
                return say(
                    self,
                    format!(
                        "the OpenAPI document `{rel}` cannot be read ({why}): its operations are not charted"
                    ),
                );
            }
        };
        let handlers = self.oas3_handlers(argv.get(1));
        let bases = base_paths(&doc);
        self.swagger_router_register((ctx.file, line), &rel, &doc, &bases, &handlers, app);
    }

    /// `SwaggerRouter` (oas3-tools, swagger-tools, swagger-node): each
    /// operation of `doc` under each of `bases` on `router`, answered by the
    /// function of `handlers` its handler name names; one finding at `at`
    /// for each that none answers.
    pub(super) fn swagger_router_register(
        &mut self,
        at: (FileId, u32),
        rel: &str,
        doc: &Node,
        bases: &[String],
        handlers: &[(String, Value)],
        router: u32,
    ) {
        let mut missing = Vec::new();
        for op in operations(doc) {
            let Some(f) = handlers
                .iter()
                .find(|(n, _)| *n == op.handler)
                .map(|(_, f)| f.clone())
            else {
                // (A document given as an object has no lines of its own.)
                let place = if rel.is_empty() {
                    String::new()
                } else {
                    format!(" ({rel}:{})", op.line)
                };
                missing.push(format!(
                    "no controller function `{}` answers `{} {}`{place}",
                    op.handler,
                    op.method.to_ascii_uppercase(),
                    op.path,
                ));
                continue;
            };
            for base in bases {
                let path = format!("{base}{}", op.path);
                self.push_operation(router, op.method, path, &op.handler, &f, &op.stated, true);
            }
        }
        // (One finding: findings at one place are one.)
        if !missing.is_empty() {
            self.finding(
                FindingCode::PackageRouter,
                at.0,
                at.1,
                format!(
                    "{}: the app answers them with an error, they are not charted",
                    missing.join("; ")
                ),
            );
        }
    }

    /// An operation of a document on `router`, answered by the function `f`
    /// named `name`, sited there, with what the document states; `read`:
    /// whether `f` is read as an Express handler (`(req, res)`) too.
    #[allow(clippy::too_many_arguments)] // one operation's parts
    pub(super) fn push_operation(
        &mut self,
        router: u32,
        method: &str,
        path: String,
        name: &str,
        f: &Value,
        stated: &Stated,
        read: bool,
    ) {
        let Value::Func(c) = f else { return };
        let at = (c.file, c.func.line);
        let kind = RegKind::Route {
            method: method.to_string(),
            paths: vec![PathArg::Str(path)],
            middleware: Vec::new(),
            handler: Some(HandlerRef {
                name: name.to_string(),
                at: Some(at),
            }),
            contract: Rc::new(RefCell::new(stated.contract(at))),
            funcs: if read { vec![f.clone()] } else { Vec::new() },
            subpaths: false,
        };
        self.push_reg(router, kind, at.0, at.1, c.func.doc.clone(), None);
    }

    /// `SwaggerRouter`'s handler cache: `routing.controllers` as an object of
    /// functions, or a folder whose files' exported functions are named
    /// `<file>_<export>`.
    pub(super) fn oas3_handlers(&mut self, options: Option<&Value>) -> Vec<(String, Value)> {
        // (Before 2.1 the options were the routing options themselves.)
        let options = match options.map(|o| self.force_deep(o.clone())) {
            Some(Value::Obj(o)) => o,
            _ => return Vec::new(),
        };
        let routing = match options.get("routing").map(|r| self.force_deep(r)) {
            Some(Value::Obj(r)) => r,
            _ => options,
        };
        let controllers = routing.get("controllers").map(|c| self.force_deep(c));
        // (An ES module's exports are its namespace's names.)
        let functions = |me: &mut Self, o: &Value, prefix: &str| -> Vec<(String, Value)> {
            let props: Vec<(String, Value)> = match o {
                Value::Obj(o) => o
                    .props
                    .borrow()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                Value::Module(id) => me
                    .namespace_names(*id, 0)
                    .into_iter()
                    .map(|k| {
                        let v = me.member(o, &k);
                        (k, v)
                    })
                    .collect(),
                _ => return Vec::new(),
            };
            props
                .into_iter()
                .filter_map(|(k, v)| match me.force_deep(v) {
                    f @ Value::Func(_) => Some((format!("{prefix}{k}"), f)),
                    _ => None,
                })
                .collect()
        };
        match controllers {
            Some(o @ Value::Obj(_)) => functions(self, &o, ""),
            Some(v) => {
                let Some(dir) = v.as_text().and_then(|p| crate::machine::node::to_rel(&p)) else {
                    return Vec::new();
                };
                let project = &self.loader.project;
                let files: Vec<(String, FileId)> = (0..project.files.len() as FileId)
                    .filter_map(|i| {
                        let rel = project.rel(i);
                        let name = rel.strip_prefix(&dir)?.strip_prefix('/')?;
                        let stem = name
                            .strip_suffix(".js")
                            .or_else(|| name.strip_suffix(".ts"))
                            .or_else(|| name.strip_suffix(".coffee"))?;
                        (!stem.contains('/') && !name.contains(".test.js"))
                            .then(|| (stem.to_string(), i))
                    })
                    .collect();
                let mut out = Vec::new();
                for (stem, f) in files {
                    let exports = self.module_value(f);
                    let exports = self.force_deep(exports);
                    out.extend(functions(self, &exports, &format!("{stem}_")));
                }
                out
            }
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_read_with_their_lines() {
        let doc = parse(
            "openapi: 3.0.0\nservers:\n  - url: http://api.test/v2/\npaths:\n  /pets/{id}:\n    x-swagger-router-controller: Pets\n    get:\n      operationId: get-pet\n    delete:\n      x-swagger-router-controller: Admin\n",
        )
        .unwrap();
        assert_eq!(base_paths(&doc), vec!["/v2".to_string()]);
        let ops = operations(&doc);
        assert_eq!(ops[0].handler, "Pets_getPet");
        assert_eq!(ops[0].path, "/pets/:id");
        assert_eq!(ops[0].line, 7);
        assert_eq!(ops[1].handler, "Admin_delete");
    }

    #[test]
    fn json_documents_are_read_too() {
        let doc = parse("{\"paths\": {\"/a\": {\"post\": {\"operationId\": \"make\"}}}}").unwrap();
        assert_eq!(base_paths(&doc), vec![String::new()]);
        assert_eq!(operations(&doc)[0].handler, "make");
    }
}
