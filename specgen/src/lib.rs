//! Portolan's document generator: an [`analyzer::Inventory`] in, documents out.
//! It never looks at source code.
//!
//! [`documents`] builds every document (catalog, internal and public
//! OpenAPI, events, AsyncAPI, tools) from one normalized model; each
//! document has its own emitter module.

mod asyncapi;
mod catalog;
mod classify;
mod downgrade;
mod events;
pub mod explorer;
mod ids;
mod model;
mod openapi;
mod options;
#[cfg(test)]
mod tests;
mod tools;

pub use asyncapi::asyncapi;
pub use catalog::{catalog, catalog_with};
pub use downgrade::{inline_refs, to_openapi30};
pub use events::events;
pub use ids::{asyncapi_id, base36, fnv1a_utf16, operation_id};
pub use options::{
    AccessRules, AuthScheme, ExposedApi, SIDE_EFFECTS, SideEffectOverride, SpecOptions, ToolBinding,
};

use analyzer::Inventory;
use serde_json::Value;

/// Why documents could not be built. Each message says what to change.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A `[[tools]]` entry names an operation that does not exist.
    #[error("{0}")]
    ToolBinding(String),
    /// A tool's input schema cannot be built.
    #[error("{0}")]
    ToolSchema(String),
    /// An option value is unusable.
    #[error("{0}")]
    Config(String),
}

/// One generated document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Path relative to the output folder, with `/` (`internal/openapi.json`).
    pub path: String,
    /// Media type to serve it with.
    pub media_type: &'static str,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// blake3 of the bytes, hex.
    pub hash: String,
}

/// Every document, plus what the emitters could not place.
#[derive(Debug, Clone, Default)]
pub struct Documents {
    /// In a fixed order: catalog, internal OpenAPI, public OpenAPI, events, AsyncAPI, tools, Explorer page.
    pub documents: Vec<Document>,
    /// Colliding OpenAPI templates, omitted routes, ignored annotations.
    pub warnings: Vec<String>,
}

impl Documents {
    /// The document at a relative path.
    pub fn get(&self, path: &str) -> Option<&Document> {
        self.documents.iter().find(|d| d.path == path)
    }
}

fn document(path: &str, value: &Value, pretty: bool) -> Document {
    let mut bytes = if pretty {
        serde_json::to_vec_pretty(value)
    } else {
        serde_json::to_vec(value)
    }
    // Serializing a `Value` to memory cannot fail.
    .unwrap_or_default();
    bytes.push(b'\n');
    Document {
        path: path.to_string(),
        media_type: "application/json",
        hash: blake3::hash(&bytes).to_hex().to_string(),
        bytes,
    }
}

/// Build every document.
pub fn documents(inv: &Inventory, opts: &SpecOptions) -> Result<Documents, SpecError> {
    let model = model::build(inv, opts)?;
    let mut warnings = model.warnings.clone();
    // Two documents at a time, one on each of two threads (the OpenAPI
    // pair and the tools beside the catalog and the event documents); each
    // JSON tree is dropped once its bytes are written, not kept until all
    // six are (PortOS: 8-16 MB less at the peak).
    let (openapi, rest) = rayon::join(
        || {
            let internal = openapi::emit(&model, opts, openapi::Audience::Internal);
            let warned = internal.warnings;
            let internal = document("internal/openapi.json", &internal.doc, true);
            let public = openapi::emit(&model, opts, openapi::Audience::Public);
            let public = document("openapi.json", &public.doc, true);
            let tools = tools::emit(&model, opts).map(|t| document("tools.min.json", &t, false));
            (warned, internal, public, tools)
        },
        || {
            let catalog = document("catalog.json", &catalog::emit(inv, &model, opts), true);
            let events = document("events.json", &events::events(inv), true);
            let asyncapi = document("asyncapi.json", &asyncapi::asyncapi(inv, opts), true);
            (catalog, events, asyncapi)
        },
    );
    drop(model);
    let (warned, internal, public, tools) = openapi;
    let (catalog, events, asyncapi) = rest;
    warnings.extend(warned);
    let tools = tools?;
    let mut docs = Documents {
        documents: vec![catalog, internal, public, events, asyncapi, tools],
        warnings,
    };
    let page = explorer::document(&docs).map_err(|e| SpecError::Config(e.to_string()))?;
    docs.documents.push(page);
    Ok(docs)
}
