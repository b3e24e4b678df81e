//! JSDoc: `@type`/`@param` types and `@typedef` blocks read as TypeScript
//! types.

use super::doc::{Doc, named, typed};
use crate::ir::*;

/// The type of a JSDoc `@type {T}` tag.
pub(crate) fn jsdoc_tag_type(doc: &str) -> Option<TypeExpr> {
    let doc = Doc::parse(doc);
    let (ty, _) = typed(doc.tags_named("type").next()?)?;
    Some(jsdoc_type_expr(ty))
}

/// The index of the `}` closing a `{` already consumed.
pub(crate) fn matching_brace(s: &str) -> Option<usize> {
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
pub(crate) fn split_top(s: &str, sep: char) -> Vec<&str> {
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
    if t.len() >= 2
        && ((t.starts_with('\'') && t.ends_with('\'')) || (t.starts_with('"') && t.ends_with('"')))
    {
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
/// tags, as type declarations.
pub(crate) fn jsdoc_typedefs(doc: &str) -> Vec<Stmt> {
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
    for (tag, value) in &Doc::parse(doc).tags {
        match tag.as_str() {
            "typedef" => {
                flush(current.take(), &mut out);
                if let Some((ty, rest)) = typed(value) {
                    let name = rest.split_whitespace().next().unwrap_or("").to_string();
                    if !name.is_empty() {
                        let ty = jsdoc_type_expr(ty);
                        let alias =
                            (!matches!(&ty, TypeExpr::Object(f) if f.is_empty())).then_some(ty);
                        current = Some((name, alias, Vec::new()));
                    }
                }
            }
            "property" | "prop" => {
                if let (Some(cur), Some((ty, rest))) = (current.as_mut(), typed(value))
                    && let Some((name, optional, desc)) = named(rest)
                {
                    let ty = jsdoc_type_expr(ty);
                    let desc = desc.trim_start_matches('-').trim();
                    let ty = if desc.is_empty() {
                        ty
                    } else {
                        TypeExpr::Described(Box::new(ty), desc.to_string())
                    };
                    cur.2.push((name.to_string(), optional, ty));
                }
            }
            _ => {}
        }
    }
    flush(current, &mut out);
    out
}
