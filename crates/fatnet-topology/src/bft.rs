//! Greenberg and Oh's butterfly fat-tree (*Universal wormhole routing*
//! (1997), §III.B.1), with the paper's exact
//! `(level, index)` addressing.

use serde::{Deserialize, Serialize};

use crate::{
    BundleId, Channel, ChannelId, Direction, Node, NodeId, NodeKind, Processor, Topology,
    TopologyError,
};

/// Greenberg and Oh's butterfly fat-tree on `N = 4^h` processors (`h >= 1`).
///
/// **Addressing (the paper's).** Node `(l, a)` is node `a` of level `l`. Level 0 holds the
/// processors `a = 0..N`; processor `(0, a)` is linked to switch `(1, ⌊a/4⌋)`. Level `l` holds
/// `m_l = N/2^(l+1)` switches for `l = 1..=h`; for `1 <= l < h`, switch `(l, a)` is linked
/// upwards to
///
/// - up port 0: `(l+1, ⌊a/2^(l+1)⌋·2^l + (a mod 2^l))`,
/// - up port 1: `(l+1, ⌊a/2^(l+1)⌋·2^l + ((a + 2^(l−1)) mod 2^l))`
///
/// ([`ButterflyFatTree::up_neighbor`]). Top-level switches (`l = h`) have 4 down ports and no
/// up port; there is no external channel. Every connection is a pair of opposite links of
/// capacity 1, each one [`Channel`]. There are `(N − √N)/2` switches and `4N − 4√N` channels.
///
/// **Tree nodes.** The underlying 4-ary tree groups the switches: switch `(l, a)` belongs to
/// level-`l` tree node `⌊a/2^(l−1)⌋`, which holds `2^(l−1)` switches and the processors
/// `t·4^l .. (t+1)·4^l`; a processor is its own level-0 tree node. The links from a level-`l`
/// tree node to its parent tree node, in one direction, form one bundle of capacity `2^l`.
///
/// **Down links (derived, checked in the tests).** Below switch `(l+1, T·2^l + y)` the child in
/// the child tree node `4T + q` (`q` in `0..4`) is switch `(l, (4T+q)·2^(l−1) + (y mod 2^(l−1)))`
/// for `l >= 1`, and processor `4s + q` below level-1 switch `s`
/// ([`ButterflyFatTree::down_neighbor`]): every parent has exactly 4 children, one in each
/// child tree node, and the down path to a processor is unique.
///
/// **Numbering (our convention; the paper has no global ids).**
/// - Nodes: processors first (`NodeId(a)` = processor `a`), then the switches level by level,
///   `(l, a)` at `N + N/2 − N/2^l + a`. [`Node::level`] is `l` and [`Node::index`] is `a`.
/// - Channels: level by level (level `l` = the links between levels `l` and `l+1`, processor
///   links level 0), `N/2^l` connections per level. Connection `e` is processor `a = e` on level
///   0 and (switch `a`, up port `p`) with `e = 2a + p` above; its up link is channel
///   `4N − 4N/2^l + 2e` and its down link the next id.
/// - Bundles: level by level, up bundle `8(N − N/4^l)/3 + 2t` and down bundle one more for
///   level-`l` tree node `t`.
///
/// **Paths.** A message from `a` to `b` with lowest common ancestor at tree level `L` (the
/// smallest `L` with `⌊a/4^L⌋ = ⌊b/4^L⌋`) crosses `2L` links: up to a level-`L` switch, then
/// the unique down path. There are `2^(L−1)` such paths for `L >= 1`; bit `i` of the path
/// index picks the up port at level `i + 1`, so index 0 always takes up port 0. For `a = b`
/// the only path is the empty one (`path_count` 1). The standard oblivious routing is
/// d-mod-k: index `b mod 2^(L−1)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "BftParams", into = "BftParams")]
pub struct ButterflyFatTree {
    /// `h = log₄ N`, the number of switch levels.
    levels: u32,
}

/// The serialized form of a [`ButterflyFatTree`]: its parameter, validated on deserialization.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct BftParams {
    n: u64,
}

impl TryFrom<BftParams> for ButterflyFatTree {
    type Error = TopologyError;

    fn try_from(p: BftParams) -> Result<Self, TopologyError> {
        Self::new(p.n)
    }
}

impl From<ButterflyFatTree> for BftParams {
    fn from(t: ButterflyFatTree) -> Self {
        Self {
            n: u64::from(t.n()),
        }
    }
}

impl ButterflyFatTree {
    /// Largest supported `h = log₄ N`: the `4N − 4√N` channel ids must fit in `u32`.
    pub const MAX_LEVELS: u32 = 15;

    /// The butterfly fat-tree on `n = 4^h` processors.
    ///
    /// # Errors
    ///
    /// [`TopologyError::NotPowerOfFour`] unless `n` is a power of four, and
    /// [`TopologyError::OutOfRange`] unless `4 <= n <= 4^15`.
    pub fn new(n: u64) -> Result<Self, TopologyError> {
        if !n.is_power_of_two() || !n.trailing_zeros().is_multiple_of(2) {
            return Err(TopologyError::NotPowerOfFour {
                param: "n",
                value: n,
            });
        }
        let max = 1u64 << (2 * Self::MAX_LEVELS);
        if !(4..=max).contains(&n) {
            return Err(TopologyError::OutOfRange {
                param: "n",
                value: n,
                min: 4,
                max,
            });
        }
        Ok(Self {
            levels: n.trailing_zeros() / 2,
        })
    }

    /// `h = log₄ N`: the number of switch levels, and the tree level of the root.
    #[inline]
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Number of processors `N = 4^h`.
    #[inline(always)]
    pub fn n(&self) -> u32 {
        1 << (2 * self.levels)
    }

    /// Number of switches on level `l` (`1..=h`): `m_l = N/2^(l+1)`.
    #[inline(always)]
    pub fn switches_at(&self, l: u32) -> u32 {
        assert!((1..=self.levels).contains(&l), "level {l} has no switches");
        self.n() >> (l + 1)
    }

    /// The node id of switch `(l, a)`, `1 <= l <= h`.
    #[inline]
    pub fn switch(&self, l: u32, a: u32) -> NodeId {
        assert!(a < self.switches_at(l), "switch ({l}, {a}) out of range");
        NodeId(self.switch_offset(l) + a)
    }

    /// The node id of node `(l, a)`: processor `a` for `l = 0`, else switch `(l, a)`.
    #[inline]
    pub fn node_at(&self, l: u32, a: u32) -> NodeId {
        if l == 0 {
            assert!(a < self.n(), "processor {a} out of range");
            NodeId(a)
        } else {
            self.switch(l, a)
        }
    }

    /// The paper's up neighbour: the index of the level-`l+1` switch that up port `port`
    /// (0 or 1) of switch `(l, a)` leads to, `1 <= l < h`; for `l = 0`, the switch `⌊a/4⌋` above
    /// processor `a` (port 0 only).
    #[inline]
    pub fn up_neighbor(&self, l: u32, a: u32, port: u32) -> u32 {
        assert!(l < self.levels, "level {l} has no up ports");
        if l == 0 {
            assert_eq!(port, 0, "a processor has one up port");
            return a >> 2;
        }
        assert!(port < 2, "switches have up ports 0 and 1");
        let half = 1 << (l - 1);
        let group = (a >> (l + 1)) << l;
        group + ((a + port * half) & ((1 << l) - 1))
    }

    /// The child of node `(l, a)` (`1 <= l <= h`) in its child tree node number `q` (`0..4`,
    /// counted from the left): its index on level `l − 1`. For `l = 1` the child is processor
    /// `4a + q`; above, switch `(l, T·2^(l−1) + y)` has the child
    /// `(4T+q)·2^(l−2) + (y mod 2^(l−2))`.
    #[inline]
    pub fn down_neighbor(&self, l: u32, a: u32, q: u32) -> u32 {
        assert!(q < 4, "a switch has four children");
        assert!(a < self.switches_at(l), "switch ({l}, {a}) out of range");
        if l == 1 {
            return 4 * a + q;
        }
        let c = l - 1; // the child's level
        let tree = a >> c; // T
        ((4 * tree + q) << (c - 1)) | (a & ((1 << (c - 1)) - 1))
    }

    /// The level-`l` tree node that node `(l, a)` belongs to: `a` for a processor, `⌊a/2^(l−1)⌋`
    /// for a switch.
    #[inline]
    pub fn tree_node(l: u32, a: u32) -> u32 {
        if l == 0 { a } else { a >> (l - 1) }
    }

    /// The tree level `L` of the lowest common ancestor of processors `a` and `b`: the smallest
    /// `L` with `⌊a/4^L⌋ = ⌊b/4^L⌋` (0 when `a = b`). A shortest path crosses `2L` links.
    #[inline]
    pub fn lca_level(a: Processor, b: Processor) -> u32 {
        (32 - (a ^ b).leading_zeros()).div_ceil(2)
    }

    /// The up link leaving node `(l, a)` through `port`, `0 <= l < h`: processor `a`'s link to
    /// its switch for `l = 0` (port 0), up port `port` (0 or 1) of switch `(l, a)` above.
    /// Port 1's channel is port 0's plus 2 (the packet engine's next hops rely on it).
    ///
    /// Always inlined: the packet engine computes next hops with it at every head's decision,
    /// and as a call (this crate builds at opt-level 1 in the dev profile) it was 7% of a
    /// SPLIT run's instructions.
    #[inline(always)]
    pub fn up_channel(&self, l: u32, a: u32, port: u32) -> ChannelId {
        ChannelId(self.channel_base(l) + 2 * self.connection(l, a, port))
    }

    /// The down link entering node `(l, a)` from above: the reverse of
    /// [`ButterflyFatTree::up_channel`]`(l, a, port)`.
    #[inline(always)]
    pub fn down_channel(&self, l: u32, a: u32, port: u32) -> ChannelId {
        ChannelId(self.up_channel(l, a, port).0 + 1)
    }

    /// Connection number `e` of (node `(l, a)`, up `port`) within level `l`.
    #[inline(always)]
    fn connection(&self, l: u32, a: u32, port: u32) -> u32 {
        assert!(l < self.levels, "level {l} has no up ports");
        if l == 0 {
            assert!(a < self.n() && port == 0, "processor {a} port {port}");
            a
        } else {
            assert!(
                a < self.switches_at(l) && port < 2,
                "switch ({l}, {a}) port {port}"
            );
            2 * a + port
        }
    }

    /// First node id of level `l` (`1..=h+1`): `N + N/2 − N/2^l`.
    #[inline]
    fn switch_offset(&self, l: u32) -> u32 {
        let n = self.n();
        n + n / 2 - (n >> l)
    }

    /// First channel id of level `l` (`0..=h`): `4N − 4N/2^l`.
    #[inline(always)]
    fn channel_base(&self, l: u32) -> u32 {
        let four_n = 4 * u64::from(self.n());
        (four_n - (four_n >> l)) as u32
    }

    /// First bundle id of level `l` (`0..=h`): `8(N − N/4^l)/3`.
    #[inline]
    fn bundle_base(&self, l: u32) -> u32 {
        let n = u64::from(self.n());
        (8 * (n - (n >> (2 * l))) / 3) as u32
    }
}

/// `⌈log₂ x⌉` for `x >= 1`.
#[inline]
fn ceil_log2(x: u64) -> u32 {
    if x <= 1 {
        0
    } else {
        64 - (x - 1).leading_zeros()
    }
}

impl Topology for ButterflyFatTree {
    fn name(&self) -> String {
        format!("bft:n={}", self.n())
    }

    fn num_processors(&self) -> u32 {
        self.n()
    }

    fn num_nodes(&self) -> u32 {
        self.switch_offset(self.levels + 1)
    }

    fn num_switches(&self) -> u32 {
        self.num_nodes() - self.n()
    }

    fn num_channels(&self) -> u32 {
        self.channel_base(self.levels)
    }

    fn num_bundles(&self) -> u32 {
        self.bundle_base(self.levels)
    }

    fn node(&self, v: NodeId) -> Node {
        let n = self.n();
        assert!(v.0 < self.num_nodes(), "node {v:?} out of range");
        if v.0 < n {
            return Node {
                kind: NodeKind::Processor,
                level: 0,
                index: v.0,
            };
        }
        // Level l covers ids with 3N/2 − v in (N/2^(l+1), N/2^l].
        let r = u64::from(n + n / 2 - v.0);
        let level = 2 * self.levels - ceil_log2(r);
        Node {
            kind: NodeKind::Switch,
            level,
            index: v.0 - self.switch_offset(level),
        }
    }

    fn channel(&self, c: ChannelId) -> Channel {
        assert!(c.0 < self.num_channels(), "channel {c:?} out of range");
        // Level l covers ids with 4N − c in (4N/2^(l+1), 4N/2^l].
        let r = 4 * u64::from(self.n()) - u64::from(c.0);
        let level = 2 * self.levels + 2 - ceil_log2(r);
        let offset = c.0 - self.channel_base(level);
        let e = offset / 2;
        let (below, above) = if level == 0 {
            (NodeId(e), self.switch(1, e >> 2))
        } else {
            let (a, port) = (e / 2, e % 2);
            (
                self.switch(level, a),
                self.switch(level + 1, self.up_neighbor(level, a, port)),
            )
        };
        let down = offset % 2;
        let (from, to, direction) = if down == 0 {
            (below, above, Direction::Up)
        } else {
            (above, below, Direction::Down)
        };
        Channel {
            from,
            to,
            capacity: 1,
            level,
            direction,
            // The 2^l connections of tree node t are e = t·2^l .. (t+1)·2^l.
            bundle: BundleId(self.bundle_base(level) + 2 * (e >> level) + down),
        }
    }

    fn bundle_capacity(&self, b: BundleId) -> u64 {
        assert!(b.0 < self.num_bundles(), "bundle {b:?} out of range");
        let level = (0..self.levels)
            .find(|&l| b.0 < self.bundle_base(l + 1))
            .expect("b is below the last level's end");
        1 << level
    }

    fn injection_node(&self, p: Processor) -> NodeId {
        assert!(p < self.n(), "processor {p} out of range");
        NodeId(p)
    }

    fn ejection_node(&self, p: Processor) -> NodeId {
        self.injection_node(p)
    }

    /// `2^(L−1)` for a lowest common ancestor at tree level `L >= 1`; 1 (the empty path) for
    /// `src == dst`.
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        assert!(src < self.n() && dst < self.n(), "processor out of range");
        match Self::lca_level(src, dst) {
            0 => 1,
            l => 1 << (l - 1),
        }
    }

    /// Up from `src` to a level-`L` switch, taking up port `bit (l−1) of index` at level `l`,
    /// then the unique down path to `dst`; empty when `src == dst`.
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        let count = self.path_count(src, dst);
        assert!(index < count, "path index {index} >= path count {count}");
        out.clear();
        let top = Self::lca_level(src, dst);
        if top == 0 {
            return;
        }
        let k = index as u32; // < 2^(h−1)
        out.push(self.up_channel(0, src, 0));
        let mut s = src >> 2;
        for l in 1..top {
            let port = (k >> (l - 1)) & 1;
            out.push(self.up_channel(l, s, port));
            s = self.up_neighbor(l, s, port);
        }
        // Down from switch (l+1, s = T·2^l + y) into dst's level-l tree node t = 4T + q: the
        // child c = t·2^(l−1) + (y mod 2^(l−1)) reaches s through up port (y div 2^(l−1)) xor
        // (t mod 2), since c mod 2^l = (t mod 2)·2^(l−1) + (y mod 2^(l−1)).
        for l in (1..top).rev() {
            let t = dst >> (2 * l);
            let y = s & ((1 << l) - 1);
            let child = (t << (l - 1)) | (y & ((1 << (l - 1)) - 1));
            let port = ((y >> (l - 1)) ^ t) & 1;
            out.push(self.down_channel(l, child, port));
            s = child;
        }
        debug_assert_eq!(s, dst >> 2);
        out.push(self.down_channel(0, dst, 0));
    }

    /// d-mod-k: `dst mod path_count(src, dst)`.
    fn standard_path_index(&self, src: Processor, dst: Processor) -> u128 {
        u128::from(dst) % self.path_count(src, dst)
    }

    fn distance(&self, src: Processor, dst: Processor) -> usize {
        assert!(src < self.n() && dst < self.n(), "processor out of range");
        2 * Self::lca_level(src, dst) as usize
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use serde::de::value::{Error as DeError, MapDeserializer};

    use super::*;
    use crate::testing::{check_all_paths, check_bundles, check_pair};

    const SIZES: [u64; 5] = [4, 16, 64, 256, 1024];

    fn bft(n: u64) -> ButterflyFatTree {
        ButterflyFatTree::new(n).unwrap()
    }

    fn isqrt(n: u64) -> u64 {
        1 << (n.trailing_zeros() / 2)
    }

    #[test]
    fn counts_follow_the_formulas() {
        for n in SIZES {
            let t = bft(n);
            let h = n.trailing_zeros() / 2;
            let sqrt = isqrt(n);
            assert_eq!(t.levels(), h);
            assert_eq!(u64::from(t.num_processors()), n);
            assert_eq!(u64::from(t.num_switches()), (n - sqrt) / 2, "n = {n}");
            assert_eq!(u64::from(t.num_nodes()), n + (n - sqrt) / 2);
            assert_eq!(u64::from(t.num_channels()), 4 * n - 4 * sqrt);
            assert_eq!(u64::from(t.num_bundles()), 8 * (n - 1) / 3);
            let mut per_level = BTreeMap::new();
            for v in 0..t.num_nodes() {
                let node = t.node(NodeId(v));
                let kind = if node.level == 0 {
                    NodeKind::Processor
                } else {
                    NodeKind::Switch
                };
                assert_eq!(node.kind, kind);
                *per_level.entry(node.level).or_insert(0u64) += 1;
            }
            assert_eq!(per_level[&0], n);
            for l in 1..=h {
                assert_eq!(per_level[&l], n >> (l + 1));
                assert_eq!(u64::from(t.switches_at(l)), n >> (l + 1));
            }
            assert_eq!(per_level.len() as u32, h + 1);
            // √N/2 switches at the top.
            assert_eq!(u64::from(t.switches_at(h)), sqrt / 2);
        }
    }

    #[test]
    fn node_ids_round_trip() {
        for n in SIZES {
            let t = bft(n);
            for v in 0..t.num_nodes() {
                let node = t.node(NodeId(v));
                assert_eq!(t.node_at(node.level, node.index), NodeId(v));
            }
        }
    }

    #[test]
    fn channels_and_bundles_are_consistent() {
        for n in SIZES {
            let t = bft(n);
            check_bundles(&t);
            let mut bundle_channels = vec![0u64; t.num_bundles() as usize];
            for c in 0..t.num_channels() {
                let ch = t.channel(ChannelId(c));
                assert_eq!(ch.capacity, 1);
                bundle_channels[ch.bundle.index()] += 1;
                let (from, to) = (t.node(ch.from), t.node(ch.to));
                let (below, above) = match ch.direction {
                    Direction::Up => (from, to),
                    Direction::Down => (to, from),
                    Direction::Forward => panic!("tree channels go up or down"),
                };
                assert_eq!(below.level, ch.level);
                assert_eq!(above.level, ch.level + 1);
                assert_eq!(above.kind, NodeKind::Switch);
                // Up links have even ids, each followed by its reverse.
                let pair = t.channel(ChannelId(c ^ 1));
                assert_eq!((pair.from, pair.to), (ch.to, ch.from));
                assert_eq!(ch.direction == Direction::Up, c % 2 == 0);
                // The bundle joins the tree node below to its parent tree node.
                let below_tree = ButterflyFatTree::tree_node(below.level, below.index);
                let above_tree = ButterflyFatTree::tree_node(above.level, above.index);
                assert_eq!(above_tree, below_tree / 4);
                let expected = t.bundle_base(ch.level)
                    + 2 * below_tree
                    + u32::from(ch.direction == Direction::Down);
                assert_eq!(ch.bundle, BundleId(expected));
            }
            for b in 0..t.num_bundles() {
                let cap = t.bundle_capacity(BundleId(b));
                assert!(cap.is_power_of_two());
                assert_eq!(cap, bundle_channels[b as usize]);
            }
            // Capacity 2^l at every level.
            for c in 0..t.num_channels() {
                let ch = t.channel(ChannelId(c));
                assert_eq!(t.bundle_capacity(ch.bundle), 1 << ch.level);
            }
        }
    }

    #[test]
    fn port_counts() {
        for n in SIZES {
            let t = bft(n);
            let nodes = t.num_nodes() as usize;
            let (mut up_out, mut down_out) = (vec![0; nodes], vec![0; nodes]);
            let (mut up_in, mut down_in) = (vec![0; nodes], vec![0; nodes]);
            for c in 0..t.num_channels() {
                let ch = t.channel(ChannelId(c));
                match ch.direction {
                    Direction::Up => {
                        up_out[ch.from.index()] += 1;
                        up_in[ch.to.index()] += 1;
                    }
                    _ => {
                        down_out[ch.from.index()] += 1;
                        down_in[ch.to.index()] += 1;
                    }
                }
            }
            for v in 0..nodes {
                let node = t.node(NodeId(v as u32));
                let (ups, downs) = match (node.kind, node.level) {
                    (NodeKind::Processor, _) => (1, 0),
                    (_, l) if l == t.levels() => (0, 4),
                    _ => (2, 4),
                };
                assert_eq!((up_out[v], down_in[v]), (ups, ups), "{node:?}");
                assert_eq!((up_in[v], down_out[v]), (downs, downs), "{node:?}");
            }
        }
    }

    /// Each parent switch has exactly 4 children, one in each child tree node, and
    /// `down_neighbor` finds exactly the inverse of the paper's up links.
    #[test]
    fn four_children_one_per_child_tree_node() {
        for n in SIZES.into_iter().chain([4096]) {
            let t = bft(n);
            let h = t.levels();
            // children[(l+1, parent)] = children (l, a) found through the up links.
            let mut children: BTreeMap<(u32, u32), BTreeSet<(u32, u32)>> = BTreeMap::new();
            for a in 0..t.n() {
                children.entry((1, a >> 2)).or_default().insert((0, a));
            }
            for l in 1..h {
                for a in 0..t.switches_at(l) {
                    let ups: BTreeSet<u32> = (0..2).map(|p| t.up_neighbor(l, a, p)).collect();
                    assert_eq!(ups.len(), 2, "({l}, {a}) has two distinct parents");
                    for parent in ups {
                        assert!(parent < t.switches_at(l + 1));
                        children.entry((l + 1, parent)).or_default().insert((l, a));
                    }
                }
            }
            let switches: u32 = (1..=h).map(|l| t.switches_at(l)).sum();
            assert_eq!(children.len() as u32, switches, "every switch has children");
            for (&(l, s), kids) in &children {
                assert_eq!(kids.len(), 4, "switch ({l}, {s})");
                let trees: BTreeSet<u32> = kids
                    .iter()
                    .map(|&(cl, c)| ButterflyFatTree::tree_node(cl, c))
                    .collect();
                let t_parent = ButterflyFatTree::tree_node(l, s);
                assert_eq!(trees, (4 * t_parent..4 * t_parent + 4).collect());
                let derived: BTreeSet<(u32, u32)> =
                    (0..4).map(|q| (l - 1, t.down_neighbor(l, s, q))).collect();
                assert_eq!(&derived, kids, "switch ({l}, {s})");
                for q in 0..4 {
                    let c = t.down_neighbor(l, s, q);
                    assert_eq!(ButterflyFatTree::tree_node(l - 1, c), 4 * t_parent + q);
                }
            }
        }
    }

    #[test]
    fn lca_level_and_path_count() {
        assert_eq!(ButterflyFatTree::lca_level(5, 5), 0);
        assert_eq!(ButterflyFatTree::lca_level(0, 3), 1);
        assert_eq!(ButterflyFatTree::lca_level(3, 4), 2);
        assert_eq!(ButterflyFatTree::lca_level(0, 15), 2);
        assert_eq!(ButterflyFatTree::lca_level(15, 16), 3);
        assert_eq!(ButterflyFatTree::lca_level(0, 1 << 29), 15);
        let t = bft(1024);
        for (a, b) in [(0u32, 1023u32), (17, 300), (5, 6), (512, 513), (9, 9)] {
            let l = ButterflyFatTree::lca_level(a, b);
            assert_eq!((a >> (2 * l)), (b >> (2 * l)));
            if l > 0 {
                assert_ne!(a >> (2 * (l - 1)), b >> (2 * (l - 1)));
            }
            assert_eq!(t.path_count(a, b), if l == 0 { 1 } else { 1 << (l - 1) });
            assert_eq!(t.distance(a, b), 2 * l as usize);
        }
        // Dilation 2·log₄N.
        assert_eq!(t.distance(0, 1023), 10);
    }

    #[test]
    fn worked_example_on_sixteen_processors() {
        let t = bft(16);
        // Switch (1, 0) goes up to (2, 0) through port 0 and (2, 1) through port 1.
        assert_eq!(t.up_neighbor(1, 0, 0), 0);
        assert_eq!(t.up_neighbor(1, 0, 1), 1);
        // 0 -> 15: two paths, through the two top switches.
        let nodes = |k: u128| -> Vec<Node> {
            let mut out = Vec::new();
            t.path_into(0, 15, k, &mut out);
            let mut v = vec![t.node(t.channel(out[0]).from)];
            v.extend(out.iter().map(|&c| t.node(t.channel(c).to)));
            v
        };
        let sw = |level, index| Node {
            kind: NodeKind::Switch,
            level,
            index,
        };
        let proc = |index| Node {
            kind: NodeKind::Processor,
            level: 0,
            index,
        };
        assert_eq!(nodes(0), [proc(0), sw(1, 0), sw(2, 0), sw(1, 3), proc(15)]);
        assert_eq!(nodes(1), [proc(0), sw(1, 0), sw(2, 1), sw(1, 3), proc(15)]);
        assert_eq!(t.standard_path_index(0, 15), 1);
        assert_eq!(t.standard_path_index(0, 14), 0);
    }

    #[test]
    fn all_paths_are_shortest_distinct_walks() {
        for n in [4, 16, 64, 256] {
            let t = bft(n);
            // Every path is a shortest walk, and there are as many as BFS counts.
            assert!(check_all_paths(&t) >= u64::from(t.n()).pow(2));
            for a in 0..t.n() {
                for b in 0..t.n() {
                    check_pair(&t, a, b, 2 * ButterflyFatTree::lca_level(a, b) as usize);
                }
            }
        }
        // A sample of pairs on a bigger tree, without the BFS.
        let t = bft(4096);
        for (a, b) in [(0, 4095), (1234, 4000), (2048, 2047), (7, 3000)] {
            let len = 2 * ButterflyFatTree::lca_level(a, b) as usize;
            check_pair(&t, a, b, len);
        }
    }

    /// The `2^(L−1)` up paths reach each of the `2^(L−1)` switches of the common ancestor
    /// tree node exactly once, and the down half of every path is the same.
    #[test]
    fn up_paths_reach_every_switch_of_the_ancestor_once() {
        let t = bft(1024);
        for (a, b) in [(0, 1023), (100, 900), (3, 60), (512, 700)] {
            let top = ButterflyFatTree::lca_level(a, b);
            let paths = t.shortest_paths(a, b, usize::MAX).unwrap();
            let mut tops = BTreeSet::new();
            for p in &paths {
                let turn = t.node(t.channel(p[top as usize - 1]).to);
                assert_eq!(turn.level, top);
                assert_eq!(ButterflyFatTree::tree_node(top, turn.index), a >> (2 * top));
                tops.insert(turn.index);
                assert!(
                    p[..top as usize]
                        .iter()
                        .all(|&c| t.channel(c).direction == Direction::Up)
                );
                assert!(
                    p[top as usize..]
                        .iter()
                        .all(|&c| t.channel(c).direction == Direction::Down)
                );
            }
            assert_eq!(tops.len(), paths.len());
        }
    }

    #[test]
    fn self_path_is_empty() {
        let t = bft(16);
        assert_eq!(t.path_count(3, 3), 1);
        assert!(t.path(3, 3).is_empty());
        assert_eq!(t.standard_path_index(3, 3), 0);
        assert_eq!(t.distance(3, 3), 0);
    }

    #[test]
    fn bad_sizes_are_typed_errors() {
        for n in [0u64, 2, 8, 12, 32, 48, 100, 1 << 31, u64::MAX] {
            assert_eq!(
                ButterflyFatTree::new(n),
                Err(TopologyError::NotPowerOfFour {
                    param: "n",
                    value: n
                }),
                "n = {n}"
            );
        }
        for n in [1u64, 1 << 32, 1 << 62] {
            assert!(
                matches!(
                    ButterflyFatTree::new(n),
                    Err(TopologyError::OutOfRange { param: "n", value, min: 4, max })
                        if value == n && max == 1 << 30
                ),
                "n = {n}"
            );
        }
    }

    #[test]
    fn largest_tree_has_u32_ids() {
        let t = bft(1 << 30);
        assert_eq!(t.levels(), ButterflyFatTree::MAX_LEVELS);
        assert_eq!(u64::from(t.num_channels()), (1u64 << 32) - (1 << 17));
        let last = t.channel(ChannelId(t.num_channels() - 1));
        assert_eq!(last.level, 14);
        assert_eq!(last.direction, Direction::Down);
        assert_eq!(t.node(last.from).level, 15);
        assert_eq!(t.bundle_capacity(last.bundle), 1 << 14);
        assert_eq!(last.bundle.0, t.num_bundles() - 1);
        let top = t.node(NodeId(t.num_nodes() - 1));
        assert_eq!((top.level, top.index), (15, (1 << 14) - 1));
        let p = t.path(0, (1 << 30) - 1);
        assert_eq!(p.len(), 30);
        assert_eq!(t.path_count(0, (1 << 30) - 1), 1 << 14);
        check_pair(&t, 12345, 987_654_321, 30);
    }

    #[test]
    fn name_and_serde_form() {
        let t = bft(64);
        assert_eq!(t.name(), "bft:n=64");
        let params = BftParams::from(t.clone());
        assert_eq!(params.n, 64);
        assert_eq!(ButterflyFatTree::try_from(params), Ok(t));
        assert!(ButterflyFatTree::try_from(BftParams { n: 8 }).is_err());
        // Deserialization goes through the validating constructor.
        let de = |n: u64| {
            ButterflyFatTree::deserialize(MapDeserializer::<_, DeError>::new(
                [("n", n)].into_iter(),
            ))
        };
        assert_eq!(de(256).unwrap(), bft(256));
        assert!(de(8).is_err());
    }
}
