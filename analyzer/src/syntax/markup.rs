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
    if path.ends_with(".svelte") {
        svelte_markup(src, &lower, &mut out);
    }
    (out, ts)
}

/// The expressions of a Svelte component's markup (`on:click={() =>
/// $socket.emit('start')}`, `{#await $socket.emitWithAck('load')}`,
/// `{count}`) as statements after its script, where they stand, so they
/// run in the component's scope as the compiled component runs them: each
/// `{…}` outside `<script>`, `<style>` and comments becomes `;…;`; a block's
/// keyword goes (`#if`, `#key`, `@html`; `#each items as item` keeps
/// `items`, `#await p then v` keeps `p`), and closing and `:else` tags,
/// `@const` and `#snippet` are left out.
fn svelte_markup(src: &[u8], lower: &[u8], out: &mut [u8]) {
    let mut i = 0;
    while i < src.len() {
        // Skip what is not markup.
        let skip: Option<&[u8]> = if lower[i..].starts_with(b"<script") {
            Some(b"</script")
        } else if lower[i..].starts_with(b"<style") {
            Some(b"</style")
        } else if src[i..].starts_with(b"<!--") {
            Some(b"-->")
        } else {
            None
        };
        if let Some(end) = skip {
            match memchr::memmem::find(&lower[i..], end) {
                Some(k) => {
                    i += k + end.len();
                    continue;
                }
                None => return,
            }
        }
        if src[i] != b'{' {
            i += 1;
            continue;
        }
        let Some(close) = expression_end(src, i + 1) else {
            return;
        };
        let inner = &src[i + 1..close];
        let head = inner
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(0);
        let mut from = i + 1 + head;
        let mut to = close;
        match src.get(from) {
            Some(b'/' | b':') => from = to,
            Some(b'#' | b'@') => {
                let word = src[from..to]
                    .iter()
                    .position(|b| b.is_ascii_whitespace())
                    .map_or(to, |k| from + k);
                let keyword = &src[from + 1..word];
                from = word;
                // (`items as item, i (item.id)`: the items; `promise then
                // value`: the promise.)
                let cut: &[&[u8]] = match keyword {
                    b"each" => &[b" as "],
                    b"await" => &[b" then ", b" catch "],
                    _ => &[],
                };
                for c in cut {
                    if let Some(k) = memchr::memmem::find(&src[from..to], c) {
                        to = from + k;
                    }
                }
                // A declaration (`@const {a} = x`, `#snippet row(item)`) or
                // a debugger tag is no expression.
                if matches!(keyword, b"const" | b"snippet" | b"debug") {
                    from = to;
                }
            }
            _ => {}
        }
        if from < to {
            out[i] = b';';
            out[from..to].copy_from_slice(&src[from..to]);
            out[close] = b';';
        }
        i = close + 1;
    }
}

/// Where the `}` closing a markup expression that starts at `from` is:
/// braces nest, and strings and template literals are skipped.
fn expression_end(src: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0u32;
    let mut i = from;
    while i < src.len() {
        match src[i] {
            q @ (b'"' | b'\'' | b'`') => {
                i += 1;
                while i < src.len() && src[i] != q {
                    if src[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
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
