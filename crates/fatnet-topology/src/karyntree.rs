//! Petrini and Vanneschi's k-ary n-tree: `n` levels of `k^(n−1)` switches with `k` down and
//! `k` up ports joining `k^n` processors.

use serde::{Deserialize, Serialize};

use crate::{
    BundleId, Channel, ChannelId, Direction, Node, NodeId, NodeKind, Processor, Topology,
    TopologyError, fits_u32,
};

/// Petrini and Vanneschi's k-ary n-tree on `k^n` processors (`k >= 2`, `n >= 1` levels).
///
/// **Switches.** Switch `(h, w)` sits at height `h` (`1..=n`, 1 = the leaf switches) and has
/// index `w` in `0..k^(n−1)`, read as `n − 1` base-`k` digits (position 0 least significant).
/// Processor `p` is linked to leaf switch `⌊p/k⌋`. For `h < n`, up port `j` (`0..k`) of switch
/// `(h, w)` leads to `(h+1, w')` where `w'` is `w` with digit `h − 1` replaced by `j`
/// ([`KAryNTree::up_neighbor`]). The top switches (`h = n`) have no up ports; there is no
/// external channel. Every connection is a pair of opposite channels of capacity 1; there are
/// `n·k^(n−1)` switches and `2n·k^n` channels.
///
/// **Subtrees.** The height-`h` subtree `t` holds the processors with `⌊p/k^h⌋ = t` and the
/// switches `(i, w)`, `i <= h`, with `⌊w/k^(i−1)⌋ = ⌊t/k^(h−i)⌋`. The links from a height-`h`
/// subtree to its parent subtree, in one direction, form one bundle of capacity `k^h` (the
/// `k^(h−1)` switches at its top, `k` up links each); a processor's link is a bundle of
/// capacity 1.
///
/// **Numbering (our convention).**
/// - Nodes: processors first (`NodeId(p)` = processor `p`), then the switches height by height,
///   `(h, w)` at `k^n + (h−1)·k^(n−1) + w`. [`Node::level`] is the height `h` (0 for processors)
///   and [`Node::index`] is `w`.
/// - Channels: level by level (level `h` = the links between heights `h` and `h+1`, processor
///   links level 0), `k^n` connections per level: connection `e` is processor `e` on level 0
///   and (switch `w`, up port `j`) with `e = k·w + j` above. Its up channel is
///   `2h·k^n + 2e`, its down channel the next id.
/// - Bundles: level by level; level `h` has two bundles per height-`h` subtree `t`, up `2t`
///   and down `2t + 1` after the `2(k^n + k^(n−1) + … + k^(n−h+1))` bundles of the levels
///   below.
///
/// **Paths.** For `p != q` with lowest common ancestor height `h` (smallest `h` with
/// `⌊p/k^h⌋ = ⌊q/k^h⌋`) a shortest path crosses `2h` channels and there are `k^(h−1)` of them.
/// The base-`k` digits of the path index, least significant first, choose the up ports at
/// heights `1..h`; the down path is unique (each step down sets the freed digit to the
/// destination's). For `p = q` the only path is the empty one (`path_count` 1). The standard
/// oblivious routing is d-mod-k: index `q mod k^(h−1)`, i.e. up port `⌊q/k^(i−1)⌋ mod k` at
/// height `i`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "KAryNTreeParams", into = "KAryNTreeParams")]
pub struct KAryNTree {
    k: u32,
    levels: u32,
    /// `k^(n−1)`, switches per level.
    per_level: u32,
}

/// The serialized form of a [`KAryNTree`]: its parameters, validated on deserialization.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct KAryNTreeParams {
    k: u64,
    levels: u64,
}

impl TryFrom<KAryNTreeParams> for KAryNTree {
    type Error = TopologyError;

    fn try_from(p: KAryNTreeParams) -> Result<Self, TopologyError> {
        Self::new(p.k, p.levels)
    }
}

impl From<KAryNTree> for KAryNTreeParams {
    fn from(t: KAryNTree) -> Self {
        Self {
            k: u64::from(t.k),
            levels: u64::from(t.levels),
        }
    }
}

impl KAryNTree {
    /// Largest supported arity: a 1-level tree with `k` processors has `2k` channels, and
    /// channel ids must fit in `u32`.
    pub const MAX_K: u64 = (u32::MAX / 2) as u64;

    /// Largest supported number of levels (reached with `k = 2`: `2n·2^n` channel ids must fit
    /// in `u32`).
    pub const MAX_LEVELS: u64 = 26;

    /// The k-ary n-tree with arity `k` and `levels = n` levels of switches.
    ///
    /// # Errors
    ///
    /// - [`TopologyError::OutOfRange`] unless `2 <= k <= 2^31 − 1` and `1 <= levels <= 26`;
    /// - [`TopologyError::TooLarge`] when the `2n·k^n` channel ids do not fit in `u32`.
    pub fn new(k: u64, levels: u64) -> Result<Self, TopologyError> {
        if !(2..=Self::MAX_K).contains(&k) {
            return Err(TopologyError::OutOfRange {
                param: "k",
                value: k,
                min: 2,
                max: Self::MAX_K,
            });
        }
        if !(1..=Self::MAX_LEVELS).contains(&levels) {
            return Err(TopologyError::OutOfRange {
                param: "levels",
                value: levels,
                min: 1,
                max: Self::MAX_LEVELS,
            });
        }
        let channels = u128::from(k)
            .checked_pow(levels as u32)
            .and_then(|kn| kn.checked_mul(2 * u128::from(levels)))
            .unwrap_or(u128::MAX);
        fits_u32("channels", channels)?;
        let (k, levels) = (k as u32, levels as u32);
        Ok(Self {
            k,
            levels,
            per_level: k.pow(levels - 1),
        })
    }

    /// The arity `k`.
    #[inline]
    pub fn k(&self) -> u32 {
        self.k
    }

    /// The number of switch levels `n` (the height of the top switches).
    #[inline]
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Switches per level, `k^(n−1)`.
    #[inline]
    pub fn switches_per_level(&self) -> u32 {
        self.per_level
    }

    /// Number of processors `k^n`.
    #[inline]
    pub fn num_leaves(&self) -> u32 {
        self.k * self.per_level
    }

    /// The node id of switch `(h, w)`, `1 <= h <= n`, `w < k^(n−1)`.
    #[inline]
    pub fn switch(&self, h: u32, w: u32) -> NodeId {
        assert!(
            (1..=self.levels).contains(&h) && w < self.per_level,
            "switch ({h}, {w}) out of range"
        );
        NodeId(self.num_leaves() + (h - 1) * self.per_level + w)
    }

    /// The node id of node `(h, w)`: processor `w` for `h = 0`, else switch `(h, w)`.
    #[inline]
    pub fn node_at(&self, h: u32, w: u32) -> NodeId {
        if h == 0 {
            assert!(w < self.num_leaves(), "processor {w} out of range");
            NodeId(w)
        } else {
            self.switch(h, w)
        }
    }

    /// The index of the node that up port `port` of node `(h, w)` leads to, `h < n`: for
    /// `h = 0` the leaf switch `⌊w/k⌋` of processor `w` (port 0 only), above the height-`h+1`
    /// switch `w` with digit `h − 1` replaced by `port`.
    #[inline]
    pub fn up_neighbor(&self, h: u32, w: u32, port: u32) -> u32 {
        assert!(h < self.levels, "height {h} has no up ports");
        if h == 0 {
            assert_eq!(port, 0, "a processor has one up port");
            return w / self.k;
        }
        assert!(port < self.k, "port {port} out of range");
        let place = self.k.pow(h - 1);
        set_digit(w, place, self.k, port)
    }

    /// The height of the lowest common ancestor of processors `p` and `q`: the smallest `h`
    /// with `⌊p/k^h⌋ = ⌊q/k^h⌋` (0 when `p = q`). A shortest path crosses `2h` channels.
    #[inline]
    pub fn lca_height(&self, mut p: Processor, mut q: Processor) -> u32 {
        let mut h = 0;
        while p != q {
            p /= self.k;
            q /= self.k;
            h += 1;
        }
        h
    }

    /// The up channel leaving node `(h, w)` through `port`, `0 <= h < n`: processor `w`'s link
    /// to its leaf switch for `h = 0` (port 0), up port `port` of switch `(h, w)` above.
    #[inline]
    pub fn up_channel(&self, h: u32, w: u32, port: u32) -> ChannelId {
        ChannelId(self.channel_base(h) + 2 * self.connection(h, w, port))
    }

    /// The down channel entering node `(h, w)` from above: the reverse of
    /// [`KAryNTree::up_channel`]`(h, w, port)`.
    #[inline]
    pub fn down_channel(&self, h: u32, w: u32, port: u32) -> ChannelId {
        ChannelId(self.up_channel(h, w, port).0 + 1)
    }

    /// Connection number `e` of (node `(h, w)`, up `port`) within level `h`.
    #[inline]
    fn connection(&self, h: u32, w: u32, port: u32) -> u32 {
        assert!(h < self.levels, "height {h} has no up ports");
        if h == 0 {
            assert!(
                w < self.num_leaves() && port == 0,
                "processor {w} port {port}"
            );
            w
        } else {
            assert!(
                w < self.per_level && port < self.k,
                "switch ({h}, {w}) port {port}"
            );
            self.k * w + port
        }
    }

    /// First channel id of level `h`: `2h·k^n`.
    #[inline]
    fn channel_base(&self, h: u32) -> u32 {
        2 * h * self.num_leaves()
    }

    /// First bundle id of level `h` (`0..=n`): `2(k^n + k^(n−1) + … + k^(n−h+1))`.
    #[inline]
    fn bundle_base(&self, h: u32) -> u32 {
        if h == 0 {
            return 0;
        }
        // From the smallest term up, by multiplications where a division per level was
        // slower: the 4-ary 10-tree's packet setup (`channel` once per channel) took 0.90 to
        // 1.05 s of CPU against 0.97 to 1.19 s, alternated, though with a few more
        // instructions (`pow`). No overflow: the last product is k^(n+1) < 2^62, as
        // channel ids fit in `u32` (k^n < 2^31).
        let k = u64::from(self.k);
        let mut subtrees = k.pow(self.levels - h + 1);
        let mut base = 0u64;
        for _ in 0..h {
            base += 2 * subtrees;
            subtrees *= k;
        }
        base as u32
    }
}

/// `w` with its base-`k` digit of place value `place` (a power of `k`) replaced by `digit`.
#[inline]
fn set_digit(w: u32, place: u32, k: u32, digit: u32) -> u32 {
    w - (w / place % k) * place + digit * place
}

impl Topology for KAryNTree {
    fn name(&self) -> String {
        format!("karyntree:k={},levels={}", self.k, self.levels)
    }

    fn num_processors(&self) -> u32 {
        self.num_leaves()
    }

    fn num_nodes(&self) -> u32 {
        self.num_leaves() + self.num_switches()
    }

    fn num_switches(&self) -> u32 {
        self.levels * self.per_level
    }

    fn num_channels(&self) -> u32 {
        self.channel_base(self.levels)
    }

    fn num_bundles(&self) -> u32 {
        self.bundle_base(self.levels)
    }

    fn node(&self, v: NodeId) -> Node {
        assert!(v.0 < self.num_nodes(), "node {v:?} out of range");
        let leaves = self.num_leaves();
        if v.0 < leaves {
            Node {
                kind: NodeKind::Processor,
                level: 0,
                index: v.0,
            }
        } else {
            let i = v.0 - leaves;
            Node {
                kind: NodeKind::Switch,
                level: i / self.per_level + 1,
                index: i % self.per_level,
            }
        }
    }

    fn channel(&self, c: ChannelId) -> Channel {
        assert!(c.0 < self.num_channels(), "channel {c:?} out of range");
        let per = 2 * self.num_leaves();
        let (level, offset) = (c.0 / per, c.0 % per);
        let e = offset / 2;
        let (below, above) = if level == 0 {
            (NodeId(e), self.switch(1, e / self.k))
        } else {
            let (w, port) = (e / self.k, e % self.k);
            (
                self.switch(level, w),
                self.switch(level + 1, self.up_neighbor(level, w, port)),
            )
        };
        let down = offset % 2;
        let (from, to, direction) = if down == 0 {
            (below, above, Direction::Up)
        } else {
            (above, below, Direction::Down)
        };
        // The k^h connections of height-h subtree t are e = t·k^h .. (t+1)·k^h.
        let subtree = e / self.k.pow(level);
        Channel {
            from,
            to,
            capacity: 1,
            level,
            direction,
            bundle: BundleId(self.bundle_base(level) + 2 * subtree + down),
        }
    }

    fn bundle_capacity(&self, b: BundleId) -> u64 {
        assert!(b.0 < self.num_bundles(), "bundle {b:?} out of range");
        let level = (0..self.levels)
            .find(|&h| b.0 < self.bundle_base(h + 1))
            .expect("b is below the last level's end");
        u64::from(self.k).pow(level)
    }

    fn injection_node(&self, p: Processor) -> NodeId {
        assert!(p < self.num_leaves(), "processor {p} out of range");
        NodeId(p)
    }

    fn ejection_node(&self, p: Processor) -> NodeId {
        self.injection_node(p)
    }

    /// `k^(h−1)` for a lowest common ancestor at height `h >= 1`; 1 (the empty path) for
    /// `src == dst`.
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        assert!(
            src < self.num_leaves() && dst < self.num_leaves(),
            "processor out of range"
        );
        match self.lca_height(src, dst) {
            0 => 1,
            h => u128::from(self.k).pow(h - 1),
        }
    }

    /// Up from `src` to a height-`h` switch, taking up port `⌊index/k^(i−1)⌋ mod k` at height
    /// `i`, then the unique down path to `dst`; empty when `src == dst`.
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        assert!(
            src < self.num_leaves() && dst < self.num_leaves(),
            "processor out of range"
        );
        let top = self.lca_height(src, dst);
        let count = if top == 0 {
            1
        } else {
            u64::from(self.k).pow(top - 1)
        };
        assert!(
            index < u128::from(count),
            "path index {index} >= path count {count}"
        );
        out.clear();
        if top == 0 {
            return;
        }
        let k = self.k;
        let mut digits = index as u32; // < k^(n−1)
        out.push(self.up_channel(0, src, 0));
        let mut w = src / k;
        let mut place = 1; // k^(i−1)
        for i in 1..top {
            let port = digits % k;
            digits /= k;
            out.push(self.up_channel(i, w, port));
            w = set_digit(w, place, k, port);
            place *= k;
        }
        // Down from (i+1, w) to (i, child): child is w with digit i − 1 set to dst's digit i,
        // and reaches w back through up port = w's digit i − 1.
        for i in (1..top).rev() {
            place /= k; // k^(i−1)
            let port = w / place % k;
            let child = set_digit(w, place, k, dst / (place * k) % k);
            out.push(self.down_channel(i, child, port));
            w = child;
        }
        debug_assert_eq!(w, dst / k);
        out.push(self.down_channel(0, dst, 0));
    }

    /// d-mod-k: `dst mod path_count(src, dst)`.
    fn standard_path_index(&self, src: Processor, dst: Processor) -> u128 {
        // path_count < k^n <= 2^32: plain u64 arithmetic, no u128 division.
        match self.lca_height(src, dst) {
            0 => 0,
            h => u128::from(u64::from(dst) % u64::from(self.k).pow(h - 1)),
        }
    }

    fn distance(&self, src: Processor, dst: Processor) -> usize {
        assert!(
            src < self.num_leaves() && dst < self.num_leaves(),
            "processor out of range"
        );
        2 * self.lca_height(src, dst) as usize
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use serde::de::value::{Error as DeError, MapDeserializer};

    use super::*;
    use crate::testing::{check_all_paths, check_bundles, check_pair};

    /// `(k, n)` instances small enough for all pairs and BFS.
    const SMALL: [(u64, u64); 9] = [
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 1),
        (3, 2),
        (3, 3),
        (4, 2),
        (4, 3),
    ];

    fn tree(k: u64, n: u64) -> KAryNTree {
        KAryNTree::new(k, n).unwrap()
    }

    #[test]
    fn counts_follow_the_formulas() {
        for (k, n) in SMALL.into_iter().chain([(2, 8), (5, 3), (8, 3), (16, 2)]) {
            let t = tree(k, n);
            let kn = k.pow(n as u32);
            assert_eq!(u64::from(t.num_processors()), kn);
            assert_eq!(u64::from(t.num_switches()), n * k.pow(n as u32 - 1));
            assert_eq!(u64::from(t.num_nodes()), kn + n * kn / k);
            assert_eq!(u64::from(t.num_channels()), 2 * n * kn);
            let bundles: u64 = (1..=n).map(|i| 2 * k.pow(i as u32)).sum();
            assert_eq!(u64::from(t.num_bundles()), bundles);
            let mut per_level = BTreeMap::new();
            for v in 0..t.num_nodes() {
                let node = t.node(NodeId(v));
                assert_eq!(node.kind == NodeKind::Processor, node.level == 0);
                *per_level.entry(node.level).or_insert(0u64) += 1;
                assert_eq!(t.node_at(node.level, node.index), NodeId(v));
            }
            assert_eq!(per_level[&0], kn);
            for h in 1..=n as u32 {
                assert_eq!(per_level[&h], kn / k);
            }
            assert_eq!(per_level.len() as u64, n + 1);
        }
    }

    #[test]
    fn channels_and_bundles_are_consistent() {
        for (k, n) in SMALL.into_iter().chain([(5, 3), (2, 8)]) {
            let t = tree(k, n);
            check_bundles(&t);
            let mut members = vec![0u64; t.num_bundles() as usize];
            for c in 0..t.num_channels() {
                let ch = t.channel(ChannelId(c));
                assert_eq!(ch.capacity, 1);
                members[ch.bundle.index()] += 1;
                let pair = t.channel(ChannelId(c ^ 1));
                assert_eq!((pair.from, pair.to), (ch.to, ch.from));
                assert_eq!(ch.direction == Direction::Up, c % 2 == 0);
                let (from, to) = (t.node(ch.from), t.node(ch.to));
                let (below, above) = match ch.direction {
                    Direction::Up => (from, to),
                    Direction::Down => (to, from),
                    Direction::Forward => panic!("tree channels go up or down"),
                };
                assert_eq!(below.level, ch.level);
                assert_eq!(above.level, ch.level + 1);
                assert_eq!(above.kind, NodeKind::Switch);
                // The bundle is the one of the height-h subtree below: a processor is its own
                // subtree; switch (h, w) lies in subtree ⌊w/k^(h−1)⌋.
                let k32 = t.k();
                let subtree = if below.level == 0 {
                    below.index
                } else {
                    below.index / k32.pow(below.level - 1)
                };
                let parent_subtree = above.index / k32.pow(above.level - 1);
                assert_eq!(parent_subtree, subtree / k32);
                let expected = t.bundle_base(ch.level)
                    + 2 * subtree
                    + u32::from(ch.direction == Direction::Down);
                assert_eq!(ch.bundle, BundleId(expected));
                assert_eq!(t.bundle_capacity(ch.bundle), k.pow(ch.level));
            }
            for (b, &m) in members.iter().enumerate() {
                assert_eq!(t.bundle_capacity(BundleId(b as u32)), m);
            }
        }
    }

    /// Every switch below the top has `k` distinct parents and every switch `k` distinct
    /// children, one per child subtree; top switches have no parent.
    #[test]
    fn port_counts_and_children() {
        for (k, n) in SMALL {
            let t = tree(k, n);
            let nodes = t.num_nodes() as usize;
            let mut ups = vec![BTreeSet::new(); nodes];
            let mut downs = vec![BTreeSet::new(); nodes];
            for c in 0..t.num_channels() {
                let ch = t.channel(ChannelId(c));
                if ch.direction == Direction::Up {
                    assert!(ups[ch.from.index()].insert(ch.to), "parallel up links");
                } else {
                    assert!(downs[ch.from.index()].insert(ch.to), "parallel down links");
                }
            }
            for v in 0..nodes {
                let node = t.node(NodeId(v as u32));
                let (u, d) = match node.level {
                    0 => (1, 0),
                    l if l == t.levels() => (0, t.k()),
                    _ => (t.k(), t.k()),
                };
                assert_eq!(ups[v].len() as u32, u, "{node:?}");
                assert_eq!(downs[v].len() as u32, d, "{node:?}");
                if node.level >= 1 {
                    let sub = |x: Node| -> u32 {
                        if x.level == 0 {
                            x.index
                        } else {
                            x.index / t.k().pow(x.level - 1)
                        }
                    };
                    let kids: BTreeSet<u32> = downs[v].iter().map(|&c| sub(t.node(c))).collect();
                    let me = sub(node);
                    assert_eq!(kids, (me * t.k()..(me + 1) * t.k()).collect(), "{node:?}");
                }
            }
        }
    }

    #[test]
    fn bundle_bases_are_the_sums_of_the_levels_below() {
        for k in 2..=5u64 {
            for n in 1..=6u64 {
                let t = KAryNTree::new(k, n).unwrap();
                // 2(k^n + k^(n−1) + … + k^(n−h+1)), by division from the top.
                let mut subtrees = k.pow(n as u32);
                let mut expected = 0u64;
                for h in 0..=n as u32 {
                    assert_eq!(
                        u64::from(t.bundle_base(h)),
                        expected,
                        "k = {k}, n = {n}, h = {h}"
                    );
                    expected += 2 * subtrees;
                    subtrees /= k;
                }
            }
        }
    }

    #[test]
    fn up_neighbor_replaces_one_digit() {
        let t = tree(3, 4); // w has 3 base-3 digits
        // w = 2·9 + 1·3 + 0 = 21
        assert_eq!(t.up_neighbor(1, 21, 2), 23);
        assert_eq!(t.up_neighbor(2, 21, 0), 18);
        assert_eq!(t.up_neighbor(3, 21, 0), 3);
        assert_eq!(t.up_neighbor(3, 21, 2), 21);
        assert_eq!(t.up_neighbor(0, 80, 0), 26);
    }

    #[test]
    fn lca_height_and_path_count() {
        let t = tree(3, 4);
        assert_eq!(t.lca_height(5, 5), 0);
        assert_eq!(t.lca_height(0, 2), 1);
        assert_eq!(t.lca_height(2, 3), 2);
        assert_eq!(t.lca_height(0, 80), 4);
        for (p, q) in [(0u32, 80u32), (4, 5), (10, 20), (26, 27), (13, 13)] {
            let h = t.lca_height(p, q);
            assert_eq!(p / 3u32.pow(h), q / 3u32.pow(h));
            if h > 0 {
                assert_ne!(p / 3u32.pow(h - 1), q / 3u32.pow(h - 1));
            }
            assert_eq!(
                t.path_count(p, q),
                if h == 0 { 1 } else { 3u128.pow(h - 1) }
            );
            assert_eq!(t.distance(p, q), 2 * h as usize);
        }
    }

    #[test]
    fn worked_example_on_a_binary_three_tree() {
        // 2-ary 3-tree: 8 processors, 3 levels of 4 switches. 0 -> 7 climbs to height 3.
        let t = tree(2, 3);
        let nodes = |index: u128| -> Vec<(u32, u32)> {
            let mut out = Vec::new();
            t.path_into(0, 7, index, &mut out);
            let mut v = vec![t.node(t.channel(out[0]).from)];
            v.extend(out.iter().map(|&c| t.node(t.channel(c).to)));
            v.iter().map(|x| (x.level, x.index)).collect()
        };
        assert_eq!(t.path_count(0, 7), 4);
        // Ports (0, 0): stay at w = 0, then down setting digit 1 to 1 and digit 0 to 1.
        assert_eq!(
            nodes(0),
            [(0, 0), (1, 0), (2, 0), (3, 0), (2, 2), (1, 3), (0, 7)]
        );
        assert_eq!(
            nodes(1),
            [(0, 0), (1, 0), (2, 1), (3, 1), (2, 3), (1, 3), (0, 7)]
        );
        assert_eq!(
            nodes(2),
            [(0, 0), (1, 0), (2, 0), (3, 2), (2, 2), (1, 3), (0, 7)]
        );
        assert_eq!(
            nodes(3),
            [(0, 0), (1, 0), (2, 1), (3, 3), (2, 3), (1, 3), (0, 7)]
        );
        // d-mod-k: 7 mod 4 = 3.
        assert_eq!(t.standard_path_index(0, 7), 3);
        assert_eq!(t.standard_path_index(1, 2), 0);
    }

    #[test]
    fn all_paths_are_shortest_distinct_walks() {
        for (k, n) in SMALL {
            let t = tree(k, n);
            // Every path is a shortest walk, and there are as many as BFS counts.
            assert!(check_all_paths(&t) >= u64::from(t.num_processors()).pow(2));
            for p in 0..t.num_processors() {
                for q in 0..t.num_processors() {
                    check_pair(&t, p, q, 2 * t.lca_height(p, q) as usize);
                }
            }
        }
        let t = tree(4, 6);
        for (p, q) in [(0, 4095), (1234, 4000), (2048, 2047), (7, 3000)] {
            check_pair(&t, p, q, 2 * t.lca_height(p, q) as usize);
        }
    }

    /// The `k^(h−1)` up paths reach each of the `k^(h−1)` top switches of the common subtree
    /// exactly once.
    #[test]
    fn up_paths_reach_every_top_switch_of_the_subtree_once() {
        let t = tree(3, 5);
        for (p, q) in [(0, 242), (100, 200), (3, 20), (81, 161)] {
            let h = t.lca_height(p, q);
            let paths = t.shortest_paths(p, q, usize::MAX).unwrap();
            let mut tops = BTreeSet::new();
            for path in &paths {
                let turn = t.node(t.channel(path[h as usize - 1]).to);
                assert_eq!(turn.level, h);
                assert_eq!(turn.index / 3u32.pow(h - 1), p / 3u32.pow(h));
                tops.insert(turn.index);
            }
            assert_eq!(tops.len(), paths.len());
        }
    }

    #[test]
    fn self_path_is_empty() {
        let t = tree(4, 2);
        assert_eq!(t.path_count(9, 9), 1);
        assert!(t.path(9, 9).is_empty());
        assert_eq!(t.standard_path_index(9, 9), 0);
    }

    #[test]
    fn bad_parameters_are_typed_errors() {
        for k in [0, 1, KAryNTree::MAX_K + 1, u64::MAX] {
            assert!(
                matches!(
                    KAryNTree::new(k, 2),
                    Err(TopologyError::OutOfRange { param: "k", value, .. }) if value == k
                ),
                "k = {k}"
            );
        }
        for n in [0, 27, u64::MAX] {
            assert!(
                matches!(
                    KAryNTree::new(2, n),
                    Err(TopologyError::OutOfRange { param: "levels", value, .. }) if value == n
                ),
                "levels = {n}"
            );
        }
        // 2·27·2^27 > 2^32; 2·16·4^16 and 2·2·65536^2 as well.
        for (k, n) in [(4, 16), (65536, 2), (1 << 30, 26), (KAryNTree::MAX_K, 26)] {
            assert!(
                matches!(
                    KAryNTree::new(k, n),
                    Err(TopologyError::TooLarge {
                        what: "channels",
                        ..
                    })
                ),
                "k = {k}, levels = {n}"
            );
        }
    }

    #[test]
    fn largest_trees_have_u32_ids() {
        for (k, n) in [(2, 26), (KAryNTree::MAX_K, 1), (32767, 2)] {
            let t = tree(k, n);
            let channels = 2 * n * k.pow(n as u32);
            assert!(channels <= u64::from(u32::MAX));
            assert_eq!(u64::from(t.num_channels()), channels);
            let last = t.channel(ChannelId(t.num_channels() - 1));
            assert_eq!(last.level, n as u32 - 1);
            assert_eq!(last.direction, Direction::Down);
            assert_eq!(last.bundle.0, t.num_bundles() - 1);
            assert_eq!(t.bundle_capacity(last.bundle), k.pow(n as u32 - 1));
            let top = t.node(NodeId(t.num_nodes() - 1));
            assert_eq!(
                (top.level, top.index),
                (n as u32, t.switches_per_level() - 1)
            );
            let (p, q) = (0, t.num_processors() - 1);
            assert_eq!(t.path(p, q).len(), 2 * n as usize);
        }
        // 2^26 processors, all 2^25 paths of the longest route would be too many: sample.
        let t = tree(2, 26);
        let q = (1 << 26) - 1;
        let mut out = Vec::new();
        for index in [0, 1, 12345, (1 << 25) - 1] {
            t.path_into(0, q, index, &mut out);
            assert_eq!(out.len(), 52);
            for w in out.windows(2) {
                assert_eq!(t.channel(w[0]).to, t.channel(w[1]).from);
            }
        }
        check_pair(&tree(2, 26), 5, 1000, 20);
    }

    #[test]
    fn name_and_serde_form() {
        let t = tree(4, 3);
        assert_eq!(t.name(), "karyntree:k=4,levels=3");
        let params = KAryNTreeParams::from(t.clone());
        assert_eq!((params.k, params.levels), (4, 3));
        assert_eq!(KAryNTree::try_from(params), Ok(t));
        assert!(KAryNTree::try_from(KAryNTreeParams { k: 1, levels: 3 }).is_err());
        // Deserialization goes through the validating constructor.
        let de = |k: u64, levels: u64| {
            let map = [("k", k), ("levels", levels)].into_iter();
            KAryNTree::deserialize(MapDeserializer::<_, DeError>::new(map))
        };
        assert_eq!(de(3, 2).unwrap(), tree(3, 2));
        assert!(de(1, 2).is_err());
        assert!(de(2, 0).is_err());
    }
}
