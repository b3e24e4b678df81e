//! What every analysing verb shares: the options, the configuration they
//! name, and the analysis and emitter options derived from both.

use crate::config::Config;
use crate::failon;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// Options every verb shares.
#[derive(Args)]
pub(crate) struct AnalysisArgs {
    /// The project root (default: the current directory).
    pub(crate) root: Option<PathBuf>,
    /// An entry file, relative to ROOT (repeatable). Default: auto-detect.
    #[arg(long = "entry")]
    pub(crate) entries: Vec<String>,
    /// Read options from this portolan.toml (default: ROOT/portolan.toml if present).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Where to keep the per-file facts cache.
    #[arg(long)]
    pub(crate) cache_dir: Option<PathBuf>,
    /// Neither read nor write the cache.
    #[arg(long)]
    pub(crate) no_cache: bool,
    /// Exit 1 when a finding of this severity or a more severe one is reported.
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub(crate) fail_on: Option<failon::FailOn>,
}

/// An analysis ready to run (the project opened with its options), with the
/// configuration it was given.
pub(crate) struct Prepared {
    pub(crate) analyzer: analyzer::Analyzer,
    pub(crate) config: Config,
}

impl AnalysisArgs {
    pub(crate) fn prepare(&self) -> Result<Prepared> {
        let root = self.root.clone().unwrap_or_else(|| PathBuf::from("."));
        let config_path = self.config.clone().or_else(|| {
            let p = root.join("portolan.toml");
            p.exists().then_some(p)
        });
        let config = match config_path {
            Some(path) => Config::load(&path)?,
            None => Config::default(),
        };
        let entries = if self.entries.is_empty() {
            config.entries.clone()
        } else {
            self.entries.clone()
        };
        Ok(Prepared {
            analyzer: analyzer::Analyzer::open(analyzer::AnalyzeOptions {
                root,
                entries,
                cache_dir: self.cache_dir.clone(),
                no_cache: self.no_cache,
                skip_events: false,
                server_dirs: config.socket.server_dirs.clone(),
                client_dirs: config.socket.client_dirs.clone(),
            })?,
            config,
        })
    }
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
