//! The `fatnet` Python package: fatnet's libraries from a notebook, with numpy arrays and
//! networkx graphs.
//!
//! **Key design decision: the binding converts, it never decides.** Every parse, default and
//! refusal lives in the library crates: a topology or traffic spec given as a string goes
//! through the same `FromStr` the command line uses, a simulation's keyword arguments
//! deserialise (through `pythonize`) into the very `PacketRunFile` a `fatnet simulate
//! --config` file becomes, and a run is `PacketScenario::prepare` then `PreparedPacket::run`,
//! as in `fatnet simulate`. This crate only turns Python values into those library types and
//! results into numpy arrays, `fractions.Fraction`s and dicts, so the same seed gives the same
//! numbers as the CLI.
//!
//! Errors: each library crate's error becomes its own Python exception class, a subclass of
//! `fatnet.FatnetError` (itself a `ValueError`), with the one-line message the CLI prints
//! (`fatnet_scenario::one_line`, with the CLI's context). Nothing panics across the boundary:
//! bad input is refused by the libraries before anything is allocated.
//!
//! Building: `pip install ./crates/fatnet-py` (maturin, the workspace's dev profile; see
//! `pyproject.toml`). Every cargo command of the workspace builds the library as an extension
//! module, as maturin does (`PYO3_BUILD_EXTENSION_MODULE` in `.cargo/config.toml`: libpython's
//! symbols stay unresolved until Python loads it), and the crate has no Rust test binary, so
//! `cargo build`, `cargo clippy` and `cargo test --workspace` need neither Python headers nor
//! libpython; with PyO3's abi3 feature they do not even need an interpreter.

#![deny(missing_docs)]

use pyo3::prelude::*;

mod errors;
mod fabric;
mod load;
mod schedule;
mod simulate;
mod sweep;
mod topology;
mod traffic;

pub use errors::FatnetError;
pub use fabric::Fabric;
pub use load::LoadResult;
pub use schedule::Schedule;
pub use simulate::Simulation;
pub use topology::Topology;
pub use traffic::Traffic;

/// fatnet: fat-tree and related interconnection networks (topologies, traffic, load factor,
/// schedules, packet simulations, real InfiniBand fabrics), backed by the Rust libraries.
#[pymodule]
#[pyo3(name = "fatnet")]
fn fatnet_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<Topology>()?;
    m.add_class::<Traffic>()?;
    m.add_class::<LoadResult>()?;
    m.add_function(wrap_pyfunction!(load::load, m)?)?;
    m.add_class::<Schedule>()?;
    m.add_function(wrap_pyfunction!(schedule::schedule, m)?)?;
    m.add_class::<Simulation>()?;
    m.add_class::<Fabric>()?;
    m.add_function(wrap_pyfunction!(sweep::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    Ok(())
}
