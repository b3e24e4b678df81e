//! Statements: declarations, imports and exports, control flow.
//!
//! A `var` in a nested block is lowered as JavaScript scopes it: its names
//! are declared once at the start of the function (or program) body and the
//! declaration itself becomes an assignment where it stands
//! (`Lowerer::nested_var`). `let`/`const` stay block-scoped; a `var` in a
//! `for` head keeps its own binding per loop.

use super::*;

impl<'s> Lowerer<'s> {
    pub(crate) fn stmt_inner(&mut self, node: Node, out: &mut Vec<Stmt>) {
        match node.kind() {
            "expression_statement" => {
                if let Some(e) = Self::named_children(node).first() {
                    let doc = self.doc_before(node);
                    let mut expr = self.expr(*e);
                    if let (Some(doc), Expr::Call(call)) = (doc, &mut expr) {
                        attach_doc(call, doc);
                    }
                    out.push(Stmt::Expr(expr));
                }
            }
            "variable_declaration" if Self::var_is_nested(node) => {
                let doc = self.doc_before(node);
                let decl = self.var_decl(node, doc);
                self.nested_var(decl, out);
            }
            "lexical_declaration" | "variable_declaration" => {
                let doc = self.doc_before(node);
                out.push(self.var_decl(node, doc));
            }
            "function_declaration" | "generator_function_declaration" => {
                let name = node
                    .field(F::Name)
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let doc = self.doc_before(node);
                let mut f = self.func(node, Some(name.clone()));
                f.doc = doc;
                out.push(Stmt::Function(name, Arc::new(f)));
            }
            "class_declaration" | "abstract_class_declaration" => {
                let class = self.class(node);
                let name = class.name.clone().unwrap_or_default();
                out.push(Stmt::Class(name, Arc::new(class)));
            }
            "return_statement" => {
                let e = Self::named_children(node).first().map(|n| self.expr(*n));
                out.push(Stmt::Return(e));
            }
            "throw_statement" => {
                if let Some(n) = Self::named_children(node).first() {
                    out.push(Stmt::Throw(self.expr(*n), line_of(node)));
                }
            }
            "if_statement" => {
                let cond = node.field(F::Condition);
                let test = cond
                    .map(|c| self.expr(c))
                    .unwrap_or(Expr::Opaque(line_of(node)));
                let text = cond
                    .map(|c| {
                        let t = self.short_text(c);
                        t.strip_prefix('(')
                            .and_then(|t| t.strip_suffix(')'))
                            .map(str::to_string)
                            .unwrap_or(t)
                    })
                    .unwrap_or_default();
                let then = self.block(node.field(F::Consequence));
                let els = match node.field(F::Alternative) {
                    Some(alt) => {
                        let mut v = Vec::new();
                        for c in Self::named_children(alt) {
                            self.stmt_into(c, &mut v);
                        }
                        v
                    }
                    None => Vec::new(),
                };
                out.push(Stmt::If(test, text, then, els, line_of(node)));
            }
            "for_in_statement" => {
                let left = node
                    .field(F::Left)
                    .map(|n| self.pattern(n))
                    .unwrap_or(Pattern::Ignored);
                let right_node = node.field(F::Right);
                let right = right_node
                    .map(|n| self.expr(n))
                    .unwrap_or(Expr::Opaque(line_of(node)));
                let is_in = node
                    .field(F::Operator)
                    .map(|o| self.text(o) == "in")
                    .unwrap_or(false);
                let body = self.block(node.field(F::Body));
                let text = right_node.map(|n| self.short_text(n)).unwrap_or_default();
                out.push(Stmt::ForOf(left, right, is_in, body, text, line_of(node)));
            }
            "for_statement" => {
                let mut init = Vec::new();
                if let Some(i) = node.field(F::Initializer) {
                    self.stmt_into(i, &mut init);
                }
                // `for (a; b; c)`: the condition is an expression statement.
                let test = node.field(F::Condition).and_then(|c| match c.kind() {
                    "expression_statement" => {
                        Self::named_children(c).first().map(|e| self.expr(*e))
                    }
                    "empty_statement" | ";" => None,
                    _ => Some(self.expr(c)),
                });
                let update = node.child_by_field_name("increment").map(|u| self.expr(u));
                let text = node
                    .field(F::Condition)
                    .map(|c| self.short_text(c).trim_end_matches(';').to_string())
                    .unwrap_or_default();
                let body = self.block(node.field(F::Body));
                out.push(Stmt::For(Box::new(ForStmt {
                    init,
                    test,
                    update,
                    body,
                    text,
                    line: line_of(node),
                })));
            }
            "break_statement" | "continue_statement" => {
                let label = node
                    .child_by_field_name("label")
                    .map(|l| self.text(l).to_string());
                out.push(if node.kind() == "break_statement" {
                    Stmt::Break(label)
                } else {
                    Stmt::Continue(label)
                });
            }
            "while_statement" | "do_statement" => {
                let mut body = Vec::new();
                if let Some(init) = node.field(F::Initializer) {
                    self.stmt_into(init, &mut body);
                }
                let text = node
                    .field(F::Condition)
                    .map(|c| self.short_text(c))
                    .unwrap_or_default();
                let test = node
                    .field(F::Condition)
                    .map(|c| self.expr(c))
                    .unwrap_or(Expr::Opaque(line_of(node)));
                body.extend(self.block(node.field(F::Body)));
                out.push(Stmt::While(Box::new(WhileStmt {
                    test,
                    body,
                    body_first: node.kind() == "do_statement",
                    text,
                    line: line_of(node),
                })));
            }
            "statement_block" => out.push(Stmt::Block(self.stmts_of(node))),
            "labeled_statement" => {
                let label = node
                    .child_by_field_name("label")
                    .map(|l| self.text(l).to_string())
                    .unwrap_or_default();
                if let Some(b) = node.field(F::Body) {
                    let mut inner = Vec::new();
                    self.stmt_into(b, &mut inner);
                    for st in inner {
                        out.push(Stmt::Labeled(label.clone(), Box::new(st)));
                    }
                }
            }
            "try_statement" => {
                let body = self.block(node.field(F::Body));
                let (param, handler) = match node.field(F::Handler) {
                    Some(h) => (
                        h.field(F::Parameter)
                            .map_or(Catch::Unbound, |p| Catch::Bound(self.pattern(p))),
                        self.block(h.field(F::Body)),
                    ),
                    None => (Catch::Absent, Vec::new()),
                };
                let fin = node
                    .field(F::Finalizer)
                    .map(|f| self.block(f.field(F::Body)))
                    .unwrap_or_default();
                out.push(Stmt::Try(body, param, handler, fin));
            }
            "switch_statement" => {
                let disc = node
                    .field(F::Value)
                    .map(|v| self.expr(v))
                    .unwrap_or(Expr::Opaque(line_of(node)));
                let mut cases = Vec::new();
                if let Some(body) = node.field(F::Body) {
                    for case in Self::named_children(body) {
                        let mut stmts = Vec::new();
                        let mut exits = false;
                        let mut cur = case.walk();
                        for s in case.children_by_field_name("body", &mut cur) {
                            exits = matches!(
                                s.kind(),
                                "break_statement" | "return_statement" | "throw_statement"
                            ) || (s.kind() == "statement_block"
                                && Self::named_children(s).last().is_some_and(|l| {
                                    matches!(
                                        l.kind(),
                                        "break_statement" | "return_statement" | "throw_statement"
                                    )
                                }));
                            self.stmt_into(s, &mut stmts);
                        }
                        let test = (case.kind() == "switch_case")
                            .then(|| case.field(F::Value).map(|v| self.expr(v)))
                            .flatten();
                        cases.push(SwitchCase {
                            test,
                            body: stmts,
                            exits,
                        });
                    }
                }
                out.push(Stmt::Switch(disc, cases));
            }
            "import_statement" => {
                if let Some(req) = self.import_require(node) {
                    out.push(req);
                } else if let Some(imp) = self.import(node) {
                    out.push(Stmt::Import(imp));
                }
            }
            "export_statement" => self.export(node, out),
            "enum_declaration" => {
                let name = node
                    .field(F::Name)
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let mut members = Vec::new();
                if let Some(body) = node.field(F::Body) {
                    for m in Self::named_children(body) {
                        match m.kind() {
                            "enum_assignment" => {
                                let key = m
                                    .field(F::Name)
                                    .map(|n| self.key_text(n))
                                    .unwrap_or_default();
                                let val = m.field(F::Value).map(|v| self.expr(v));
                                members.push((key, val));
                            }
                            _ => members.push((self.key_text(m), None)),
                        }
                    }
                }
                out.push(Stmt::Enum(name, members));
            }
            "interface_declaration" => {
                let name = node
                    .field(F::Name)
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let body = node
                    .field(F::Body)
                    .map(|b| self.object_type(b))
                    .unwrap_or(TypeExpr::Other);
                out.push(Stmt::TypeDecl(name, body));
            }
            "type_alias_declaration" => {
                let name = node
                    .field(F::Name)
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let value = node
                    .field(F::Value)
                    .map(|v| self.type_expr(v))
                    .unwrap_or(TypeExpr::Other);
                out.push(Stmt::TypeDecl(name, value));
            }
            "ERROR" => {
                // Keep whatever complete statements tree-sitter recovered inside.
                for c in Self::named_children(node) {
                    if c.kind().ends_with("statement") || c.kind().ends_with("declaration") {
                        self.stmt_into(c, out);
                    }
                }
            }
            "ambient_declaration" | "module" | "internal_module" => {
                // `declare ...` / `namespace X { }`: namespaces may hold code.
                if let Some(body) = node.field(F::Body) {
                    out.extend(self.stmts_of(body));
                }
            }
            _ => {}
        }
    }

    pub(crate) fn var_decl(&mut self, node: Node, doc: Option<String>) -> Stmt {
        let mut decls = Vec::new();
        for d in Self::named_children(node) {
            if d.kind() != "variable_declarator" {
                continue;
            }
            let pat = d
                .field(F::Name)
                .map(|n| self.pattern(n))
                .unwrap_or(Pattern::Ignored);
            let mut value = d.field(F::Value).map(|v| self.expr(v));
            // `const note: CreateNote = req.body`, `const h: RequestHandler<P, R, B> = ...`,
            // or the same in JSDoc: `/** @type {CreateNote} */ const note = req.body`.
            let declared = d
                .field(F::Type)
                .and_then(|t| Self::named_children(t).first().copied())
                .map(|t| self.type_expr(t))
                .or_else(|| doc.as_deref().and_then(jsdoc_tag_type));
            if let Some(t) = declared
                && let Some(v) = value.take()
            {
                value = Some(match (v, &t) {
                    (Expr::Func(mut f), TypeExpr::Ref(name, args))
                        if name.rsplit('.').next() == Some("RequestHandler") =>
                    {
                        // The handler's `req` is `Request<same arguments>`.
                        if let Some(fm) = Arc::get_mut(&mut f)
                            && fm.param_types.first().is_some_and(|p| p.is_none())
                        {
                            fm.param_types[0] = Some(TypeExpr::Ref("Request".into(), args.clone()));
                        }
                        Expr::Func(f)
                    }
                    (v @ (Expr::Member(..) | Expr::Ident(_)), _) => Expr::Typed(Box::new(v), t),
                    (v, _) => v,
                });
            }
            if let Some(v) = value.as_mut() {
                match v {
                    Expr::Func(f) if f.doc.is_none() => {
                        if let Some(f) = Arc::get_mut(f) {
                            f.doc = doc.clone()
                        }
                    }
                    Expr::Call(c) => attach_doc(c, doc.clone().unwrap_or_default()),
                    _ => {}
                }
            }
            if let (Pattern::Ident(name), Some(Expr::Func(f))) = (&pat, value.as_mut())
                && f.name.is_none()
                && let Some(f) = Arc::get_mut(f)
            {
                f.name = Some(name.clone());
            }
            // `const send = useCallback((event, data) => ...)`: the callback is `send`.
            if let (Pattern::Ident(name), Some(Expr::Call(c))) = (&pat, value.as_mut())
                && (matches!(&c.callee, Expr::Ident(n) if n == "useCallback")
                    || matches!(&c.callee, Expr::Member(_, n) if n == "useCallback"))
                && let Some(Expr::Func(f)) = c.args.first_mut()
                && f.name.is_none()
                && let Some(f) = Arc::get_mut(f)
            {
                f.name = Some(name.clone());
            }
            decls.push((pat, value));
        }
        Stmt::Var(decls)
    }

    /// TS `import x = require('m')` is CommonJS: `const x = require('m')`,
    /// run in place (for an ES module, `x` is its namespace). `import type x =
    /// require('m')` binds a type only and stays an import.
    fn import_require(&mut self, node: Node) -> Option<Stmt> {
        let clause = Self::named_children(node)
            .into_iter()
            .find(|c| c.kind() == "import_require_clause")?;
        let mut cur = node.walk();
        if node.children(&mut cur).any(|c| c.kind() == "type") {
            return None;
        }
        let name = self
            .text(*Self::named_children(clause).first()?)
            .to_string();
        let spec = self.string(clause.field(F::Source)?);
        if self.fn_stack.is_empty() {
            self.top_requires.push(spec.clone());
        }
        let call = Expr::Call(Box::new(Call {
            callee: Expr::Ident("require".into()),
            args: vec![Expr::Str(spec)],
            line: line_of(node),
            type_args: Vec::new(),
            doc: None,
        }));
        Some(Stmt::Var(vec![(Pattern::Ident(name), Some(call))]))
    }

    pub(crate) fn import(&mut self, node: Node) -> Option<Import> {
        let source = node
            .field(F::Source)
            .map(|s| self.string(s))
            .unwrap_or_default();
        let mut imp = Import {
            source,
            default: None,
            namespace: None,
            named: Vec::new(),
            line: line_of(node),
            type_only: false,
        };
        let mut typed_names = 0;
        // `import type { X } from` binds nothing at run time; the names are still
        // bound (lazily) so declared types can describe request bodies.
        for c in Self::named_children(node) {
            match c.kind() {
                "import_clause" => {
                    for part in Self::named_children(c) {
                        match part.kind() {
                            "identifier" => imp.default = Some(self.text(part).to_string()),
                            "namespace_import" => {
                                imp.namespace = Self::named_children(part)
                                    .first()
                                    .map(|n| self.text(*n).to_string());
                            }
                            "named_imports" => {
                                for spec in Self::named_children(part) {
                                    if spec.kind() != "import_specifier" {
                                        continue;
                                    }
                                    let name = spec
                                        .field(F::Name)
                                        .map(|n| self.key_text(n))
                                        .unwrap_or_default();
                                    let alias = spec
                                        .field(F::Alias)
                                        .map(|n| self.text(n).to_string())
                                        .unwrap_or_else(|| name.clone());
                                    if Self::has_token(spec, "type") {
                                        typed_names += 1;
                                    }
                                    imp.named.push((name, alias));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "import_require_clause" => {
                    // TS `import x = require('y')`.
                    if let Some(id) = Self::named_children(c).first() {
                        imp.default = Some(self.text(*id).to_string());
                    }
                    if let Some(s) = c.field(F::Source) {
                        imp.source = self.string(s);
                    }
                }
                _ => {}
            }
        }
        imp.type_only = Self::has_token(node, "type")
            || (typed_names > 0
                && typed_names == imp.named.len()
                && imp.default.is_none()
                && imp.namespace.is_none());
        Some(imp)
    }

    /// Whether `node` has an anonymous child token `kw` (`import type`, `{ type X }`).
    fn has_token(node: Node, kw: &str) -> bool {
        (0..node.child_count())
            .filter_map(|i| node.child(i as _))
            .any(|c| !c.is_named() && c.kind() == kw)
    }

    pub(crate) fn export(&mut self, node: Node, out: &mut Vec<Stmt>) {
        let line = line_of(node);
        let source = node.field(F::Source).map(|s| self.string(s));
        let mut cur = node.walk();
        let is_default = node.children(&mut cur).any(|c| c.kind() == "default");
        if let Some(decl) = node.field(F::Declaration) {
            let mut inner = Vec::new();
            let doc = self.doc_before(node);
            self.stmt_into(decl, &mut inner);
            for mut s in inner {
                if let (Some(d), Stmt::Function(_, f)) = (&doc, &mut s)
                    && f.doc.is_none()
                    && let Some(f) = Arc::get_mut(f)
                {
                    f.doc = Some(d.clone());
                }
                let names = bound_names(&s);
                if is_default {
                    // `export default function name() {}`: a local binding
                    // exported as `default` only.
                    out.push(s);
                    if let Some(n) = names.first() {
                        out.push(Stmt::ExportDefault(Expr::Ident(n.clone())));
                    }
                } else {
                    out.push(Stmt::ExportDecl(Box::new(s), names));
                }
            }
            return;
        }
        if is_default {
            if let Some(v) = node.field(F::Value) {
                let e = self.expr(v);
                out.push(Stmt::ExportDefault(e));
            }
            return;
        }
        for c in Self::named_children(node) {
            match c.kind() {
                "export_clause" => {
                    let mut names = Vec::new();
                    for spec in Self::named_children(c) {
                        if spec.kind() != "export_specifier" {
                            continue;
                        }
                        let name = spec
                            .field(F::Name)
                            .map(|n| self.key_text(n))
                            .unwrap_or_default();
                        let alias = spec
                            .field(F::Alias)
                            .map(|n| self.key_text(n))
                            .unwrap_or_else(|| name.clone());
                        names.push((name, alias));
                    }
                    out.push(Stmt::ExportNames(names, source.clone(), line));
                    return;
                }
                "namespace_export" => {
                    let alias = Self::named_children(c).first().map(|n| self.key_text(*n));
                    if let Some(src) = source.clone() {
                        out.push(Stmt::ExportAll(src, alias, line));
                    }
                    return;
                }
                _ => {}
            }
        }
        // `export * from 'x'` has neither clause nor namespace node.
        if let Some(src) = source {
            out.push(Stmt::ExportAll(src, None, line));
        } else if let Some(first) = Self::named_children(node).first() {
            // TS `export = expr` is CommonJS: `module.exports = expr`.
            let e = self.expr(*first);
            let target = Expr::Member(Box::new(Expr::Ident("module".into())), "exports".into());
            out.push(Stmt::Expr(Expr::Assign(
                Box::new(Pattern::Target(Box::new(target))),
                Box::new(e),
            )));
        }
    }
}
