//! Lowering a tree-sitter CST to the IR: the `Lowerer` (its state and the
//! helpers every part uses), one file per part of the language.
//!
//! Deliberately not here: choosing the grammar and retrying a failed parse
//! (`syntax/mod.rs`, `syntax/recover.rs`).

mod class;
mod expr;
mod pattern;
mod stmt;
mod types;

use super::*;

pub(crate) struct Lowerer<'s> {
    pub(crate) src: &'s [u8],
    pub(crate) next_fn: u32,
    pub(crate) depth: u32,
    pub(crate) too_deep: Vec<u32>,
    /// Identifiers read at the top level, outside any function.
    pub(crate) top_idents: std::collections::HashSet<String>,
    /// `require('literal')` specifiers called at the top level.
    pub(crate) top_requires: Vec<String>,
    /// `require('literal')` and `import('literal')` specifiers anywhere.
    pub(crate) literal_requires: Vec<String>,
    /// Ids of the functions around the node being lowered (innermost last).
    pub(crate) fn_stack: Vec<u32>,
    /// The function each nested function is in, by id.
    pub(crate) fn_parent: HashMap<u32, u32>,
    /// Identifiers read inside functions, with the innermost functions reading them.
    pub(crate) ident_fns: HashMap<String, Vec<u32>>,
    /// Names a `var` inside a nested block declares, per function being
    /// lowered (the program's first): `var` is function-scoped, so the
    /// declaration is hoisted to the function's body (see
    /// [`Lowerer::hoist_vars`]).
    pub(crate) nested_vars: Vec<Vec<String>>,
    /// The TypeScript parameter properties of the constructor lowered last
    /// (name, parameter index), for its class (see [`Class::param_props`]).
    pub(crate) param_props: Vec<(String, usize)>,
}

impl<'s> Lowerer<'s> {
    pub(crate) fn text(&self, node: Node) -> &'s str {
        std::str::from_utf8(&self.src[node.byte_range()]).unwrap_or("")
    }

    pub(crate) fn short_text(&self, node: Node) -> String {
        let t = self.text(node);
        let t: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
        if t.chars().count() > 160 {
            let mut s: String = t.chars().take(157).collect();
            s.push_str("...");
            s
        } else {
            t
        }
    }

    pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
        let mut cur = node.walk();
        node.named_children(&mut cur)
            .filter(|c| c.kind() != "comment")
            .collect()
    }

    /// The JSDoc comment directly preceding `node` (skipping nothing else).
    pub(crate) fn doc_before(&self, node: Node) -> Option<String> {
        // A doc comment right before the node ends with `*/` after at most
        // whitespace. Looking at the bytes first spares `prev_sibling`, which
        // walks the parent's children from the first (quadratic over a long
        // block); other whitespace than ASCII takes the full look.
        let before = &self.src[..node.start_byte().min(self.src.len())];
        let end = before
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0B' | b'\x0C'))
            .map_or(0, |i| i + 1);
        if !before[..end].ends_with(b"*/")
            && before.get(end.wrapping_sub(1)).is_none_or(|b| b.is_ascii())
        {
            return None;
        }
        let prev = node.prev_sibling()?;
        if prev.kind() != "comment" {
            return None;
        }
        let t = self.text(prev);
        if !t.starts_with("/**") {
            return None;
        }
        // Only when the comment ends on the line just before (or the same line).
        if prev.end_position().row + 1 < node.start_position().row {
            return None;
        }
        Some(t.to_string())
    }

    pub(crate) fn stmts_of(&mut self, node: Node) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut cur = node.walk();
        for child in node.named_children(&mut cur) {
            if child.kind() == "comment" {
                // `/** @typedef {object} Name  @property {T} field */` declares a type.
                let text = self.text(child);
                if text.starts_with("/**") && text.contains("@typedef") {
                    out.extend(jsdoc_typedefs(text));
                }
                continue;
            }
            self.stmt_into(child, &mut out);
        }
        out
    }

    pub(crate) fn block(&mut self, node: Option<Node>) -> Vec<Stmt> {
        match node {
            None => Vec::new(),
            Some(n) if n.kind() == "statement_block" => self.stmts_of(n),
            Some(n) => {
                let mut out = Vec::new();
                self.stmt_into(n, &mut out);
                out
            }
        }
    }

    pub(crate) fn enter(&mut self, node: Node) -> bool {
        if self.depth >= MAX_DEPTH {
            if self.too_deep.len() < 3 {
                self.too_deep.push(line_of(node));
            }
            return false;
        }
        self.depth += 1;
        true
    }

    pub(crate) fn stmt_into(&mut self, node: Node, out: &mut Vec<Stmt>) {
        if !self.enter(node) {
            return;
        }
        self.stmt_inner(node, out);
        self.depth -= 1;
    }
}

pub(crate) fn attach_doc(call: &mut Call, doc: String) {
    if doc.is_empty() {
        return;
    }
    call.doc = Some(doc.clone());
    // A chain `router.get(...).post(...)`: the doc belongs to the first link too.
    if let Expr::Member(obj, _) = &mut call.callee
        && let Expr::Call(inner) = obj.as_mut()
        && inner.doc.is_none()
    {
        attach_doc(inner, doc);
    }
}

pub(crate) fn is_type_node(kind: &str) -> bool {
    kind.ends_with("_type")
        || matches!(
            kind,
            "type_identifier" | "predefined_type" | "type_arguments" | "generic_type"
        )
}

/// Names a declaration statement binds (for `export <decl>`).
pub(crate) fn bound_names(stmt: &Stmt) -> Vec<String> {
    fn pat_names(p: &Pattern, out: &mut Vec<String>) {
        match p {
            Pattern::Ident(n) => out.push(n.clone()),
            Pattern::Object(props, rest) => {
                for (_, p) in props {
                    pat_names(p, out);
                }
                if let Some(r) = rest {
                    pat_names(r, out);
                }
            }
            Pattern::Array(items, rest) => {
                for p in items.iter().flatten() {
                    pat_names(p, out);
                }
                if let Some(r) = rest {
                    pat_names(r, out);
                }
            }
            Pattern::Default(p, _) => pat_names(p, out),
            Pattern::Target(_) | Pattern::Ignored => {}
        }
    }
    let mut out = Vec::new();
    match stmt {
        Stmt::Var(decls) => {
            for (p, _) in decls {
                pat_names(p, &mut out);
            }
        }
        Stmt::Function(n, _) | Stmt::Class(n, _) | Stmt::Enum(n, _) | Stmt::TypeDecl(n, _) => {
            out.push(n.clone())
        }
        _ => {}
    }
    out
}

/// Decode JS string escapes (`\n`, `\\`, `\'`, `\u{...}`, `\xNN`, line continuations).
pub(crate) fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('0') => out.push('\0'),
            Some('\n') => {}
            Some('\r') if chars.peek() == Some(&'\n') => {
                chars.next();
            }
            Some('\r') => {}
            Some('x') => {
                let h: String = chars.by_ref().take(2).collect();
                if let Some(ch) = u32::from_str_radix(&h, 16).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some('u') => {
                let code = if chars.peek() == Some(&'{') {
                    chars.next();
                    let h: String = chars.by_ref().take_while(|c| *c != '}').collect();
                    u32::from_str_radix(&h, 16).ok()
                } else {
                    let h: String = chars.by_ref().take(4).collect();
                    u32::from_str_radix(&h, 16).ok()
                };
                if let Some(ch) = code.and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

impl Lowerer<'_> {
    /// Whether a `var` declaration sits in a nested block of its function or
    /// program (an `if`, `try`, loop body, `case` or plain block), not
    /// directly in the body and not in a `for` head.
    pub(crate) fn var_is_nested(node: Node) -> bool {
        let Some(parent) = node.parent() else {
            return false;
        };
        match parent.kind() {
            "program" | "export_statement" | "for_statement" | "for_in_statement" => false,
            "statement_block" => parent.parent().is_some_and(|g| {
                !matches!(
                    g.kind(),
                    "function_declaration"
                        | "function_expression"
                        | "function"
                        | "arrow_function"
                        | "method_definition"
                        | "generator_function_declaration"
                        | "generator_function"
                        | "class_static_block"
                )
            }),
            _ => true,
        }
    }

    /// A `var` in a nested block: the names it declares go to the function's
    /// hoisted declaration, and each declarator with an initialiser becomes an
    /// assignment where it stands (`if (a) { var r = x }` assigns the
    /// function's `r`, which the code after the block reads).
    pub(crate) fn nested_var(&mut self, decl: Stmt, out: &mut Vec<Stmt>) {
        for n in bound_names(&decl) {
            if let Some(names) = self.nested_vars.last_mut()
                && !names.contains(&n)
            {
                names.push(n);
            }
        }
        let Stmt::Var(decls) = decl else {
            out.push(decl);
            return;
        };
        for (pat, init) in decls {
            if let Some(e) = init {
                out.push(Stmt::Expr(Expr::Assign(Box::new(pat), Box::new(e))));
            }
        }
    }

    /// Put the declaration of the nested `var`s at the start of a function's
    /// (or the program's) body, as JavaScript hoists them: every name not
    /// already bound there by a parameter or a declaration of the body itself.
    pub(crate) fn hoist_vars(names: Vec<String>, params: &[Pattern], body: &mut Vec<Stmt>) {
        if names.is_empty() {
            return;
        }
        let mut bound = bound_names(&Stmt::Var(
            params.iter().map(|p| (p.clone(), None)).collect(),
        ));
        for s in body.iter().filter(|s| !matches!(s, Stmt::TypeDecl(..))) {
            bound.extend(bound_names(s));
        }
        let decls: Vec<(Pattern, Option<Expr>)> = names
            .into_iter()
            .filter(|n| !bound.contains(n))
            .map(|n| (Pattern::Ident(n), None))
            .collect();
        if !decls.is_empty() {
            body.insert(0, Stmt::Var(decls));
        }
    }
}
