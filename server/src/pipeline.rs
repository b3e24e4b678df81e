//! The one path from a project to its documents that `scan`, `build`,
//! `check` and `serve` take, in this order:
//!
//! 1. **prepare** (`AnalysisArgs::prepare` in `prepare.rs`): read
//!    `portolan.toml`, open the [`analyzer::Analyzer`] handle; a [`Prepared`].
//! 2. **emitter options** ([`Prepared::spec_options`]): the configuration
//!    with title, version and license from the analyzer's package metadata.
//! 3. **stored output** ([`Prepared::derive`]): when the cache is on and
//!    `--fail-on` is not given, an output stored under the same key (the
//!    analysis inputs, the emitter options' fingerprint, the [`Product`]; see
//!    `outcache.rs`) is reused without analyzing.
//! 4. **analyze** ([`Prepared::analyze`]) and **generate** ([`generate`]),
//!    then store what was generated for the next identical run.
//!
//! `scan --json`/`--events` and `build` take steps 1–4 through
//! [`Prepared::derive`]. The others need the inventory itself and skip the
//! output cache: `scan`'s summary and `check`'s snapshot read it
//! ([`Prepared::analyze`]); `serve` holds the documents [`generate`] made
//! with the counts of the inventory they came from.
//!
//! Deliberately not here: printing and exit codes (each verb's file says
//! what it prints, in which order), writing files (`publish.rs`) and serving.

use crate::config::Config;
use crate::failon::{self, FailOn};
use crate::outcache::{self, Output};
use anyhow::Result;

/// An analysis ready to run (the project opened with its options), with the
/// configuration it was given.
pub(crate) struct Prepared {
    pub(crate) analyzer: analyzer::Analyzer,
    pub(crate) config: Config,
    /// `--fail-on`: judging the findings needs an analysis, so no stored
    /// output is reused when it is given.
    pub(crate) fail_on: Option<FailOn>,
}

/// What a verb derives from an analysis.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Product {
    /// Every document (`build`, `serve`).
    Documents,
    /// catalog.json alone (`scan --json`).
    Catalog,
    /// events.json alone (`scan --events`).
    Events,
}

impl Product {
    /// The product's name in the output-cache key (the verbs' names, as
    /// before the pipeline was shared).
    pub(crate) fn cache_name(self) -> &'static str {
        match self {
            Product::Documents => "build",
            Product::Catalog => "scan --json",
            Product::Events => "scan --events",
        }
    }
}

/// What [`Prepared::derive`] gives.
pub(crate) struct Derivation {
    /// The analysis, when this run analyzed (`None`: a stored output was
    /// reused and nothing was analyzed).
    pub(crate) inventory: Option<analyzer::Inventory>,
    /// What was generated or reused. Generating can fail (a `[[tools]]`
    /// binding naming no operation) after the analysis succeeded: the
    /// inventory is still given, so a verb judges `--fail-on` first.
    pub(crate) output: Result<Output>,
    /// Cache records found damaged on the way (said under `--timings`).
    pub(crate) notes: Vec<String>,
}

/// Step 4's second half: the product's documents from an inventory.
pub(crate) fn generate(
    inv: &analyzer::Inventory,
    product: Product,
    spec: &specgen::SpecOptions,
) -> Result<specgen::Documents> {
    let json = |path: &str, value: serde_json::Value| {
        let mut bytes = serde_json::to_vec_pretty(&value)?;
        bytes.push(b'\n');
        Ok::<_, anyhow::Error>(specgen::Documents {
            documents: vec![specgen::Document {
                path: path.to_string(),
                media_type: "application/json",
                hash: blake3::hash(&bytes).to_hex().to_string(),
                bytes,
            }],
            warnings: Vec::new(),
        })
    };
    match product {
        Product::Documents => Ok(specgen::documents(inv, spec)?),
        Product::Catalog => json("catalog.json", specgen::catalog_with(inv, spec)?),
        Product::Events => json("events.json", specgen::events(inv)),
    }
}

/// The line `build` prints after the folder (and stores with its output):
/// the counts the documents state.
fn counts_message(inv: &analyzer::Inventory) -> String {
    let counts = crate::summary::DocumentCounts::of(inv);
    format!(
        "({} operations, {} events, {} findings)",
        counts.operations, counts.events, counts.findings
    )
}

impl Prepared {
    /// Step 4's first half: analyze the project as it is on disk now.
    pub(crate) fn analyze(&self) -> Result<analyzer::Inventory> {
        Ok(self.analyzer.run()?)
    }

    /// The exit code `--fail-on` asks for (0 or 1, saying why on stderr).
    pub(crate) fn exit_code(&self, inv: &analyzer::Inventory) -> i32 {
        failon::exit_code(self.fail_on, inv)
    }

    /// Steps 3 and 4 for a product: the stored output of an identical
    /// earlier run, else analyze, generate and store.
    pub(crate) fn derive(
        &self,
        product: Product,
        spec: &specgen::SpecOptions,
    ) -> Result<Derivation> {
        let name = product.cache_name();
        let slot = match self.fail_on {
            Some(_) => None,
            None => outcache::Slot::find(&self.analyzer, spec, name)?,
        };
        if let Some(output) = slot.as_ref().and_then(|s| s.load()) {
            return Ok(Derivation {
                inventory: None,
                output: Ok(output),
                notes: slot.map(|s| s.notes.take()).unwrap_or_default(),
            });
        }
        let notes = slot.map(|s| s.notes.take()).unwrap_or_default();
        let inv = self.analyze()?;
        let output = generate(&inv, product, spec).map(|docs| Output {
            files: docs
                .documents
                .into_iter()
                .map(|d| (d.path, d.bytes))
                .collect(),
            message: match product {
                Product::Documents => counts_message(&inv),
                Product::Catalog | Product::Events => String::new(),
            },
            warnings: docs.warnings,
        });
        if let Ok(output) = &output
            && let Some(s) = outcache::Slot::after(&inv, self.options(), spec, name)
        {
            s.store(output);
        }
        Ok(Derivation {
            inventory: Some(inv),
            output,
            notes,
        })
    }

    /// The analysis options.
    pub(crate) fn options(&self) -> &analyzer::AnalyzeOptions {
        self.analyzer.options()
    }

    /// Emitter options: the config, with title and version from the
    /// project's package.json (else the folder name and `0.0.0`).
    pub(crate) fn spec_options(&self, openapi31: bool) -> Result<specgen::SpecOptions> {
        let root = &self.options().root;
        let pkg = self.analyzer.package();
        let title = pkg.name.unwrap_or_else(|| {
            root.canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "API".into())
        });
        let version = pkg.version.unwrap_or_else(|| "0.0.0".into());
        let mut opts = self.config.spec_options(title, version, openapi31)?;
        // A plain SPDX id only; `SEE LICENSE IN …` and expressions are not names.
        if opts.license.is_none() {
            opts.license = pkg.license.filter(|l| {
                !l.is_empty()
                    && l.chars()
                        .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c))
            });
        }
        Ok(opts)
    }
}
