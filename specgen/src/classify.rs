//! Classification of operations: domain, summary, side effect, access.
//!
//! Captures the PortOS rules (reference §4): domain from the path, a summary
//! heuristic, side effect from method and path segments; access from the
//! real middleware chain first (auth and loopback guards by name), falling
//! back to "authenticated-ui" only when the chain carries an auth guard.
//!
//! Deliberately not captured: reading middleware bodies; a guard is
//! recognised by its name.

/// The domain of an HTTP path: the segment after `/api`, else the first one.
pub(crate) fn domain(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segs.as_slice() {
        ["api", second, ..] => second.to_string(),
        ["api"] => "api".into(),
        [first, ..] => first.to_string(),
        [] => "root".into(),
    }
}

/// Title case: `-` and `_` become spaces, each word capitalised.
pub(crate) fn title(s: &str) -> String {
    s.replace(['-', '_'], " ")
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// PortOS summary heuristic (reference §4.4).
pub(crate) fn summary(method: &str, path: &str) -> String {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let rest: &[&str] = if segs.first() == Some(&"api") {
        segs.get(2..).unwrap_or(&[])
    } else {
        segs.get(1..).unwrap_or(&[])
    };
    let kept: Vec<&str> = rest
        .iter()
        .filter(|s| !s.starts_with(':') && !s.starts_with('*') && !s.starts_with('{'))
        .copied()
        .collect();
    let tail = if kept.len() > 2 {
        &kept[kept.len() - 2..]
    } else {
        &kept[..]
    };
    let words = if tail.is_empty() {
        title(&domain(path))
    } else {
        tail.iter().map(|s| title(s)).collect::<Vec<_>>().join(" ")
    };
    let verb = match method.to_ascii_uppercase().as_str() {
        "GET" => "Read".to_string(),
        "POST" => "Create or run".to_string(),
        "PUT" => "Replace".to_string(),
        "PATCH" => "Update".to_string(),
        "DELETE" => "Delete".to_string(),
        other => title(&other.to_ascii_lowercase()),
    };
    format!("{verb} {words}")
}

const DESTRUCTIVE: &[&str] = &[
    "delete",
    "remove",
    "clear",
    "reset",
    "revoke",
    "terminate",
    "logout",
    "archive",
];
const PROCESS: &[&str] = &[
    "start",
    "stop",
    "restart",
    "launch",
    "open",
    "install",
    "uninstall",
    "execute",
    "run",
    "cancel",
    "interrupt",
    "resume",
    "pause",
    "reload",
    "sync",
    "update",
];

/// PortOS side-effect rules (reference §4.2).
pub(crate) fn side_effect(method: &str, path: &str) -> &'static str {
    let m = method.to_ascii_uppercase();
    if matches!(m.as_str(), "GET" | "HEAD" | "OPTIONS") {
        return "read";
    }
    let segs: Vec<String> = path.split('/').map(|s| s.to_ascii_lowercase()).collect();
    if m == "DELETE" || segs.iter().any(|s| DESTRUCTIVE.contains(&s.as_str())) {
        return "destructive";
    }
    if segs.iter().any(|s| PROCESS.contains(&s.as_str())) {
        return "process-control";
    }
    "write"
}

/// Middleware names that mean "the caller must be authenticated".
const AUTH_HINTS: &[&str] = &[
    "auth",
    "authenticate",
    "authorize",
    "requireauth",
    "isauthenticated",
    "ensureauthenticated",
    "ensureloggedin",
    "requirelogin",
    "jwt",
    "verifytoken",
    "protect",
    "requireuser",
    "checkjwt",
    "authgate",
    "requirerole",
    "passport.authenticate",
];
/// Middleware names that restrict to loopback callers.
const LOOPBACK_HINTS: &[&str] = &[
    "loopback",
    "localonly",
    "requirelocal",
    "localhostonly",
    "requirelocalrequest",
];

/// Access class from the middleware chain.
pub(crate) fn access(middleware: &[String]) -> &'static str {
    let norm: Vec<String> = middleware
        .iter()
        .map(|m| {
            m.trim_end_matches("()")
                .to_ascii_lowercase()
                .replace(['_', '-'], "")
        })
        .collect();
    if norm
        .iter()
        .any(|m| LOOPBACK_HINTS.iter().any(|h| m.contains(h)))
    {
        return "loopback";
    }
    if norm.iter().any(|m| {
        AUTH_HINTS
            .iter()
            .any(|h| m == h || m.ends_with(&format!(".{h}")) || m.contains(h))
    }) {
        return "authenticated";
    }
    "public"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_effects_match_portos_pins() {
        assert_eq!(side_effect("GET", "/api/apps"), "read");
        assert_eq!(side_effect("PATCH", "/api/apps/:id"), "write");
        assert_eq!(
            side_effect("POST", "/api/apps/:id/restart"),
            "process-control"
        );
        assert_eq!(side_effect("DELETE", "/api/apps/:id"), "destructive");
    }

    #[test]
    fn summaries_match_portos_pins() {
        assert_eq!(summary("GET", "/api/cos/mind/tools"), "Read Mind Tools");
        assert_eq!(
            summary("POST", "/sdapi/v1/txt2img"),
            "Create or run V1 Txt2img"
        );
    }

    #[test]
    fn domains() {
        assert_eq!(domain("/api/cos/mind/tools"), "cos");
        assert_eq!(domain("/sdapi/v1/x"), "sdapi");
        assert_eq!(domain("/"), "root");
    }

    #[test]
    fn access_from_chain() {
        assert_eq!(access(&["requireAuth".into()]), "authenticated");
        assert_eq!(access(&["passport.authenticate()".into()]), "authenticated");
        assert_eq!(access(&["requireLocalRequest".into()]), "loopback");
        assert_eq!(access(&["cors()".into()]), "public");
    }
}
