//! Message sets and traffic patterns for interconnection networks.
//!
//! This crate provides the workloads of the fatnet papers. They are the families that
//! Greenberg and Leiserson's "Randomized Routing on Fat-Trees" lists (permutations,
//! replicated permutations, nearest-neighbour mesh traffic laid out in Morton order,
//! Valiant's random intermediates, uniform random traffic), Greenberg and Oh's wormhole
//! benchmarks (random instance, complement, many-to-one) and Stamoulis' hypercube destination
//! law (5.1), where each address bit is flipped with probability `p`.
//!
//! **Key design decision: a message set is just numbers.** A [`MessageSet`] is a validated
//! `Vec` of (source, destination) pairs over `n` processors, and a message's id is its
//! position. The crate knows nothing about topologies, only `n`. Any network crate can route
//! the same set, and the set can be stored in a file and read back bit for bit.
//!
//! - [`patterns`] holds one generator per family. Randomized generators take
//!   `rng: &mut R` and consume it in a documented order.
//! - [`TrafficSpec`] parses the command-line strings (`permutation`, `replicated:k=4`,
//!   `valiant:base=complement`, `file:PATH`, ...). Its [`generate`](TrafficSpec::generate)
//!   is the seeded entry point, using `rand_pcg::Pcg64::seed_from_u64(seed)`.
//! - [`io`] reads and writes the text (`src dst` per line) and JSON file formats.
//! - [`arrivals`] generates Stamoulis' dynamic traffic: seeded Poisson streams per node (and
//!   slotted batches) with bit-flip destinations, one random stream per node.
//!
//! All errors are [`TrafficError`]s. No function panics on bad input.
//!
//! ```
//! use fatnet_traffic::{TrafficSpec, patterns};
//!
//! let spec: TrafficSpec = "replicated:k=2".parse()?;
//! let set = spec.generate(16, 42)?;
//! assert_eq!(set.len(), 32);
//! assert_eq!((set.max_out_degree(), set.max_in_degree()), (2, 2));
//! assert_eq!(spec.to_string(), "replicated:k=2");
//!
//! let c = patterns::complement(16)?;
//! assert!(c.is_permutation() && c.messages()[3].dst == 12);
//! # Ok::<(), fatnet_traffic::TrafficError>(())
//! ```

#![deny(missing_docs)]

pub mod arrivals;
pub mod collective;
mod error;
pub mod io;
mod message;
pub mod patterns;
pub mod spec;

pub use error::TrafficError;

/// The most memory, in bytes, a generator may allocate because of a processor count or a
/// replication factor a user gave: 2 GiB, the budget of `fatnet_topology::MEMORY_BUDGET`
/// (see there for the reason).
///
/// A message takes 8 bytes, so `-p 65536 -t replicated:k=65535` (34 GB) or a permutation on
/// `2^32 − 1` processors would abort when the allocator fails, or thrash a machine with
/// 8–16 GB, instead of failing at once; generators estimate their size first and refuse with
/// [`TrafficError::OverMemoryBudget`]. 2 GiB leaves room for every experiment's size (a
/// permutation on 2^27 processors, 8 permutations on 2^24).
pub const MEMORY_BUDGET: u64 = 2 << 30;
pub use collective::Collective;
pub use message::{MAX_MESSAGES, Message, MessageId, MessageSet};
pub use spec::{TrafficSpec, ValiantBase};

/// Seed of row or trial `index` of a run with master seed `seed`: SplitMix64 of the pair, so a
/// trial's result does not depend on which other trials run, in what order, or on how many
/// threads.
#[must_use]
pub fn derive_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(index.wrapping_add(1)));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
