//! The files git tracks, read from the repository's index (`.git/index`):
//! an ignore file never hides a tracked file (`git add -f start.js` under a
//! `.gitignore` that says `*.js`), so discovery adds them back.
//!
//! Captures: index versions 2, 3 and 4 (prefix-compressed paths), a `.git`
//! folder at the root or above it, and a `.git` file naming the folder
//! (`gitdir: …`, worktrees and submodules).
//!
//! Deliberately not captured: split and sparse indexes (a sparse index's
//! folder entries are skipped; their files are not listed), and what a
//! commit holds but the index does not.

use std::path::{Path, PathBuf};

/// The tracked files under `root` (canonical), relative to it, sorted;
/// `None` when `root` is not inside a git work tree with an index.
pub(super) fn tracked_under(root: &Path) -> Option<Vec<String>> {
    let (top, index) = work_tree(root)?;
    let bytes = std::fs::read(index).ok()?;
    let prefix = root.strip_prefix(&top).ok()?;
    let prefix = prefix.to_string_lossy().replace('\\', "/");
    let under = format!("{prefix}/");
    let mut out: Vec<String> = parse(&bytes)?
        .into_iter()
        .filter_map(|p| {
            if prefix.is_empty() {
                Some(p)
            } else {
                p.strip_prefix(&under).map(str::to_string)
            }
        })
        .collect();
    out.sort();
    out.dedup();
    Some(out)
}

/// The path of `root`'s index, for the stored walk's staleness check.
pub(super) fn index_path(root: &Path) -> Option<PathBuf> {
    work_tree(root).map(|(_, index)| index)
}

/// The top of the work tree `root` is in, and the path of its index: the
/// nearest `.git` folder at or above `root`, or a `.git` file naming one
/// (`gitdir: …`).
fn work_tree(root: &Path) -> Option<(PathBuf, PathBuf)> {
    root.ancestors().find_map(|d| {
        let dot = d.join(".git");
        if dot.is_dir() {
            return Some((d.to_path_buf(), dot.join("index")));
        }
        let text = std::fs::read_to_string(&dot).ok()?;
        let named = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
        Some((d.to_path_buf(), d.join(named).join("index")))
    })
}

/// The paths an index lists (`None` when it is not one git writes).
fn parse(bytes: &[u8]) -> Option<Vec<String>> {
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let be32 = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    let version = be32(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(8)? as usize;
    let mut pos = 12;
    let mut prev: Vec<u8> = Vec::new();
    let mut out = Vec::with_capacity(count.min(1 << 20));
    for _ in 0..count {
        let start = pos;
        // ctime, mtime, dev, ino, mode, uid, gid, size; the object id; flags.
        let flags = u16::from_be_bytes(bytes.get(start + 60..start + 62)?.try_into().ok()?);
        pos = start + 62;
        if version >= 3 && flags & 0x4000 != 0 {
            pos += 2;
        }
        let path = if version == 4 {
            // How many bytes of the previous path to drop, then the rest.
            let mut c = *bytes.get(pos)?;
            pos += 1;
            let mut drop = usize::from(c & 0x7f);
            while c & 0x80 != 0 {
                c = *bytes.get(pos)?;
                pos += 1;
                drop = ((drop + 1) << 7) | usize::from(c & 0x7f);
            }
            let nul = pos + bytes.get(pos..)?.iter().position(|&b| b == 0)?;
            prev.truncate(prev.len().checked_sub(drop)?);
            prev.extend_from_slice(&bytes[pos..nul]);
            pos = nul + 1;
            prev.clone()
        } else {
            let nul = pos + bytes.get(pos..)?.iter().position(|&b| b == 0)?;
            let path = bytes[pos..nul].to_vec();
            // Entries are padded with NULs to a multiple of eight bytes.
            pos = start + ((nul - start + 8) & !7);
            path
        };
        // (A sparse index's folder entry ends with `/`.)
        if !path.ends_with(b"/") {
            out.push(String::from_utf8_lossy(&path).into_owned());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One version-2 entry for `path`, as git writes it.
    fn entry(path: &str) -> Vec<u8> {
        let mut e = vec![0u8; 60];
        e.extend_from_slice(&(path.len() as u16).to_be_bytes());
        e.extend_from_slice(path.as_bytes());
        let len = 62 + path.len();
        e.resize((len + 8) & !7, 0);
        e
    }

    #[test]
    fn reads_version_2_entries() {
        let mut idx = b"DIRC".to_vec();
        idx.extend_from_slice(&2u32.to_be_bytes());
        idx.extend_from_slice(&3u32.to_be_bytes());
        for p in ["start.js", "app/index.js", "app/moves/routes.js"] {
            idx.extend(entry(p));
        }
        assert_eq!(
            parse(&idx).unwrap(),
            vec!["start.js", "app/index.js", "app/moves/routes.js"]
        );
        assert!(parse(b"DIRX").is_none());
        // A truncated index is not read.
        assert!(parse(&idx[..idx.len() - 20]).is_none());
    }

    #[test]
    fn reads_version_4_prefix_compression() {
        let mut idx = b"DIRC".to_vec();
        idx.extend_from_slice(&4u32.to_be_bytes());
        idx.extend_from_slice(&2u32.to_be_bytes());
        for (drop, rest) in [(0u8, "app/index.js"), (8u8, "moves.js")] {
            idx.extend_from_slice(&[0u8; 60]);
            idx.extend_from_slice(&(rest.len() as u16).to_be_bytes());
            idx.push(drop);
            idx.extend_from_slice(rest.as_bytes());
            idx.push(0);
        }
        assert_eq!(parse(&idx).unwrap(), vec!["app/index.js", "app/moves.js"]);
    }
}
