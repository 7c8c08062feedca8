//! Library errors as Python exceptions: one class per crate error, all subclasses of
//! [`FatnetError`] (a `ValueError`), each with the CLI's one-line message.

use pyo3::prelude::*;

pyo3::create_exception!(
    fatnet,
    FatnetError,
    pyo3::exceptions::PyValueError,
    "Any error of fatnet: bad input refused by the libraries. Its message is the line the \
     command line prints after `error: `."
);

/// One exception class per library error type.
macro_rules! crate_errors {
    ($($class:ident => $ty:ty, $doc:literal;)*) => {
        $(
            pyo3::create_exception!(fatnet, $class, FatnetError, $doc);

            impl Raise for $ty {
                fn raise(&self, context: &str) -> PyErr {
                    $class::new_err(message(context, self))
                }
            }
        )*

        /// Adds `FatnetError` and every class to the module.
        pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            let py = m.py();
            m.add("FatnetError", py.get_type::<FatnetError>())?;
            $(m.add(stringify!($class), py.get_type::<$class>())?;)*
            Ok(())
        }
    };
}

crate_errors! {
    TopologyError => fatnet::topology::TopologyError,
        "A topology spec that does not parse or a topology that cannot be built.";
    TrafficError => fatnet::traffic::TrafficError,
        "A traffic spec, message set or traffic file that is refused.";
    LoadError => fatnet::load::LoadError,
        "A load analysis that is refused (a message set larger than the network, a table over \
         the memory budget).";
    OfflineError => fatnet::offline::OfflineError,
        "An off-line scheduler that refuses the case.";
    OnlineError => fatnet::online::OnlineError,
        "A simulator that refuses the case.";
    FabricError => fatnet::fabric::FabricError,
        "A fabric that cannot be read, traced or analysed.";
    ScenarioError => fatnet::scenario::ScenarioError,
        "A scenario (simulation options, a config) that is refused.";
    ReproError => fatnet_repro::ReproError,
        "A sweep that is refused (every problem of its file, with lines) or fails.";
}

/// A fabric traffic spec that does not parse: a `FabricError`.
impl Raise for fatnet::fabric::traffic::FabricTrafficError {
    fn raise(&self, context: &str) -> PyErr {
        FabricError::new_err(message(context, self))
    }
}

/// A re-routing that does not parse: a `FabricError`.
impl Raise for fatnet::fabric::failures::UnknownReroute {
    fn raise(&self, context: &str) -> PyErr {
        FabricError::new_err(message(context, self))
    }
}

/// A library error turned into its Python exception.
pub(crate) trait Raise {
    /// The exception, its message prefixed by `context` (the CLI's context: "invalid topology
    /// spec `x`"), or the error alone if `context` is empty.
    fn raise(&self, context: &str) -> PyErr;
}

/// `context: error: cause: ...`, as the CLI prints it (each cause once).
fn message(context: &str, e: &(dyn std::error::Error + 'static)) -> String {
    let line = fatnet::scenario::one_line(e);
    if context.is_empty() {
        line
    } else {
        format!("{context}: {line}")
    }
}

/// `result`, its error raised as its Python exception with `context`.
pub(crate) fn check<T, E: Raise>(
    result: Result<T, E>,
    context: impl FnOnce() -> String,
) -> PyResult<T> {
    result.map_err(|e| e.raise(&context()))
}

/// An option named wrongly (`paths="leftmost"`): the base class, with the library's message
/// (the names allowed).
impl Raise for fatnet::topology::UnknownName {
    fn raise(&self, context: &str) -> PyErr {
        FatnetError::new_err(message(context, self))
    }
}
