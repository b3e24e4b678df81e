//! End-to-end tests of the `portolan` binary: one module per verb.

mod check;
mod documents;
mod faults;
mod scan;
mod util;
