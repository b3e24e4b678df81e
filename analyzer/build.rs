//! The analyzer's source fingerprint: a hash of every file under `src/`,
//! given to the crate as `PORTOLAN_ANALYZER_SOURCE`. A stored inventory is
//! keyed on it (`pipeline::input_key`), so a build whose evaluation differs
//! never reuses what another build derived, even at the same version.

include!("../build-support/source_hash.rs");

fn main() {
    let hash = source_hash(&["src"]);
    println!("cargo:rustc-env=PORTOLAN_ANALYZER_SOURCE={hash}");
}
