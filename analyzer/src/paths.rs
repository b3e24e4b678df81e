//! Express paths: joining mount prefixes and reading the path grammar.
//!
//! Captures: Express 4 (`:id`, `:id?`, `:id(\d+)`, `*`) and Express 5
//! (`*splat`, `{/:opt}`) syntax in one model, rendered as the Express string
//! and as an OpenAPI template; RegExp paths are kept verbatim and flagged.
//!
//! Deliberately not captured: regex semantics (a RegExp path stays opaque).
//! Joining drops trailing slashes, as Express matches them anyway without
//! strict routing; a strict router puts its routes' slash back
//! (`mounts.rs`).

use serde::{Deserialize, Serialize};

/// One path parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathParam {
    /// Its name (`id`, `splat`; `0` for an unnamed Express 4 `*`).
    pub name: String,
    /// `:id?` or inside `{...}`.
    pub optional: bool,
    /// `*name` (or `*`): matches several segments.
    pub wildcard: bool,
    /// A regex constraint `:id(\d+)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

/// A full route path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathPattern {
    /// Express form, e.g. `/api/users/:id?`.
    pub express: String,
    /// OpenAPI template, e.g. `/api/users/{id}`.
    pub openapi: String,
    /// Parameters in order.
    pub params: Vec<PathParam>,
    /// The route path is a regular expression.
    pub regex: bool,
}

impl PathPattern {
    /// Parse a joined Express path.
    pub fn parse(express: &str, regex: bool) -> PathPattern {
        if regex {
            return PathPattern {
                express: express.to_string(),
                openapi: express.to_string(),
                params: Vec::new(),
                regex: true,
            };
        }
        let mut openapi = String::new();
        let mut params = Vec::new();
        let chars: Vec<char> = express.chars().collect();
        let mut i = 0;
        let mut group_depth = 0;
        let mut unnamed = 0;
        let mut used: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut next_number: std::collections::HashMap<String, usize> =
            std::collections::HashMap::new();
        while i < chars.len() {
            let c = chars[i];
            match c {
                '\\' if i + 1 < chars.len() => {
                    openapi.push(chars[i + 1]);
                    i += 2;
                    continue;
                }
                '{' => {
                    group_depth += 1;
                    i += 1;
                    continue;
                }
                '}' if group_depth > 0 => {
                    group_depth -= 1;
                    i += 1;
                    continue;
                }
                ':' | '*' => {
                    let start = i + 1;
                    let mut j = name_end(&chars, start);
                    let mut name: String = chars[start..j].iter().collect();
                    if c == ':' && name.is_empty() {
                        openapi.push(c);
                        i += 1;
                        continue;
                    }
                    let wildcard = c == '*';
                    if wildcard && name.is_empty() {
                        name = unnamed.to_string();
                        unnamed += 1;
                    }
                    let mut pattern = None;
                    if let Some((inner, after)) = constraint(&chars, j) {
                        pattern = Some(chars[inner].iter().collect());
                        j = after;
                    }
                    let mut optional = group_depth > 0;
                    if j < chars.len() && chars[j] == '?' {
                        optional = true;
                        j += 1;
                    }
                    // Express 4 `:name*` / `:name+` modifiers.
                    let mut multi = false;
                    if j < chars.len() && (chars[j] == '*' || chars[j] == '+') && c == ':' {
                        multi = true;
                        if chars[j] == '*' {
                            optional = true;
                        }
                        j += 1;
                    }
                    // A name used twice (`/:a/x/:a`; Express keeps the last
                    // value) gets a number, so the template's names and the
                    // parameters stay unique, as OpenAPI requires.
                    // (Names used so far, and the next number to try per
                    // name: a damaged path of 50,000 `{x}` took minutes
                    // when each was checked against every earlier one.)
                    if used.contains(&name) {
                        let mut n = next_number.get(&name).copied().unwrap_or(2);
                        while used.contains(&format!("{name}{n}")) {
                            n += 1;
                        }
                        next_number.insert(name.clone(), n + 1);
                        name = format!("{name}{n}");
                    }
                    used.insert(name.clone());
                    if wildcard && name.chars().all(|ch| ch.is_ascii_digit()) {
                        // A bare `*` stays as it is: OpenAPI has no wildcard.
                        openapi.push('*');
                    } else {
                        openapi.push('{');
                        openapi.push_str(&name);
                        openapi.push('}');
                    }
                    params.push(PathParam {
                        name,
                        optional,
                        wildcard: wildcard || multi,
                        pattern,
                    });
                    i = j;
                    continue;
                }
                _ => openapi.push(c),
            }
            i += 1;
        }
        // An OpenAPI path starts with `/`; an Express path that opens with a
        // group (`(/+api|/+api/*?)`) does not.
        if !openapi.starts_with('/') {
            openapi.insert(0, '/');
        }
        PathPattern {
            express: express.to_string(),
            openapi,
            params,
            regex: false,
        }
    }
}

/// Join a mount prefix and a route path the way Express composes them:
/// empty parts dropped, slashes trimmed, one leading `/` (but for a path
/// that opens with a group, below).
pub fn join(prefix: &str, path: &str) -> String {
    // A path that opens with a group (`(/+api|/+api/*?)`, Express 4) is a
    // pattern matched from the start of what the mount leaves, slashes
    // included: it follows the prefix as written, with no `/` put between.
    if path.starts_with('(') {
        let p = join(prefix, "");
        return if p == "/" {
            path.to_string()
        } else {
            format!("{p}{path}")
        };
    }
    let mut parts = Vec::new();
    for p in [prefix, path] {
        let t = p.trim_matches('/');
        if !t.is_empty() {
            parts.push(t);
        }
    }
    let mut out = String::from("/");
    out.push_str(&parts.join("/"));
    while out.contains("//") {
        out = out.replace("//", "/");
    }
    out
}

/// Join a prefix and a RegExp route path: the regex text follows the prefix.
pub(crate) fn join_regex(prefix: &str, regex: &str) -> String {
    let p = join(prefix, "");
    if p == "/" {
        regex.to_string()
    } else {
        format!("{p}{regex}")
    }
}

/// Which request paths (below the router it is given to) a `use` path
/// written as a regular expression takes, as Express 4 matches a `use`
/// layer: from the start, and the rest of the path from a `/` on. A RegExp
/// (`/^\/api/i`, its JavaScript text) is taken as written; a string with
/// the syntax Express 4's path-to-regexp keeps as a regular expression's
/// (`'^([^.]+)$'`: `^`, `$`, a class `[…]`, a group `(…)`, `+`, `?`, `|`) is
/// read as that path-to-regexp reads it: `/` and `.` literal, `*` any text.
/// `None` for a plain path (a prefix), one with parameters, or what the
/// regex engine cannot read (lookaround).
pub(crate) fn use_matcher(path: &str, is_regex: bool) -> Option<regex::Regex> {
    let re = if is_regex {
        let body = path.strip_prefix('/')?;
        let end = body.rfind('/')?;
        let flags = &body[end + 1..];
        format!(
            "{}{}",
            if flags.contains('i') { "(?i)" } else { "" },
            &body[..end]
        )
    } else {
        if path.contains(':') || !path.contains(['^', '$', '[', '(', '+', '?', '|']) {
            return None;
        }
        let mut re = String::from("(?i)^");
        for c in path.chars() {
            match c {
                '.' => re.push_str("\\."),
                '*' => re.push_str("(.*)"),
                c => re.push(c),
            }
        }
        // Not strict: a trailing `/` is optional; then the path ends or a
        // segment follows (a lookahead in JavaScript).
        re.push_str(if re.ends_with('/') { "?" } else { "/?" });
        re.push_str("(?:/|$)");
        re
    };
    regex::Regex::new(&re).ok()
}

/// The end of a parameter's name that starts at `from` (after `:` or `*`).
fn name_end(chars: &[char], from: usize) -> usize {
    let mut j = from;
    while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_' || chars[j] == '$') {
        j += 1;
    }
    j
}

/// A parameter's `(...)` constraint opening at `open`, if one does: the
/// range of its inner text and the index after its closing `)` (the end of
/// the text when it is not closed). A `\` escapes the next character.
fn constraint(chars: &[char], open: usize) -> Option<(std::ops::Range<usize>, usize)> {
    if chars.get(open) != Some(&'(') {
        return None;
    }
    let (mut k, mut depth) = (open, 0);
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 1,
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        k += 1;
    }
    Some((open + 1..k.min(chars.len()), (k + 1).min(chars.len())))
}

/// Which request paths a route path accepts, as Express matches a route
/// layer: the whole path, case-insensitive, a trailing `/` allowed. `:name`
/// is one segment (`:name?` with its leading `/` optional, `:name(re)` its
/// own pattern), `*` (Express 4) and `*name` (Express 5) any text, `{...}`
/// (Express 5) an optional group. `None` for text the grammar cannot read.
pub(crate) fn route_matcher(express: &str) -> Option<regex::Regex> {
    let chars: Vec<char> = express.chars().collect();
    let mut re = String::from("(?i)^");
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                re.push_str(&regex::escape(&chars[i + 1].to_string()));
                i += 2;
                continue;
            }
            '{' => re.push_str("(?:"),
            '}' => re.push_str(")?"),
            ':' | '*' => {
                let mut j = name_end(&chars, i + 1);
                if c == ':' && j == i + 1 {
                    re.push(':');
                    i += 1;
                    continue;
                }
                let mut one = if c == '*' {
                    ".*".to_string()
                } else {
                    "[^/]+?".to_string()
                };
                if let Some((inner, after)) = constraint(&chars, j) {
                    one = chars[inner].iter().collect();
                    j = after;
                }
                if c == ':' && j < chars.len() && chars[j] == '?' {
                    // `/:name?`: the segment and its slash are both optional.
                    let slash = re.ends_with('/');
                    if slash {
                        re.pop();
                    }
                    re.push_str(&format!("(?:{}({one}))?", if slash { "/" } else { "" }));
                    j += 1;
                } else {
                    re.push_str(&format!("({one})"));
                }
                i = j;
                continue;
            }
            _ => re.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    re.push_str("/?$");
    regex::Regex::new(&re).ok()
}

/// A request path a route path accepts: each parameter and wildcard stands
/// for one neutral segment text (`/entries/:id` → `/entries/_`).
pub(crate) fn sample_request(express: &str) -> String {
    let chars: Vec<char> = express.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                out.push(chars[i + 1]);
                i += 2;
                continue;
            }
            '{' | '}' => {}
            ':' | '*' => {
                let mut j = name_end(&chars, i + 1);
                if c == ':' && j == i + 1 {
                    out.push(':');
                    i += 1;
                    continue;
                }
                if let Some((_, after)) = constraint(&chars, j) {
                    j = after;
                }
                while j < chars.len() && matches!(chars[j], '?' | '+' | '*') {
                    j += 1;
                }
                out.push('_');
                i = j;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_patterns_accept_what_express_accepts() {
        let m = route_matcher("/api/v1/entries*").unwrap();
        for ok in [
            "/api/v1/entries",
            "/api/v1/entries/current",
            "/API/v1/entries.json",
            "/api/v1/entries/_",
        ] {
            assert!(m.is_match(ok), "{ok}");
        }
        assert!(!m.is_match("/api/v1/treatments"));
        let m = route_matcher("/v/:id?").unwrap();
        assert!(
            m.is_match("/v") && m.is_match("/v/_") && m.is_match("/v/_/") && !m.is_match("/v/_/x")
        );
        let m = route_matcher("/files{/*rest}").unwrap();
        assert!(m.is_match("/files") && m.is_match("/files/a/b"));
        let m = route_matcher("/n/:id(\\d+)").unwrap();
        assert!(m.is_match("/n/12") && !m.is_match("/n/_"));
        assert_eq!(
            sample_request("/entries/:spec/:id(\\d+)?{/*rest}"),
            "/entries/_/_/_"
        );
    }

    #[test]
    fn join_drops_empty_and_trailing() {
        assert_eq!(join("/api/widgets", "/"), "/api/widgets");
        assert_eq!(join("/", "/"), "/");
        assert_eq!(join("/api/", "/users/:id/"), "/api/users/:id");
        assert_eq!(join("", "x"), "/x");
    }

    #[test]
    fn a_group_path_follows_the_prefix_as_written() {
        assert_eq!(join("/", "(/+api|/+api/*?)"), "(/+api|/+api/*?)");
        assert_eq!(
            join("/forum/", "(/+api|/+api/*?)"),
            "/forum(/+api|/+api/*?)"
        );
    }

    #[test]
    fn a_repeated_parameter_name_gets_a_number() {
        // Seen in the fuzz run: OpenAPI rejects two parameters of one name.
        let p = PathPattern::parse("/reports/:year:year/x/:year", false);
        assert_eq!(p.openapi, "/reports/{year}{year2}/x/{year3}");
        let names: Vec<&str> = p.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["year", "year2", "year3"]);
        assert_eq!(p.express, "/reports/:year:year/x/:year");
    }

    #[test]
    fn express4_params() {
        let p = PathPattern::parse("/api/apps/:id/documents/:filename", false);
        assert_eq!(p.openapi, "/api/apps/{id}/documents/{filename}");
        assert_eq!(p.params.len(), 2);
        let p = PathPattern::parse("/users/:id?", false);
        assert_eq!(p.openapi, "/users/{id}");
        assert!(p.params[0].optional);
        let p = PathPattern::parse("/items/:id(\\d+)", false);
        assert_eq!(p.openapi, "/items/{id}");
        assert_eq!(p.params[0].pattern.as_deref(), Some("\\d+"));
    }

    #[test]
    fn express5_wildcards_and_groups() {
        let p = PathPattern::parse("/api/music/models/:engine/*id", false);
        assert_eq!(p.openapi, "/api/music/models/{engine}/{id}");
        assert!(p.params[1].wildcard);
        let p = PathPattern::parse("/files{/:name}", false);
        assert_eq!(p.openapi, "/files/{name}");
        assert!(p.params[0].optional);
        let p = PathPattern::parse("/{*splat}", false);
        assert_eq!(p.openapi, "/{splat}");
        assert!(p.params[0].wildcard && p.params[0].optional);
    }

    #[test]
    fn bare_star_stays() {
        let p = PathPattern::parse("/assets/*", false);
        assert_eq!(p.openapi, "/assets/*");
        assert!(p.params[0].wildcard);
    }

    #[test]
    fn use_matchers() {
        let caret = use_matcher("^([^.]+)$", false).unwrap();
        assert!(caret.is_match("/moves"));
        assert!(caret.is_match("/moves/12"));
        assert!(!caret.is_match("/app.css"));
        let re = use_matcher("/^\\/api/i", true).unwrap();
        assert!(re.is_match("/API/users"));
        assert!(!re.is_match("/web/api"));
        assert!(use_matcher("/api", false).is_none());
        assert!(use_matcher("/users/:id(\\d+)", false).is_none());
        assert!(use_matcher("/(?<=x)y/", true).is_none());
    }

    #[test]
    fn regex_join() {
        assert_eq!(join_regex("/api", "/^\\/x$/i"), "/api/^\\/x$/i");
        assert_eq!(join_regex("/", "/ab+c/"), "/ab+c/");
    }
}
