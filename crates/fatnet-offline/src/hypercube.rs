//! Stamoulis' static communication tasks on the hypercube (Stamoulis' thesis (1991),
//! chapters 3–4), as
//! slot-by-slot schedules with a verifier.
//!
//! Model (Stamoulis §1.2.3): time is divided into unit slots; a packet crosses an arc in one
//! slot; store-and-forward; at most one packet per directed arc per slot; all-port (a node may
//! send on all `d` output arcs and receive on all `d` input arcs in the same slot); infinite
//! buffers. Nodes and dimensions follow [`Hypercube`]: node `z` has bits `(z_d, …, z_1)`,
//! dimension `i` (1-indexed) flips bit `i − 1`, and the arc `(z, z ⊕ e_i)` is
//! [`Hypercube::arc`]`(z, i)`.
//!
//! **Key design decision: an algorithm's output is data, checked by one verifier.** Every
//! construction here returns a [`SlotSchedule`] — a packet table and, per slot, the list of
//! (packet, arc) transmissions — and [`SlotSchedule::verify`] checks it against the model
//! alone (arcs used once per slot, no forwarding before receipt, every destination reached),
//! returning the first problem as a [`SlotViolation`]. The algorithms' claims (completion in
//! exactly `2^(d−1)` slots with every arc busy, the `2⌈K/d⌉ + 4d + 2` bound, …) are then
//! properties of verified data, which is what the tests and the reproduction tables check.
//!
//! What is here:
//!
//! - [`total_exchange`]: the optimal total exchange of chapter 3 (BOSTT91 below), built from the
//!   transmission tables of Figure 3.2 ([`TransmissionTables`]); [`total_exchange_recursive`]
//!   is the three-phase recursion of the proof of Proposition 3.1, an independent construction
//!   that produces the same schedule;
//! - [`k_broadcasts`]: the `K` simultaneous broadcasts of §4.4 (parallel prefix, gather at the
//!   roots of the `d` arc-disjoint spanning trees [`UnbalancedTree::disjoint`], scatter),
//!   [`randomized_k_broadcasts`] (§4.5) and [`multinode_broadcast_a4`] (§4.4, `K = 2^d`);
//! - the special cases of §4.6: [`tree_broadcasts`] (`K = O(d)`, at most `d + K − 1` slots),
//!   [`two_broadcasts`] (`K = 2` in `d` slots), [`ranked_broadcasts`] (`K ≤ d` in `d` slots),
//!   [`single_node_broadcast`]; and [`multinode_broadcast`], an optimal multinode broadcast in
//!   `⌈(2^d − 1)/d⌉` slots (the optimum the thesis quotes from BOSTT91; our construction, see
//!   its documentation);
//! - [`suffix_sums`]: the `2d`-slot parallel prefix of §4.3 that ranks the broadcasters;
//! - the bounds: [`total_exchange_lower_bound`], [`k_broadcast_lower_bound`],
//!   [`k_broadcast_upper_bound`], [`multinode_broadcast_time`].
//!
//! BOSTT91: D. P. Bertsekas, C. Özveren, G. D. Stamoulis, P. Tseng, J. N. Tsitsiklis,
//! "Optimal communication algorithms for hypercubes", JPDC 11 (1991) 263–275.

use fatnet_topology::Hypercube;

use crate::OfflineError;

mod algorithms;
mod broadcast;
mod exchange;
mod slots;
mod trees;

pub use algorithms::{BroadcastAlgorithm, BroadcastPhases, BuiltBroadcast, SlotClaim};
pub use broadcast::{
    Contention, KBroadcasts, MnbTree, Ranks, SuffixSums, k_broadcast_lower_bound,
    k_broadcast_upper_bound, k_broadcasts, multinode_broadcast, multinode_broadcast_a4,
    multinode_broadcast_a4_bounds, multinode_broadcast_time, multinode_broadcast_tree,
    randomized_k_broadcasts, ranked_broadcasts, single_node_broadcast, suffix_sums,
    tree_broadcasts, two_broadcasts,
};
pub use exchange::{
    Hop, TransmissionTables, exchange_packet, total_exchange, total_exchange_lower_bound,
    total_exchange_recursive,
};
pub use slots::{
    Destination, Packet, PacketId, PacketKind, SlotReport, SlotSchedule, SlotViolation,
    Transmission,
};
pub use trees::UnbalancedTree;

/// Largest dimension the constructions of this module accept.
///
/// A total exchange on the `d`-cube has `2^d(2^d − 1)` packets and `d·2^(d−1)·2^d`
/// transmissions: at `d = 12`, 16.8 million packets and 101 million transmissions, about 1 GB
/// as a [`SlotSchedule`]. The broadcast constructions have at most `2^d` data packets.
pub const MAX_DIMENSION: u32 = 12;

/// The `d`-cube, for `1 <= d <= MAX_DIMENSION`.
pub(crate) fn cube(d: u32) -> Result<Hypercube, OfflineError> {
    if !(1..=MAX_DIMENSION).contains(&d) {
        return Err(OfflineError::OutOfRange {
            param: "d",
            value: u64::from(d),
            allowed: "1..=12",
        });
    }
    Ok(Hypercube::new(u64::from(d)).expect("1 <= d <= 12 is a valid hypercube"))
}

/// Checks that every node is a node of the `d`-cube.
fn check_nodes(cube: &Hypercube, nodes: &[u32]) -> Result<(), OfflineError> {
    match nodes.iter().find(|&&x| x >= cube.size()) {
        Some(&x) => Err(OfflineError::NodeOutOfRange {
            node: u64::from(x),
            nodes: u64::from(cube.size()),
        }),
        None => Ok(()),
    }
}

/// The node `e_i` (only bit `i` set).
#[inline]
fn e(i: u32) -> u32 {
    1 << (i - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_outside_one_to_twelve_are_rejected() {
        for d in [0, 13, 40] {
            assert_eq!(
                cube(d).unwrap_err(),
                OfflineError::OutOfRange {
                    param: "d",
                    value: u64::from(d),
                    allowed: "1..=12"
                }
            );
        }
        assert_eq!(cube(12).unwrap().size(), 4096);
    }

    #[test]
    fn node_checks_name_the_first_bad_node() {
        let c = cube(3).unwrap();
        assert!(check_nodes(&c, &[0, 7]).is_ok());
        assert_eq!(
            check_nodes(&c, &[1, 9, 8]).unwrap_err(),
            OfflineError::NodeOutOfRange { node: 9, nodes: 8 }
        );
        assert_eq!(e(1), 1);
        assert_eq!(e(4), 8);
    }
}
