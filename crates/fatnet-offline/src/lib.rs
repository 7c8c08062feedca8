//! Off-line problems with certificates: schedules and routings computed from the whole
//! message set, each checkable by an independent verifier.
//!
//! - [`leiserson`]: Leiserson's splitting scheduler for fat-trees (Leiserson, *Fat-Trees* (1985),
//!   Theorem 1 and Corollary 2) and the split itself;
//! - [`clos`]: Yuan's folded Clos (*On nonblocking folded-Clos networks*): the Lemma 1 nonblocking
//!   checker with a counterexample, exact worst-case contention, the n² routing, d-mod-m,
//!   NONBLOCKINGADAPTIVE;
//! - [`decomposition`]: Leiserson's balanced decomposition trees (*Fat-Trees* (1985), §V):
//!   Lemma 6's string-of-pearls split, Lemma 7's interval forest, Theorem 8 / Corollary 9;
//! - [`hypercube`]: Stamoulis' static tasks (thesis (1991), chapters 3–4): optimal total exchange
//!   and simultaneous broadcasts, as slot-by-slot schedules;
//! - [`optimal`]: the exact minimum number of delivery cycles on a fat-tree (branch and bound),
//!   with the optimal schedule and the proof that no schedule is shorter;
//! - [`written`]: schedules users write, read from a file (JSON or `src->dst` text) and checked.
//!
//! **Key design decision: every result carries its own check.** A [`Schedule`] verifies
//! against the topology and the message set ([`Schedule::verify`]) and returns the first
//! violation as a typed value; the Clos checker returns a two-pair permutation that collides;
//! slot schedules verify that every arc is used at most once per slot. Tests and the CLI run
//! the verifiers on everything the algorithms produce.
//!
//! ```
//! use fatnet_offline::{hypercube, leiserson};
//! use fatnet_topology::{CapacityProfile, FatTree};
//! use fatnet_traffic::patterns;
//!
//! // The complement permutation on a 16-processor fat-tree of unit capacities: all 16
//! // messages cross the root, 8 on each channel below it, so λ(M) = 8.
//! let tree = FatTree::new(16, CapacityProfile::Constant(1))?;
//! let messages = patterns::complement(16)?;
//! let plan = leiserson::theorem1(&tree, &messages)?;
//! assert_eq!(plan.lower_bound, 8);
//! assert_eq!(plan.bound, 32); // Theorem 1: lg n · 2^⌈lg λ⌉ = 4 · 8
//! assert_eq!(plan.cycles(), 8); // one level of ancestors: optimal here
//! // The certificate: every message in exactly one cycle, no channel over capacity.
//! assert_eq!(plan.schedule.verify(&tree, &messages), Ok(()));
//!
//! // Stamoulis' optimal total exchange on the 4-cube: 2^(d−1) = 8 slots, verified.
//! let exchange = hypercube::total_exchange(4)?;
//! assert_eq!(exchange.slots().len(), 8);
//! assert!(exchange.verify().is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod clos;
pub mod decomposition;
mod error;
pub mod hypercube;
pub mod leiserson;
pub mod optimal;
mod schedule;
pub mod written;

pub use error::OfflineError;
pub use schedule::{Schedule, Violation};
