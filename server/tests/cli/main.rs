//! End-to-end tests of the `portolan` binary: one module per verb.

mod check;
mod documents;
mod scan;
mod util;
