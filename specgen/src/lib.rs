//! Portolan's document generator: an [`analyzer::Inventory`] in, documents out.
//! It never looks at source code.

mod catalog;
mod classify;

pub use catalog::catalog;
