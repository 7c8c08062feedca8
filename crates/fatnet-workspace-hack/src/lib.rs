//! Feature unification only (see this crate's `Cargo.toml`): no code. Every command of the
//! workspace resolves the same features of the shared third-party crates, so the libraries
//! built by `cargo test --workspace` are the ones `cargo build -p fatnet-cli`, `cargo xtask`
//! and the Python wheel use.
