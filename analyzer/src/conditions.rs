//! The text of the conditions an operation is charted under: how one
//! condition reads as an operand of `&&`. Deliberately only text: what a
//! condition means is the machine's.

/// A condition's text as an operand of `&&`: in parentheses when an operator
/// that binds more loosely (`||`, `??`, `?:`, `=`, `,`) stands at its top
/// level, so `a || b` under `c` reads `(a || b) && c`, as JavaScript would.
pub(crate) fn and_operand(c: &str) -> String {
    let b = c.as_bytes();
    let (mut depth, mut i) = (0i32, 0);
    let mut loose = false;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ if depth == 0 => {
                let two = &b[i..(i + 2).min(b.len())];
                let cmp = |j: usize| {
                    b.get(j)
                        .is_some_and(|c| matches!(c, b'=' | b'!' | b'<' | b'>'))
                };
                // `||`, `??`, `,`, a ternary's `?` (not `?.`), an
                // assignment's `=` (not `==`, `<=`, `=>`).
                loose = two == b"||"
                    || two == b"??"
                    || b[i] == b','
                    || (b[i] == b'?' && b.get(i + 1) != Some(&b'.'))
                    || (b[i] == b'='
                        && !cmp(i + 1)
                        && !(i > 0 && cmp(i - 1))
                        && b.get(i + 1) != Some(&b'>'));
            }
            _ => {}
        }
        if loose {
            break;
        }
        i += 1;
    }
    if loose {
        format!("({c})")
    } else {
        c.to_string()
    }
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
    use super::{and_operand, negated};

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
