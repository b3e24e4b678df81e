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
//!
//! Here: the grammars, field ids, parsing with the recovery ladder
//! (`recover.rs`) and the per-file facts. The lowering itself is in
//! `lower/` (statements, classes and functions, patterns, expressions,
//! types), JSDoc types in `jsdoc.rs`, `<script>` blocks in `markup.rs`.

mod doc;
mod jsdoc;
mod lower;
mod markup;
mod recover;

pub use doc::Doc;
pub(crate) use doc::{named, typed};
pub(crate) use jsdoc::jsdoc_type_expr;
use jsdoc::{jsdoc_tag_type, jsdoc_typedefs};
use lower::Lowerer;
pub(crate) use lower::bound_names;
pub(crate) use lower::unescape;
pub(crate) use markup::markup_scripts;

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

    /// Whether a file with no extension whose first bytes are `head` is a
    /// Node script: Node runs any file it is given as JavaScript, so
    /// express-generator's `bin/www` (`node ./bin/www`) is one; its shebang
    /// (`#!/usr/bin/env node`, `#!/usr/local/bin/node --inspect`,
    /// `#!/usr/bin/env -S node --flags`) says so to the shell. Scripts of
    /// other interpreters (`#!/bin/sh`) and files with no shebang are not.
    pub(crate) fn is_node_script(head: &[u8]) -> bool {
        let Some(rest) = head.strip_prefix(b"#!") else {
            return false;
        };
        let line = rest.split(|b| *b == b'\n').next().unwrap_or(rest);
        let Ok(line) = std::str::from_utf8(line) else {
            return false;
        };
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            return false;
        };
        let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
        let interpreter = if base(first) == "env" {
            // `env [-S] [-i] [NAME=value…] node …`
            words
                .find(|w| !w.starts_with('-') && !w.contains('='))
                .map(base)
        } else {
            Some(base(first))
        };
        matches!(interpreter.as_deref(), Some("node" | "nodejs"))
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
/// CPU time collecting the census from lowered facts, summed over threads.
pub(crate) static CENSUS_NS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

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

    /// Parse one file and drop the tree (for [`crate::floor`]).
    pub(crate) fn parse_only(&mut self, grammar: Grammar, src: &[u8]) {
        let parser = match grammar {
            Grammar::JavaScript => &mut self.js,
            Grammar::TypeScript => &mut self.ts,
            Grammar::Tsx => &mut self.tsx,
        };
        drop(parser.parse(src, None));
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
        // The grammars take a name `using` for the `using` declaration
        // keyword (TypeScript's almost everywhere; see `recover`).
        let mut tree = tree;
        let renamed_using;
        let mut using_stand_in = false;
        let mut src = src;
        if tree.root_node().has_error()
            && let Some(copy) = recover::rename_using(src)
            && let Some(t2) = better_parse(parser, &tree, &copy)
        {
            tree = t2;
            renamed_using = copy;
            src = &renamed_using[..];
            using_stand_in = true;
        }
        // The TypeScript grammar's blind spots (see `recover`), each repaired
        // in a same-length copy kept when it parses with fewer errors, in
        // this order: TypeScript 5.0's type-only star re-exports (`export
        // type * from './types'`), blanked as compiling erases them;
        // decorators with a call chain (`@Returns(200, Array).Of(Order)`);
        // an import type opening a call's type arguments
        // (`getRequest<import('fastify').FastifyRequest>()`); a type member
        // named `in` after a member with no separator; a tagged template's
        // type arguments (``styled.div<P>`…` ``); a function type's lone
        // parameter named like a predefined type (`(string) => boolean`).
        const TS_REPAIRS: [recover::CopyRepair; 6] = [
            recover::erase_type_star_exports,
            recover::cut_decorator_chains,
            recover::rename_type_argument_imports,
            recover::rename_in_members,
            recover::erase_tagged_template_type_args,
            recover::rename_keyword_type_params,
        ];
        let mut ts_repaired: Option<Vec<u8>> = None;
        if grammar != Grammar::JavaScript {
            for repair in TS_REPAIRS {
                if !tree.root_node().has_error() {
                    break;
                }
                if let Some(copy) = repair(ts_repaired.as_deref().unwrap_or(src))
                    && let Some(t2) = better_parse(parser, &tree, &copy)
                {
                    tree = t2;
                    ts_repaired = Some(copy);
                }
            }
        }
        if let Some(copy) = &ts_repaired {
            src = &copy[..];
        }
        // JSX text may hold a bare `&` (`Voice & Style`), which the grammars
        // reject; when a file has errors, try again with such `&` as `+`
        // (a binary operator in code, plain text in JSX) and keep the better parse.
        let patched_amp;
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
            if let Some(t2) = better_flow_parse(&mut self.tsx, &tree, &copy) {
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
        let restored;
        if using_stand_in {
            restored = recover::restore_using(src);
            src = &restored[..];
        }
        let root = tree.root_node();
        let mut low = Lowerer {
            src,
            next_fn: 0,
            depth: 0,
            too_deep: Vec::new(),
            top_idents: Default::default(),
            top_requires: Vec::new(),
            literal_requires: Vec::new(),
            fn_stack: Vec::new(),
            fn_parent: HashMap::new(),
            ident_fns: HashMap::new(),
            nested_vars: vec![Vec::new()],
            param_props: Vec::new(),
        };
        let mut body = low.stmts_of(root);
        let nested = low.nested_vars.pop().unwrap_or_default();
        Lowerer::hoist_vars(nested, &[], &mut body);
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
            literal_requires: low.literal_requires,
            census: Vec::new(),
            loads: Vec::new(),
        };
        let t = std::time::Instant::now();
        (facts.census, facts.loads) = crate::census::collect(&facts);
        CENSUS_NS.fetch_add(
            t.elapsed().as_nanos() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        facts
    }
}

/// A parse of `copy` (a patched source) when it keeps more of the file than
/// `tree`: fewer bytes inside error nodes (each error and missing token
/// counting at least one). Counting errors alone would miss a parse whose
/// three small errors beat one that skips most of the file (a Flow file the
/// TypeScript grammar reads but for its unnamed function-type parameters).
fn better_parse(
    parser: &mut Parser,
    tree: &tree_sitter::Tree,
    copy: &[u8],
) -> Option<tree_sitter::Tree> {
    let t2 = parser.parse(copy, None)?;
    (error_weight(t2.root_node()) < error_weight(tree.root_node())).then_some(t2)
}

/// The TSX grammar's parse of `copy` (a Flow file rewritten to TypeScript's
/// syntax) when it keeps more of the file than the JavaScript grammar's
/// `tree`, or has fewer errors: the JavaScript grammar skips Flow's
/// `import type` and `export type` lines in small error nodes and then reads
/// what follows as something else without another error, so the bytes it
/// leaves unread understate what it misread (spectrum's `export type X = {
/// …, ...$Exact<T> }` files: 3 small errors against TSX's 2).
fn better_flow_parse(
    parser: &mut Parser,
    tree: &tree_sitter::Tree,
    copy: &[u8],
) -> Option<tree_sitter::Tree> {
    let t2 = parser.parse(copy, None)?;
    let fewer_errors = error_count(t2.root_node()) < error_count(tree.root_node());
    (fewer_errors || error_weight(t2.root_node()) < error_weight(tree.root_node())).then_some(t2)
}

/// The error nodes and missing tokens under `node`.
fn error_count(node: Node) -> usize {
    if node.is_error() || node.is_missing() {
        return 1;
    }
    if !node.has_error() {
        return 0;
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).map(error_count).sum()
}

/// The bytes under `node` that the grammar could not read: the length of
/// every error node (at least 1 each), and 1 for every missing token.
fn error_weight(node: Node) -> usize {
    if node.is_error() {
        return (node.end_byte() - node.start_byte()).max(1);
    }
    if node.is_missing() {
        return 1;
    }
    if !node.has_error() {
        return 0;
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).map(error_weight).sum()
}

/// Flow-only type syntax rewritten to TypeScript's, byte for byte (lines and
/// offsets hold): maybe types `?T` (after `:` or `<`) lose the `?`, exact
/// objects `{| … |}` become `{ … }`, and a function type annotation's unnamed
/// parameters (`: (any, boolean, any[]) => void`) become names (see
/// [`name_flow_function_params`]). Only used for a second parse of a file
/// the JavaScript grammar fails on.
fn flow_to_ts(src: &[u8]) -> Vec<u8> {
    let mut out = flow_marks_to_ts(src);
    name_flow_function_params(&mut out);
    name_flow_type_spreads(&mut out);
    out
}

/// Flow's object types may spread other types (`type Props = { ...$Exact<
/// Handlers>, user: User }`, `(props: { ...Embed, src?: string })`), which
/// TypeScript's grammar rejects. Inside an object type, each `...` becomes a
/// property `_: ` of the same length (types are erased, so nothing is lost).
/// Object types are recognised where nothing else can be: the braces of a
/// `type`, `opaque type` or `interface` declaration, and the annotation of a
/// parameter that opens a parameter list (`(name: {`, `(name?: {`); an
/// object literal's spread (`{ ...defaults, a }`) is never touched.
fn name_flow_type_spreads(out: &mut [u8]) {
    let mut starts = Vec::new();
    let mut line_start = 0;
    for line in out.split_inclusive(|b| *b == b'\n') {
        let lead = line
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let mut t = &line[lead..];
        for prefix in [&b"export "[..], b"declare ", b"opaque "] {
            if let Some(rest) = t.strip_prefix(prefix) {
                t = rest;
            }
        }
        let t = t.strip_prefix(b"opaque ").unwrap_or(t);
        if t.starts_with(b"type ") || t.starts_with(b"interface ") {
            let at = line_start + line.len() - t.len();
            // The declaration's first `{`, before it ends (`type A = B;`).
            if let Some(k) = out[at..]
                .iter()
                .take(400)
                .position(|b| matches!(b, b'{' | b';'))
                && out[at + k] == b'{'
            {
                starts.push(at + k);
            }
        }
        line_start += line.len();
    }
    // `(name: {` and `(name?: {`: a parameter's annotation.
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'(', &out[i..]) {
        let open = i + k;
        i = open + 1;
        let name = out[i..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
            .count();
        if name == 0 {
            continue;
        }
        let mut j = i + name;
        if out.get(j) == Some(&b'?') {
            j += 1;
        }
        if out.get(j) != Some(&b':') {
            continue;
        }
        j += 1;
        while out.get(j).is_some_and(|b| matches!(b, b' ' | b'\t')) {
            j += 1;
        }
        if out.get(j) == Some(&b'{') {
            starts.push(j);
        }
    }
    for open in starts {
        let mut depth = 0usize;
        let mut j = open;
        while j < out.len() {
            match out[j] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'.' if out[j..].starts_with(b"...") => {
                    out[j..j + 3].copy_from_slice(b"_: ");
                    j += 2;
                }
                // A string literal type is skipped to its end (on its
                // line), braces in it not counted; a `(` opens a function
                // type, skipped whole, whose rest parameters (`...args`) stay.
                b'\'' | b'"' | b'`' => {
                    let q = out[j];
                    j += 1;
                    while j < out.len() && out[j] != q && out[j] != b'\n' {
                        j += 1;
                    }
                }
                b'(' => {
                    let mut d = 0usize;
                    while j < out.len() {
                        match out[j] {
                            b'(' => d += 1,
                            b')' => {
                                d -= 1;
                                if d == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                }
                _ => {}
            }
            j += 1;
        }
    }
}

/// Flow's function types may leave parameters unnamed (`(any, boolean) =>
/// void`), which TypeScript reads as parameters named `any` and `boolean`
/// and its grammar rejects when a name is a predefined type or has `[]`.
/// In an annotation (after `:`), a parameter list of bare names (each maybe
/// `[]`) followed by `=>` gets same-length names: a predefined type's last
/// letter becomes `_` and `[]` is blanked. Types are erased, so nothing is
/// lost.
fn name_flow_function_params(out: &mut [u8]) {
    const PREDEFINED: &[&[u8]] = &[
        b"string", b"number", b"boolean", b"object", b"symbol", b"bigint", b"unknown", b"never",
        b"any", b"void", b"mixed", b"null",
    ];
    let mut open = 0;
    while let Some(k) = memchr::memchr(b'(', &out[open..]) {
        open += k;
        let start = open;
        open += 1;
        let before = out[..start]
            .iter()
            .rev()
            .find(|b| !matches!(b, b' ' | b'\t'));
        if before != Some(&b':') {
            continue;
        }
        let Some(len) = out[start + 1..]
            .iter()
            .take(400)
            .position(|b| matches!(b, b')' | b'(' | b'\n' | b'{' | b'<'))
        else {
            continue;
        };
        let close = start + 1 + len;
        if out[close] != b')' {
            continue;
        }
        let after = out[close + 1..]
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t'));
        if !after.is_some_and(|a| out[close + 1 + a..].starts_with(b"=>")) {
            continue;
        }
        let list = start + 1..close;
        let params: Vec<(usize, usize)> = {
            let mut v = Vec::new();
            let mut at = list.start;
            for piece in out[list.clone()].split(|b| *b == b',') {
                v.push((at, at + piece.len()));
                at += piece.len() + 1;
            }
            v
        };
        let bare = |r: &[u8]| {
            let t = r.trim_ascii();
            let t = t.strip_suffix(b"[]").unwrap_or(t);
            !t.is_empty()
                && t.iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
        };
        if params.len() < 2 || !params.iter().all(|&(a, b)| bare(&out[a..b])) {
            continue;
        }
        for (a, b) in params {
            let lead = out[a..b]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
            let word_end = a
                + lead
                + out[a + lead..b]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$'))
                    .count();
            if PREDEFINED.contains(&&out[a + lead..word_end]) {
                out[word_end - 1] = b'_';
            }
            if out[word_end..b].trim_ascii().starts_with(b"[]") {
                for c in &mut out[word_end..b] {
                    if matches!(c, b'[' | b']') {
                        *c = b' ';
                    }
                }
            }
        }
    }
}

/// The byte-for-byte marks of Flow's maybe types and exact objects.
fn flow_marks_to_ts(src: &[u8]) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(src: &str) -> FileFacts {
        SyntaxContext::new().lower(Grammar::TypeScript, src.as_bytes())
    }

    #[test]
    fn node_scripts_are_known_by_their_shebang() {
        for head in [
            "#!/usr/bin/env node\n\nvar app = require('../app');",
            "#!/usr/local/bin/node --inspect\n",
            "#!/usr/bin/env -S node --max-old-space-size=4096\n",
            "#! /usr/bin/nodejs",
        ] {
            assert!(Grammar::is_node_script(head.as_bytes()), "{head:?}");
        }
        for head in [
            "#!/bin/sh\nexec node ./bin/www\n",
            "#!/usr/bin/env python3\n",
            "#!/usr/bin/env nodemon-like\n",
            "var app = require('../app');\n",
            "# node\n",
            "#!",
            "",
        ] {
            assert!(!Grammar::is_node_script(head.as_bytes()), "{head:?}");
        }
    }

    #[test]
    fn flow_function_types_with_unnamed_parameters_parse() {
        let src = "class D {\n  static check: (any, boolean, boolean) => void;\n  static filter: (boolean, any[], Schema, string) => void;\n  run() { return (string, number) => string + number; }\n}\nmodule.exports = D;\n";
        let copy = flow_to_ts(src.as_bytes());
        let text = String::from_utf8(copy.clone()).unwrap();
        assert_eq!(copy.len(), src.len());
        assert!(text.contains("(an_, boolea_, boolea_) => void"), "{text}");
        assert!(
            text.contains("(boolea_, an_  , Schema, strin_) => void"),
            "{text}"
        );
        // An arrow function's parameters (not after `:`) keep their names.
        assert!(
            text.contains("return (string, number) => string + number"),
            "{text}"
        );
        let facts = SyntaxContext::new().lower(Grammar::JavaScript, src.as_bytes());
        assert!(facts.parse_errors.is_empty(), "{:?}", facts.parse_errors);
    }

    #[test]
    fn flow_object_type_spreads_parse() {
        let src = "// @flow\nimport type { A } from './a';\nexport type Props = {\n  ...$Exact<A>,\n  user: ?string,\n  nested: { ...A, on: (...args: Array<string>) => void },\n};\nconst Embed = (props: { ...A, src?: string }) => {\n  const merged = { ...props, b: 1 };\n  return merged;\n};\nmodule.exports = Embed;\n";
        let copy = flow_to_ts(src.as_bytes());
        let text = String::from_utf8(copy.clone()).unwrap();
        assert_eq!(copy.len(), src.len());
        assert!(text.contains("  _: $Exact<A>,"), "{text}");
        assert!(text.contains("nested: { _: A, on: (...args"), "{text}");
        assert!(text.contains("(props: { _: A, src?"), "{text}");
        // An object literal's spread is a value: it stays.
        assert!(text.contains("const merged = { ...props, b: 1 }"), "{text}");
        let facts = SyntaxContext::new().lower(Grammar::JavaScript, src.as_bytes());
        assert!(facts.parse_errors.is_empty(), "{:?}", facts.parse_errors);
    }

    #[test]
    fn strings_cut_short_by_a_syntax_error_do_not_panic() {
        // Found by the fuzz run: an unterminated string whose last character
        // is several bytes long, and a JSDoc type that is a lone quote.
        for src in [
            "res.json({ ok: 1 }); x('Passwords\u{FFFD}",
            "router.get('/a\u{20AC}",
            "const s = 'abc\u{FFFD}\n",
            "f(\"\u{00E9}",
            "/** @type {'} */ let x = 1;",
            "/** @param {\"} req */ function h(req) {}",
        ] {
            let _ = lower(src);
        }
    }

    #[test]
    fn using_is_a_name_unless_it_declares() {
        let f =
            lower("const f = (a: string, using: string) => using;\nawait using res = open();\n");
        assert!(f.parse_errors.is_empty(), "{:?}", f.parse_errors);
        let Stmt::Var(d) = &f.body[0] else {
            panic!("{:?}", f.body[0])
        };
        let Some(Expr::Func(func)) = &d[0].1 else {
            panic!("{:?}", d[0].1)
        };
        assert!(matches!(&func.params[1], Pattern::Ident(n) if n == "using"));
        assert_eq!(
            recover::rename_using(b"using x = y; g(using); o.using; await using z = w"),
            Some("using x = y; g(usi\u{1E5}); o.usi\u{1E5}; await using z = w".into())
        );
    }

    #[test]
    fn type_star_exports_are_erased() {
        let f = lower(
            "export type * from './a';\nexport type * as T from \"./b\"\nexport const x = 1;\n",
        );
        assert!(f.parse_errors.is_empty(), "{:?}", f.parse_errors);
        assert_eq!(f.body.len(), 1, "{:?}", f.body);
        assert_eq!(
            recover::erase_type_star_exports(
                b"  export type * as T from './t'; f();\nexport * from './u';\n"
            ),
            Some(format!("{} f();\nexport * from './u';\n", " ".repeat(32)).into_bytes())
        );
        assert_eq!(
            recover::erase_type_star_exports(b"export type { A } from './a';\n"),
            None
        );
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
        let (js, ts) = super::markup_scripts(html, "index.html");
        assert_eq!(js.len(), html.len());
        let text = String::from_utf8(js).unwrap();
        assert_eq!(text.lines().nth(3).unwrap(), "var s = io();");
        assert!(!text.contains("socket.io.js"));
        assert!(!text.contains('x'));
        assert!(!ts);
        let (_, ts) = super::markup_scripts(
            b"<script setup lang=\"ts\">let a: number = 1;</script>",
            "a.vue",
        );
        assert!(ts);
    }
}
