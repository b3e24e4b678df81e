//! Reading a raw JSDoc block: its description and its `@tags`.
//!
//! Captures the free text before the first tag (its first line is the
//! summary) and each tag's name and rest-of-block text.
//!
//! Deliberately not captured: JSDoc types (`{string}`) and inline tags
//! (`{@link}`); they stay in the text as written.

/// A parsed JSDoc block.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Doc {
    /// The text before the first tag, lines joined with `\n`, trimmed.
    pub(crate) description: Option<String>,
    /// `(name, value)` in order; value trimmed, lines joined with a space.
    pub(crate) tags: Vec<(String, String)>,
}

impl Doc {
    /// Parse `/** ... */` (the delimiters and leading `*` are optional).
    pub(crate) fn parse(raw: &str) -> Doc {
        let body = raw.trim();
        let body = body.strip_prefix("/**").unwrap_or(body);
        let body = body.strip_suffix("*/").unwrap_or(body);
        let mut doc = Doc::default();
        let mut text: Vec<&str> = Vec::new();
        for line in body.lines() {
            let line = line.trim();
            let line = line.strip_prefix('*').unwrap_or(line).trim();
            if let Some(rest) = line.strip_prefix('@') {
                let (name, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                doc.tags.push((name.to_string(), value.trim().to_string()));
            } else if let Some((_, value)) = doc.tags.last_mut() {
                if !line.is_empty() {
                    if !value.is_empty() {
                        value.push(' ');
                    }
                    value.push_str(line);
                }
            } else {
                text.push(line);
            }
        }
        let description = text.join("\n").trim().to_string();
        if !description.is_empty() {
            doc.description = Some(description);
        }
        doc
    }

    /// The first line of the description.
    pub(crate) fn summary(&self) -> Option<&str> {
        self.description
            .as_deref()
            .and_then(|d| d.lines().next())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// The value of the first tag with this name (case-insensitive).
    pub(crate) fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
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
        let d = Doc::parse("/** @tool x.y */");
        assert_eq!(d.summary(), None);
        assert_eq!(d.tag("tool"), Some("x.y"));
    }
}
