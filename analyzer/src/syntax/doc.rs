//! Reading a raw JSDoc block: its description and its `@tags`. This is the
//! one JSDoc reader: specgen reads summaries and tool tags with it, the
//! lowering `@type` and `@typedef`, the schema model `@param`. This is the
//! one JSDoc reader: the documents read summaries and tool tags with it, the
//! lowering reads `@type` and `@typedef`, the schema models `@param`.
//!
//! Captures the free text before the first tag (its first line is the
//! summary) and each tag's name and text up to the next tag.
//!
//! Deliberately not captured: JSDoc types (`{string}`) and inline tags
//! (`{@link}`); they stay in the text as written.

/// A parsed JSDoc block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Doc {
    /// The text before the first tag, lines joined with `\n`, trimmed.
    pub description: Option<String>,
    /// `(name, value)` in order; value trimmed, lines joined with a space.
    pub tags: Vec<(String, String)>,
}

impl Doc {
    /// Parse `/** ... */` (the delimiters and leading `*` are optional). A tag
    /// starts at an `@name` that begins a line or follows whitespace, so
    /// one-line blocks (`/** Text. @tool x.y @sideEffect read */`) work too.
    pub fn parse(raw: &str) -> Doc {
        let body = raw.trim();
        let body = body.strip_prefix("/**").unwrap_or(body);
        let body = body.strip_suffix("*/").unwrap_or(body);
        let text: Vec<&str> = body
            .lines()
            .map(|l| {
                let l = l.trim();
                l.strip_prefix('*').unwrap_or(l).trim()
            })
            .collect();
        let text = text.join("\n");
        let bytes = text.as_bytes();
        let starts: Vec<usize> = (0..bytes.len())
            .filter(|&i| {
                bytes[i] == b'@'
                    && (i == 0 || bytes[i - 1].is_ascii_whitespace())
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic)
            })
            .collect();
        let mut doc = Doc::default();
        let description = text[..starts.first().copied().unwrap_or(text.len())].trim();
        if !description.is_empty() {
            doc.description = Some(description.to_string());
        }
        for (n, &i) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(text.len());
            let tag = &text[i + 1..end];
            let (name, value) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
            let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
            doc.tags.push((name.to_string(), value));
        }
        doc
    }

    /// The first line of the description.
    pub fn summary(&self) -> Option<&str> {
        self.description
            .as_deref()
            .and_then(|d| d.lines().next())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// The values of the tags with this name, in order (`param` for `@param`).
    pub(crate) fn tags_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.tags
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of the first tag with this name (case-insensitive).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A tag value that starts with a type, `{T} rest`, as (`T`, `rest`) with
/// nested braces matched (`{{a: string}} name`).
pub(crate) fn typed(value: &str) -> Option<(&str, &str)> {
    let rest = value.trim_start().strip_prefix('{')?;
    let end = super::jsdoc::matching_brace(rest)?;
    Some((&rest[..end], rest[end + 1..].trim()))
}

/// A tag's name part, `name rest` or `[name=default] rest` (optional), as
/// (name, optional, rest); `None` when there is no name.
pub(crate) fn named(value: &str) -> Option<(&str, bool, &str)> {
    if let Some(r) = value.strip_prefix('[') {
        let (n, rest) = r.split_once(']')?;
        return Some((n.split('=').next().unwrap_or(n).trim(), true, rest.trim()));
    }
    let (n, rest) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
    (!n.is_empty()).then_some((n, false, rest.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_and_tags() {
        let d = Doc::parse(
            "/**\n * List the caller's bookings, newest first.\n * Second line.\n * @tool bookings.list\n * @sideEffect read\n * @scopes agent\n *   ui\n */",
        );
        assert_eq!(
            d.summary(),
            Some("List the caller's bookings, newest first.")
        );
        assert_eq!(
            d.description.as_deref(),
            Some("List the caller's bookings, newest first.\nSecond line.")
        );
        assert_eq!(d.tag("tool"), Some("bookings.list"));
        assert_eq!(d.tag("sideeffect"), Some("read"));
        assert_eq!(d.tag("scopes"), Some("agent ui"));
    }

    #[test]
    fn one_line_block_and_tags_only() {
        assert_eq!(
            Doc::parse("/** Bulk import from the legacy system. Admin only. */").summary(),
            Some("Bulk import from the legacy system. Admin only.")
        );
        let d = Doc::parse(
            "/** Register a new berth. @tool berths.create @sideEffect write @scopes ui */",
        );
        assert_eq!(d.summary(), Some("Register a new berth."));
        assert_eq!(d.tag("tool"), Some("berths.create"));
        assert_eq!(d.tag("scopes"), Some("ui"));
        // An address is not a tag.
        assert_eq!(Doc::parse("/** Mail ops@example.com */").tags, vec![]);
        let d = Doc::parse("/** @tool x.y */");
        assert_eq!(d.summary(), None);
        assert_eq!(d.tag("tool"), Some("x.y"));
    }

    #[test]
    fn typed_and_named_tag_values() {
        let d = Doc::parse(
            "/**\n * @param {{a: string}} [req.body.meta=x] - one\n *   two\n * @param {string} id\n */",
        );
        let params: Vec<&str> = d.tags_named("param").collect();
        assert_eq!(params.len(), 2);
        let (ty, rest) = typed(params[0]).unwrap();
        assert_eq!(ty, "{a: string}");
        assert_eq!(named(rest), Some(("req.body.meta", true, "- one two")));
        let (ty, rest) = typed(params[1]).unwrap();
        assert_eq!((ty, named(rest)), ("string", Some(("id", false, ""))));
        assert_eq!(typed("no type"), None);
        assert_eq!(typed("{unclosed name"), None);
    }
}
