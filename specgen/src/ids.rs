//! Stable identifiers: PortOS operationIds and AsyncAPI ids (reference §3.2,
//! §3.7).
//!
//! Captures the exact PortOS scheme: a sanitised, 80-character-truncated
//! readable part plus `_` and a 32-bit FNV-1a hash (over UTF-16 code units,
//! base 36, lower case, no padding) of the source string, so clients that
//! persisted PortOS ids keep them.
//!
//! Deliberately not captured: collision handling. Two different source
//! strings with the same readable part differ by their hash; equal source
//! strings are the same operation by construction.

/// 32-bit FNV-1a over the UTF-16 code units of `s` (JavaScript `charCodeAt`).
pub fn fnv1a_utf16(s: &str) -> u32 {
    let mut h: u32 = 2_166_136_261;
    for unit in s.encode_utf16() {
        h ^= u32::from(unit);
        h = h.wrapping_mul(16_777_619);
    }
    h
}

/// `n` in base 36 with digits `0-9a-z`, no padding (JavaScript `toString(36)`).
pub fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Runs of non-ASCII-alphanumerics become `_`, leading/trailing `_` are
/// trimmed, then the result is cut to 80 characters.
fn sanitise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut gap = false;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    // Only ASCII is pushed, so byte truncation is char truncation.
    out.truncate(80);
    out
}

/// The PortOS operationId: `get_api_apps_id_1k9z3qx` for (`GET`, `/api/apps/:id`).
///
/// The readable part is the lower-case method and the Express path with
/// `{ } : * ?` deleted; the hash is over `"<METHOD> <express path>"`.
pub fn operation_id(method: &str, express_path: &str) -> String {
    let readable: String = format!("{}_{}", method.to_ascii_lowercase(), express_path)
        .chars()
        .filter(|c| !matches!(c, '{' | '}' | ':' | '*' | '?'))
        .collect();
    let source = format!("{} {}", method.to_ascii_uppercase(), express_path);
    format!("{}_{}", sanitise(&readable), base36(fnv1a_utf16(&source)))
}

/// An AsyncAPI id: the sanitised source plus `_` and the hash of the source.
pub fn asyncapi_id(source: &str) -> String {
    format!("{}_{}", sanitise(source), base36(fnv1a_utf16(source)))
}

/// The event part of AsyncAPI id sources: the event name in the default
/// namespace (exactly PortOS's source strings), `"<namespace> <event>"` otherwise.
pub(crate) fn scoped_event(namespace: &str, event: &str) -> String {
    if namespace == "/" || namespace.is_empty() {
        event.to_string()
    } else {
        format!("{namespace} {event}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values computed independently with node 20, by hand, using
    // PortOS's JavaScript algorithm (/work/scratch/fnv.js):
    //   function fnv(s){let h=2166136261;for(let i=0;i<s.length;i++){h^=s.charCodeAt(i);
    //     h=Math.imul(h,16777619)>>>0;}return (h>>>0).toString(36);}
    #[test]
    fn fnv1a_matches_javascript() {
        assert_eq!(base36(fnv1a_utf16("")), "ztntfp");
        assert_eq!(base36(fnv1a_utf16("a")), "1r9wi7g");
        assert_eq!(base36(fnv1a_utf16("GET /api/cos/mind/tools")), "12k5bu7");
        // Non-BMP characters count as two UTF-16 code units.
        assert_eq!(base36(fnv1a_utf16("ünïcødé 🚢")), "ijzmjn");
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
    }

    #[test]
    fn operation_ids_match_portos() {
        assert_eq!(
            operation_id("GET", "/api/apps/:id/documents/:filename"),
            "get_api_apps_id_documents_filename_1bsnrk6"
        );
        // The method is upper-cased for the hash, lower-cased for the readable part.
        assert_eq!(
            operation_id("get", "/api/music/models/:engine/*id"),
            "get_api_music_models_engine_id_no27ke"
        );
        // Readable part cut at 80 characters, hash over the whole path.
        let long = format!("/api/{}:id?", "very-long-segment/".repeat(8));
        assert_eq!(
            operation_id("POST", &long),
            "post_api_very_long_segment_very_long_segment_very_long_segment_very_long_segment_1ycnb9z"
        );
    }

    #[test]
    fn asyncapi_ids_match_portos() {
        assert_eq!(
            asyncapi_id("channel_shell:start"),
            "channel_shell_start_m1jcvj"
        );
        assert_eq!(
            asyncapi_id("message_client-to-server_shell:start"),
            "message_client_to_server_shell_start_1fs21ur"
        );
        assert_eq!(
            asyncapi_id("client-to-server_shell:start"),
            "client_to_server_shell_start_mfo3in"
        );
        assert_eq!(
            asyncapi_id(&format!("channel_{}", scoped_event("/ops", "ops:alert"))),
            "channel_ops_ops_alert_13utpsq"
        );
        assert_eq!(scoped_event("/", "a"), "a");
    }
}
