//! The `portolan` library: what the command line's `serve` verb runs.
//!
//! [`serve::app`] builds the HTTP application (documents, registry, calls)
//! from a [`serve::AppState`]; the binary only parses options, derives the
//! documents and listens.

pub mod serve;
