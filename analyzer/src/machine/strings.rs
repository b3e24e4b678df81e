//! `String.prototype` and `RegExp` methods over known strings.
//!
//! Captures what route tables and file loaders do with names: `endsWith`,
//! `startsWith`, `includes`, `indexOf`, `slice`, `substring`, `substr`,
//! `charAt`, `padStart`, `repeat`, `match`, and `replace`/`replaceAll`/`test`
//! with a regex literal (`f.replace(/\.js$/, '')`, `/\.js$/.test(f)`).
//!
//! Deliberately not: regexes Rust's `regex` crate cannot run (look-around,
//! back-references) give unknown values; `$1`-style replacement patterns are
//! supported, replacement functions are not.

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

/// String methods `string_method` leaves to this module; `None` when the
/// method or its arguments are not known here.
pub(crate) fn string_method(s: &str, name: &str, argv: &[Value]) -> Option<Value> {
    let text = |i: usize| argv.get(i).and_then(Value::as_text);
    let num = |i: usize| match argv.get(i) {
        Some(Value::Num(n)) => Some(*n),
        _ => None,
    };
    let chars: Vec<char> = s.chars().collect();
    let len = chars.len() as f64;
    let clamp = |n: f64| -> usize {
        let n = if n < 0.0 {
            (len + n).max(0.0)
        } else {
            n.min(len)
        };
        n as usize
    };
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
        "slice" => {
            let a = clamp(num(0).unwrap_or(0.0));
            let b = argv
                .get(1)
                .map_or(Some(chars.len()), |_| num(1).map(clamp))?;
            sub(a, b)
        }
        "substring" => {
            let fix = |n: f64| n.clamp(0.0, len) as usize;
            let a = fix(num(0).unwrap_or(0.0));
            let b = argv.get(1).map_or(Some(chars.len()), |_| num(1).map(fix))?;
            sub(a.min(b), a.max(b))
        }
        "substr" => {
            let a = clamp(num(0).unwrap_or(0.0));
            let n = argv.get(1).map_or(Some(len), |_| num(1))?.max(0.0) as usize;
            sub(a, (a + n).min(chars.len()))
        }
        "charAt" => {
            let i = num(0).unwrap_or(0.0) as usize;
            Value::str(&chars.get(i).map(|c| c.to_string()).unwrap_or_default())
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
