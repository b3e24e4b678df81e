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
        // A single-file component's compiler (vue-loader, @vue/compiler-sfc,
        // svelte) takes the `<script>` block by its tag and its language from
        // `lang`, whatever its `type` says (`type="text/ecmascript-6"`); a
        // page's script runs when its type is a JavaScript one.
        let sfc = matches!(path.rsplit('.').next(), Some("vue" | "svelte"));
        let js_type = sfc
            || match tag_text.split("type=").nth(1) {
                None => true,
                Some(t) => {
                    let t = t.trim_start_matches(['"', '\'']);
                    JS_TYPES.iter().any(|j| {
                        t.strip_prefix(j).is_some_and(|rest| {
                            rest.starts_with(['"', '\'', ' ', ';']) || rest.is_empty()
                        })
                    })
                }
            };
        let js_type = js_type && !other_lang(&tag_text);
        if !external && js_type {
            if ["ts", "tsx", "typescript"].iter().any(|l| {
                tag_text.contains(&format!("lang=\"{l}\""))
                    || tag_text.contains(&format!("lang='{l}'"))
            }) {
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

/// The `type`s of a page's script that browsers (and the in-page compilers
/// pages load: Babel standalone) run as JavaScript: the HTML standard's
/// JavaScript MIME types, `module`, and `text/babel`/`text/jsx`.
const JS_TYPES: &[&str] = &[
    "module",
    "text/javascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "application/javascript",
    "text/ecmascript",
    "application/ecmascript",
    "application/x-javascript",
    "application/x-ecmascript",
    "text/x-javascript",
    "text/x-ecmascript",
    "text/jscript",
    "text/livescript",
    "text/babel",
    "text/jsx",
];

/// Whether a script tag's `lang` names a language other than JavaScript or
/// TypeScript (`lang="coffee"`), which the analysis does not read.
fn other_lang(tag: &str) -> bool {
    let Some(l) = tag.split("lang=").nth(1) else {
        return false;
    };
    let l = l.trim_start_matches(['"', '\'']);
    let l: String = l
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    !matches!(
        l.as_str(),
        "" | "js" | "jsx" | "ts" | "tsx" | "javascript" | "typescript" | "mjs"
    )
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
