//! The path every analysing verb takes after its options are parsed.

use crate::config::Config;
use anyhow::Result;

/// An analysis ready to run (the project opened with its options), with the
/// configuration it was given.
pub(crate) struct Prepared {
    pub(crate) analyzer: analyzer::Analyzer,
    pub(crate) config: Config,
}

impl Prepared {
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
