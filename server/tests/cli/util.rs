//! Helpers: run the binary and show everything needed to debug a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) use test_support::{copy_tree, workspace};

/// What a run printed and how it ended.
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// The binary under test: this build's, or `$PORTOLAN_BIN` (to show that a
/// test fails on an older binary).
pub(crate) fn binary() -> PathBuf {
    std::env::var_os("PORTOLAN_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_portolan")))
}

/// Run `portolan ARGS` (with a private cache) from the workspace root.
pub(crate) fn portolan(args: &[&str], cache: &Path) -> Run {
    portolan_with(args, cache, &[])
}

/// [`portolan`] with extra environment variables.
pub(crate) fn portolan_with(args: &[&str], cache: &Path, env: &[(&str, &str)]) -> Run {
    let out = Command::new(binary())
        .args(args)
        .arg("--cache-dir")
        .arg(cache)
        .envs(env.iter().copied())
        .current_dir(workspace())
        .output()
        .expect("the portolan binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
