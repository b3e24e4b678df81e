//! `portolan cache dir|clean|verify`: see, remove and check the cache folder
//! of a project.
//!
//! `dir` prints the folder a run on ROOT uses (after `--cache-dir`,
//! `$PORTOLAN_CACHE_DIR`, `$XDG_CACHE_HOME`, `$HOME`); `clean` removes it
//! (`--all`: the folder of every project); `verify` checks every record of
//! every layer (facts index and pack, tree walk, stored inventories, stored
//! outputs) and exits 1 when one is damaged, `--repair` removes what is
//! damaged (the next run recomputes it).
//!
//! Deliberately not done: anything a run would not also do on its own (a run
//! already discards every damaged record it meets).

use anyhow::{Context, Result};
use clap::Subcommand;
use std::path::PathBuf;

/// What to do with the cache.
#[derive(Subcommand)]
pub(crate) enum CacheCommand {
    /// Print the cache folder of a project.
    Dir(Target),
    /// Remove the cache folder of a project (or, with --all, of every project).
    Clean {
        #[command(flatten)]
        target: Target,
        /// Remove the cache of every project (the folder that holds them all).
        #[arg(long)]
        all: bool,
    },
    /// Check every cached record; exit 1 if one is damaged.
    Verify {
        #[command(flatten)]
        target: Target,
        /// Remove what is damaged (the next run recomputes it); exit 0.
        #[arg(long)]
        repair: bool,
    },
}

/// Which cache folder.
#[derive(clap::Args)]
pub(crate) struct Target {
    /// The project root (default: the current directory).
    root: Option<PathBuf>,
    /// The cache folder the runs were given with --cache-dir.
    #[arg(long)]
    cache_dir: Option<PathBuf>,
}

impl Target {
    fn root(&self) -> PathBuf {
        self.root.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    fn dir(&self) -> PathBuf {
        self.cache_dir
            .clone()
            .unwrap_or_else(|| analyzer::default_cache_dir(&self.root()))
    }
}

/// Run a `cache` verb; the result is the exit code.
pub(crate) fn run(cmd: CacheCommand) -> Result<i32> {
    match cmd {
        CacheCommand::Dir(target) => {
            println!("{}", target.dir().display());
            Ok(0)
        }
        CacheCommand::Clean { target, all } => {
            let dir = if all {
                if target.cache_dir.is_some() {
                    anyhow::bail!(
                        "--all removes the default cache folder; it takes no --cache-dir"
                    );
                }
                analyzer::cache_base()
            } else {
                target.dir()
            };
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => println!("removed {}", dir.display()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    println!("{} does not exist; nothing to remove", dir.display());
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot remove {}", dir.display()));
                }
            }
            Ok(0)
        }
        CacheCommand::Verify { target, repair } => {
            let dir = target.dir();
            if !dir.is_dir() {
                println!("{}: no cache yet", dir.display());
                return Ok(0);
            }
            let mut report = analyzer::verify_cache(&target.root(), &dir, repair);
            crate::outcache::verify(&dir, &mut report, repair);
            println!("{}", dir.display());
            for line in &report.ok {
                println!("  ok       {line}");
            }
            for line in &report.damaged {
                println!("  damaged  {line}");
            }
            for line in &report.repaired {
                println!("  repaired {line}");
            }
            println!(
                "{} intact, {} damaged{}",
                report.ok.len(),
                report.damaged.len(),
                if report.damaged.is_empty() || repair {
                    ""
                } else {
                    " (remove with `portolan cache verify --repair`; a run discards them anyway)"
                }
            );
            Ok(i32::from(!report.damaged.is_empty() && !repair))
        }
    }
}
