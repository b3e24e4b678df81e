//! Syntax stage: parse one file with tree-sitter and lower its CST to [`FileFacts`].
//!
//! Detects: every statement and expression shape listed in [`crate::ir`].
//! Example: `router\n  .get('/x', h)` lowers to a `Call` whose callee is
//! `Member(Ident("router"), "get")` on the line of `get`.
//! Misses on purpose: JSX and arithmetic (lowered to `Opaque`), decorators
//! other than on classes, their members and method parameters, TypeScript
//! types beyond the subset in [`TypeExpr`].
//!
//! The resolver interprets code (factories, loops, registration functions),
//! so this stage lowers whole files instead of running capture queries; the
//! grammar choice per extension is the only configuration.

mod recover;

use crate::ir::*;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use tree_sitter::{Language, Node, Parser};

/// Which grammar a file needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    JavaScript,
    TypeScript,
    Tsx,
}

impl Grammar {
    pub(crate) fn for_path(path: &str) -> Option<Grammar> {
        let ext = path.rsplit('.').next()?;
        match ext {
            "js" | "mjs" | "cjs" | "jsx" => Some(Grammar::JavaScript),
            "ts" | "mts" | "cts" => {
                if path.ends_with(".d.ts") || path.ends_with(".d.mts") || path.ends_with(".d.cts") {
                    None
                } else {
                    Some(Grammar::TypeScript)
                }
            }
            "tsx" => Some(Grammar::Tsx),
            // Markup with inline `<script>` blocks (see [`markup_scripts`]).
            "html" | "htm" | "vue" | "svelte" | "hbs" | "handlebars" | "ejs" => {
                Some(Grammar::JavaScript)
            }
            _ => None,
        }
    }

    /// Whether files with this path are markup whose scripts are analyzed.
    pub(crate) fn is_markup(path: &str) -> bool {
        matches!(
            path.rsplit('.').next(),
            Some("html" | "htm" | "vue" | "svelte" | "hbs" | "handlebars" | "ejs")
        )
    }

    fn language(self) -> Language {
        match self {
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }
}

/// The grammar fields the lowering reads. Looking a field up by name costs a
/// linear scan of the grammar's field names on every call; ids are looked up
/// once per grammar.
#[derive(Clone, Copy)]
enum F {
    Alias,
    Alternative,
    Argument,
    Arguments,
    Body,
    Condition,
    Consequence,
    Constructor,
    Declaration,
    Finalizer,
    Function,
    Handler,
    Index,
    Initializer,
    Key,
    Left,
    Name,
    Object,
    Operator,
    Parameter,
    Parameters,
    Pattern,
    Property,
    Right,
    Source,
    Type,
    TypeArguments,
    Value,
}

const FIELD_NAMES: [&str; 28] = [
    "alias",
    "alternative",
    "argument",
    "arguments",
    "body",
    "condition",
    "consequence",
    "constructor",
    "declaration",
    "finalizer",
    "function",
    "handler",
    "index",
    "initializer",
    "key",
    "left",
    "name",
    "object",
    "operator",
    "parameter",
    "parameters",
    "pattern",
    "property",
    "right",
    "source",
    "type",
    "type_arguments",
    "value",
];

/// Field ids of one grammar, by [`F`] (0: the grammar has no such field).
struct FieldIds([u16; 28]);

impl FieldIds {
    fn of(language: &Language) -> FieldIds {
        let mut ids = [0u16; 28];
        for (i, n) in FIELD_NAMES.iter().enumerate() {
            ids[i] = language.field_id_for_name(n).map_or(0, |id| id.get());
        }
        FieldIds(ids)
    }

    fn get(g: Grammar) -> &'static FieldIds {
        static TABLES: [OnceLock<FieldIds>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let i = match g {
            Grammar::JavaScript => 0,
            Grammar::TypeScript => 1,
            Grammar::Tsx => 2,
        };
        TABLES[i].get_or_init(|| FieldIds::of(&g.language()))
    }
}

thread_local! {
    /// The field ids of the grammar being lowered on this thread.
    static FIELDS: std::cell::Cell<&'static FieldIds> = std::cell::Cell::new(FieldIds::get(Grammar::JavaScript));
}

/// `node.field(F::Name)`: the child in that field, by id.
trait FieldExt<'t> {
    fn field(&self, f: F) -> Option<Node<'t>>;
}

impl<'t> FieldExt<'t> for Node<'t> {
    fn field(&self, f: F) -> Option<Node<'t>> {
        let id = FIELDS.with(|t| t.get().0[f as usize]);
        if id == 0 {
            return None;
        }
        self.child_by_field_id(id)
    }
}

/// CPU time spent in tree-sitter and in lowering, over all threads (for `--timings`).
pub(crate) static PARSE_NS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
pub(crate) static LOWER_NS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Per-worker parsers, one per grammar.
pub(crate) struct SyntaxContext {
    js: Parser,
    ts: Parser,
    tsx: Parser,
}

impl SyntaxContext {
    pub(crate) fn new() -> SyntaxContext {
        let make = |g: Grammar| {
            let mut p = Parser::new();
            // The grammars are compiled in; an ABI mismatch is a build defect.
            p.set_language(&g.language())
                .expect("grammar ABI is compatible");
            p
        };
        SyntaxContext {
            js: make(Grammar::JavaScript),
            ts: make(Grammar::TypeScript),
            tsx: make(Grammar::Tsx),
        }
    }

    /// Parse and lower one file.
    pub(crate) fn lower(&mut self, grammar: Grammar, src: &[u8]) -> FileFacts {
        FIELDS.with(|t| t.set(FieldIds::get(grammar)));
        let parser = match grammar {
            Grammar::JavaScript => &mut self.js,
            Grammar::TypeScript => &mut self.ts,
            Grammar::Tsx => &mut self.tsx,
        };
        // A NUL byte inside a string is valid JavaScript, but the grammars read it
        // as the end of input; parse a copy where it is another control byte
        // (same length, so positions hold).
        let patched;
        let src = if memchr::memchr(0, src).is_some() {
            patched = src
                .iter()
                .map(|&b| if b == 0 { 1 } else { b })
                .collect::<Vec<u8>>();
            &patched[..]
        } else {
            src
        };
        // A UTF-8 byte order mark is not code (Node skips it); blank it.
        let unmarked;
        let src = if src.starts_with(b"\xEF\xBB\xBF") {
            let mut copy = src.to_vec();
            copy[..3].copy_from_slice(b"   ");
            unmarked = copy;
            &unmarked[..]
        } else {
            src
        };
        // Merge-conflict markers: keep the checked-out side (see `recover`).
        let resolved;
        let mut notes = Vec::new();
        let src = match recover::resolve_conflicts(src) {
            Some(r) => {
                resolved = r.src;
                notes = r.notes;
                &resolved[..]
            }
            None => src,
        };
        let started = std::time::Instant::now();
        let Some(tree) = parser.parse(src, None) else {
            return FileFacts {
                parse_errors: vec![(1, "the parser gave up on this file".into())],
                ..FileFacts::default()
            };
        };
        // JSX text may hold a bare `&` (`Voice & Style`), which the grammars
        // reject; when a file has errors, try again with such `&` as `+`
        // (a binary operator in code, plain text in JSX) and keep the better parse.
        let mut tree = tree;
        let patched_amp;
        let mut src = src;
        if tree.root_node().has_error() && memchr::memchr(b'&', src).is_some() {
            let mut copy = src.to_vec();
            for i in 0..copy.len() {
                if copy[i] != b'&' {
                    continue;
                }
                let next = copy.get(i + 1).copied().unwrap_or(b' ');
                let prev = if i > 0 { copy[i - 1] } else { b' ' };
                if prev == b'&' || matches!(next, b'&' | b'=') {
                    continue;
                }
                // `&amp;`, `&#39;`: a character reference stays.
                let entity_len = copy[i + 1..]
                    .iter()
                    .take(32)
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'#')
                    .count();
                let is_entity = entity_len > 0 && copy.get(i + 1 + entity_len) == Some(&b';');
                if !is_entity {
                    copy[i] = b'+';
                }
            }
            if let Some(t2) = better_parse(parser, &tree, &copy) {
                tree = t2;
                patched_amp = copy;
                src = &patched_amp[..];
            }
        }
        // `import x from './y'` with no `;`, then a line starting with `(`:
        // valid (the next token cannot continue the import), but the grammars
        // read on; end such import/export-from lines with `;` and keep the
        // better parse (line numbers do not move).
        let patched_semi;
        if tree.root_node().has_error() {
            let copy = end_module_lines(src);
            if copy.len() != src.len()
                && let Some(t2) = better_parse(parser, &tree, &copy)
            {
                tree = t2;
                patched_semi = copy;
                src = &patched_semi[..];
            }
        }
        // Flow-typed JavaScript (with `// @flow` or Babel's flow preset for
        // every file): its annotations are mostly TypeScript's syntax; keep
        // the TSX grammar's parse when it is better.
        let flowless;
        let mut flow = false;
        if tree.root_node().has_error() && grammar == Grammar::JavaScript {
            let copy = flow_to_ts(src);
            if let Some(t2) = better_parse(&mut self.tsx, &tree, &copy) {
                tree = t2;
                FIELDS.with(|t| t.set(FieldIds::get(Grammar::Tsx)));
                flowless = copy;
                src = &flowless[..];
                flow = true;
            }
        }
        // A block left open swallows the rest of the file: close it where
        // the indentation says it ends (see `recover`).
        let closed;
        if tree.root_node().has_error()
            && let Some(recover::Repair {
                src: copy,
                notes: n,
            }) = recover::close_blocks(tree.root_node(), src)
        {
            let p = match (flow, grammar) {
                (true, _) | (_, Grammar::Tsx) => &mut self.tsx,
                (false, Grammar::JavaScript) => &mut self.js,
                (false, Grammar::TypeScript) => &mut self.ts,
            };
            if let Some(t2) = better_parse(p, &tree, &copy) {
                tree = t2;
                closed = copy;
                src = &closed[..];
                notes.extend(n);
            }
        }
        let parsed = std::time::Instant::now();
        PARSE_NS.fetch_add(
            (parsed - started).as_nanos() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        let root = tree.root_node();
        let mut low = Lowerer {
            src,
            next_fn: 0,
            depth: 0,
            too_deep: Vec::new(),
            top_idents: Default::default(),
            top_requires: Vec::new(),
            fn_stack: Vec::new(),
            fn_parent: HashMap::new(),
            ident_fns: HashMap::new(),
        };
        let body = low.stmts_of(root);
        let mut parse_errors = notes;
        if root.has_error() {
            collect_errors(root, src, &mut parse_errors);
        }
        parse_errors.sort();
        LOWER_NS.fetch_add(
            parsed.elapsed().as_nanos() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        // The modules running this file's top level loads at once: imports
        // it reads there and the files it requires there.
        let mut eager: Vec<String> = Vec::new();
        for st in &body {
            if let Stmt::Import(imp) = st {
                let used = imp
                    .default
                    .iter()
                    .chain(&imp.namespace)
                    .any(|n| low.top_idents.contains(n))
                    || imp
                        .named
                        .iter()
                        .any(|(_, local)| low.top_idents.contains(local));
                if used && !eager.contains(&imp.source) {
                    eager.push(imp.source.clone());
                }
            }
        }
        for r in std::mem::take(&mut low.top_requires) {
            if !eager.contains(&r) {
                eager.push(r);
            }
        }
        // Per function, the imports it (or a function inside it) reads.
        let mut locals: Vec<(&str, &str)> = Vec::new();
        for st in &body {
            if let Stmt::Import(imp) = st {
                for n in imp.default.iter().chain(&imp.namespace) {
                    locals.push((n, &imp.source));
                }
                for (_, n) in &imp.named {
                    locals.push((n, &imp.source));
                }
            }
        }
        // A function reads what the functions inside it read (callbacks run too).
        let mut by_fn: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
        for (local, src) in &locals {
            for &inner in low.ident_fns.get(*local).map_or(&[][..], Vec::as_slice) {
                let mut at = Some(inner);
                while let Some(id) = at {
                    let srcs = by_fn.entry(id).or_default();
                    if srcs.iter().any(|s| s == src) {
                        break; // this function and those around it have it already
                    }
                    srcs.push(src.to_string());
                    at = low.fn_parent.get(&id).copied();
                }
            }
        }
        let fn_imports: Vec<(u32, Vec<String>)> = by_fn.into_iter().collect();
        let mut facts = FileFacts {
            body,
            parse_errors,
            eager,
            fn_imports,
            too_deep: low.too_deep,
            functions: low.next_fn,
            census: Vec::new(),
        };
        facts.census = crate::census::collect(&facts);
        facts
    }
}

/// A parse of `copy` (a patched source) when it has fewer syntax errors than `tree`.
fn better_parse(
    parser: &mut Parser,
    tree: &tree_sitter::Tree,
    copy: &[u8],
) -> Option<tree_sitter::Tree> {
    let count = |t: &tree_sitter::Tree| {
        let mut v = Vec::new();
        collect_errors(t.root_node(), b"", &mut v);
        v.len()
    };
    let t2 = parser.parse(copy, None)?;
    (count(&t2) < count(tree)).then_some(t2)
}

/// Flow-only type syntax rewritten to TypeScript's, byte for byte (lines and
/// offsets hold): maybe types `?T` (after `:` or `<`) lose the `?`, exact
/// objects `{| … |}` become `{ … }`. Only used for a second parse of a file
/// the JavaScript grammar fails on.
fn flow_to_ts(src: &[u8]) -> Vec<u8> {
    let mut out = src.to_vec();
    let n = out.len();
    for i in 0..n {
        match out[i] {
            b'?' => {
                let mut j = i;
                while j > 0 && matches!(out[j - 1], b' ' | b'\t') {
                    j -= 1;
                }
                let after = src.get(i + 1).copied().unwrap_or(b' ');
                let before = if j > 0 { out[j - 1] } else { b' ' };
                if matches!(before, b':' | b'<' | b',' | b'|')
                    && (after.is_ascii_alphabetic()
                        || matches!(after, b'{' | b'(' | b'[' | b'$' | b'_'))
                {
                    out[i] = b' ';
                }
            }
            b'|' if i > 0 && out[i - 1] == b'{' && src.get(i + 1) != Some(&b'|') => out[i] = b' ',
            b'|' if src.get(i + 1) == Some(&b'}') && (i == 0 || src[i - 1] != b'|') => {
                out[i] = b' '
            }
            _ => {}
        }
    }
    out
}

/// The source with `;` after every line that is a whole `import … from '…'`,
/// `import '…'` or `export … from '…'` without one.
fn end_module_lines(src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len() + 64);
    for line in src.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let t = body.trim_ascii();
        let module_line = (t.starts_with(b"import ") || t.starts_with(b"export "))
            && matches!(t.last(), Some(b'\'' | b'"'))
            && (t.windows(6).any(|w| w == b" from ")
                || t.starts_with(b"import '")
                || t.starts_with(b"import \""));
        if module_line {
            out.extend_from_slice(body);
            out.push(b';');
            out.extend_from_slice(&line[body.len()..]);
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// Up to three syntax errors under `node`, with messages (`src`: the parsed
/// source, to tell blank lines; empty when only counting).
fn collect_errors(node: Node, src: &[u8], out: &mut Vec<(u32, String)>) {
    if out.len() >= 3 {
        return;
    }
    if node.is_error() {
        let (line, message) = recover::skipped(node, src);
        out.push((line, message));
        return;
    }
    if node.is_missing() {
        let line = line_of(node);
        let message = match node.parent().filter(|_| node.kind() == "}") {
            Some(block) => format!(
                "missing `}}` at line {line}: the block opened at line {} never closes, so lines {}–{line} were read as inside it (code there only runs when that block does)",
                line_of(block),
                line_of(block)
            ),
            None => format!(
                "missing `{}` at line {line}; read as if it were there",
                node.kind()
            ),
        };
        out.push((line, message));
        return;
    }
    if !node.has_error() {
        return;
    }
    let mut cur = node.walk();
    for child in node.children(&mut cur) {
        collect_errors(child, src, out);
    }
}

fn line_of(node: Node) -> u32 {
    node.start_position().row as u32 + 1
}

/// Nesting beyond this is reported rather than lowered (keeps recursion bounded).
const MAX_DEPTH: u32 = 200;

struct Lowerer<'s> {
    src: &'s [u8],
    next_fn: u32,
    depth: u32,
    too_deep: Vec<u32>,
    /// Identifiers read at the top level, outside any function.
    top_idents: std::collections::HashSet<String>,
    /// `require('literal')` specifiers called at the top level.
    top_requires: Vec<String>,
    /// Ids of the functions around the node being lowered (innermost last).
    fn_stack: Vec<u32>,
    /// The function each nested function is in, by id.
    fn_parent: HashMap<u32, u32>,
    /// Identifiers read inside functions, with the innermost functions reading them.
    ident_fns: HashMap<String, Vec<u32>>,
}

impl<'s> Lowerer<'s> {
    fn text(&self, node: Node) -> &'s str {
        std::str::from_utf8(&self.src[node.byte_range()]).unwrap_or("")
    }

    fn short_text(&self, node: Node) -> String {
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

    fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
        let mut cur = node.walk();
        node.named_children(&mut cur)
            .filter(|c| c.kind() != "comment")
            .collect()
    }

    /// The JSDoc comment directly preceding `node` (skipping nothing else).
    fn doc_before(&self, node: Node) -> Option<String> {
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

    fn stmts_of(&mut self, node: Node) -> Vec<Stmt> {
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

    fn block(&mut self, node: Option<Node>) -> Vec<Stmt> {
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

    fn enter(&mut self, node: Node) -> bool {
        if self.depth >= MAX_DEPTH {
            if self.too_deep.len() < 3 {
                self.too_deep.push(line_of(node));
            }
            return false;
        }
        self.depth += 1;
        true
    }

    fn stmt_into(&mut self, node: Node, out: &mut Vec<Stmt>) {
        if !self.enter(node) {
            return;
        }
        self.stmt_inner(node, out);
        self.depth -= 1;
    }

    fn stmt_inner(&mut self, node: Node, out: &mut Vec<Stmt>) {
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
                    out.push(Stmt::Throw(self.expr(*n)));
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
                let header = node
                    .field(F::Condition)
                    .map(|c| self.short_text(c))
                    .unwrap_or_default();
                body.extend(self.block(node.field(F::Body)));
                out.push(Stmt::Loop(header, body, line_of(node)));
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
                        h.field(F::Parameter).map(|p| self.pattern(p)),
                        self.block(h.field(F::Body)),
                    ),
                    None => (None, Vec::new()),
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
                if let Some(imp) = self.import(node) {
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

    fn var_decl(&mut self, node: Node, doc: Option<String>) -> Stmt {
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

    fn import(&mut self, node: Node) -> Option<Import> {
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
        };
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
        Some(imp)
    }

    fn export(&mut self, node: Node, out: &mut Vec<Stmt>) {
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
            // TS `export = expr`.
            let e = self.expr(*first);
            out.push(Stmt::ExportDefault(e));
        }
    }

    fn func(&mut self, node: Node, name: Option<String>) -> Func {
        // `func_inner` takes the next id.
        let id = self.next_fn;
        if let Some(&outer) = self.fn_stack.last() {
            self.fn_parent.insert(id, outer);
        }
        self.fn_stack.push(id);
        let f = self.func_inner(node, name);
        self.fn_stack.pop();
        f
    }

    /// Note an identifier read (for parsing ahead what code will need).
    fn read_ident(&mut self, name: &str) {
        match self.fn_stack.last() {
            None => {
                if !self.top_idents.contains(name) {
                    self.top_idents.insert(name.to_string());
                }
            }
            Some(&id) => match self.ident_fns.get_mut(name) {
                Some(fns) => {
                    if fns.last() != Some(&id) {
                        fns.push(id);
                    }
                }
                None => {
                    self.ident_fns.insert(name.to_string(), vec![id]);
                }
            },
        }
    }

    fn func_inner(&mut self, node: Node, name: Option<String>) -> Func {
        let id = self.next_fn;
        self.next_fn += 1;
        let mut params = Vec::new();
        let mut param_types = Vec::new();
        let mut rest = false;
        // TypeScript parameter properties (`constructor(private readonly svc: Svc)`)
        // assign themselves to `this`.
        let mut param_props: Vec<String> = Vec::new();
        if let Some(p) = node.field(F::Parameter) {
            params.push(self.pattern(p));
            param_types.push(None);
        }
        if let Some(ps) = node.field(F::Parameters) {
            for p in Self::named_children(ps) {
                let ty = p
                    .field(F::Type)
                    .and_then(|t| Self::named_children(t).first().copied())
                    .map(|t| self.type_expr(t));
                if p.kind() == "required_parameter" || p.kind() == "optional_parameter" {
                    let pat = p.field(F::Pattern).map(|n| self.pattern(n));
                    let pat = pat.unwrap_or(Pattern::Ignored);
                    let pat = match p.field(F::Value) {
                        Some(v) => Pattern::Default(Box::new(pat), Box::new(self.expr(v))),
                        None => pat,
                    };
                    // `this` parameters are types only.
                    if p.field(F::Pattern).map(|n| n.kind()) == Some("this") {
                        continue;
                    }
                    rest = p.field(F::Pattern).map(|n| n.kind()) == Some("rest_pattern");
                    let is_property = {
                        let mut cur = p.walk();
                        p.children(&mut cur).any(|c| {
                            matches!(
                                c.kind(),
                                "accessibility_modifier" | "readonly" | "override_modifier"
                            )
                        })
                    };
                    let ident = match &pat {
                        Pattern::Ident(n) => Some(n.clone()),
                        Pattern::Default(inner, _) => match inner.as_ref() {
                            Pattern::Ident(n) => Some(n.clone()),
                            _ => None,
                        },
                        _ => None,
                    };
                    if is_property
                        && name.as_deref() == Some("constructor")
                        && let Some(n) = ident
                    {
                        param_props.push(n);
                    }
                    params.push(pat);
                } else {
                    rest = p.kind() == "rest_pattern";
                    params.push(self.pattern(p));
                }
                param_types.push(ty);
            }
        }
        let mut body = match node.field(F::Body) {
            Some(b) if b.kind() == "statement_block" => self.stmts_of(b),
            Some(b) => vec![Stmt::Return(Some(self.expr(b)))],
            None => Vec::new(),
        };
        if !param_props.is_empty() {
            let assigns = param_props.into_iter().map(|n| {
                Stmt::Expr(Expr::Assign(
                    Box::new(Pattern::Target(Box::new(Expr::Member(
                        Box::new(Expr::This),
                        n.clone(),
                    )))),
                    Box::new(Expr::Ident(n)),
                ))
            });
            body.splice(0..0, assigns);
        }
        let name = name.or_else(|| node.field(F::Name).map(|n| self.text(n).to_string()));
        Func {
            id,
            name,
            params,
            param_types,
            body,
            line: line_of(node),
            doc: None,
            arrow: node.kind() == "arrow_function",
            rest,
        }
    }

    fn class(&mut self, node: Node) -> Class {
        let name = node.field(F::Name).map(|n| self.text(n).to_string());
        let mut class = Class {
            name,
            superclass: None,
            fields: Vec::new(),
            static_fields: Vec::new(),
            methods: Vec::new(),
            getters: Vec::new(),
            static_methods: Vec::new(),
            constructor: None,
            line: line_of(node),
            decorators: Vec::new(),
            member_decorators: Vec::new(),
            param_decorators: Vec::new(),
            field_types: Vec::new(),
        };
        // `@Gateway() export class X` puts the decorator on the export.
        if let Some(parent) = node.parent()
            && parent.kind() == "export_statement"
        {
            class.decorators = self.decorators_in(parent);
        }
        let own = self.decorators_in(node);
        class.decorators.extend(own);
        for c in Self::named_children(node) {
            if c.kind() == "class_heritage" {
                for h in Self::named_children(c) {
                    if h.kind() == "extends_clause" {
                        if let Some(v) = h.field(F::Value) {
                            class.superclass = Some(self.expr(v));
                        }
                    } else if h.kind() != "implements_clause" {
                        class.superclass = Some(self.expr(h));
                    }
                }
            }
        }
        let Some(body) = node.field(F::Body) else {
            return class;
        };
        // (The TypeScript grammar puts a member's decorators before it in the
        // class body; the JavaScript grammar puts them inside the member.)
        let mut pending: Vec<Decorator> = Vec::new();
        for m in Self::named_children(body) {
            if m.kind() == "decorator" {
                let d = self.decorator(m);
                pending.push(d);
                continue;
            }
            let is_static = {
                let mut cur = m.walk();
                m.children(&mut cur).any(|c| c.kind() == "static")
            };
            let mut decorators = std::mem::take(&mut pending);
            decorators.extend(self.decorators_in(m));
            match m.kind() {
                "method_definition" => {
                    let key = m
                        .field(F::Name)
                        .map(|n| self.key_text(n))
                        .unwrap_or_default();
                    if let Some(ps) = m.field(F::Parameters) {
                        let params = Self::named_children(ps)
                            .into_iter()
                            .filter(|p| p.field(F::Pattern).map(|n| n.kind()) != Some("this"));
                        for (i, p) in params.enumerate() {
                            for d in self.decorators_in(p) {
                                class.param_decorators.push((key.clone(), i, d));
                            }
                        }
                    }
                    if !decorators.is_empty() {
                        class.member_decorators.push((key.clone(), decorators));
                    }
                    let doc = self.doc_before(m);
                    let mut f = self.func(m, Some(key.clone()));
                    f.doc = doc;
                    let is_getter = {
                        let mut cur = m.walk();
                        m.children(&mut cur).any(|c| c.kind() == "get")
                    };
                    if key == "constructor" {
                        class.constructor = Some(Arc::new(f));
                    } else if is_getter && !is_static {
                        class.getters.push((key, Arc::new(f)));
                    } else if is_static {
                        class.static_methods.push((key, Arc::new(f)));
                    } else {
                        class.methods.push((key, Arc::new(f)));
                    }
                }
                "field_definition" | "public_field_definition" => {
                    let key_node = m.field(F::Property).or_else(|| m.field(F::Name));
                    let key = key_node.map(|n| self.key_text(n)).unwrap_or_default();
                    if !decorators.is_empty() {
                        class.member_decorators.push((key.clone(), decorators));
                    }
                    let value = m.field(F::Value).map(|v| self.expr(v));
                    if !is_static
                        && let Some(t) = m
                            .field(F::Type)
                            .and_then(|t| Self::named_children(t).first().copied())
                    {
                        let optional = {
                            let mut cur = m.walk();
                            m.children(&mut cur).any(|c| c.kind() == "?")
                        };
                        let ty = self.type_expr(t);
                        class.field_types.push((key.clone(), optional, ty));
                    }
                    if is_static {
                        class.static_fields.push((key, value));
                    } else {
                        class.fields.push((key, value));
                    }
                }
                _ => {}
            }
        }
        class
    }

    /// The decorators directly inside a node (a class, a member, a parameter).
    fn decorators_in(&mut self, node: Node) -> Vec<Decorator> {
        Self::named_children(node)
            .into_iter()
            .filter(|c| c.kind() == "decorator")
            .map(|d| self.decorator(d))
            .collect()
    }

    /// The expressions of an `arguments` node (none when it is absent).
    fn argument_exprs(&mut self, args: Option<Node>) -> Vec<Expr> {
        match args {
            Some(a) => Self::named_children(a)
                .into_iter()
                .map(|x| self.expr(x))
                .collect(),
            None => Vec::new(),
        }
    }

    fn decorator(&mut self, node: Node) -> Decorator {
        let line = line_of(node);
        let inner = Self::named_children(node).first().copied();
        match inner {
            Some(c) if c.kind() == "call_expression" => {
                let callee = c
                    .field(F::Function)
                    .map(|f| self.expr(f))
                    .unwrap_or(Expr::Opaque(line));
                let args = self.argument_exprs(c.field(F::Arguments));
                Decorator { callee, args, line }
            }
            Some(c) => Decorator {
                callee: self.expr(c),
                args: Vec::new(),
                line,
            },
            None => Decorator {
                callee: Expr::Opaque(line),
                args: Vec::new(),
                line,
            },
        }
    }

    fn key_text(&mut self, node: Node) -> String {
        match node.kind() {
            "string" => self.string(node),
            _ => self.text(node).to_string(),
        }
    }

    fn prop_key(&mut self, node: Node) -> PropKey {
        match node.kind() {
            "computed_property_name" => {
                let inner = Self::named_children(node).first().map(|n| self.expr(*n));
                PropKey::Computed(Box::new(inner.unwrap_or(Expr::Opaque(line_of(node)))))
            }
            _ => PropKey::Name(self.key_text(node)),
        }
    }

    fn pattern(&mut self, node: Node) -> Pattern {
        if !self.enter(node) {
            return Pattern::Ignored;
        }
        let p = self.pattern_inner(node);
        self.depth -= 1;
        p
    }

    fn pattern_inner(&mut self, node: Node) -> Pattern {
        match node.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                Pattern::Ident(self.text(node).to_string())
            }
            "object_pattern" => {
                let mut props = Vec::new();
                let mut rest = None;
                for c in Self::named_children(node) {
                    match c.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let n = self.text(c).to_string();
                            props.push((PropKey::Name(n.clone()), Pattern::Ident(n)));
                        }
                        "pair_pattern" => {
                            let key = c
                                .field(F::Key)
                                .map(|k| self.prop_key(k))
                                .unwrap_or(PropKey::Name(String::new()));
                            let value = c
                                .field(F::Value)
                                .map(|v| self.pattern(v))
                                .unwrap_or(Pattern::Ignored);
                            props.push((key, value));
                        }
                        "object_assignment_pattern" => {
                            let left = c.field(F::Left);
                            let name = left.map(|l| self.text(l).to_string()).unwrap_or_default();
                            let inner = left.map(|l| self.pattern(l)).unwrap_or(Pattern::Ignored);
                            let def = c
                                .field(F::Right)
                                .map(|r| self.expr(r))
                                .unwrap_or(Expr::Undefined);
                            props.push((
                                PropKey::Name(name),
                                Pattern::Default(Box::new(inner), Box::new(def)),
                            ));
                        }
                        "rest_pattern" => {
                            rest = Self::named_children(c)
                                .first()
                                .map(|n| Box::new(self.pattern(*n)));
                        }
                        _ => {}
                    }
                }
                Pattern::Object(props, rest)
            }
            "array_pattern" => {
                let mut items = Vec::new();
                let mut rest = None;
                // Holes are unnamed commas; walk all children to see them.
                let mut cur = node.walk();
                let mut expect_item = true;
                for c in node.children(&mut cur) {
                    match c.kind() {
                        "[" | "]" | "comment" => {}
                        "," => {
                            if expect_item {
                                items.push(None);
                            }
                            expect_item = true;
                        }
                        "rest_pattern" => {
                            rest = Self::named_children(c)
                                .first()
                                .map(|n| Box::new(self.pattern(*n)));
                            expect_item = false;
                        }
                        _ => {
                            items.push(Some(self.pattern(c)));
                            expect_item = false;
                        }
                    }
                }
                Pattern::Array(items, rest)
            }
            "assignment_pattern" => {
                let left = node
                    .field(F::Left)
                    .map(|l| self.pattern(l))
                    .unwrap_or(Pattern::Ignored);
                let right = node
                    .field(F::Right)
                    .map(|r| self.expr(r))
                    .unwrap_or(Expr::Undefined);
                Pattern::Default(Box::new(left), Box::new(right))
            }
            "rest_pattern" => Self::named_children(node)
                .first()
                .map(|n| self.pattern(*n))
                .unwrap_or(Pattern::Ignored),
            "required_parameter" | "optional_parameter" => node
                .field(F::Pattern)
                .map(|n| self.pattern(n))
                .unwrap_or(Pattern::Ignored),
            "member_expression" | "subscript_expression" => {
                Pattern::Target(Box::new(self.expr(node)))
            }
            "parenthesized_expression" => Self::named_children(node)
                .first()
                .map(|n| self.pattern(*n))
                .unwrap_or(Pattern::Ignored),
            _ => Pattern::Ignored,
        }
    }

    fn string(&mut self, node: Node) -> String {
        let t = self.text(node);
        if t.len() >= 2 {
            unescape(&t[1..t.len() - 1])
        } else {
            String::new()
        }
    }

    fn expr(&mut self, node: Node) -> Expr {
        if !self.enter(node) {
            return Expr::Opaque(line_of(node));
        }
        let e = self.expr_inner(node);
        self.depth -= 1;
        e
    }

    fn expr_inner(&mut self, node: Node) -> Expr {
        let line = line_of(node);
        match node.kind() {
            "string" => Expr::Str(self.string(node)),
            "number" => {
                let t = self.text(node).replace('_', "");
                let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    i64::from_str_radix(h, 16)
                        .map(|v| v as f64)
                        .unwrap_or(f64::NAN)
                } else {
                    t.trim_end_matches('n').parse::<f64>().unwrap_or(f64::NAN)
                };
                Expr::Num(v)
            }
            "true" => Expr::Bool(true),
            "false" => Expr::Bool(false),
            "null" => Expr::Null,
            "undefined" => Expr::Undefined,
            "regex" => Expr::Regex(self.text(node).to_string()),
            "template_string" => self.template(node),
            "identifier" | "shorthand_property_identifier" => {
                let t = self.text(node);
                if t == "undefined" {
                    Expr::Undefined
                } else {
                    self.read_ident(t);
                    Expr::Ident(t.to_string())
                }
            }
            "this" => Expr::This,
            "super" => Expr::Super,
            // `import.meta` reads as a name the module scope defines.
            "meta_property" if self.text(node) == "import.meta" => {
                Expr::Ident("import.meta".into())
            }
            "member_expression" => {
                let obj = node
                    .field(F::Object)
                    .map(|o| self.expr(o))
                    .unwrap_or(Expr::Opaque(line));
                let prop = node
                    .field(F::Property)
                    .map(|p| self.text(p).to_string())
                    .unwrap_or_default();
                Expr::Member(Box::new(obj), prop)
            }
            "subscript_expression" => {
                let obj = node
                    .field(F::Object)
                    .map(|o| self.expr(o))
                    .unwrap_or(Expr::Opaque(line));
                let idx = node
                    .field(F::Index)
                    .map(|o| self.expr(o))
                    .unwrap_or(Expr::Opaque(line));
                Expr::Index(Box::new(obj), Box::new(idx))
            }
            "call_expression" => {
                let callee_node = node.field(F::Function);
                let args_node = node.field(F::Arguments);
                let callee = callee_node
                    .map(|c| {
                        if c.kind() == "import" {
                            Expr::Ident("import".into())
                        } else {
                            self.expr(c)
                        }
                    })
                    .unwrap_or(Expr::Opaque(line));
                let call_line = match callee_node {
                    Some(c) if c.kind() == "member_expression" => {
                        c.field(F::Property).map(line_of).unwrap_or(line)
                    }
                    _ => line,
                };
                let args = match args_node {
                    Some(a) if a.kind() == "arguments" => Self::named_children(a)
                        .into_iter()
                        .map(|x| self.expr(x))
                        .collect(),
                    // Tagged template: tag`...` — one template argument.
                    Some(a) => vec![self.expr(a)],
                    None => Vec::new(),
                };
                let type_args = node
                    .field(F::TypeArguments)
                    .map(|t| {
                        Self::named_children(t)
                            .into_iter()
                            .map(|x| self.type_expr(x))
                            .collect()
                    })
                    .unwrap_or_default();
                if self.fn_stack.is_empty()
                    && matches!(&callee, Expr::Ident(n) if n == "require")
                    && let Some(Expr::Str(spec)) = args.first()
                {
                    self.top_requires.push(spec.clone());
                }
                Expr::Call(Box::new(Call {
                    callee,
                    args,
                    line: call_line,
                    type_args,
                    doc: None,
                }))
            }
            "new_expression" => {
                let callee = node
                    .field(F::Constructor)
                    .map(|c| self.expr(c))
                    .unwrap_or(Expr::Opaque(line));
                let args = self.argument_exprs(node.field(F::Arguments));
                Expr::New(Box::new(callee), args, line)
            }
            "array" => Expr::Array(
                Self::named_children(node)
                    .into_iter()
                    .map(|x| self.expr(x))
                    .collect(),
            ),
            "object" => {
                let mut props = Vec::new();
                for c in Self::named_children(node) {
                    match c.kind() {
                        "pair" => {
                            let key = c
                                .field(F::Key)
                                .map(|k| self.prop_key(k))
                                .unwrap_or(PropKey::Name(String::new()));
                            let mut value = c
                                .field(F::Value)
                                .map(|v| self.expr(v))
                                .unwrap_or(Expr::Undefined);
                            if let (PropKey::Name(n), Expr::Func(f)) = (&key, &mut value)
                                && f.name.is_none()
                                && let Some(f) = Arc::get_mut(f)
                            {
                                f.name = Some(n.clone());
                            }
                            props.push(ObjProp::KeyValue(key, value));
                        }
                        "shorthand_property_identifier" => {
                            let n = self.text(c).to_string();
                            self.read_ident(&n);
                            props.push(ObjProp::KeyValue(PropKey::Name(n.clone()), Expr::Ident(n)));
                        }
                        "spread_element" => {
                            if let Some(inner) = Self::named_children(c).first() {
                                let e = self.expr(*inner);
                                props.push(ObjProp::Spread(e));
                            }
                        }
                        "method_definition" => {
                            let key = c
                                .field(F::Name)
                                .map(|k| self.prop_key(k))
                                .unwrap_or(PropKey::Name(String::new()));
                            let name = match &key {
                                PropKey::Name(n) => Some(n.clone()),
                                PropKey::Computed(_) => None,
                            };
                            let f = self.func(c, name);
                            props.push(ObjProp::Method(key, Arc::new(f)));
                        }
                        _ => {}
                    }
                }
                Expr::Object(props)
            }
            "arrow_function" | "function_expression" | "function" | "generator_function" => {
                Expr::Func(Arc::new(self.func(node, None)))
            }
            "class" => Expr::Class(Arc::new(self.class(node))),
            "binary_expression" => {
                let op = node
                    .field(F::Operator)
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                let l = node.field(F::Left).map(|n| self.expr(n));
                let r = node.field(F::Right).map(|n| self.expr(n));
                let (Some(l), Some(r)) = (l, r) else {
                    return Expr::Opaque(line);
                };
                match op.as_str() {
                    "+" => Expr::Add(Box::new(l), Box::new(r)),
                    "&&" => Expr::Logical(LogicalOp::And, Box::new(l), Box::new(r)),
                    "||" => Expr::Logical(LogicalOp::Or, Box::new(l), Box::new(r)),
                    "??" => Expr::Logical(LogicalOp::Nullish, Box::new(l), Box::new(r)),
                    "===" | "==" | "!==" | "!=" | "<" | "<=" | ">" | ">=" => {
                        Expr::Compare(op, Box::new(l), Box::new(r))
                    }
                    // Operands may still hold calls with effects (rare); keep them.
                    _ => Expr::Seq(vec![l, r, Expr::Opaque(line)]),
                }
            }
            "ternary_expression" => {
                let c = node.field(F::Condition);
                let text = c.map(|c| self.short_text(c)).unwrap_or_default();
                let test = c.map(|c| self.expr(c)).unwrap_or(Expr::Opaque(line));
                let a = node
                    .field(F::Consequence)
                    .map(|n| self.expr(n))
                    .unwrap_or(Expr::Opaque(line));
                let b = node
                    .field(F::Alternative)
                    .map(|n| self.expr(n))
                    .unwrap_or(Expr::Opaque(line));
                Expr::Cond(Box::new(test), text, Box::new(a), Box::new(b))
            }
            "assignment_expression" => {
                let left = node
                    .field(F::Left)
                    .map(|l| self.pattern(l))
                    .unwrap_or(Pattern::Ignored);
                let mut right = node
                    .field(F::Right)
                    .map(|r| self.expr(r))
                    .unwrap_or(Expr::Undefined);
                if let (Pattern::Target(t), Expr::Func(f)) = (&left, &mut right)
                    && f.name.is_none()
                    && let Expr::Member(_, n) = t.as_ref()
                    && let Some(f) = Arc::get_mut(f)
                {
                    f.name = Some(n.clone());
                }
                Expr::Assign(Box::new(left), Box::new(right))
            }
            "augmented_assignment_expression" => {
                let op = node
                    .field(F::Operator)
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                let left_node = node.field(F::Left);
                let left = left_node
                    .map(|l| self.pattern(l))
                    .unwrap_or(Pattern::Ignored);
                let right = node
                    .field(F::Right)
                    .map(|r| self.expr(r))
                    .unwrap_or(Expr::Undefined);
                let cur = left_node.map(|l| self.expr(l)).unwrap_or(Expr::Undefined);
                let value = match op.as_str() {
                    "+=" => Expr::Add(Box::new(cur), Box::new(right)),
                    "-=" => Expr::Add(
                        Box::new(cur),
                        Box::new(Expr::Unary("-".into(), Box::new(right))),
                    ),
                    "||=" => Expr::Logical(LogicalOp::Or, Box::new(cur), Box::new(right)),
                    "??=" => Expr::Logical(LogicalOp::Nullish, Box::new(cur), Box::new(right)),
                    "&&=" => Expr::Logical(LogicalOp::And, Box::new(cur), Box::new(right)),
                    _ => Expr::Seq(vec![right, Expr::Opaque(line)]),
                };
                Expr::Assign(Box::new(left), Box::new(value))
            }
            "await_expression" | "yield_expression" => match Self::named_children(node).first() {
                Some(n) => Expr::Await(Box::new(self.expr(*n))),
                None => Expr::Undefined,
            },
            "unary_expression" => {
                let op = node
                    .field(F::Operator)
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                let arg = node
                    .field(F::Argument)
                    .map(|a| self.expr(a))
                    .unwrap_or(Expr::Undefined);
                Expr::Unary(op, Box::new(arg))
            }
            "update_expression" => {
                // `i++`, `--i`: an assignment of `i ± 1` (the loop counters of `for`).
                let text = self.text(node);
                let step = if text.contains("++") { 1.0 } else { -1.0 };
                let arg = node.field(F::Argument);
                match arg.map(|a| (self.pattern(a), self.expr(a))) {
                    Some((target, cur)) => Expr::Assign(
                        Box::new(target),
                        Box::new(Expr::Add(Box::new(cur), Box::new(Expr::Num(step)))),
                    ),
                    None => Expr::Opaque(line),
                }
            }
            "as_expression" | "satisfies_expression" | "type_assertion" => {
                // `req.body as CreateNote`: the value, with its declared type
                // (`as unknown`/`as any` state nothing).
                let mut inner = None;
                let mut ty = None;
                for c in Self::named_children(node) {
                    if is_type_node(c.kind()) {
                        if ty.is_none() {
                            ty = Some(self.type_expr(c));
                        }
                    } else if inner.is_none() {
                        inner = Some(self.expr(c));
                    }
                }
                match (inner, ty) {
                    (Some(e), Some(t)) if !matches!(&t, TypeExpr::Prim(p) if p == "any" || p == "unknown") => {
                        Expr::Typed(Box::new(e), t)
                    }
                    (Some(e), _) => e,
                    (None, _) => Expr::Opaque(line),
                }
            }
            "parenthesized_expression" | "non_null_expression" => {
                // The expression is the first named child that is not a type.
                for c in Self::named_children(node) {
                    if !is_type_node(c.kind()) {
                        return self.expr(c);
                    }
                }
                Expr::Opaque(line)
            }
            "jsx_element" | "jsx_self_closing_element" | "jsx_fragment" => {
                // Only the embedded `{...}` expressions matter (handlers, callbacks).
                let mut out = Vec::new();
                self.jsx_exprs(node, &mut out, 0);
                Expr::Array(out)
            }
            "instantiation_expression" => node
                .field(F::Function)
                .map(|f| self.expr(f))
                .unwrap_or(Expr::Opaque(line)),
            "sequence_expression" => Expr::Seq(
                Self::named_children(node)
                    .into_iter()
                    .map(|x| self.expr(x))
                    .collect(),
            ),
            "spread_element" => match Self::named_children(node).first() {
                Some(n) => Expr::Spread(Box::new(self.expr(*n))),
                None => Expr::Opaque(line),
            },
            _ => Expr::Opaque(line),
        }
    }

    fn jsx_exprs(&mut self, node: Node, out: &mut Vec<Expr>, depth: u32) {
        if depth > 64 {
            return;
        }
        for c in Self::named_children(node) {
            match c.kind() {
                "jsx_expression" => {
                    for e in Self::named_children(c) {
                        if e.kind() != "comment" {
                            out.push(self.expr(e));
                        }
                    }
                }
                "jsx_text"
                | "html_character_reference"
                | "identifier"
                | "member_expression"
                | "jsx_namespace_name"
                | "property_identifier"
                | "string" => {}
                _ => self.jsx_exprs(c, out, depth + 1),
            }
        }
    }

    fn template(&mut self, node: Node) -> Expr {
        // Quasis are the raw source between `${...}` substitutions.
        let start = node.start_byte() + 1;
        let end = node.end_byte().saturating_sub(1).max(start);
        let mut quasis = Vec::new();
        let mut exprs = Vec::new();
        let mut pos = start;
        for c in Self::named_children(node) {
            if c.kind() == "template_substitution" {
                quasis.push(unescape(
                    std::str::from_utf8(&self.src[pos..c.start_byte()]).unwrap_or(""),
                ));
                let inner = Self::named_children(c)
                    .first()
                    .map(|n| self.expr(*n))
                    .unwrap_or(Expr::Opaque(line_of(c)));
                exprs.push(inner);
                pos = c.end_byte();
            }
        }
        quasis.push(unescape(
            std::str::from_utf8(&self.src[pos.min(end)..end]).unwrap_or(""),
        ));
        Expr::Template(quasis, exprs)
    }

    fn object_type(&mut self, node: Node) -> TypeExpr {
        let mut fields = Vec::new();
        for m in Self::named_children(node) {
            match m.kind() {
                "property_signature" => {
                    let name = m
                        .field(F::Name)
                        .map(|n| self.key_text(n))
                        .unwrap_or_default();
                    let optional = {
                        let mut cur = m.walk();
                        m.children(&mut cur).any(|c| c.kind() == "?")
                    };
                    let ty = m
                        .field(F::Type)
                        .and_then(|t| Self::named_children(t).first().copied())
                        .map(|t| self.type_expr(t))
                        .unwrap_or(TypeExpr::Other);
                    fields.push((name, optional, ty));
                }
                "method_signature" => {
                    let name = m
                        .field(F::Name)
                        .map(|n| self.key_text(n))
                        .unwrap_or_default();
                    let params = m
                        .field(F::Parameters)
                        .map(|p| self.type_params(p))
                        .unwrap_or_default();
                    fields.push((name, false, TypeExpr::Function(params)));
                }
                _ => {}
            }
        }
        TypeExpr::Object(fields)
    }

    fn type_params(&mut self, node: Node) -> Vec<(String, bool, TypeExpr)> {
        let mut out = Vec::new();
        for p in Self::named_children(node) {
            let name = p
                .field(F::Pattern)
                .map(|n| self.text(n).to_string())
                .unwrap_or_default();
            let ty = p
                .field(F::Type)
                .and_then(|t| Self::named_children(t).first().copied())
                .map(|t| self.type_expr(t))
                .unwrap_or(TypeExpr::Other);
            out.push((name, p.kind() == "optional_parameter", ty));
        }
        out
    }

    fn type_expr(&mut self, node: Node) -> TypeExpr {
        if !self.enter(node) {
            return TypeExpr::Other;
        }
        let t = self.type_inner(node);
        self.depth -= 1;
        t
    }

    fn type_inner(&mut self, node: Node) -> TypeExpr {
        match node.kind() {
            "type_identifier" | "nested_type_identifier" | "identifier" => {
                TypeExpr::Ref(self.text(node).to_string(), Vec::new())
            }
            "generic_type" => {
                let name = node
                    .field(F::Name)
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let args: Vec<TypeExpr> = node
                    .field(F::TypeArguments)
                    .map(|t| {
                        Self::named_children(t)
                            .into_iter()
                            .map(|x| self.type_expr(x))
                            .collect()
                    })
                    .unwrap_or_default();
                if name == "Array" && args.len() == 1 {
                    return TypeExpr::Array(Box::new(args.into_iter().next().unwrap()));
                }
                TypeExpr::Ref(name, args)
            }
            "predefined_type" => TypeExpr::Prim(self.text(node).to_string()),
            "object_type" | "interface_body" => self.object_type(node),
            "array_type" => Self::named_children(node)
                .first()
                .map(|n| TypeExpr::Array(Box::new(self.type_expr(*n))))
                .unwrap_or(TypeExpr::Other),
            "tuple_type" => TypeExpr::Tuple(
                Self::named_children(node)
                    .into_iter()
                    .map(|x| self.type_expr(x))
                    .collect(),
            ),
            "union_type" => {
                let mut members = Vec::new();
                for c in Self::named_children(node) {
                    match self.type_expr(c) {
                        TypeExpr::Union(inner) => members.extend(inner),
                        t => members.push(t),
                    }
                }
                TypeExpr::Union(members)
            }
            "literal_type" => match Self::named_children(node).first() {
                Some(c) if c.kind() == "string" => TypeExpr::StrLit(self.string(*c)),
                Some(c) if c.kind() == "number" => {
                    TypeExpr::NumLit(self.text(*c).parse().unwrap_or(0.0))
                }
                Some(c) if c.kind() == "null" => TypeExpr::Prim("null".into()),
                Some(c) if c.kind() == "true" || c.kind() == "false" => {
                    TypeExpr::Prim("boolean".into())
                }
                Some(c) if c.kind() == "undefined" => TypeExpr::Prim("undefined".into()),
                _ => TypeExpr::Other,
            },
            "function_type" => {
                let params = node
                    .field(F::Parameters)
                    .map(|p| self.type_params(p))
                    .unwrap_or_default();
                TypeExpr::Function(params)
            }
            "parenthesized_type" | "readonly_type" => Self::named_children(node)
                .first()
                .map(|n| self.type_expr(*n))
                .unwrap_or(TypeExpr::Other),
            "optional_type" | "rest_type" => Self::named_children(node)
                .first()
                .map(|n| self.type_expr(*n))
                .unwrap_or(TypeExpr::Other),
            "required_parameter" | "optional_parameter" => node
                .field(F::Type)
                .and_then(|t| Self::named_children(t).first().copied())
                .map(|t| self.type_expr(t))
                .unwrap_or(TypeExpr::Other),
            _ => TypeExpr::Other,
        }
    }
}

fn attach_doc(call: &mut Call, doc: String) {
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

fn is_type_node(kind: &str) -> bool {
    kind.ends_with("_type")
        || matches!(
            kind,
            "type_identifier" | "predefined_type" | "type_arguments" | "generic_type"
        )
}

/// Names a declaration statement binds (for `export <decl>`).
fn bound_names(stmt: &Stmt) -> Vec<String> {
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

/// The inline scripts of a markup file (HTML, Vue, Svelte, Handlebars), with
/// everything else blanked so lines and columns stay where they were; and
/// whether a script says `lang="ts"`. Scripts with `src=` or a non-JavaScript
/// `type` are blanked too.
pub(crate) fn markup_scripts(src: &[u8]) -> (Vec<u8>, bool) {
    let mut out: Vec<u8> = src
        .iter()
        .map(|&b| if b == b'\n' || b == b'\r' { b } else { b' ' })
        .collect();
    let lower: Vec<u8> = src.iter().map(|b| b.to_ascii_lowercase()).collect();
    let mut ts = false;
    let mut pos = 0;
    while let Some(i) = memchr::memmem::find(&lower[pos..], b"<script") {
        let open = pos + i;
        let Some(j) = memchr::memchr(b'>', &lower[open..]) else {
            break;
        };
        let tag = &lower[open..open + j];
        let body_start = open + j + 1;
        let Some(k) = memchr::memmem::find(&lower[body_start..], b"</script") else {
            break;
        };
        let body_end = body_start + k;
        let tag_text = String::from_utf8_lossy(tag);
        let external = tag_text.contains(" src=");
        let js_type = match tag_text.split("type=").nth(1) {
            None => true,
            Some(t) => {
                let t = t.trim_start_matches(['"', '\'']);
                t.starts_with("module")
                    || t.starts_with("text/javascript")
                    || t.starts_with("application/javascript")
                    || t.starts_with("text/babel")
            }
        };
        if !external && js_type {
            if tag_text.contains("lang=\"ts\"") || tag_text.contains("lang='ts'") {
                ts = true;
            }
            out[body_start..body_end].copy_from_slice(&src[body_start..body_end]);
        }
        pos = body_end;
    }
    (out, ts)
}

/// The type of a JSDoc `@type {T}` tag.
fn jsdoc_tag_type(doc: &str) -> Option<TypeExpr> {
    let rest = &doc[doc.find("@type")? + 5..];
    let rest = rest.trim_start().strip_prefix('{')?;
    let end = matching_brace(rest)?;
    Some(jsdoc_type_expr(&rest[..end]))
}

/// The index of the `}` closing a `{` already consumed.
fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Split at top-level occurrences of `sep` (outside `<>`, `()`, `{}`, `[]`).
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '{' | '[' => depth += 1,
            '>' | ')' | '}' | ']' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A JSDoc (Closure/TypeScript-flavoured) type expression as a [`TypeExpr`].
pub(crate) fn jsdoc_type_expr(t: &str) -> TypeExpr {
    let t = t.trim();
    let alts = split_top(t, '|');
    if alts.len() > 1 {
        return TypeExpr::Union(alts.into_iter().map(jsdoc_type_expr).collect());
    }
    if let Some(inner) = t.strip_suffix("[]") {
        return TypeExpr::Array(Box::new(jsdoc_type_expr(inner)));
    }
    if (t.starts_with('\'') && t.ends_with('\'')) || (t.starts_with('"') && t.ends_with('"')) {
        return TypeExpr::StrLit(t[1..t.len() - 1].to_string());
    }
    if let Some(body) = t.strip_prefix('{').and_then(|b| b.strip_suffix('}')) {
        let fields = split_top(body, ',')
            .into_iter()
            .filter_map(|f| {
                let (name, ty) = f.split_once(':')?;
                let name = name.trim();
                let (name, optional) = match name.strip_suffix('?') {
                    Some(n) => (n, true),
                    None => (name, false),
                };
                Some((
                    name.trim_matches(['\'', '"']).to_string(),
                    optional,
                    jsdoc_type_expr(ty),
                ))
            })
            .collect();
        return TypeExpr::Object(fields);
    }
    // `import('express').Request<P, R, B>`: the module part says nothing here.
    let mut t = t;
    while let Some(rest) = t.strip_prefix("import(") {
        let Some(close) = rest.find(')') else { break };
        t = rest[close + 1..].trim_start_matches('.');
    }
    let (name, args) = match t.find('<') {
        Some(i) if t.ends_with('>') => (
            &t[..i],
            split_top(&t[i + 1..t.len() - 1], ',')
                .into_iter()
                .map(jsdoc_type_expr)
                .collect(),
        ),
        _ => (t, Vec::new()),
    };
    match name.trim() {
        "string" | "String" => TypeExpr::Prim("string".into()),
        "number" | "Number" => TypeExpr::Prim("number".into()),
        "boolean" | "Boolean" => TypeExpr::Prim("boolean".into()),
        "null" => TypeExpr::Prim("null".into()),
        "*" | "any" | "?" => TypeExpr::Prim("any".into()),
        "unknown" => TypeExpr::Prim("unknown".into()),
        "object" | "Object" if args.is_empty() => TypeExpr::Object(Vec::new()),
        "Array" if args.len() == 1 => TypeExpr::Array(Box::new(args[0].clone())),
        n => TypeExpr::Ref(n.to_string(), args),
    }
}

/// `@typedef {object} Name` blocks with their `@property {T} [name] - text`
/// lines, as type declarations.
fn jsdoc_typedefs(doc: &str) -> Vec<Stmt> {
    let mut out = Vec::new();
    // (name, aliased type, properties) of the typedef being read.
    type Open = (String, Option<TypeExpr>, Vec<(String, bool, TypeExpr)>);
    let mut current: Option<Open> = None;
    let flush = |cur: Option<Open>, out: &mut Vec<Stmt>| {
        if let Some((name, alias, fields)) = cur {
            let ty = match alias {
                Some(t) if fields.is_empty() => t,
                _ => TypeExpr::Object(fields),
            };
            out.push(Stmt::TypeDecl(name, ty));
        }
    };
    for line in doc.lines() {
        let line = line
            .trim()
            .trim_start_matches("/**")
            .trim_start_matches('*')
            .trim();
        let (tag, rest) = match line.split_once(char::is_whitespace) {
            Some((t, r)) => (t, r.trim()),
            None => (line, ""),
        };
        let typed = |rest: &str| -> Option<(TypeExpr, String)> {
            let r = rest.strip_prefix('{')?;
            let end = matching_brace(r)?;
            Some((jsdoc_type_expr(&r[..end]), r[end + 1..].trim().to_string()))
        };
        match tag {
            "@typedef" => {
                flush(current.take(), &mut out);
                if let Some((ty, name)) = typed(rest) {
                    let name = name.split_whitespace().next().unwrap_or("").to_string();
                    if !name.is_empty() {
                        let alias =
                            (!matches!(&ty, TypeExpr::Object(f) if f.is_empty())).then_some(ty);
                        current = Some((name, alias, Vec::new()));
                    }
                }
            }
            "@property" | "@prop" => {
                if let (Some(cur), Some((ty, rest))) = (current.as_mut(), typed(rest)) {
                    let (name, optional, desc) = if let Some(r) = rest.strip_prefix('[') {
                        let (n, d) = r.split_once(']').unwrap_or((r, ""));
                        (n.split('=').next().unwrap_or(n).trim().to_string(), true, d)
                    } else {
                        let (n, d) = rest
                            .split_once(char::is_whitespace)
                            .unwrap_or((rest.as_str(), ""));
                        (n.to_string(), false, d)
                    };
                    let desc = desc.trim().trim_start_matches('-').trim();
                    let ty = if desc.is_empty() {
                        ty
                    } else {
                        TypeExpr::Described(Box::new(ty), desc.to_string())
                    };
                    cur.2.push((name, optional, ty));
                }
            }
            _ => {}
        }
    }
    flush(current, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(src: &str) -> FileFacts {
        SyntaxContext::new().lower(Grammar::TypeScript, src.as_bytes())
    }

    #[test]
    fn member_call_line_is_the_property_line() {
        let f = lower("router\n  .get('/x', h)\n");
        let Stmt::Expr(Expr::Call(c)) = &f.body[0] else {
            panic!("expected a call, got {:?}", f.body[0]);
        };
        assert_eq!(c.line, 2);
        assert!(matches!(&c.args[0], Expr::Str(s) if s == "/x"));
    }

    #[test]
    fn template_quasis_and_expressions() {
        let f = lower("const p = `/a/${id}/b`;");
        let Stmt::Var(d) = &f.body[0] else { panic!() };
        let Some(Expr::Template(q, e)) = &d[0].1 else {
            panic!("{:?}", d[0].1)
        };
        assert_eq!(q, &vec!["/a/".to_string(), "/b".to_string()]);
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn syntax_errors_are_reported_with_lines() {
        let f = lower("const a = 1;\nconst b = (;\nrouter.get('/ok', h);\n");
        assert!(!f.parse_errors.is_empty());
        assert_eq!(f.parse_errors[0].0, 2);
    }

    #[test]
    fn unescape_handles_common_escapes() {
        assert_eq!(unescape(r"a\/b\\c\u0041\x42\n"), "a/b\\cAB\n");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        // The analyzer lowers on threads with large stacks; do the same here.
        let f = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(|| {
                let src = format!("const x = {}1{};", "[".repeat(5000), "]".repeat(5000));
                lower(&src)
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(!f.too_deep.is_empty());
    }

    #[test]
    fn jsdoc_types_and_typedefs() {
        use crate::ir::{Stmt, TypeExpr};
        match super::jsdoc_type_expr("import('express').Request<P, any, Array<string>>") {
            TypeExpr::Ref(n, args) => {
                assert_eq!(n, "Request");
                assert_eq!(args.len(), 3);
                assert!(matches!(&args[2], TypeExpr::Array(_)));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(super::jsdoc_type_expr("'a'|'b'"), TypeExpr::Union(v) if v.len() == 2));
        let decls = super::jsdoc_typedefs(
            "/**\n * @typedef {object} Ev\n * @property {string} name - Event name\n * @property {number} [cap]\n */",
        );
        match decls.as_slice() {
            [Stmt::TypeDecl(name, TypeExpr::Object(fields))] => {
                assert_eq!(name, "Ev");
                assert_eq!(fields.len(), 2);
                assert!(matches!(&fields[0].2, TypeExpr::Described(_, d) if d == "Event name"));
                assert!(fields[1].1, "[cap] is optional");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn markup_keeps_inline_scripts_in_place() {
        let html = b"<html>\n<script src=\"/socket.io/socket.io.js\"></script>\n<script>\nvar s = io();\n</script>\n<script type=\"text/template\">x</script>\n</html>\n";
        let (js, ts) = super::markup_scripts(html);
        assert_eq!(js.len(), html.len());
        let text = String::from_utf8(js).unwrap();
        assert_eq!(text.lines().nth(3).unwrap(), "var s = io();");
        assert!(!text.contains("socket.io.js"));
        assert!(!text.contains('x'));
        assert!(!ts);
        let (_, ts) =
            super::markup_scripts(b"<script setup lang=\"ts\">let a: number = 1;</script>");
        assert!(ts);
    }
}
