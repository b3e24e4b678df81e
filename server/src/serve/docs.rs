//! The served documents: each held in memory once, with its strong content
//! ETag and its gzip and brotli encodings computed when the set is derived,
//! never per request.
//!
//! Captures conditional requests (`If-None-Match` with comma-separated lists,
//! weak comparison and `*` → 304), content negotiation from
//! `Accept-Encoding` with q-values (brotli preferred on a tie, then gzip, then
//! identity), `Vary` and `Cache-Control`. Deliberately not done: byte ranges
//! and `If-Modified-Since` (the ETag is the validator).

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use std::io::Write;

/// A content coding the server can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// No compression.
    Identity,
    /// `gzip`.
    Gzip,
    /// `br`.
    Brotli,
}

/// One document ready to serve: the bytes in every coding, compressed once.
#[derive(Debug, Clone)]
pub struct ServedDoc {
    /// `Content-Type`.
    pub media_type: &'static str,
    /// The uncompressed bytes.
    pub identity: Bytes,
    /// gzip, when smaller than the identity.
    pub gzip: Option<Bytes>,
    /// brotli, when smaller than the identity.
    pub brotli: Option<Bytes>,
    /// The content hash every ETag of this document is built on.
    pub tag: String,
    /// The three ETags (identity, gzip, brotli), formatted once.
    etags: [String; 3],
    /// The headers of a 304 per coding (ETag, Cache-Control, Vary), built
    /// once: a conditional GET clones one map and copies no bytes.
    not_modified: [HeaderMap; 3],
    /// The headers of a 200 per coding (the same plus Content-Type and
    /// Content-Encoding).
    ok: [HeaderMap; 3],
}

/// `Cache-Control` of every served document: always revalidate (cheap: 304).
const DOC_CACHE_CONTROL: &str = "no-cache";

fn index(coding: Coding) -> usize {
    match coding {
        Coding::Identity => 0,
        Coding::Gzip => 1,
        Coding::Brotli => 2,
    }
}

impl ServedDoc {
    /// Compress `bytes` once in each coding; `tag` is a content hash (hex).
    pub fn new(media_type: &'static str, bytes: Vec<u8>, tag: &str) -> ServedDoc {
        let gzip = gzip(&bytes).filter(|g| g.len() < bytes.len());
        let brotli = brotli(&bytes).filter(|b| b.len() < bytes.len());
        let tag: String = tag.chars().take(32).collect();
        let etags = [
            format!("\"{tag}\""),
            format!("\"{tag}-gz\""),
            format!("\"{tag}-br\""),
        ];
        let not_modified = etags.clone().map(|e| {
            let mut h = HeaderMap::with_capacity(4);
            h.insert(
                header::ETAG,
                HeaderValue::from_maybe_shared(Bytes::from(e))
                    .unwrap_or_else(|_| HeaderValue::from_static("\"invalid\"")),
            );
            set_cache_headers(&mut h, DOC_CACHE_CONTROL, true);
            h
        });
        let ok = [Coding::Identity, Coding::Gzip, Coding::Brotli].map(|c| {
            let mut h = not_modified[index(c)].clone();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
            match c {
                Coding::Gzip => {
                    h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                }
                Coding::Brotli => {
                    h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("br"));
                }
                Coding::Identity => {}
            }
            h
        });
        ServedDoc {
            media_type,
            gzip: gzip.map(Bytes::from),
            brotli: brotli.map(Bytes::from),
            identity: Bytes::from(bytes),
            etags,
            not_modified,
            ok,
            tag,
        }
    }

    /// The ETag of the representation in one coding: each coding has its own
    /// strong tag (`"hash"`, `"hash-gz"`, `"hash-br"`), as the bytes differ.
    pub fn etag(&self, coding: Coding) -> &str {
        match coding {
            Coding::Identity => &self.etags[0],
            Coding::Gzip => &self.etags[1],
            Coding::Brotli => &self.etags[2],
        }
    }

    /// The coding a request gets (from its `Accept-Encoding`).
    fn coding(&self, headers: &HeaderMap) -> Coding {
        negotiate(
            headers.get(header::ACCEPT_ENCODING),
            self.gzip.is_some(),
            self.brotli.is_some(),
        )
    }

    /// The 304 for a request whose `If-None-Match` matches, else None.
    pub fn not_modified(&self, headers: &HeaderMap) -> Option<Response> {
        let inm = headers.get(header::IF_NONE_MATCH)?;
        if !if_none_match_hits(inm.as_bytes(), &self.etags) {
            return None;
        }
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        *r.headers_mut() = self.not_modified[index(self.coding(headers))].clone();
        Some(r)
    }

    /// Answer a GET: 304 when `If-None-Match` matches, else the bytes in the
    /// best acceptable coding.
    pub fn respond(&self, headers: &HeaderMap) -> Response {
        if let Some(r) = self.not_modified(headers) {
            return r;
        }
        let coding = self.coding(headers);
        let body = match coding {
            Coding::Identity => self.identity.clone(),
            Coding::Gzip => self.gzip.clone().unwrap_or_else(|| self.identity.clone()),
            Coding::Brotli => self.brotli.clone().unwrap_or_else(|| self.identity.clone()),
        };
        let mut r = Response::new(Body::from(body));
        *r.headers_mut() = self.ok[index(coding)].clone();
        r
    }
}

fn set_common(h: &mut HeaderMap, etag: &str, cache_control: &'static str, vary: bool) {
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    set_cache_headers(h, cache_control, vary);
}

fn set_cache_headers(h: &mut HeaderMap, cache_control: &'static str, vary: bool) {
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(cache_control),
    );
    if vary {
        h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    }
}

fn not_modified(etag: &str, cache_control: &'static str, vary: bool) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::NOT_MODIFIED;
    set_common(r.headers_mut(), etag, cache_control, vary);
    r
}

/// Answer a small JSON response computed per request (the tool catalog):
/// a strong ETag from the bytes' blake3, 304 on a match, no compression.
pub fn respond_json(bytes: Vec<u8>, headers: &HeaderMap, cache_control: &'static str) -> Response {
    let tag = format!("\"{}\"", &blake3::hash(&bytes).to_hex()[..32]);
    if let Some(inm) = headers.get(header::IF_NONE_MATCH)
        && if_none_match_hits(inm.as_bytes(), std::slice::from_ref(&tag))
    {
        return not_modified(&tag, cache_control, false);
    }
    let mut r = Response::new(Body::from(bytes));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    set_common(h, &tag, cache_control, false);
    r
}

fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(bytes).ok()?;
    e.finish().ok()
}

fn brotli(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    {
        // Quality 9 (within a few percent of 11 on JSON at a fraction of the
        // time); 6 above 1 MiB, where 9 costs seconds at start-up (PortOS).
        let quality = if bytes.len() > 1 << 20 { 6 } else { 9 };
        let mut w = brotli::CompressorWriter::new(&mut out, 1 << 16, quality, 22);
        w.write_all(bytes).ok()?;
        w.flush().ok()?;
    }
    Some(out)
}

/// Does an `If-None-Match` value match one of `tags`? `*` matches any
/// existing resource; lists are comma-separated; comparison is weak (a `W/`
/// prefix on either side is ignored), as RFC 9110 §13.1.2 requires.
pub fn if_none_match_hits(value: &[u8], tags: &[String]) -> bool {
    let Ok(s) = std::str::from_utf8(value) else {
        return false;
    };
    if s.trim() == "*" {
        return true;
    }
    let opaque = |t: &str| -> String {
        let t = t.trim();
        t.strip_prefix("W/").unwrap_or(t).to_string()
    };
    // The common case first: one strong tag, byte-equal to one of ours.
    if tags.iter().any(|t| t == s) {
        return true;
    }
    let ours: Vec<String> = tags.iter().map(|t| opaque(t)).collect();
    parse_etag_list(s).iter().any(|t| ours.contains(t))
}

/// The opaque tags (with their quotes, without `W/`) of a comma-separated
/// list; entity tags may contain commas inside their quotes.
fn parse_etag_list(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t' || b[i] == b',') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        if b[i..].starts_with(b"W/") {
            i += 2;
        }
        if i < b.len() && b[i] == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += 1;
            }
            if i < b.len() {
                out.push(s[start..=i].to_string());
                i += 1;
            }
        } else {
            // Not a quoted tag: skip to the next comma.
            while i < b.len() && b[i] != b',' {
                i += 1;
            }
        }
    }
    out
}

/// Choose the coding from `Accept-Encoding`: the highest q-value among those
/// available wins; on a tie brotli, then gzip, then identity. Identity is
/// acceptable unless excluded (`identity;q=0`, or `*;q=0` without it), and
/// when unlisted it loses to any listed coding;
/// when nothing is acceptable the identity bytes are sent anyway.
pub fn negotiate(value: Option<&HeaderValue>, has_gzip: bool, has_br: bool) -> Coding {
    let Some(s) = value.and_then(|v| v.to_str().ok()) else {
        return Coding::Identity;
    };
    let mut q_br = None;
    let mut q_gzip = None;
    let mut q_identity = None;
    let mut q_star = None;
    for item in s.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        if name.is_empty() {
            continue;
        }
        let mut q = 1.0f32;
        for p in parts {
            let p = p.trim();
            if let Some(v) = p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")) {
                q = v.trim().parse::<f32>().unwrap_or(0.0).clamp(0.0, 1.0);
            }
        }
        match name.as_str() {
            "br" => q_br = Some(q),
            "gzip" | "x-gzip" => q_gzip = Some(q),
            "identity" => q_identity = Some(q),
            "*" => q_star = Some(q),
            _ => {}
        }
    }
    let br = if has_br {
        q_br.or(q_star).unwrap_or(0.0)
    } else {
        0.0
    };
    let gz = if has_gzip {
        q_gzip.or(q_star).unwrap_or(0.0)
    } else {
        0.0
    };
    // Identity unlisted is acceptable but least preferred (RFC 9110 §12.5.3).
    let id = q_identity.or(q_star.filter(|q| *q == 0.0)).unwrap_or(0.001);
    let best = br.max(gz).max(id);
    if best <= 0.0 {
        return Coding::Identity;
    }
    if br == best {
        Coding::Brotli
    } else if gz == best {
        Coding::Gzip
    } else {
        Coding::Identity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hv(s: &str) -> HeaderValue {
        HeaderValue::from_str(s).unwrap()
    }

    #[test]
    fn accept_encoding_q_values() {
        assert_eq!(negotiate(None, true, true), Coding::Identity);
        assert_eq!(negotiate(Some(&hv("gzip, br")), true, true), Coding::Brotli);
        assert_eq!(
            negotiate(Some(&hv("gzip;q=1, br;q=0.5")), true, true),
            Coding::Gzip
        );
        assert_eq!(
            negotiate(Some(&hv("br;q=0, gzip")), true, true),
            Coding::Gzip
        );
        assert_eq!(negotiate(Some(&hv("*")), true, true), Coding::Brotli);
        assert_eq!(negotiate(Some(&hv("br")), true, false), Coding::Identity);
        assert_eq!(
            negotiate(Some(&hv("identity;q=1, gzip;q=0.2")), true, true),
            Coding::Identity
        );
        assert_eq!(
            negotiate(Some(&hv("deflate")), true, true),
            Coding::Identity
        );
        assert_eq!(
            negotiate(Some(&hv("*;q=0, gzip")), true, true),
            Coding::Gzip
        );
    }

    #[test]
    fn if_none_match_lists_weak_and_star() {
        let tags = vec!["\"abc\"".to_string(), "\"abc-gz\"".to_string()];
        assert!(if_none_match_hits(b"\"abc\"", &tags));
        assert!(if_none_match_hits(b"W/\"abc\"", &tags));
        assert!(if_none_match_hits(b"\"x\", W/\"abc-gz\"", &tags));
        assert!(if_none_match_hits(b"*", &tags));
        assert!(!if_none_match_hits(b"\"abcd\"", &tags));
        assert!(!if_none_match_hits(b"abc", &tags));
        assert!(if_none_match_hits(b"\"a,b\", \"abc\"", &tags));
        assert_eq!(
            parse_etag_list("\"a,b\" ,W/\"c\""),
            vec!["\"a,b\"", "\"c\""]
        );
    }

    #[test]
    fn encodings_round_trip() {
        let text = "{\"a\": 1}".repeat(200).into_bytes();
        let d = ServedDoc::new("application/json", text.clone(), "00ff");
        let mut out = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&d.gzip.clone().unwrap()[..]),
            &mut out,
        )
        .unwrap();
        assert_eq!(out, text);
        let mut out = Vec::new();
        std::io::Read::read_to_end(
            &mut brotli::Decompressor::new(&d.brotli.clone().unwrap()[..], 4096),
            &mut out,
        )
        .unwrap();
        assert_eq!(out, text);
    }
}
