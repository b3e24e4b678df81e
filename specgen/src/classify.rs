//! Classification of operations: domain, summary, side effect, access.
//!
//! Captures the PortOS rules (reference §4): domain from the path, a summary
//! heuristic, side effect from method and path segments. Access is ours, not
//! PortOS's path list: it comes from the real middleware chain (`loopback`,
//! `authenticated` or `public`, guards recognised by configurable names).
//!
//! Deliberately not captured: reading middleware bodies; a guard is
//! recognised by its name.

use crate::options::AccessRules;

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

/// Title case for event names: every letter after a non-alphanumeric
/// character is upper-cased (`cos:mind:event` → `Cos:Mind:Event`).
pub(crate) fn event_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut boundary = true;
    for c in s.replace(['-', '_'], " ").chars() {
        if boundary {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        boundary = !c.is_alphanumeric();
    }
    out
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

fn normalize(name: &str) -> String {
    let head = name.split('(').next().unwrap_or(name);
    head.trim().to_ascii_lowercase().replace(['_', '-'], "")
}

fn matches_any(entry: &str, names: &[String]) -> bool {
    names.iter().map(|n| normalize(n)).any(|n| {
        !n.is_empty()
            && (entry == n
                || entry.ends_with(&format!(".{n}"))
                || entry.starts_with(&format!("{n}.")))
    })
}

/// Access class from the middleware chain: `loopback` when a loopback guard
/// runs, else `authenticated` when an auth guard runs, else `public`.
pub(crate) fn access(middleware: &[String], rules: &AccessRules) -> &'static str {
    let chain: Vec<String> = middleware.iter().map(|m| normalize(m)).collect();
    if chain.iter().any(|m| matches_any(m, &rules.loopback)) {
        return "loopback";
    }
    if chain.iter().any(|m| matches_any(m, &rules.auth)) {
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
    fn event_titles() {
        assert_eq!(event_title("cos:mind:event"), "Cos:Mind:Event");
        assert_eq!(event_title("berth:{kind}:updated"), "Berth:{Kind}:Updated");
        assert_eq!(event_title("ops:close-harbor"), "Ops:Close Harbor");
    }

    #[test]
    fn domains() {
        assert_eq!(domain("/api/cos/mind/tools"), "cos");
        assert_eq!(domain("/sdapi/v1/x"), "sdapi");
        assert_eq!(domain("/"), "root");
    }

    #[test]
    fn access_from_chain() {
        let r = AccessRules::default();
        assert_eq!(access(&["requireAuth".into()], &r), "authenticated");
        assert_eq!(
            access(&["passport.authenticate()".into()], &r),
            "authenticated"
        );
        assert_eq!(access(&["jwt()".into()], &r), "authenticated");
        assert_eq!(access(&["auth.required".into()], &r), "authenticated");
        assert_eq!(access(&["requireLocalRequest".into()], &r), "loopback");
        assert_eq!(access(&["cors()".into()], &r), "public");
        // Substrings do not count: `oauthCallback` is not a guard.
        assert_eq!(access(&["oauthCallback".into()], &r), "public");
        // Configured names extend the rules.
        let mut custom = AccessRules::default();
        custom.auth.push("mustBeStaff".into());
        assert_eq!(
            access(&["must_be_staff()".into()], &custom),
            "authenticated"
        );
        assert_eq!(access(&["must_be_staff()".into()], &r), "public");
    }
}
