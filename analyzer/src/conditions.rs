//! The text of the conditions an operation is charted under: how one
//! condition reads as an operand of `&&`. Deliberately only text: what a
//! condition means is the machine's.

/// A condition's text as an operand of `&&`: in parentheses when an operator
/// that binds more loosely (`||`, `??`, `?:`, `=`, `,`) stands at its top
/// level, so `a || b` under `c` reads `(a || b) && c`, as JavaScript would.
pub(crate) fn and_operand(c: &str) -> String {
    if loose_at_top(c) {
        format!("({c})")
    } else {
        c.to_string()
    }
}

/// The conjunction of `parts`, each conjunct said once, in the order first
/// met: `a && b` under `a` reads `a && b`, not `a && b && a` (nested `if`s
/// over one test, a router made and mounted under the same one). A part with
/// a looser operator at its top level (`a || b`) is one conjunct, in
/// parentheses, unless it is the only one. `None` when there are no parts.
pub(crate) fn conjunction<'a>(parts: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut seen: Vec<Conjunct<'a>> = Vec::new();
    for part in parts {
        split_conjuncts(part, |c| {
            if !seen.iter().any(|s| s.same(&c)) {
                seen.push(c);
            }
        });
    }
    match seen.as_slice() {
        [] => None,
        [Conjunct::Grouped(c)] => Some((*c).to_string()),
        _ => {
            let mut out = String::new();
            for (i, c) in seen.iter().enumerate() {
                if i > 0 {
                    out.push_str(" && ");
                }
                match c {
                    Conjunct::Plain(c) => out.push_str(c),
                    Conjunct::Grouped(c) => {
                        out.push('(');
                        out.push_str(c);
                        out.push(')');
                    }
                }
            }
            Some(out)
        }
    }
}

/// One operand of a top-level `&&`, borrowed from the condition's text.
#[derive(Clone, Copy)]
enum Conjunct<'a> {
    /// Read as it stands.
    Plain(&'a str),
    /// A whole condition with a looser operator at its top level, read in
    /// parentheses.
    Grouped(&'a str),
}

impl Conjunct<'_> {
    /// Whether the two read the same as operands of `&&` (`(a || b)` written
    /// so and `a || b` put in parentheses do).
    fn same(&self, other: &Conjunct<'_>) -> bool {
        match (self, other) {
            (Conjunct::Plain(a), Conjunct::Plain(b))
            | (Conjunct::Grouped(a), Conjunct::Grouped(b)) => a == b,
            (Conjunct::Plain(p), Conjunct::Grouped(g))
            | (Conjunct::Grouped(g), Conjunct::Plain(p)) => {
                p.len() == g.len() + 2
                    && p.starts_with('(')
                    && p.ends_with(')')
                    && &p[1..p.len() - 1] == *g
            }
        }
    }
}

/// Hand `f` the operands of the `&&`s at the top level of `c`, each as an
/// operand of `&&` (so `(a || b)` stays whole), in one pass over its text.
fn split_conjuncts<'a>(c: &'a str, mut f: impl FnMut(Conjunct<'a>)) {
    let b = c.as_bytes();
    let (mut depth, mut i, mut start) = (0i32, 0, 0);
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(b, i, q),
            b'&' | b'|' | b'?' | b',' | b'=' if depth == 0 => {
                if loose_here(b, i) {
                    f(Conjunct::Grouped(c));
                    return;
                }
                if b[i] == b'&' && b.get(i + 1) == Some(&b'&') {
                    cuts.push((start, i));
                    i += 1;
                    start = i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    cuts.push((start, b.len().max(start)));
    for (from, to) in cuts {
        let part = c.get(from..to).unwrap_or("").trim();
        if !part.is_empty() {
            f(Conjunct::Plain(part));
        }
    }
}

/// The index of the closing quote of the string opened by `q` at `i`.
fn skip_quoted(b: &[u8], mut i: usize, q: u8) -> usize {
    i += 1;
    while i < b.len() && b[i] != q {
        if b[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i
}

/// Whether an operator binding more loosely than `&&` stands at the top level of `c`.
fn loose_at_top(c: &str) -> bool {
    let b = c.as_bytes();
    let (mut depth, mut i) = (0i32, 0);
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(b, i, q),
            b'|' | b'?' | b',' | b'=' if depth == 0 && loose_here(b, i) => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether the operator at byte `i` (at the top level) binds more loosely
/// than `&&`: `||`, `??`, `,`, a ternary's `?` (not `?.`), an assignment's
/// `=` (not `==`, `<=`, `=>`).
fn loose_here(b: &[u8], i: usize) -> bool {
    let two = &b[i..(i + 2).min(b.len())];
    let cmp = |j: usize| {
        b.get(j)
            .is_some_and(|c| matches!(c, b'=' | b'!' | b'<' | b'>'))
    };
    two == b"||"
        || two == b"??"
        || b[i] == b','
        || (b[i] == b'?' && b.get(i + 1) != Some(&b'.'))
        || (b[i] == b'=' && !cmp(i + 1) && !(i > 0 && cmp(i - 1)) && b.get(i + 1) != Some(&b'>'))
}

/// The condition that holds when `c` does not: `!(x)` for `x`, and `x` for
/// `!(x)` (a default that applies when `!(process.env.X)` does not apply when
/// `process.env.X`).
pub(crate) fn negated(c: &str) -> String {
    if let Some(inner) = c.strip_prefix("!(").and_then(|r| r.strip_suffix(')')) {
        // `!(a) && !(b)` also starts and ends so: only one group is unwrapped.
        let mut depth = 0i32;
        let whole = inner.bytes().all(|b| {
            match b {
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            depth >= 0
        });
        if whole && depth == 0 {
            return inner.to_string();
        }
    }
    format!("!({c})")
}

#[cfg(test)]
mod tests {
    use super::{and_operand, conjunction, negated};

    #[test]
    fn conjunctions_say_each_conjunct_once() {
        assert_eq!(
            conjunction(["a && !(b)", "c", "a", "!(b) && d"]).as_deref(),
            Some("a && !(b) && c && d")
        );
        assert_eq!(
            conjunction(["a || b", "c", "(a || b)"]).as_deref(),
            Some("(a || b) && c")
        );
        assert_eq!(
            conjunction(["f(a && b)", "s === '&&'"]).as_deref(),
            Some("f(a && b) && s === '&&'")
        );
        assert_eq!(conjunction(["x"]).as_deref(), Some("x"));
        assert_eq!(conjunction(["a || b", "a || b"]).as_deref(), Some("a || b"));
        assert_eq!(conjunction([]), None);
    }

    #[test]
    fn negation_unwraps_one_group() {
        assert_eq!(negated("!(process.env.X)"), "process.env.X");
        assert_eq!(negated("a"), "!(a)");
        assert_eq!(negated("!(a) && !(b)"), "!(!(a) && !(b))");
    }

    #[test]
    fn and_operands_keep_javascript_precedence() {
        assert_eq!(and_operand("a || b"), "(a || b)");
        assert_eq!(
            and_operand("(!err && n > 0) || test"),
            "((!err && n > 0) || test)"
        );
        assert_eq!(and_operand("a ?? b"), "(a ?? b)");
        assert_eq!(and_operand("a ? b : c"), "(a ? b : c)");
        assert_eq!(and_operand("!(a || b)"), "!(a || b)");
        assert_eq!(and_operand("a === 'x||y'"), "a === 'x||y'");
        assert_eq!(and_operand("a?.b && c !== d"), "a?.b && c !== d");
        assert_eq!(
            and_operand("x <= 1 && y >= 2 && f(a, b)"),
            "x <= 1 && y >= 2 && f(a, b)"
        );
        assert_eq!(
            and_operand("list.some((x) => x.on)"),
            "list.some((x) => x.on)"
        );
    }
}
