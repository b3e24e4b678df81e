//! `--fail-on LEVEL`: exit 1 when a finding of that severity or a more
//! severe one was reported (after every output is printed or written).
//!
//! Deliberately not done: filtering what is printed; findings are always
//! part of the output.

/// A severity threshold, as given on the command line.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum FailOn {
    /// Registrations or events lost, or code not analyzed (parse-error,
    /// dynamic-*, uncharted-route, no-entry, …; see `Finding::severity`).
    Error,
    /// Errors, and anything charted with an assumption or a failed
    /// cross-check (unresolved-import, unheard-event, …).
    Warning,
    /// Any finding at all.
    Info,
}

impl FailOn {
    fn threshold(self) -> analyzer::Severity {
        match self {
            FailOn::Error => analyzer::Severity::Error,
            FailOn::Warning => analyzer::Severity::Warning,
            FailOn::Info => analyzer::Severity::Info,
        }
    }
}

/// The exit code for `inv` under `fail_on` (0 or 1), saying why on stderr.
pub(crate) fn exit_code(fail_on: Option<FailOn>, inv: &analyzer::Inventory) -> i32 {
    let Some(level) = fail_on else {
        return 0;
    };
    let threshold = level.threshold();
    let n = inv
        .findings
        .iter()
        .filter(|f| f.severity() <= threshold)
        .count();
    if n == 0 {
        return 0;
    }
    eprintln!(
        "error: {n} finding{} at or above --fail-on {}",
        if n == 1 { "" } else { "s" },
        match level {
            FailOn::Error => "error",
            FailOn::Warning => "warning",
            FailOn::Info => "info",
        }
    );
    1
}
