//! `<script>` blocks of markup files (`.html`, `.vue`, `.svelte`, `.hbs`,
//! `.ejs`) as source to lower, with the server-side template tags inside
//! them (`<%= id %>`, `{{id}}`) read as the values they print.

/// The inline scripts of a markup file (HTML, Vue, Svelte, Handlebars), with
/// everything else blanked so lines and columns stay where they were; and
/// whether a script says `lang="ts"`. Scripts with `src=` or a non-JavaScript
/// `type` are blanked too. Template tags in the scripts are rewritten by
/// [`template_tags`] (EJS's `<% %>` in any markup, mustaches in `.hbs` and
/// `.handlebars`, whose every `{{` is the template engine's).
pub(crate) fn markup_scripts(src: &[u8], path: &str) -> (Vec<u8>, bool) {
    let mut out: Vec<u8> = src
        .iter()
        .map(|&b| if b == b'\n' || b == b'\r' { b } else { b' ' })
        .collect();
    let lower: Vec<u8> = src.iter().map(|b| b.to_ascii_lowercase()).collect();
    let mut ts = false;
    let mut pos = 0;
    while let Some(i) = memchr::memmem::find(&lower[pos..], b"<script") {
        let open = pos + i;
        let Some(j) = memchr::memchr(b'>', &lower[open..]) else {
            break;
        };
        let tag = &lower[open..open + j];
        let body_start = open + j + 1;
        let Some(k) = memchr::memmem::find(&lower[body_start..], b"</script") else {
            break;
        };
        let body_end = body_start + k;
        let tag_text = String::from_utf8_lossy(tag);
        let external = tag_text.contains(" src=");
        let js_type = match tag_text.split("type=").nth(1) {
            None => true,
            Some(t) => {
                let t = t.trim_start_matches(['"', '\'']);
                t.starts_with("module")
                    || t.starts_with("text/javascript")
                    || t.starts_with("application/javascript")
                    || t.starts_with("text/babel")
            }
        };
        if !external && js_type {
            if tag_text.contains("lang=\"ts\"") || tag_text.contains("lang='ts'") {
                ts = true;
            }
            out[body_start..body_end].copy_from_slice(&src[body_start..body_end]);
            let mustache = matches!(path.rsplit('.').next(), Some("hbs" | "handlebars"));
            template_tags(&mut out[body_start..body_end], mustache);
        }
        pos = body_end;
    }
    (out, ts)
}

/// Rewrite the template tags of a script in place, keeping lines and
/// columns: the server fills them in before the browser reads the script,
/// so JavaScript never sees them. A tag that prints a value (`<%= x %>`,
/// `<%- x %>`, `{{x}}`, `{{{x}}}`) becomes `0` and spaces, a value the
/// script may use as an expression or inside a string (`'<%= id %>'`,
/// `var n = <%= n %>;`); any other tag (`<% if (a) { %>`, `{{#each}}`,
/// `{{/if}}`, comments) becomes spaces, so the code between them reads as
/// if every branch and loop body were there once. EJS's `<%` is never
/// JavaScript (`<` then `%` is a syntax error); a mustache is rewritten only
/// when `mustache` is set (Handlebars files), as `{{` may start two nested
/// blocks in plain JavaScript.
fn template_tags(script: &mut [u8], mustache: bool) {
    let mut i = 0;
    while i + 1 < script.len() {
        let (close, prints): (&[u8], bool) = if script[i] == b'<' && script[i + 1] == b'%' {
            let kind = script.get(i + 2).copied().unwrap_or(b' ');
            (b"%>", matches!(kind, b'=' | b'-'))
        } else if mustache && script[i] == b'{' && script[i + 1] == b'{' {
            let kind = script.get(i + 2).copied().unwrap_or(b' ');
            let kind = if kind == b'{' {
                script.get(i + 3).copied().unwrap_or(b' ')
            } else {
                kind
            };
            (
                b"}}",
                !matches!(kind, b'#' | b'/' | b'^' | b'!' | b'>' | b'~'),
            )
        } else {
            i += 1;
            continue;
        };
        let Some(k) = memchr::memmem::find(&script[i + 2..], close) else {
            break;
        };
        let mut end = i + 2 + k + close.len();
        // `{{{x}}}`: the third brace closes with the tag.
        if close == b"}}" && script.get(end) == Some(&b'}') {
            end += 1;
        }
        for b in &mut script[i..end] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
        if prints {
            script[i] = b'0';
        }
        i = end;
    }
}
