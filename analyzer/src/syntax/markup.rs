//! `<script>` blocks of markup files (`.html`, `.vue`, `.svelte`, `.hbs`) as
//! source to lower.

/// The inline scripts of a markup file (HTML, Vue, Svelte, Handlebars), with
/// everything else blanked so lines and columns stay where they were; and
/// whether a script says `lang="ts"`. Scripts with `src=` or a non-JavaScript
/// `type` are blanked too.
pub(crate) fn markup_scripts(src: &[u8]) -> (Vec<u8>, bool) {
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
        }
        pos = body_end;
    }
    (out, ts)
}
