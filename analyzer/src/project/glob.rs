//! Glob patterns as node-glob and minimatch read them, matched against the
//! project's file paths: `*`, `?`, `[a-z]`/`[!x]`, `**` as whole segments,
//! `{a,b}` alternatives (nested), and the extended forms `@(a|b)`, `?(a|b)`,
//! `*(a|b)`, `+(a|b)` and `!(a|b)` (`modules/!(core)/server/routes/**/*.js`:
//! every module's routes but core's). As minimatch without `dot: true`, a `*`,
//! `?`, `**` or class never matches a name's leading `.`; a pattern segment
//! that starts with `.` does.
//!
//! Deliberately not: numeric ranges `{1..3}`, POSIX classes (`[[:alpha:]]`),
//! `nocase`, and `matchBase` (a pattern without `/` matching any base name).

/// One piece of a pattern segment.
#[derive(Debug, Clone)]
enum Tok {
    Lit(char),
    /// `?`: one character.
    One,
    /// `*`: any run of characters.
    Star,
    /// `[…]`: one character in (or, negated, not in) the ranges.
    Class(Vec<(char, char)>, bool),
    /// `@(…)`, `?(…)`, `*(…)`, `+(…)` and `!(…)`: the kind and the alternatives.
    Ext(char, Vec<Vec<Tok>>),
}

/// One segment between slashes.
#[derive(Debug, Clone)]
enum Seg {
    /// `**`: any number of segments.
    Globstar,
    Toks(Vec<Tok>),
}

/// A compiled pattern: one segment list per `{…}` alternative.
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    alts: Vec<Vec<Seg>>,
}

impl Glob {
    /// Compile a pattern; `None` when it is malformed (an unclosed `[` or `(`).
    pub(crate) fn new(pattern: &str) -> Option<Glob> {
        let mut alts = Vec::new();
        for p in expand_braces(pattern) {
            let mut segs = Vec::new();
            for s in split_segments(&p) {
                if s == "**" {
                    if !matches!(segs.last(), Some(Seg::Globstar)) {
                        segs.push(Seg::Globstar);
                    }
                } else {
                    let chars: Vec<char> = s.chars().collect();
                    let (toks, used) = parse_toks(&chars, 0, false)?;
                    if used != chars.len() {
                        return None;
                    }
                    segs.push(Seg::Toks(toks));
                }
            }
            alts.push(segs);
        }
        Some(Glob { alts })
    }

    /// Whether a slash-separated path matches (an absolute pattern is
    /// matched against an absolute path: both leading slashes are dropped).
    pub(crate) fn is_match(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        self.alts.iter().any(|segs| match_segs(segs, &parts))
    }
}

/// `a{b,c{d,e}}f` → `abf`, `acdf`, `acef`.
fn expand_braces(p: &str) -> Vec<String> {
    let chars: Vec<char> = p.chars().collect();
    let mut depth = 0;
    let mut open = None;
    let mut commas = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '{' => {
                if depth == 0 {
                    open = Some(i);
                    commas.clear();
                }
                depth += 1;
            }
            ',' if depth == 1 => commas.push(i),
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0
                    && let Some(o) = open
                {
                    if commas.is_empty() {
                        // `{x}` is literal in minimatch.
                        open = None;
                    } else {
                        let head: String = chars[..o].iter().collect();
                        let tail: String = chars[i + 1..].iter().collect();
                        let mut bounds = vec![o];
                        bounds.extend(&commas);
                        bounds.push(i);
                        let mut out = Vec::new();
                        for w in bounds.windows(2) {
                            let mid: String = chars[w[0] + 1..w[1]].iter().collect();
                            for e in expand_braces(&format!("{head}{mid}{tail}")) {
                                if out.len() < 256 {
                                    out.push(e);
                                }
                            }
                        }
                        return out;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    vec![p.to_string()]
}

/// Split at the slashes outside `(…)` and `[…]`, dropping empty segments
/// and `.` (`./a//b` is `a/b`).
fn split_segments(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut parens, mut bracket) = (0, false);
    for c in p.chars() {
        match c {
            '[' if !bracket => bracket = true,
            ']' if bracket => bracket = false,
            '(' if !bracket => parens += 1,
            ')' if !bracket && parens > 0 => parens -= 1,
            '/' if parens == 0 && !bracket => {
                if !cur.is_empty() && cur != "." {
                    out.push(std::mem::take(&mut cur));
                }
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.is_empty() && cur != "." {
        out.push(cur);
    }
    out
}

/// The tokens from `i` up to the end (or, inside an extended form, up to its
/// `|` or `)`); gives the index after them.
fn parse_toks(c: &[char], mut i: usize, inner: bool) -> Option<(Vec<Tok>, usize)> {
    let mut toks = Vec::new();
    while i < c.len() {
        let ch = c[i];
        if inner && (ch == '|' || ch == ')') {
            return Some((toks, i));
        }
        if matches!(ch, '@' | '?' | '*' | '+' | '!') && c.get(i + 1) == Some(&'(') {
            let mut alts = Vec::new();
            let mut j = i + 2;
            loop {
                let (alt, end) = parse_toks(c, j, true)?;
                alts.push(alt);
                match c.get(end) {
                    Some('|') => j = end + 1,
                    Some(')') => {
                        i = end + 1;
                        break;
                    }
                    _ => return None,
                }
            }
            toks.push(Tok::Ext(ch, alts));
            continue;
        }
        match ch {
            '\\' => {
                toks.push(Tok::Lit(*c.get(i + 1)?));
                i += 2;
                continue;
            }
            '?' => toks.push(Tok::One),
            '*' => {
                if !matches!(toks.last(), Some(Tok::Star)) {
                    toks.push(Tok::Star);
                }
            }
            '[' => {
                let mut j = i + 1;
                let neg = matches!(c.get(j), Some('!' | '^'));
                if neg {
                    j += 1;
                }
                let mut ranges = Vec::new();
                let mut first = true;
                while j < c.len() && (c[j] != ']' || first) {
                    first = false;
                    let lo = c[j];
                    if c.get(j + 1) == Some(&'-') && c.get(j + 2).is_some_and(|&h| h != ']') {
                        ranges.push((lo, c[j + 2]));
                        j += 3;
                    } else {
                        ranges.push((lo, lo));
                        j += 1;
                    }
                }
                if j >= c.len() {
                    return None;
                }
                toks.push(Tok::Class(ranges, neg));
                i = j + 1;
                continue;
            }
            ch => toks.push(Tok::Lit(ch)),
        }
        i += 1;
    }
    Some((toks, i))
}

fn match_segs(segs: &[Seg], parts: &[&str]) -> bool {
    match segs.first() {
        None => parts.is_empty(),
        Some(Seg::Globstar) => {
            // Zero or more segments, none of them hidden.
            let mut k = 0;
            loop {
                if match_segs(&segs[1..], &parts[k..]) {
                    return true;
                }
                if k >= parts.len() || parts[k].starts_with('.') {
                    return false;
                }
                k += 1;
            }
        }
        Some(Seg::Toks(toks)) => {
            let Some(part) = parts.first() else {
                return false;
            };
            let chars: Vec<char> = part.chars().collect();
            // A hidden name only matches a segment that spells its dot.
            if chars.first() == Some(&'.') && !matches!(toks.first(), Some(Tok::Lit('.'))) {
                return false;
            }
            match_toks(toks, &chars) && match_segs(&segs[1..], &parts[1..])
        }
    }
}

/// Whether the tokens match the whole of `s`.
fn match_toks(toks: &[Tok], s: &[char]) -> bool {
    let Some(t) = toks.first() else {
        return s.is_empty();
    };
    let rest = &toks[1..];
    match t {
        Tok::Lit(c) => s.first() == Some(c) && match_toks(rest, &s[1..]),
        Tok::One => !s.is_empty() && match_toks(rest, &s[1..]),
        Tok::Class(ranges, neg) => {
            s.first()
                .is_some_and(|ch| ranges.iter().any(|&(lo, hi)| lo <= *ch && *ch <= hi) != *neg)
                && match_toks(rest, &s[1..])
        }
        Tok::Star => (0..=s.len()).any(|k| match_toks(rest, &s[k..])),
        Tok::Ext(kind, alts) => (0..=s.len()).any(|k| {
            let head = &s[..k];
            let ok = match kind {
                '!' => !alts.iter().any(|a| match_toks(a, head)),
                '@' => alts.iter().any(|a| match_toks(a, head)),
                '?' => head.is_empty() || alts.iter().any(|a| match_toks(a, head)),
                '*' => head.is_empty() || repeats(alts, head),
                _ => !head.is_empty() && repeats(alts, head),
            };
            ok && match_toks(rest, &s[k..])
        }),
    }
}

/// Whether `s` is one or more of the alternatives one after another.
fn repeats(alts: &[Vec<Tok>], s: &[char]) -> bool {
    if s.is_empty() {
        return true;
    }
    (1..=s.len()).any(|k| alts.iter().any(|a| match_toks(a, &s[..k])) && repeats(alts, &s[k..]))
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn m(p: &str, path: &str) -> bool {
        Glob::new(p).expect(p).is_match(path)
    }

    #[test]
    fn stars_classes_and_globstars() {
        assert!(m("*.js", "a.js"));
        assert!(!m("*.js", "d/a.js"));
        assert!(m("**/*.js", "a.js"));
        assert!(m("**/*.js", "d/e/a.js"));
        assert!(m("src/**", "src/a/b"));
        assert!(!m("*.js", ".hidden.js"));
        assert!(m(".*.js", ".hidden.js"));
        assert!(!m("**/*.js", ".git/a.js"));
        assert!(m("./routes/*.js", "routes/a.js"));
        assert!(m(
            "/srv/api/**/*Controller.ts",
            "/srv/api/v1/UserController.ts"
        ));
        assert!(m("file[0-9].js", "file3.js"));
        assert!(!m("file[!0-9].js", "file3.js"));
        assert!(m("a?c", "abc"));
    }

    #[test]
    fn braces_and_extended_forms() {
        assert!(m("routes/*.{js,ts}", "routes/a.ts"));
        assert!(!m("routes/*.{js,ts}", "routes/a.md"));
        assert!(m("a{b,c{d,e}}f", "acef"));
        assert!(m(
            "modules/!(core)/server/routes/**/*.js",
            "modules/users/server/routes/a.js"
        ));
        assert!(!m(
            "modules/!(core)/server/routes/**/*.js",
            "modules/core/server/routes/a.js"
        ));
        assert!(m("modules/!(core)/x.js", "modules/cored/x.js"));
        assert!(m("@(a|b).js", "b.js"));
        assert!(!m("@(a|b).js", "ab.js"));
        assert!(m("+(a|b).js", "abba.js"));
        assert!(m("x?(y).js", "x.js"));
        assert!(m("x*(y).js", "xyyy.js"));
        assert!(!m("!(*.spec).js", "a.spec.js"));
        assert!(m("!(*.spec).js", "a.js"));
        assert!(Glob::new("a[b").is_none());
        assert!(Glob::new("@(a|b").is_none());
    }
}
