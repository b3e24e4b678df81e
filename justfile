# One gate: what CI runs.
ready:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    bash tests/with-postgres cargo test --workspace
    bash tests/consumers/run

# Third-party validators on `portolan build` outputs of every sample project (tests/consumers/).
consumers *projects:
    bash tests/consumers/run {{projects}}

scan-example:
    cargo run --release -p portolan -- scan tests/projects/harbor --list
