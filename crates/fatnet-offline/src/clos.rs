//! Yuan's nonblocking folded Clos networks (X. Yuan, *On Nonblocking Folded-Clos Networks
//! in Computer Communication Environments*), on [`FoldedClos`] = `ftree(n+m, r)`.
//!
//! **Key design decision: a routing is a function from pairs to top switches, and every
//! verdict comes with its evidence.** In `ftree(n+m, r)` the only choice a route has is the
//! top switch of a pair across bottom switches, so a single-path deterministic routing is a
//! function `top(s, d)` and an oblivious multipath routing a nonempty set of tops
//! ([`ClosRouting`]). On that representation:
//!
//! - [`check_nonblocking`] decides Yuan's Lemma 1 (every directed link carries pairs from one
//!   source or to one destination) and, when the routing blocks, returns a two-pair
//!   permutation that collides on a named link ([`Counterexample`]), which
//!   [`verify_counterexample`] re-routes through the simulator;
//! - [`worst_contention`] gives the exact worst case over all permutations (a maximum
//!   bipartite matching per link) together with the permutation attaining it;
//! - [`simulate`] and [`simulate_routing`] count the pairs of one permutation per channel,
//!   the ground truth every other answer is tested against;
//! - [`nonblocking_adaptive`] is Yuan's local adaptive algorithm NONBLOCKINGADAPTIVE (Fig. 4,
//!   Lemmas 3–5) and carries its own simulator report;
//! - [`min_top_switches`] finds, for tiny `(n, r)`, the smallest `m` that admits a
//!   nonblocking single-path routing, with the routing as certificate (Theorems 1–3).
//!
//! Numbering is [`FoldedClos`]'s: leaf `x = v·n + k` on bottom switch `v = x / n`, top switches
//! `0..m`. Pairs within one bottom switch (and self pairs) use no top switch and no
//! inter-switch link; they are never routed and never conflict.

mod adaptive;
mod check;
mod routing;
mod search;
mod simulate;

use std::fmt;

use fatnet_topology::{ChannelId, FoldedClos, Topology};
use serde::Serialize;

pub use adaptive::{
    AdaptiveConfig, AdaptiveRouting, PartitionTie, Representative, adaptive_top_bound, min_digits,
    nonblocking_adaptive,
};
pub use check::{
    Counterexample, LinkPairs, MAX_CHECKED_PAIRS, NonblockingReport, WorstContention,
    check_nonblocking, verify_counterexample, worst_contention,
};
pub use routing::{ClosRouting, ClosRoutingKind, DModM, RoutingTable, SModM, Tops, YuanRouting};
pub use search::{
    MinTopSearch, MinTopStep, MinTopSwitches, lemma2_bound, min_top_switches, theorem1_bound,
    top_capacity,
};
pub use simulate::{ChannelLoad, SimReport, simulate, simulate_routing};

/// A directed channel of `ftree(n+m, r)`, named by its ends.
///
/// Serializes as `{"kind": "up", "bottom": v, "top": t}` and so on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ClosChannel {
    /// Leaf `leaf` to its bottom switch.
    LeafUp {
        /// The leaf.
        leaf: u32,
    },
    /// A bottom switch to its leaf `leaf`.
    LeafDown {
        /// The leaf.
        leaf: u32,
    },
    /// Bottom switch `bottom` up to top switch `top` (Yuan's uplink).
    Up {
        /// The bottom switch.
        bottom: u32,
        /// The top switch.
        top: u32,
    },
    /// Top switch `top` down to bottom switch `bottom` (Yuan's downlink).
    Down {
        /// The top switch.
        top: u32,
        /// The bottom switch.
        bottom: u32,
    },
}

impl ClosChannel {
    /// The channel's id in `clos`.
    ///
    /// # Panics
    ///
    /// When a leaf or switch is out of range for `clos`.
    pub fn id(self, clos: &FoldedClos) -> ChannelId {
        match self {
            ClosChannel::LeafUp { leaf } => clos.leaf_up_channel(leaf),
            ClosChannel::LeafDown { leaf } => clos.leaf_down_channel(leaf),
            ClosChannel::Up { bottom, top } => clos.up_channel(bottom, top),
            ClosChannel::Down { top, bottom } => clos.down_channel(top, bottom),
        }
    }

    /// The channel with id `c` in `clos`.
    ///
    /// # Panics
    ///
    /// When `c` is not a channel of `clos`.
    pub fn from_id(clos: &FoldedClos, c: ChannelId) -> Self {
        assert!(c.0 < clos.num_channels(), "channel {c:?} out of range");
        let p = clos.ports();
        let rm = clos.r() * clos.m();
        if c.0 < p {
            ClosChannel::LeafUp { leaf: c.0 }
        } else if c.0 < 2 * p {
            ClosChannel::LeafDown { leaf: c.0 - p }
        } else if c.0 < 2 * p + rm {
            let i = c.0 - 2 * p;
            ClosChannel::Up {
                bottom: i / clos.m(),
                top: i % clos.m(),
            }
        } else {
            let i = c.0 - 2 * p - rm;
            ClosChannel::Down {
                top: i % clos.m(),
                bottom: i / clos.m(),
            }
        }
    }

    /// The top switch of an inter-switch channel, `None` for a leaf channel.
    pub fn top(self) -> Option<u32> {
        match self {
            ClosChannel::Up { top, .. } | ClosChannel::Down { top, .. } => Some(top),
            _ => None,
        }
    }
}

impl fmt::Display for ClosChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ClosChannel::LeafUp { leaf } => write!(f, "leaf {leaf} -> its bottom switch"),
            ClosChannel::LeafDown { leaf } => write!(f, "bottom switch -> leaf {leaf}"),
            ClosChannel::Up { bottom, top } => write!(f, "up bottom {bottom} -> top {top}"),
            ClosChannel::Down { top, bottom } => write!(f, "down top {top} -> bottom {bottom}"),
        }
    }
}

/// Whether `s -> d` crosses bottom switches (and so needs a top switch).
#[inline]
fn is_cross(clos: &FoldedClos, s: u32, d: u32) -> bool {
    clos.bottom_switch(s) != clos.bottom_switch(d)
}

/// Index of the inter-switch link `Up(v, t)` (`v·m + t`) or `Down(t, w)` (`r·m + w·m + t`):
/// the channel id minus `2·r·n`, so link order is channel order.
#[inline]
fn up_link(clos: &FoldedClos, v: u32, t: u32) -> usize {
    (v * clos.m() + t) as usize
}

/// See [`up_link`].
#[inline]
fn down_link(clos: &FoldedClos, t: u32, w: u32) -> usize {
    ((clos.r() + w) * clos.m() + t) as usize
}

/// The channel of link index `i` (see [`up_link`]).
fn link_channel(clos: &FoldedClos, i: usize) -> ClosChannel {
    ClosChannel::from_id(clos, ChannelId(2 * clos.ports() + i as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_ids_round_trip() {
        let clos = FoldedClos::new(2, 3, 4).unwrap();
        for c in 0..clos.num_channels() {
            let ch = ClosChannel::from_id(&clos, ChannelId(c));
            assert_eq!(ch.id(&clos), ChannelId(c));
            assert_eq!(ch.top(), clos.top_of(ChannelId(c)));
        }
        assert_eq!(
            ClosChannel::from_id(&clos, clos.up_channel(3, 2)),
            ClosChannel::Up { bottom: 3, top: 2 }
        );
        assert_eq!(
            link_channel(&clos, down_link(&clos, 1, 2)),
            ClosChannel::Down { top: 1, bottom: 2 }
        );
        assert_eq!(
            link_channel(&clos, up_link(&clos, 2, 1)),
            ClosChannel::Up { bottom: 2, top: 1 }
        );
        assert_eq!(
            ClosChannel::Down { top: 1, bottom: 2 }.to_string(),
            "down top 1 -> bottom 2"
        );
    }
}
