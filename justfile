# One gate: what CI runs.
ready:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    cargo test --workspace

scan-example:
    cargo run --release -p portolan -- scan tests/projects/harbor --list
