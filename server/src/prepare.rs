//! What every analysing verb shares: the options, and the configuration they
//! name, opened as a [`Prepared`] analysis.

use crate::config::Config;
use crate::failon;
use crate::pipeline::Prepared;
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
            fail_on: self.fail_on,
        })
    }
}
