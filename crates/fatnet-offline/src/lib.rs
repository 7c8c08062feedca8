//! Off-line problems with certificates: schedules and routings computed from the whole
//! message set, each checkable by an independent verifier.
//!
//! - [`leiserson`]: Leiserson's splitting scheduler for fat-trees (paper 004, Theorem 1 and
//!   Corollary 2) and the split itself;
//! - [`clos`]: Yuan's folded Clos (paper 001): the Lemma 1 nonblocking checker with a
//!   counterexample, exact worst-case contention, the n² routing, d-mod-m, NONBLOCKINGADAPTIVE;
//! - [`hypercube`]: Stamoulis' static tasks (paper 002, chapters 3–4): optimal total exchange
//!   and simultaneous broadcasts, as slot-by-slot schedules;
//! - [`written`]: schedules users write, read from a file (JSON or `src->dst` text) and checked.
//!
//! **Key design decision: every result carries its own check.** A [`Schedule`] verifies
//! against the topology and the message set ([`Schedule::verify`]) and returns the first
//! violation as a typed value; the Clos checker returns a two-pair permutation that collides;
//! slot schedules verify that every arc is used at most once per slot. Tests and the CLI run
//! the verifiers on everything the algorithms produce.

#![deny(missing_docs)]

pub mod clos;
mod error;
pub mod hypercube;
pub mod leiserson;
mod schedule;
pub mod written;

pub use error::OfflineError;
pub use schedule::{Schedule, Violation};
