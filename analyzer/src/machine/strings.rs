//! `String.prototype` and `RegExp` methods over known strings.
//!
//! Captures what route tables and file loaders do with names: `endsWith`,
//! `startsWith`, `includes`, `indexOf`, `slice`, `substring`, `substr`,
//! `charAt`, `at`, `padStart`, `repeat`, `match`, and `replace`/`replaceAll`/`test`
//! with a regex literal (`f.replace(/\.js$/, '')`, `/\.js$/.test(f)`).
//!
//! Deliberately not: regexes Rust's `regex` crate cannot run (look-around,
//! back-references) give unknown values; `$1`-style replacement patterns are
//! supported, and a replacement function is called for each match
//! (`Interp::replace_by_function`).

use super::arrays::{integer, relative_bound, relative_index, slice_range};
use crate::value::Value;

/// The `String.prototype` methods this module and `machine::string_method`
/// answer for a known string.
pub(crate) const STRING_METHODS: &[&str] = &[
    "toLowerCase",
    "toUpperCase",
    "trim",
    "trimStart",
    "trimLeft",
    "trimEnd",
    "trimRight",
    "concat",
    "replace",
    "replaceAll",
    "split",
    "endsWith",
    "startsWith",
    "includes",
    "indexOf",
    "lastIndexOf",
    "slice",
    "substring",
    "substr",
    "charAt",
    "at",
    "repeat",
    "match",
];

/// A JS regex literal (`/a+/gi`) as a Rust regex and whether it is global.
pub(crate) fn regex_of(literal: &str) -> Option<(regex::Regex, bool)> {
    // Compiling is most of the cost (a loop over files runs the same
    // `/\.js$/` thousands of times): each literal is compiled once per
    // thread; a `Regex` clone shares the compiled program.
    thread_local! {
        static COMPILED: std::cell::RefCell<std::collections::HashMap<String, Option<(regex::Regex, bool)>>> =
            Default::default();
    }
    if let Some(hit) = COMPILED.with(|c| c.borrow().get(literal).cloned()) {
        return hit;
    }
    let compiled = compile(literal);
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 4096 {
            c.clear();
        }
        c.insert(literal.to_string(), compiled.clone());
    });
    compiled
}

fn compile(literal: &str) -> Option<(regex::Regex, bool)> {
    let body = literal.strip_prefix('/')?;
    let end = body.rfind('/')?;
    let (pattern, flags) = (&body[..end], &body[end + 1..]);
    let mut inline = String::new();
    for f in flags.chars() {
        match f {
            'i' | 'm' | 's' => inline.push(f),
            'g' | 'u' | 'y' | 'd' | 'v' => {}
            _ => return None,
        }
    }
    let pattern = if inline.is_empty() {
        pattern.to_string()
    } else {
        format!("(?{inline}){pattern}")
    };
    // A JS `/` needs no escape in Rust's syntax, and `\/` is a plain `/` there too.
    let re = regex::Regex::new(&pattern.replace("\\/", "/")).ok()?;
    Some((re, flags.contains('g')))
}

/// `regex.<name>(argv)`.
pub(crate) fn regex_method(literal: &str, name: &str, argv: &[Value]) -> Value {
    let Some((re, _)) = regex_of(literal) else {
        return Value::dynamic();
    };
    match (name, argv.first().and_then(Value::as_text)) {
        ("test", Some(s)) => Value::Bool(re.is_match(&s)),
        ("exec", Some(s)) => matched(&re, &s),
        _ => Value::dynamic(),
    }
}

fn matched(re: &regex::Regex, s: &str) -> Value {
    match re.captures(s) {
        Some(c) => Value::array(
            c.iter()
                .map(|m| m.map_or(Value::Undef, |m| Value::str(m.as_str())))
                .collect(),
        ),
        None => Value::Null,
    }
}

impl super::Interp {
    /// `s.replace(pattern, fn)` and `replaceAll`: the function is called for
    /// each match, in order, with the match, its groups, its offset and the
    /// whole string, and what it gives takes the match's place; no match
    /// leaves the string as it was without a call (`p.replaceAll(/%[0-9A-F]{2}/g,
    /// (m) => decodeURIComponent(m))` over a file path with no `%`).
    /// Unknown when the pattern cannot be run here or a call gives a value only
    /// known at run time.
    pub(crate) fn replace_by_function(
        &mut self,
        ctx: &super::Ctx,
        s: &str,
        pattern: &Value,
        f: &Value,
        all: bool,
        line: u32,
    ) -> Value {
        const MAX_MATCHES: usize = 64;
        let mut found: Vec<(usize, usize, Vec<Value>)> = Vec::new();
        match pattern {
            Value::Regex(r) => {
                let Some((re, global)) = regex_of(r) else {
                    return Value::dynamic();
                };
                for c in re
                    .captures_iter(s)
                    .take(if global || all { MAX_MATCHES + 1 } else { 1 })
                {
                    let m = c.get(0).expect("group 0 is the match");
                    let groups = c
                        .iter()
                        .skip(1)
                        .map(|g| g.map_or(Value::Undef, |g| Value::str(g.as_str())))
                        .collect();
                    found.push((m.start(), m.end(), groups));
                }
            }
            Value::Str(p) if !p.is_empty() => {
                for (at, m) in
                    s.match_indices(p.as_ref())
                        .take(if all { MAX_MATCHES + 1 } else { 1 })
                {
                    found.push((at, at + m.len(), Vec::new()));
                }
            }
            _ => return Value::dynamic(),
        }
        if found.len() > MAX_MATCHES {
            return Value::dynamic();
        }
        let mut out = String::new();
        let mut last = 0;
        for (start, end, groups) in found {
            out.push_str(&s[last..start]);
            let mut args = vec![Value::str(&s[start..end])];
            args.extend(groups);
            args.push(Value::Num(s[..start].chars().count() as f64));
            args.push(Value::str(s));
            let r = self.call_value_now(ctx, f, args, &[], line, None);
            match self.force(r, 0).as_text() {
                Some(t) => out.push_str(&t),
                None => return Value::dynamic(),
            }
            last = end;
        }
        out.push_str(&s[last..]);
        Value::str(&out)
    }
}

/// String methods `string_method` leaves to this module; `None` when the
/// method or its arguments are not known here.
pub(crate) fn string_method(s: &str, name: &str, argv: &[Value]) -> Option<Value> {
    let text = |i: usize| argv.get(i).and_then(Value::as_text);
    let num = |i: usize| match argv.get(i) {
        Some(Value::Num(n)) => Some(*n),
        _ => None,
    };
    // An argument as `ToIntegerOrInfinity` reads it; an absent one is `None`.
    let int = |i: usize| argv.get(i).map(integer);
    let chars: Vec<char> = s.chars().collect();
    let len = chars.len();
    let sub = |a: usize, b: usize| -> Value {
        if a >= b {
            Value::str("")
        } else {
            Value::str(&chars[a..b].iter().collect::<String>())
        }
    };
    Some(match name {
        "endsWith" => Value::Bool(s.ends_with(text(0)?.as_str())),
        "startsWith" => Value::Bool(s.starts_with(text(0)?.as_str())),
        "includes" => Value::Bool(s.contains(text(0)?.as_str())),
        "indexOf" | "lastIndexOf" => {
            let needle = text(0)?;
            let found = if name == "indexOf" {
                s.find(needle.as_str())
            } else {
                s.rfind(needle.as_str())
            };
            Value::Num(found.map_or(-1.0, |i| s[..i].chars().count() as f64))
        }
        // Below zero counts from the end (`f.slice(0, -3)`).
        "slice" => {
            let (a, b) = slice_range(len, argv)?;
            sub(a, b)
        }
        // Below zero is 0, and the bounds are swapped when reversed.
        "substring" => {
            let fix = |n: f64| n.clamp(0.0, len as f64) as usize;
            let a = fix(int(0).unwrap_or(Some(0.0))?);
            let b = match argv.get(1) {
                None | Some(Value::Undef) => len,
                Some(v) => fix(integer(v)?),
            };
            sub(a.min(b), a.max(b))
        }
        // A start below zero counts from the end; the second argument is a length.
        "substr" => {
            let a = relative_bound(int(0).unwrap_or(Some(0.0))?, len) as usize;
            let n = match argv.get(1) {
                None | Some(Value::Undef) => len as f64,
                Some(v) => integer(v)?,
            };
            sub(a, (a as f64 + n.max(0.0)).min(len as f64) as usize)
        }
        // `charAt` outside the string is `''`; `at` reads below zero from the
        // end and is `undefined` outside.
        "charAt" | "at" => {
            let n = int(0).unwrap_or(Some(0.0))?;
            let i = if name == "at" {
                relative_index(n, len)
            } else {
                (n >= 0.0 && n < len as f64).then_some(n as usize)
            };
            match i {
                Some(i) => Value::str(&chars[i].to_string()),
                None if name == "at" => Value::Undef,
                None => Value::str(""),
            }
        }
        "trimStart" | "trimLeft" => Value::str(s.trim_start()),
        "trimEnd" | "trimRight" => Value::str(s.trim_end()),
        "repeat" => Value::str(&s.repeat(num(0)?.clamp(0.0, 1024.0) as usize)),
        "match" => match argv.first() {
            Some(Value::Regex(r)) => {
                let (re, global) = regex_of(r)?;
                if global {
                    let all: Vec<Value> = re.find_iter(s).map(|m| Value::str(m.as_str())).collect();
                    if all.is_empty() {
                        Value::Null
                    } else {
                        Value::array(all)
                    }
                } else {
                    matched(&re, s)
                }
            }
            _ => return None,
        },
        "replace" | "replaceAll" => match (argv.first(), text(1)) {
            (Some(Value::Regex(r)), Some(to)) => {
                let (re, global) = regex_of(r)?;
                // JS writes groups `$1`; the regex crate reads `${1}`.
                let to = js_replacement(&to);
                if global {
                    Value::str(&re.replace_all(s, to.as_str()))
                } else {
                    Value::str(&re.replace(s, to.as_str()))
                }
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// A JS replacement string in the `regex` crate's syntax.
fn js_replacement(to: &str) -> String {
    let mut out = String::new();
    let mut it = to.chars().peekable();
    while let Some(c) = it.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        match it.peek() {
            Some('$') => {
                it.next();
                out.push_str("$$");
            }
            Some(d) if d.is_ascii_digit() => {
                let mut n = String::new();
                while let Some(d) = it.peek().filter(|d| d.is_ascii_digit()) {
                    n.push(*d);
                    it.next();
                }
                out.push_str(&format!("${{{n}}}"));
            }
            Some('&') => {
                it.next();
                out.push_str("${0}");
            }
            _ => out.push_str("$$"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_literals_run() {
        let s = |v: Option<Value>| v.and_then(|v| v.as_text()).unwrap();
        let re = Value::Regex("/\\.js$/".into());
        assert_eq!(
            s(string_method(
                "users.js",
                "replace",
                &[re.clone(), Value::str("")]
            )),
            "users"
        );
        assert_eq!(
            regex_method("/\\.js$/i", "test", &[Value::str("A.JS")]).truthy(),
            Some(true)
        );
        let re = Value::Regex("/(\\w+)-(\\w+)/g".into());
        assert_eq!(
            s(string_method(
                "a-b c-d",
                "replace",
                &[re, Value::str("$2/$1")]
            )),
            "b/a d/c"
        );
        assert_eq!(
            s(string_method(
                "users.js",
                "slice",
                &[Value::Num(0.0), Value::Num(-3.0)]
            )),
            "users"
        );
        assert_eq!(
            s(string_method(
                "users.js",
                "substr",
                &[Value::Num(0.0), Value::Num(5.0)]
            )),
            "users"
        );
    }
}
