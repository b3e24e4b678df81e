//! Express paths: joining mount prefixes and reading the path grammar.
//!
//! Captures: Express 4 (`:id`, `:id?`, `:id(\d+)`, `*`) and Express 5
//! (`*splat`, `{/:opt}`) syntax in one model, rendered as the Express string
//! and as an OpenAPI template; RegExp paths are kept verbatim and flagged.
//!
//! Deliberately not captured: regex semantics (a RegExp path stays opaque),
//! strict routing (trailing slashes are dropped when joining, as Express
//! matches them anyway without `strict: true`).

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
                    let mut j = start;
                    while j < chars.len()
                        && (chars[j].is_alphanumeric() || chars[j] == '_' || chars[j] == '$')
                    {
                        j += 1;
                    }
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
                    if j < chars.len() && chars[j] == '(' {
                        let mut depth = 0;
                        let mut k = j;
                        while k < chars.len() {
                            if chars[k] == '\\' {
                                k += 2;
                                continue;
                            }
                            if chars[k] == '(' {
                                depth += 1;
                            } else if chars[k] == ')' {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            k += 1;
                        }
                        pattern = Some(chars[j + 1..k.min(chars.len())].iter().collect());
                        j = (k + 1).min(chars.len());
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
                    if params.iter().any(|p: &PathParam| p.name == name) {
                        let mut n = 2;
                        while params
                            .iter()
                            .any(|p: &PathParam| p.name == format!("{name}{n}"))
                        {
                            n += 1;
                        }
                        name = format!("{name}{n}");
                    }
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
        PathPattern {
            express: express.to_string(),
            openapi,
            params,
            regex: false,
        }
    }
}

/// Join a mount prefix and a route path the way Express composes them:
/// empty parts dropped, slashes trimmed, one leading `/`.
pub fn join(prefix: &str, path: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_drops_empty_and_trailing() {
        assert_eq!(join("/api/widgets", "/"), "/api/widgets");
        assert_eq!(join("/", "/"), "/");
        assert_eq!(join("/api/", "/users/:id/"), "/api/users/:id");
        assert_eq!(join("", "x"), "/x");
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
    fn regex_join() {
        assert_eq!(join_regex("/api", "/^\\/x$/i"), "/api/^\\/x$/i");
        assert_eq!(join_regex("/", "/ab+c/"), "/ab+c/");
    }
}
