//! The documents' source fingerprint: a hash of every file under this
//! crate's `src/` and specgen's, given as `PORTOLAN_OUTPUT_SOURCE`. Stored
//! documents are keyed on it (`outcache.rs`), so a build that writes them
//! differently never reuses another build's, even at the same version.

include!("../build-support/source_hash.rs");

fn main() {
    let hash = source_hash(&["src", "../specgen/src"]);
    println!("cargo:rustc-env=PORTOLAN_OUTPUT_SOURCE={hash}");
}
