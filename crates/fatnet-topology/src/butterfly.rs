//! Stamoulis' d-dimensional butterfly (Stamoulis, *Routing and performance
//! evaluation in interconnection networks* (PhD thesis, MIT, 1991), §5.6).

use serde::Serialize;

use crate::{
    BundleId, Channel, ChannelId, Direction, Node, NodeId, NodeKind, Processor, Topology,
    TopologyError,
};

/// Largest supported dimension: the `d·2^(d+1)` arc ids must fit `u32`.
pub const MAX_BUTTERFLY_DIMENSION: u32 = 24;

/// The `d`-dimensional butterfly of Stamoulis §5.6: `(d+1)·2^d` nodes `[x; j]`, `x < 2^d`,
/// levels `j = 1..=d+1`, and from every node of level `j <= d` a "straight" arc
/// `(x; j; s)`: `[x; j] → [x; j+1]` and a "vertical" arc `(x; j; v)`: `[x; j] → [x ⊕ e_j; j+1]`,
/// with `e_j = 1 << (j − 1)`; `d·2^(d+1)` arcs of capacity 1.
///
/// Conventions the thesis leaves open (ours):
///
/// - Processor `p` (`0..2^d`) injects at `[p; 1]` and ejects at `[p; d+1]`: the thesis' packets
///   are generated at level-1 nodes and destined to level-`(d+1)` nodes. These are attachment
///   points, not separate terminals: every butterfly node is a [`NodeKind::Switch`] at level
///   `j` with index `x`, and `num_switches() = num_nodes() = (d+1)·2^d`.
/// - Node `[x; j]` is `NodeId((j − 1)·2^d + x)`; arc `(x; j; s)` is
///   `ChannelId((j − 1)·2^(d+1) + 2x)` and `(x; j; v)` is the next id. An arc's level is its
///   stage `j`, its direction [`Direction::Forward`], and it is its own bundle (same id).
///
/// Paths: the path from `p` to `q` is unique: at level `j` it takes the vertical arc iff bits
/// `j − 1` of `p` and `q` differ (the canonical hypercube path with straight arcs inserted).
/// Every path has exactly `d` arcs, `p → p` included (`d` straight arcs).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Butterfly {
    d: u32,
}

impl Butterfly {
    /// The `d`-dimensional butterfly.
    ///
    /// # Errors
    ///
    /// [`TopologyError::OutOfRange`] unless `1 <= d <= 24`.
    pub fn new(d: u64) -> Result<Self, TopologyError> {
        if !(1..=u64::from(MAX_BUTTERFLY_DIMENSION)).contains(&d) {
            return Err(TopologyError::OutOfRange {
                param: "d",
                value: d,
                min: 1,
                max: u64::from(MAX_BUTTERFLY_DIMENSION),
            });
        }
        Ok(Self { d: d as u32 })
    }

    /// The dimension `d`.
    #[inline]
    pub fn dimension(&self) -> u32 {
        self.d
    }

    /// Nodes per level, `2^d` (also the number of processors).
    #[inline]
    pub fn width(&self) -> u32 {
        1 << self.d
    }

    /// The node `[x; j]`, `j = 1..=d+1`.
    #[inline]
    pub fn node_id(&self, x: u32, j: u32) -> NodeId {
        assert!(x < self.width(), "row {x} out of range");
        assert!((1..=self.d + 1).contains(&j), "level {j} out of range");
        NodeId(((j - 1) << self.d) | x)
    }

    /// The inverse of [`Butterfly::node_id`]: `(x, j)` of a node.
    #[inline]
    pub fn node_parts(&self, v: NodeId) -> (u32, u32) {
        assert!(v.0 < self.num_nodes(), "node {v:?} out of range");
        (v.0 & (self.width() - 1), (v.0 >> self.d) + 1)
    }

    /// The arc leaving `[x; j]` (`j = 1..=d`): vertical `(x; j; v)` to `[x ⊕ e_j; j+1]` or
    /// straight `(x; j; s)` to `[x; j+1]`.
    #[inline]
    pub fn arc(&self, x: u32, j: u32, vertical: bool) -> ChannelId {
        assert!(x < self.width(), "row {x} out of range");
        assert!((1..=self.d).contains(&j), "stage {j} out of range");
        ChannelId(((j - 1) << (self.d + 1)) | (x << 1) | u32::from(vertical))
    }

    /// The inverse of [`Butterfly::arc`]: `(x, j, vertical)` of an arc.
    #[inline]
    pub fn arc_parts(&self, c: ChannelId) -> (u32, u32, bool) {
        assert!(c.0 < self.num_channels(), "channel {c:?} out of range");
        (
            (c.0 >> 1) & (self.width() - 1),
            (c.0 >> (self.d + 1)) + 1,
            c.0 & 1 == 1,
        )
    }
}

impl Topology for Butterfly {
    fn name(&self) -> String {
        format!("butterfly:d={}", self.d)
    }

    fn num_processors(&self) -> u32 {
        self.width()
    }

    fn num_nodes(&self) -> u32 {
        (self.d + 1) << self.d
    }

    /// All `(d+1)·2^d` nodes (see the type's documentation).
    fn num_switches(&self) -> u32 {
        self.num_nodes()
    }

    fn num_channels(&self) -> u32 {
        self.d << (self.d + 1)
    }

    fn num_bundles(&self) -> u32 {
        self.num_channels()
    }

    fn node(&self, v: NodeId) -> Node {
        let (x, j) = self.node_parts(v);
        Node {
            kind: NodeKind::Switch,
            level: j,
            index: x,
        }
    }

    fn channel(&self, c: ChannelId) -> Channel {
        let (x, j, vertical) = self.arc_parts(c);
        let y = if vertical { x ^ (1 << (j - 1)) } else { x };
        Channel {
            from: self.node_id(x, j),
            to: self.node_id(y, j + 1),
            capacity: 1,
            level: j,
            direction: Direction::Forward,
            bundle: BundleId(c.0),
        }
    }

    fn bundle_capacity(&self, b: BundleId) -> u64 {
        assert!(b.0 < self.num_bundles(), "bundle {b:?} out of range");
        1
    }

    /// `[p; 1]`.
    fn injection_node(&self, p: Processor) -> NodeId {
        self.node_id(p, 1)
    }

    /// `[p; d+1]`.
    fn ejection_node(&self, p: Processor) -> NodeId {
        self.node_id(p, self.d + 1)
    }

    /// Always 1: the butterfly path is unique.
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        assert!(
            src < self.width() && dst < self.width(),
            "processor out of range"
        );
        1
    }

    /// At level `j`, the vertical arc iff bits `j − 1` of `src` and `dst` differ.
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        assert!(
            src < self.width() && dst < self.width(),
            "processor out of range"
        );
        assert_eq!(index, 0, "the butterfly path is unique");
        out.clear();
        let diff = src ^ dst;
        let mut x = src;
        for j in 1..=self.d {
            let vertical = diff >> (j - 1) & 1 == 1;
            out.push(self.arc(x, j, vertical));
            if vertical {
                x ^= 1 << (j - 1);
            }
        }
    }

    fn distance(&self, src: Processor, dst: Processor) -> usize {
        assert!(
            src < self.width() && dst < self.width(),
            "processor out of range"
        );
        self.d as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_all_paths_same_bundles, check_structure};

    #[test]
    fn counts_follow_stamoulis() {
        for d in 1..=6u32 {
            let t = Butterfly::new(u64::from(d)).unwrap();
            assert_eq!(t.num_nodes(), (d + 1) << d);
            assert_eq!(t.num_switches(), (d + 1) << d);
            assert_eq!(t.num_channels(), d << (d + 1));
            assert_eq!(t.num_bundles(), d << (d + 1));
            assert_eq!(t.num_processors(), 1 << d);
            check_structure(&t);
        }
        // Fig. 5.4: 3 levels × 4 nodes, 8 straight and 8 vertical arcs.
        let t = Butterfly::new(2).unwrap();
        let vertical = (0..t.num_channels())
            .filter(|&c| t.arc_parts(ChannelId(c)).2)
            .count();
        assert_eq!((t.num_nodes(), t.num_channels(), vertical), (12, 16, 8));
        let big = Butterfly::new(24).unwrap();
        assert_eq!(big.num_channels(), 24 << 25);
        assert_eq!(big.num_nodes(), 25 << 24);
        assert_eq!(big.name(), "butterfly:d=24");
    }

    #[test]
    fn arcs_and_nodes_round_trip() {
        let t = Butterfly::new(4).unwrap();
        for c in 0..t.num_channels() {
            let (x, j, vertical) = t.arc_parts(ChannelId(c));
            assert_eq!(t.arc(x, j, vertical), ChannelId(c));
            let ch = t.channel(ChannelId(c));
            assert_eq!(ch.level, j);
            assert_eq!(t.node_parts(ch.from), (x, j));
            let to = if vertical { x ^ (1 << (j - 1)) } else { x };
            assert_eq!(t.node_parts(ch.to), (to, j + 1));
        }
        for v in 0..t.num_nodes() {
            let (x, j) = t.node_parts(NodeId(v));
            assert_eq!(t.node_id(x, j), NodeId(v));
            assert_eq!(
                t.node(NodeId(v)),
                Node {
                    kind: NodeKind::Switch,
                    level: j,
                    index: x
                }
            );
        }
    }

    #[test]
    fn all_paths_are_the_unique_shortest_walks() {
        for d in 1..=5u32 {
            let t = Butterfly::new(u64::from(d)).unwrap();
            assert_eq!(check_all_paths_same_bundles(&t), 1 << (2 * d));
        }
    }

    #[test]
    fn paths_take_vertical_arcs_where_bits_differ() {
        let t = Butterfly::new(4).unwrap();
        for s in 0..16 {
            for d in 0..16 {
                let p = t.path(s, d);
                assert_eq!(p.len(), 4);
                let verticals: u32 = p
                    .iter()
                    .map(|&c| t.arc_parts(c))
                    .filter(|a| a.2)
                    .map(|(_, j, _)| 1 << (j - 1))
                    .sum();
                assert_eq!(verticals, s ^ d);
            }
        }
        assert_eq!(
            t.path(0b0101, 0b0101),
            (1..=4).map(|j| t.arc(0b0101, j, false)).collect::<Vec<_>>()
        );
        // 0001 → 1010: vertical at 1, 2, 4.
        assert_eq!(
            t.path(0b0001, 0b1010),
            vec![
                t.arc(0b0001, 1, true),
                t.arc(0b0000, 2, true),
                t.arc(0b0010, 3, false),
                t.arc(0b0010, 4, true)
            ]
        );
    }

    #[test]
    fn bad_dimensions_are_typed_errors() {
        for d in [0, 25, u64::MAX] {
            assert!(matches!(
                Butterfly::new(d),
                Err(TopologyError::OutOfRange {
                    param: "d",
                    min: 1,
                    max: 24,
                    ..
                })
            ));
        }
    }
}
