//! Recovery from syntax errors that tree-sitter's own recovery handles
//! badly, and honest words for what is lost.
//!
//! Captures two repairs, each a patched copy of the source with the same
//! line numbers, kept only when it parses with fewer errors:
//!
//! - merge-conflict markers (`<<<<<<<`, `|||||||`, `=======`, `>>>>>>>`):
//!   the checked-out side ("ours") is kept, the markers, the common base and
//!   the other side are blanked;
//! - a block whose `}` never comes (`function f() {` left open): tree-sitter
//!   reads everything after it as inside it, so the routes registered after
//!   it vanish into a function nobody calls. The block is closed before the
//!   first later line indented no deeper than the line that opened it.
//!
//! A third patched copy works around the TypeScript grammar (0.23), which
//! reads the word `using` as the keyword of a `using` declaration wherever an
//! expression may start, so a parameter or variable named `using`
//! (`(table: string, using: string) => …`) loses its whole declaration. Where
//! `using` is not followed on its line by a binding name, the copy spells it
//! with a same-length stand-in ([`USING_STAND_IN`]) for the parse, and the
//! lowering reads the names from [`restore_using`]'s bytes.
//!
//! A fourth copy blanks TypeScript 5.0's type-only star re-exports
//! (`export type * from './types'`, `export type * as T from './types'`),
//! which the TypeScript grammar (0.23) cannot read; compiling erases them, so
//! nothing is lost and no error is reported ([`erase_type_star_exports`]).
//!
//! A fifth copy reads decorators the TypeScript grammar (0.23) cannot:
//! TypeScript takes any call chain after `@` (`@Returns(200, Array).Of(Order)`,
//! `@(Returns(200).ContentType("text/html"))`, as Ts.ED writes them), the
//! grammar only a name, a member path and one call. The copy turns the
//! chained tail into a same-length comment (`@Returns(200, Array)/*...*/`),
//! so the decorator and everything after it in the class are read; what the
//! tail adds (a response's item type, a content type) is not
//! ([`cut_decorator_chains`]).
//!
//! A sixth copy reads TypeScript's import types as the first type argument
//! of a call (`getRequest<import('fastify').FastifyRequest>()`,
//! `f<typeof import('./m')>()`) or as a declared variable's type (`let
//! entries: import("fs").Dirent[];`), which the TypeScript grammar (0.23) takes
//! for a comparison with a dynamic import and then fails on the `>()`: the
//! copy spells `import('…')` there as a same-length name (`______…`), a type
//! the grammar reads; types are erased, so nothing is lost
//! ([`rename_type_argument_imports`]).
//!
//! A seventh copy spells a type member named `in` that follows a member
//! with no separator (`key: string` then `in: "header"`) as `i_`, which the
//! TypeScript grammar (0.23) otherwise reads as continuing the type above
//! ([`rename_in_members`]).
//!
//! An eighth copy blanks the type arguments of a tagged template
//! (``styled.div<{ selected: boolean }>`…` ``, TypeScript 2.9), which the
//! TypeScript grammar (0.23) reads as comparisons and then fails on
//! ([`erase_tagged_template_type_args`]); a ninth spells a function type's
//! lone parameter named like a predefined type (`(string) => boolean`: a
//! parameter named `string`) with a same-length name
//! ([`rename_keyword_type_params`]). Types are erased, so nothing is lost.
//!
//! Every repair and every remaining error is a line of `parse_errors` saying
//! exactly which lines were kept, assumed or skipped.
//!
//! Deliberately not done: guessing at anything else (a stray `)` or an
//! unterminated string stays an error whose lines are named as skipped).

use tree_sitter::Node;

/// A repair that gives a patched same-length copy of the source, or `None`
/// when it finds nothing to patch.
pub(super) type CopyRepair = fn(&[u8]) -> Option<Vec<u8>>;

/// A patched copy of the source (same lines) and one note per repair:
/// (line, what was kept, assumed or skipped).
pub(super) struct Repair {
    pub(super) src: Vec<u8>,
    pub(super) notes: Vec<(u32, String)>,
}

/// A source with merge-conflict markers resolved to the checked-out side,
/// and one note per conflict; `None` when there is no marker.
pub(super) fn resolve_conflicts(src: &[u8]) -> Option<Repair> {
    let marker = |line: &[u8], m: &[u8]| {
        line.starts_with(m) && matches!(line.get(7), None | Some(b' ' | b'\r' | b'\n' | b'\t'))
    };
    if !src.split(|&b| b == b'\n').any(|l| marker(l, b"<<<<<<<")) {
        return None;
    }
    #[derive(PartialEq, Clone, Copy)]
    enum Part {
        Code,
        Ours,
        Base,
        Theirs,
    }
    let mut out = Vec::with_capacity(src.len());
    let mut notes = Vec::new();
    let mut part = Part::Code;
    let (mut start, mut other) = (0u32, 0u32);
    for (i, line) in src.split_inclusive(|&b| b == b'\n').enumerate() {
        let n = i as u32 + 1;
        let next = if marker(line, b"<<<<<<<") {
            start = n;
            Some(Part::Ours)
        } else if part == Part::Ours && marker(line, b"|||||||") {
            Some(Part::Base)
        } else if matches!(part, Part::Ours | Part::Base) && marker(line, b"=======") {
            other = n + 1;
            Some(Part::Theirs)
        } else if part == Part::Theirs && marker(line, b">>>>>>>") {
            notes.push((
                start,
                format!(
                    "merge-conflict markers (lines {start}–{n}): the checked-out side (before `=======`) was analyzed, the other side ({}) was not",
                    range(other, n.saturating_sub(1).max(other))
                ),
            ));
            Some(Part::Code)
        } else {
            None
        };
        let blank = next.is_some() || matches!(part, Part::Base | Part::Theirs);
        if blank {
            out.extend(line.iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }));
        } else {
            out.extend_from_slice(line);
        }
        if let Some(p) = next {
            part = p;
        }
    }
    if part != Part::Code {
        return None; // an unfinished conflict: leave it to the parser
    }
    Some(Repair { src: out, notes })
}

/// `line N` or `lines N–M`.
pub(super) fn range(from: u32, to: u32) -> String {
    if to <= from {
        format!("line {from}")
    } else {
        format!("lines {from}–{to}")
    }
}

/// What an ERROR node cost: the lowering keeps the complete statements and
/// declarations tree-sitter recovered inside it; the finding's line and a
/// message naming the lines that were skipped.
pub(super) fn skipped(error: Node, src: &[u8]) -> (u32, String) {
    let blank: Vec<bool> = src
        .split(|&b| b == b'\n')
        .map(|l| l.trim_ascii().is_empty())
        .collect();
    let first = error.start_position().row as u32 + 1;
    let last = error.end_position().row as u32 + 1;
    let mut kept: Vec<(u32, u32)> = Vec::new();
    let mut cur = error.walk();
    for c in error.named_children(&mut cur) {
        let k = c.kind();
        if k.ends_with("statement") || k.ends_with("declaration") || k == "comment" {
            kept.push((
                c.start_position().row as u32 + 1,
                c.end_position().row as u32 + 1,
            ));
        }
    }
    // Lines of the span no kept statement covers (a line shared with a kept
    // statement counts as kept).
    let mut lost: Vec<(u32, u32)> = Vec::new();
    for l in first..=last {
        if kept.iter().any(|(a, b)| (*a..=*b).contains(&l))
            || blank.get(l as usize - 1).copied().unwrap_or(false)
        {
            continue;
        }
        match lost.last_mut() {
            Some((_, b)) if *b + 1 == l => *b = l,
            _ => lost.push((l, l)),
        }
    }
    let statements = kept.len();
    if lost.is_empty() {
        // Everything on those lines was a complete statement but one piece.
        return (
            first,
            format!(
                "unexpected syntax in {}: its complete statements were kept, the broken piece was skipped",
                range(first, last)
            ),
        );
    }
    let mut skipped: Vec<String> = lost.iter().take(4).map(|(a, b)| range(*a, *b)).collect();
    if lost.len() > 4 {
        let lines: u32 = lost.iter().map(|(a, b)| b - a + 1).sum();
        skipped.push(format!(
            "{} more ranges ({lines} lines in all)",
            lost.len() - 4
        ));
    }
    (
        lost[0].0,
        format!(
            "unexpected syntax: {} skipped{}",
            skipped.join(", "),
            if statements > 0 {
                format!(
                    " ({statements} complete statement{} around {} kept)",
                    if statements == 1 { "" } else { "s" },
                    if lost.len() == 1 { "it" } else { "them" }
                )
            } else {
                String::new()
            }
        ),
    )
}

fn indent_of(line: &[u8]) -> Option<usize> {
    let n = line
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    (!line[n..].trim_ascii().is_empty()).then_some(n)
}

/// A source where each block whose `}` is missing is closed before the
/// first later line indented no deeper than the line that opened it, with
/// one note per block closed; `None` when no block can be closed so.
pub(super) fn close_blocks(root: Node, src: &[u8]) -> Option<Repair> {
    let mut missing = Vec::new();
    missing_braces(root, &mut missing);
    if missing.is_empty() {
        return None;
    }
    let lines: Vec<&[u8]> = src.split_inclusive(|&b| b == b'\n').collect();
    // (line index where `}` goes, opening line index)
    let mut closes: Vec<(usize, usize)> = Vec::new();
    for open in missing {
        let Some(base) = lines.get(open).and_then(|l| indent_of(l)) else {
            continue;
        };
        let close = (open + 1..lines.len()).find(|&i| {
            let l = lines[i];
            indent_of(l).is_some_and(|d| {
                let t = l[d..].trim_ascii_start();
                d <= base && !t.starts_with(b"}") && !t.starts_with(b")") && !t.starts_with(b"]")
            })
        });
        if let Some(close) = close {
            closes.push((close, open));
        }
    }
    if closes.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(src.len() + closes.len());
    let mut notes = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let here: Vec<usize> = closes
            .iter()
            .filter(|(c, _)| *c == i)
            .map(|(_, o)| *o)
            .collect();
        if here.is_empty() {
            out.extend_from_slice(line);
            continue;
        }
        let d = indent_of(line).unwrap_or(0);
        out.extend_from_slice(&line[..d]);
        for open in &here {
            out.push(b'}');
            notes.push((
                *open as u32 + 1,
                format!(
                    "the block opened at line {} has no closing `}}`; it was read as ending before line {} (by indentation), and the code from line {} on was analyzed",
                    open + 1,
                    i + 1,
                    i + 1
                ),
            ));
        }
        out.extend_from_slice(&line[d..]);
    }
    notes.sort();
    Some(Repair { src: out, notes })
}

/// Opening lines (0-based) of the blocks whose `}` tree-sitter had to assume.
fn missing_braces(node: Node, out: &mut Vec<usize>) {
    if node.is_missing() && node.kind() == "}" {
        if let Some(block) = node.parent() {
            out.push(block.start_position().row);
        }
        return;
    }
    if !node.has_error() {
        return;
    }
    let mut cur = node.walk();
    for child in node.children(&mut cur) {
        missing_braces(child, out);
    }
}

/// The stand-in for the name `using` in the parsed copy: an identifier of the
/// same length (5 bytes, so offsets hold) that no grammar takes for a keyword.
const USING_STAND_IN: &[u8] = "usi\u{1E5}".as_bytes();

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// A copy where each `using` that is a name rather than the start of a
/// `using x = …` declaration is spelled [`USING_STAND_IN`]; `None` when there
/// is none, or when the source holds the stand-in itself (restoring would be
/// ambiguous).
pub(super) fn rename_using(src: &[u8]) -> Option<Vec<u8>> {
    use memchr::memmem::{find, find_iter};
    if find(src, USING_STAND_IN).is_some() {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    for at in find_iter(src, b"using") {
        let end = at + 5;
        if (at > 0 && is_ident_byte(src[at - 1])) || src.get(end).is_some_and(|&b| is_ident_byte(b))
        {
            continue;
        }
        // `using name` on one line declares; `using in x`, `using as T` do not.
        let rest = &src[end..];
        let gap = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let word_len = rest[gap..]
            .iter()
            .take_while(|&&b| is_ident_byte(b))
            .count();
        let word = &rest[gap..gap + word_len];
        let declares = gap > 0
            && word_len > 0
            && !word[0].is_ascii_digit()
            && !matches!(word, b"in" | b"of" | b"instanceof" | b"as" | b"satisfies");
        if declares {
            continue;
        }
        out.get_or_insert_with(|| src.to_vec())[at..end].copy_from_slice(USING_STAND_IN);
    }
    out
}

/// The parsed bytes with every [`USING_STAND_IN`] spelled `using` again
/// (same length: the tree's offsets hold).
pub(super) fn restore_using(src: &[u8]) -> Vec<u8> {
    let mut out = src.to_vec();
    for at in memchr::memmem::find_iter(src, USING_STAND_IN) {
        out[at..at + USING_STAND_IN.len()].copy_from_slice(b"using");
    }
    out
}

/// The source with TypeScript 5.0's type-only star re-exports blanked
/// (`export type * from './types'`, `export type * as T from './types'`),
/// which the TypeScript grammar (0.23) cannot read; same bytes otherwise, so
/// lines and offsets hold. They are erased when compiled: nothing runs for
/// them. `None` when there is none.
pub(super) fn erase_type_star_exports(src: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    for line in src.split_inclusive(|&b| b == b'\n') {
        let lead = line.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if let Some(len) = type_star_export(&line[lead..]) {
            let copy = out.get_or_insert_with(|| src.to_vec());
            copy[at + lead..at + lead + len].fill(b' ');
        }
        at += line.len();
    }
    out
}

/// The length of `export type * [as Name] from '…'[;]` at the start of `s`
/// (one line), if it is one.
fn type_star_export(s: &[u8]) -> Option<usize> {
    let space = |s: &[u8], i: usize| {
        s[i..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count()
    };
    let word = |s: &[u8], i: usize, w: &[u8]| {
        s[i..].starts_with(w)
            && !s
                .get(i + w.len())
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
    };
    let mut i = 0;
    if !word(s, i, b"export") {
        return None;
    }
    i += 6;
    let gap = space(s, i);
    if gap == 0 || !word(s, i + gap, b"type") {
        return None;
    }
    i += gap + 4;
    i += space(s, i);
    if s.get(i) != Some(&b'*') {
        return None;
    }
    i += 1;
    i += space(s, i);
    if word(s, i, b"as") {
        i += 2;
        let gap = space(s, i);
        let name = s[i + gap..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
            .count();
        if gap == 0 || name == 0 {
            return None;
        }
        i += gap + name;
        i += space(s, i);
    }
    if !word(s, i, b"from") {
        return None;
    }
    i += 4;
    i += space(s, i);
    let quote = *s.get(i).filter(|q| matches!(q, b'\'' | b'"'))?;
    let close = s[i + 1..].iter().position(|&b| b == quote || b == b'\n')?;
    if s[i + 1 + close] != quote {
        return None;
    }
    i += close + 2;
    let before_semi = i + space(s, i);
    if s.get(before_semi) == Some(&b';') {
        i = before_semi + 1;
    }
    Some(i)
}

/// A copy of `src` where each decorator's call chain after its first call
/// (`.Of(Order)` of `@Returns(200, Array).Of(Order)`) is a comment of the
/// same length, line breaks kept; `None` when there is none.
pub(super) fn cut_decorator_chains(src: &[u8]) -> Option<Vec<u8>> {
    let mut copy: Option<Vec<u8>> = None;
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'@', &src[i..]) {
        let start = i + at;
        i = start + 1;
        // A decorator starts a line or follows a space (not `a@b` in text).
        if start > 0 && !matches!(src[start - 1], b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        }
        let group = src.get(i) == Some(&b'(');
        // (A group's expression may start on the next line: `@(\n  Returns(202)`.)
        let mut j = if group {
            i + 1
                + src[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_whitespace())
                    .count()
        } else {
            i
        };
        // A name or member path, then its call.
        let name = member_path(src, j);
        if name == 0 {
            continue;
        }
        j += name;
        if src.get(j) != Some(&b'(') {
            continue;
        }
        let Some(after_call) = closing(src, j) else {
            continue;
        };
        // The chain: `.name(args)` or `.name`, any number of them, each
        // maybe on a line of its own.
        let mut end = after_call;
        loop {
            let dot = end
                + src[end..]
                    .iter()
                    .take_while(|b| b.is_ascii_whitespace())
                    .count();
            if src.get(dot) != Some(&b'.') {
                break;
            }
            let n = member_path(src, dot + 1);
            if n == 0 {
                break;
            }
            let next = dot + 1 + n;
            end = match src.get(next) {
                Some(b'(') => match closing(src, next) {
                    Some(e) => e,
                    None => break,
                },
                _ => next,
            };
        }
        let group_end = end
            + src[end..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        if end - after_call < 4 || (group && src.get(group_end) != Some(&b')')) {
            continue;
        }
        let c = copy.get_or_insert_with(|| src.to_vec());
        for b in &mut c[after_call..end] {
            if !matches!(*b, b'\n' | b'\r') {
                *b = b' ';
            }
        }
        c[after_call..after_call + 2].copy_from_slice(b"/*");
        c[end - 2..end].copy_from_slice(b"*/");
        i = end;
    }
    copy
}

/// The length of a name or dotted path of names at `i` (`Returns`, `Api.Get`).
fn member_path(s: &[u8], i: usize) -> usize {
    let mut j = i;
    loop {
        let n = s[j.min(s.len())..]
            .iter()
            .take_while(|b| is_ident_byte(**b))
            .count();
        if n == 0 {
            return if j > i { j - 1 - i } else { 0 };
        }
        j += n;
        if s.get(j) != Some(&b'.') || !s.get(j + 1).is_some_and(|b| is_ident_byte(*b)) {
            return j - i;
        }
        j += 1;
    }
}

/// Just past the `)` that closes the `(` at `open`, skipping strings.
fn closing(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = open;
    while j < s.len() {
        match s[j] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (s[j] == b')').then_some(j + 1);
                }
            }
            q @ (b'"' | b'\'' | b'`') => {
                j += 1;
                while j < s.len() && s[j] != q {
                    if s[j] == b'\\' {
                        j += 1;
                    } else if s[j] == b'\n' && q != b'`' {
                        return None;
                    }
                    j += 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// A copy with every `import('…')` that opens a type argument list (`<`
/// then optionally `typeof`, then the import) spelled as a same-length name
/// of underscores; `None` when there is none.
pub(super) fn rename_type_argument_imports(src: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&src[from..], b"import(").map(|i| i + from) {
        from = at + 7;
        // What precedes: `<`, or `<` and `typeof`, with spaces between.
        let mut i = at;
        let skip_space = |i: &mut usize| {
            while *i > 0 && matches!(src[*i - 1], b' ' | b'\t') {
                *i -= 1;
            }
        };
        skip_space(&mut i);
        if i >= 6 && &src[i - 6..i] == b"typeof" {
            i -= 6;
            skip_space(&mut i);
        }
        if i == 0 || !(src[i - 1] == b'<' || declared_type_at(src, i - 1)) {
            continue;
        }
        // The specifier: one quoted string, then `)`.
        let Some(&q) = src.get(at + 7).filter(|q| matches!(q, b'\'' | b'"')) else {
            continue;
        };
        let Some(len) = src[at + 8..]
            .iter()
            .take(256)
            .position(|&b| b == q || b == b'\n')
        else {
            continue;
        };
        let close = at + 8 + len;
        if src[close] != q || src.get(close + 1) != Some(&b')') {
            continue;
        }
        let copy = out.get_or_insert_with(|| src.to_vec());
        copy[at..close + 2].fill(b'_');
        from = close + 2;
    }
    out
}

/// Whether the `:` at `colon` annotates the variable a line declares
/// (`let entries: import("fs").Dirent[];`): what follows is a type there.
fn declared_type_at(src: &[u8], colon: usize) -> bool {
    if src[colon] != b':' {
        return false;
    }
    let start = src[..colon]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = src[start..colon].trim_ascii();
    let Some(name) = [&b"let "[..], b"const ", b"var "]
        .iter()
        .find_map(|k| line.strip_prefix(*k))
    else {
        return false;
    };
    let name = name.trim_ascii();
    !name.is_empty()
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
}

/// A copy in which a type member named `in` that starts a line after a
/// member with no separator (`key: string` then `in: "header" | "query"`,
/// as TypeScript allows) is spelled `i_`: the TypeScript grammar (0.23)
/// reads the keyword as continuing the type above and loses both lines.
/// Types are erased, so only the member's name in a schema read from the
/// type could differ, and only in a file that did not parse before; `None`
/// when there is no such line.
pub(super) fn rename_in_members(src: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut prev_end: Option<u8> = None;
    let mut start = 0;
    while start < src.len() {
        let end = memchr::memchr(b'\n', &src[start..]).map_or(src.len(), |i| start + i);
        let line = &src[start..end];
        let lead = line
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let rest = &line[lead..];
        let member = rest.starts_with(b"in:") || rest.starts_with(b"in?:");
        let separated = matches!(
            prev_end,
            None | Some(b',' | b';' | b'{' | b'(' | b'[' | b'|' | b'&')
        );
        if member && !separated {
            let copy = out.get_or_insert_with(|| src.to_vec());
            copy[start + lead + 1] = b'_';
        }
        if let Some(&last) = line.iter().rev().find(|b| !b.is_ascii_whitespace()) {
            prev_end = Some(last);
        }
        start = end + 1;
    }
    out
}

/// A copy in which the type arguments of a tagged template
/// (``styled.div<{ a: boolean }>`…` ``, `css<Props>```) are blanked, line
/// breaks kept: the TypeScript grammar (0.23) reads `<` and `>` there as
/// comparisons and loses the statement. Compiling erases them. `None` when
/// there are none.
pub(super) fn erase_tagged_template_type_args(src: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    for close in memchr::memmem::find_iter(src, b">`") {
        // Back to the matching `<`, over nested `<…>` and `=>`, within a
        // few lines' worth of text.
        let (mut depth, mut i, mut open) = (0u32, close, None);
        let floor = close.saturating_sub(2000);
        while i > floor {
            i -= 1;
            match src[i] {
                b'>' if i > 0 && src[i - 1] == b'=' => i -= 1,
                b'>' => depth += 1,
                b'<' if depth == 0 => {
                    open = Some(i);
                    break;
                }
                b'<' => depth -= 1,
                b'`' => break,
                _ => {}
            }
        }
        // The tag before it: a name, a member or a call (`styled(Box)`).
        let Some(open) = open.filter(|&o| {
            o > 0
                && (src[o - 1].is_ascii_alphanumeric() || matches!(src[o - 1], b'_' | b'$' | b')'))
        }) else {
            continue;
        };
        let copy = out.get_or_insert_with(|| src.to_vec());
        for b in &mut copy[open..=close] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    out
}

/// The predefined types a parameter may be named after.
const KEYWORD_TYPES: &[&[u8]] = &[
    b"string", b"number", b"boolean", b"object", b"symbol", b"bigint", b"unknown", b"never",
    b"any", b"void",
];

/// A copy in which a function type's lone parameter named like a predefined
/// type (`(string) => boolean`, where TypeScript reads a parameter named
/// `string` of type `any`) ends in `_` instead (`(strin_) => boolean`): the
/// TypeScript grammar (0.23) rejects the keyword as a parameter name and
/// loses the member. `None` when there is none.
pub(super) fn rename_keyword_type_params(src: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    for open in memchr::memchr_iter(b'(', src) {
        let rest = &src[open + 1..];
        let Some(word) = KEYWORD_TYPES.iter().find(|w| rest.starts_with(w)) else {
            continue;
        };
        let after = &rest[word.len()..];
        if !after.starts_with(b")") {
            continue;
        }
        let arrow = after[1..].iter().position(|b| !matches!(b, b' ' | b'\t'));
        if !arrow.is_some_and(|k| after[1 + k..].starts_with(b"=>")) {
            continue;
        }
        let copy = out.get_or_insert_with(|| src.to_vec());
        copy[open + word.len()] = b'_';
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Grammar, SyntaxContext};

    fn errors(src: &str) -> Vec<(u32, String)> {
        SyntaxContext::new()
            .lower(Grammar::JavaScript, src.as_bytes())
            .parse_errors
    }

    #[test]
    fn unclosed_function_is_closed_by_indentation() {
        let e = errors(
            "app.get('/a', h);\nfunction f(req) {\n  if (x) {\n    y();\n\napp.get('/b', h);\n",
        );
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(
            e[0].1.contains("opened at line 2") && e[0].1.contains("before line 6"),
            "{e:?}"
        );
    }

    #[test]
    fn merge_conflict_keeps_our_side_and_names_the_other() {
        let e = errors("a();\n<<<<<<< HEAD\nb();\n=======\nc();\nd();\n>>>>>>> topic\ne();\n");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].1.contains("lines 2–7"), "{e:?}");
        assert!(
            e[0].1.contains("the other side (lines 5–6) was not"),
            "{e:?}"
        );
    }

    #[test]
    fn decorator_call_chains_are_read() {
        let src = "class C {\n  @Get(\"/\")\n  @Returns(200, Array).Of(Order)\n  list() {}\n\n  @Get(\"/x\")\n  @(Returns(200, String).ContentType(\"text/html\"))\n  page() {}\n\n  @Post(\"/y\")\n  @(\n    Returns(202)\n      .ContentType(\"application/json\")\n  )\n  save() {}\n}\n";
        let facts = SyntaxContext::new().lower(Grammar::TypeScript, src.as_bytes());
        assert!(facts.parse_errors.is_empty(), "{:?}", facts.parse_errors);
        let copy = super::cut_decorator_chains(src.as_bytes()).unwrap();
        let copy = String::from_utf8(copy).unwrap();
        assert!(copy.contains("@Returns(200, Array)/*      */\n"), "{copy}");
        assert!(copy.contains("@(Returns(200, String)/*"), "{copy}");
        // A group whose expression starts on the next line, its chain on another.
        assert!(copy.contains("    Returns(202)/*"), "{copy}");
        assert_eq!(copy.len(), src.len());
    }

    #[test]
    fn import_types_annotating_a_declaration_are_read() {
        let src = "let entries: import(\"fs\").Dirent[];\ntry { entries = []; } catch (e) {}\nconst o = { a: import('./x') };\n";
        let facts = SyntaxContext::new().lower(Grammar::TypeScript, src.as_bytes());
        assert!(facts.parse_errors.is_empty(), "{:?}", facts.parse_errors);
        let copy = super::rename_type_argument_imports(src.as_bytes()).unwrap();
        let copy = String::from_utf8(copy).unwrap();
        assert!(
            copy.starts_with("let entries: ____________.Dirent[];"),
            "{copy}"
        );
        // A dynamic import that is an object's value stays.
        assert!(copy.contains("{ a: import('./x') }"), "{copy}");
    }

    #[test]
    fn tagged_template_type_arguments_and_keyword_named_parameters_are_read() {
        let src = "const B = styled.div<{ on: boolean; f: () => void }>`\n  width: 100%;\n`;\nclass S {\n  ready: (string) => boolean;\n}\ntype T = { f: (number) => void };\napp.get('/x', h);\n";
        let facts = SyntaxContext::new().lower(Grammar::TypeScript, src.as_bytes());
        assert!(facts.parse_errors.is_empty(), "{:?}", facts.parse_errors);
        let copy = super::erase_tagged_template_type_args(src.as_bytes()).unwrap();
        let copy = String::from_utf8(copy).unwrap();
        let first = copy.lines().next().unwrap();
        assert!(
            first.starts_with("const B = styled.div ") && first.trim_end().ends_with("  `"),
            "{copy}"
        );
        assert!(!first.contains(['<', '>']), "{copy}");
        assert_eq!(copy.len(), src.len());
        let copy = super::rename_keyword_type_params(src.as_bytes()).unwrap();
        let copy = String::from_utf8(copy).unwrap();
        assert!(
            copy.contains("(strin_) => boolean") && copy.contains("(numbe_) => void"),
            "{copy}"
        );
        // A comparison followed by a template is no type argument list.
        assert!(super::erase_tagged_template_type_args(b"if (a < b && c >`x`) {}").is_none());
    }

    #[test]
    fn remaining_errors_name_the_lines_skipped() {
        let e = errors("a();\nb();\napp.get('/b', (req, res) => {\n  res.se");
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].0, 3, "{e:?}");
        assert!(e[0].1.contains("line 3 skipped"), "{e:?}");
    }

    #[test]
    fn a_member_named_in_after_one_without_separator_parses() {
        let src = "type Auth =\n  | {\n      kind: \"apikey\"\n      in: \"header\" | \"query\"\n    }\n  | { kind: \"basic\" };\nconst x = 1;\n";
        let lowered = SyntaxContext::new().lower(Grammar::TypeScript, src.as_bytes());
        assert!(
            lowered.parse_errors.is_empty(),
            "{:?}",
            lowered.parse_errors
        );
        // Separated members and object literals are left as written.
        assert!(super::rename_in_members(b"type Q = {\n  a: string;\n  in: string\n}\n").is_none());
        assert!(
            super::rename_in_members(b"const p = {\n  name: 'id',\n  in: 'query',\n};\n").is_none()
        );
    }

    #[test]
    fn import_types_in_type_arguments_parse() {
        let src = "const req = ctx.getRequest<import('fastify').FastifyRequest>();\nconst m = load<typeof import(\"./m\")>();\napp.get('/x', h);\n";
        let copy = super::rename_type_argument_imports(src.as_bytes()).expect("a copy");
        assert_eq!(copy.len(), src.len());
        let text = String::from_utf8(copy).unwrap();
        assert!(
            text.contains("getRequest<_________________.FastifyRequest>()"),
            "{text}"
        );
        assert!(text.contains("load<typeof _____________>()"), "{text}");
        // A dynamic import that opens no type argument list stays.
        assert!(super::rename_type_argument_imports(b"const m = await import('./m');").is_none());
        let e = SyntaxContext::new()
            .lower(Grammar::TypeScript, src.as_bytes())
            .parse_errors;
        assert!(e.is_empty(), "{e:?}");
    }
}
