//! The one on-disk format of every cache record, and the one way to write a
//! cache file.
//!
//! Every record — the facts index, the tree walk, each facts record in the
//! pack, a stored inventory, a stored rendered output — is sealed in the same
//! envelope:
//!
//! ```text
//! "PTLN" | kind (4 bytes, e.g. "INDX") | format version (u32 LE) | body length (u64 LE)
//!        | blake3(kind, version, context, body) (32 bytes) | body
//! ```
//!
//! The *context* is what the record is valid for and is not stored: the
//! analyzed root for the index and the walk, the content hash for a facts
//! record, the input key for a stored inventory. So a record that is
//! truncated, zeroed, bit-flipped, written by another format version, or
//! copied from another project's cache fails [`open`] and is recomputed;
//! it can never be read as something it is not.
//!
//! Whole files are written with [`write_atomic`] (a uniquely named temporary
//! file in the same folder, then a rename), so two processes sharing a cache
//! folder never see each other's half-written files; the last writer wins.
//!
//! Deliberately not here: what the bodies mean (each cache layer owns its
//! own types), and any repair beyond discarding (see [`crate::verify_cache`]).

use std::path::Path;

const MAGIC: &[u8; 4] = b"PTLN";
/// Bytes before the body.
pub const HEADER: usize = 4 + 4 + 4 + 8 + 32;

/// Why a record was discarded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// Shorter than its header or than the length the header states.
    Truncated,
    /// Not a Portolan cache record of this kind (zeroed, overwritten, or another kind).
    NotARecord,
    /// Written by another format version.
    OtherVersion(u32),
    /// The checksum does not match (damaged bytes, or a record of another project or key).
    Checksum,
    /// Longer than the length the header states.
    TrailingBytes,
    /// The checksum matched but the body could not be decoded.
    Undecodable,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::Truncated => write!(f, "truncated"),
            Damage::NotARecord => write!(f, "not a cache record"),
            Damage::OtherVersion(v) => write!(f, "written by another format version ({v})"),
            Damage::Checksum => write!(
                f,
                "checksum mismatch: damaged, or written for another project or key"
            ),
            Damage::TrailingBytes => write!(f, "trailing bytes"),
            Damage::Undecodable => write!(f, "undecodable body"),
        }
    }
}

fn checksum(kind: &[u8; 4], version: u32, context: &[u8], body: &[u8]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(kind);
    h.update(&version.to_le_bytes());
    h.update(&(context.len() as u64).to_le_bytes());
    h.update(context);
    h.update(body);
    *h.finalize().as_bytes()
}

/// Seal `body` as a record of `kind` at `version`, valid for `context`.
pub fn seal(kind: &[u8; 4], version: u32, context: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(kind);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&checksum(kind, version, context, body));
    out.extend_from_slice(body);
    out
}

/// The length a record starting at `bytes` claims to have (header included),
/// when its header is readable as one of `kind`.
pub fn record_len(kind: &[u8; 4], bytes: &[u8]) -> Option<usize> {
    if bytes.len() < HEADER || &bytes[..4] != MAGIC || &bytes[4..8] != kind {
        return None;
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().ok()?);
    usize::try_from(len).ok()?.checked_add(HEADER)
}

/// The body of a whole record of `kind` at `version` for `context`.
pub fn open<'a>(
    kind: &[u8; 4],
    version: u32,
    context: &[u8],
    bytes: &'a [u8],
) -> Result<&'a [u8], Damage> {
    if bytes.len() < HEADER {
        return Err(
            if bytes.len() >= 8 && &bytes[..4] == MAGIC && &bytes[4..8] == kind {
                Damage::Truncated
            } else {
                Damage::NotARecord
            },
        );
    }
    if &bytes[..4] != MAGIC || &bytes[4..8] != kind {
        return Err(Damage::NotARecord);
    }
    let stored_version =
        u32::from_le_bytes(bytes[8..12].try_into().map_err(|_| Damage::Truncated)?);
    if stored_version != version {
        return Err(Damage::OtherVersion(stored_version));
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().map_err(|_| Damage::Truncated)?);
    let body = &bytes[HEADER..];
    match u64::try_from(body.len()) {
        Ok(n) if n < len => return Err(Damage::Truncated),
        Ok(n) if n > len => return Err(Damage::TrailingBytes),
        Ok(_) => {}
        Err(_) => return Err(Damage::TrailingBytes),
    }
    if bytes[20..HEADER] != checksum(kind, version, context, body) {
        return Err(Damage::Checksum);
    }
    Ok(body)
}

/// Write a whole file so that readers see the old bytes or the new ones,
/// never a mix: a temporary file unique to this process and call, in the
/// same folder, then a rename over the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_records_open_only_as_what_they_are() {
        let rec = seal(b"TEST", 3, b"root-a", b"hello");
        assert_eq!(open(b"TEST", 3, b"root-a", &rec), Ok(&b"hello"[..]));
        assert_eq!(
            open(b"TEST", 4, b"root-a", &rec),
            Err(Damage::OtherVersion(3))
        );
        assert_eq!(open(b"TEST", 3, b"root-b", &rec), Err(Damage::Checksum));
        assert_eq!(open(b"OTHR", 3, b"root-a", &rec), Err(Damage::NotARecord));
        assert_eq!(
            open(b"TEST", 3, b"root-a", &rec[..rec.len() - 1]),
            Err(Damage::Truncated)
        );
        assert_eq!(
            open(b"TEST", 3, b"root-a", &rec[..10]),
            Err(Damage::Truncated)
        );
        assert_eq!(
            open(b"TEST", 3, b"root-a", &vec![0; rec.len()]),
            Err(Damage::NotARecord)
        );
        let mut longer = rec.clone();
        longer.push(0);
        assert_eq!(
            open(b"TEST", 3, b"root-a", &longer),
            Err(Damage::TrailingBytes)
        );
        for bit in 0..rec.len() * 8 {
            let mut flipped = rec.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(open(b"TEST", 3, b"root-a", &flipped).is_err(), "bit {bit}");
        }
        assert_eq!(record_len(b"TEST", &rec), Some(rec.len()));
    }
}
