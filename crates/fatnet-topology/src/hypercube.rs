//! Stamoulis' d-dimensional hypercube (Stamoulis, *Routing and performance
//! evaluation in interconnection networks* (PhD thesis, MIT, 1991), §2.1 and chapter 5).

use serde::Serialize;

use crate::{
    BundleId, Channel, ChannelId, Direction, Node, NodeId, NodeKind, Processor, Topology,
    TopologyError,
};

/// Largest supported dimension: the `d·2^d` arc ids must fit `u32` (and `d!` fits `u128`).
pub const MAX_HYPERCUBE_DIMENSION: u32 = 24;

/// `k!` for `k = 0..=24`.
const FACTORIAL: [u128; MAX_HYPERCUBE_DIMENSION as usize + 1] = {
    let mut f = [1u128; MAX_HYPERCUBE_DIMENSION as usize + 1];
    let mut k = 1;
    while k < f.len() {
        f[k] = f[k - 1] * k as u128;
        k += 1;
    }
    f
};

/// The `d`-dimensional hypercube: `2^d` nodes, each a processor, joined by directed arcs of
/// capacity 1 (Stamoulis §2.1: "all-port", one packet per directed arc per slot).
///
/// Conventions (Stamoulis' notation): node `z` has binary identity `(z_d, …, z_1)` with
/// `z_i` = bit `i − 1` of the integer `z`; dimensions are 1-indexed, dimension `i` flips bit
/// `i − 1`. There are no switches: every node is [`NodeKind::Processor`] at level 0, and
/// processor `z` injects and ejects at `NodeId(z)`.
///
/// Numbering (ours): the arc leaving `z` across dimension `i` (Stamoulis' arc `(z, z ⊕ e_i)`
/// "of the `i`-th type") is `ChannelId((i − 1)·2^d + z)`, so the arcs of one dimension are
/// contiguous. Its level is its dimension `i`, its direction [`Direction::Forward`], and it is
/// its own bundle (same id).
///
/// Paths: the shortest paths from `x` to `y` cross each of the `H = popcount(x ⊕ y)` differing
/// dimensions once, in any order: `H!` paths. Path `k` crosses them in the `k`-th permutation
/// of the differing dimensions in lexicographic order (factorial number system / Lehmer code),
/// so path 0 is Stamoulis' canonical path (increasing dimensions), which is also the standard
/// routing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Hypercube {
    d: u32,
}

impl Hypercube {
    /// The `d`-dimensional hypercube.
    ///
    /// # Errors
    ///
    /// [`TopologyError::OutOfRange`] unless `1 <= d <= 24`.
    pub fn new(d: u64) -> Result<Self, TopologyError> {
        if !(1..=u64::from(MAX_HYPERCUBE_DIMENSION)).contains(&d) {
            return Err(TopologyError::OutOfRange {
                param: "d",
                value: d,
                min: 1,
                max: u64::from(MAX_HYPERCUBE_DIMENSION),
            });
        }
        Ok(Self { d: d as u32 })
    }

    /// The dimension `d`.
    #[inline]
    pub fn dimension(&self) -> u32 {
        self.d
    }

    /// Number of nodes `2^d`.
    #[inline]
    pub fn size(&self) -> u32 {
        1 << self.d
    }

    /// The arc from node `z` across dimension `i` (`1..=d`), to `z ⊕ e_i`.
    #[inline]
    pub fn arc(&self, z: u32, i: u32) -> ChannelId {
        assert!(z < self.size(), "node {z} out of range");
        assert!((1..=self.d).contains(&i), "dimension {i} out of range");
        ChannelId(((i - 1) << self.d) | z)
    }

    /// The inverse of [`Hypercube::arc`]: the tail node and the dimension of an arc.
    #[inline]
    pub fn arc_parts(&self, c: ChannelId) -> (u32, u32) {
        assert!(c.0 < self.num_channels(), "channel {c:?} out of range");
        (c.0 & (self.size() - 1), (c.0 >> self.d) + 1)
    }

    /// The dimensions (1-indexed) that path number `index` from `src` to `dst` crosses, in
    /// order: the `index`-th permutation, in lexicographic order, of the dimensions where
    /// `src` and `dst` differ.
    pub fn dimension_order(&self, src: Processor, dst: Processor, index: u128) -> Vec<u32> {
        let mut order = Vec::new();
        self.for_each_dimension(src, dst, index, |i| order.push(i));
        order
    }

    /// Calls `f` with the dimensions of path `index` from `src` to `dst`, in order.
    fn for_each_dimension(
        &self,
        src: Processor,
        dst: Processor,
        mut index: u128,
        mut f: impl FnMut(u32),
    ) {
        assert!(
            src < self.size() && dst < self.size(),
            "processor out of range"
        );
        let h = (src ^ dst).count_ones() as usize;
        assert!(index < FACTORIAL[h], "path index {index} out of range");
        // The differing dimensions in increasing order; digits of the Lehmer code pick and
        // remove one of the remaining ones, most significant digit first.
        let mut left = [0u32; MAX_HYPERCUBE_DIMENSION as usize];
        let mut bits = src ^ dst;
        for slot in left.iter_mut().take(h) {
            *slot = bits.trailing_zeros() + 1;
            bits &= bits - 1;
        }
        for k in (0..h).rev() {
            let digit = (index / FACTORIAL[k]) as usize;
            index %= FACTORIAL[k];
            let i = left[digit];
            left.copy_within(digit + 1..=k, digit);
            f(i);
        }
    }
}

impl Topology for Hypercube {
    fn name(&self) -> String {
        format!("hypercube:d={}", self.d)
    }

    fn num_processors(&self) -> u32 {
        self.size()
    }

    fn num_nodes(&self) -> u32 {
        self.size()
    }

    fn num_switches(&self) -> u32 {
        0
    }

    fn num_channels(&self) -> u32 {
        self.d << self.d
    }

    fn num_bundles(&self) -> u32 {
        self.num_channels()
    }

    fn node(&self, v: NodeId) -> Node {
        assert!(v.0 < self.size(), "node {v:?} out of range");
        Node {
            kind: NodeKind::Processor,
            level: 0,
            index: v.0,
        }
    }

    fn channel(&self, c: ChannelId) -> Channel {
        let (z, i) = self.arc_parts(c);
        Channel {
            from: NodeId(z),
            to: NodeId(z ^ (1 << (i - 1))),
            capacity: 1,
            level: i,
            direction: Direction::Forward,
            bundle: BundleId(c.0),
        }
    }

    fn bundle_capacity(&self, b: BundleId) -> u64 {
        assert!(b.0 < self.num_bundles(), "bundle {b:?} out of range");
        1
    }

    fn injection_node(&self, p: Processor) -> NodeId {
        assert!(p < self.size(), "processor {p} out of range");
        NodeId(p)
    }

    fn ejection_node(&self, p: Processor) -> NodeId {
        self.injection_node(p)
    }

    /// `H!` with `H` the Hamming distance (1 for `src = dst`).
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        assert!(
            src < self.size() && dst < self.size(),
            "processor out of range"
        );
        FACTORIAL[(src ^ dst).count_ones() as usize]
    }

    /// The arcs across the dimensions of [`Hypercube::dimension_order`]; index 0 is the
    /// canonical path (increasing dimensions).
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        out.clear();
        let mut at = src;
        self.for_each_dimension(src, dst, index, |i| {
            out.push(self.arc(at, i));
            at ^= 1 << (i - 1);
        });
    }

    fn distance(&self, src: Processor, dst: Processor) -> usize {
        assert!(
            src < self.size() && dst < self.size(),
            "processor out of range"
        );
        (src ^ dst).count_ones() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_all_paths, check_structure};

    /// The nodes a path visits, starting at its first tail.
    fn nodes(t: &Hypercube, path: &[ChannelId]) -> Vec<u32> {
        let mut v = vec![t.channel(path[0]).from.0];
        v.extend(path.iter().map(|&c| t.channel(c).to.0));
        v
    }

    #[test]
    fn counts_follow_the_formulas() {
        for d in 1..=6 {
            let t = Hypercube::new(d).unwrap();
            let n = 1u32 << d;
            assert_eq!(t.num_processors(), n);
            assert_eq!(t.num_nodes(), n);
            assert_eq!(t.num_switches(), 0);
            assert_eq!(t.num_channels(), d as u32 * n);
            assert_eq!(t.num_bundles(), d as u32 * n);
            check_structure(&t);
        }
        let big = Hypercube::new(24).unwrap();
        assert_eq!(big.num_channels(), 24 << 24);
        assert_eq!(
            big.path_count(0, (1 << 24) - 1),
            620_448_401_733_239_439_360_000
        );
        assert_eq!(big.name(), "hypercube:d=24");
    }

    #[test]
    fn arcs_round_trip_and_have_their_dimension_as_level() {
        let t = Hypercube::new(4).unwrap();
        for c in 0..t.num_channels() {
            let (z, i) = t.arc_parts(ChannelId(c));
            assert_eq!(t.arc(z, i), ChannelId(c));
            let ch = t.channel(ChannelId(c));
            assert_eq!(ch.level, i);
            assert_eq!((ch.from.0 ^ ch.to.0), 1 << (i - 1));
            assert_eq!(ch.direction, Direction::Forward);
        }
    }

    #[test]
    fn all_paths_are_shortest_walks() {
        for d in 1..=4 {
            let t = Hypercube::new(d).unwrap();
            let checked = check_all_paths(&t);
            // Σ over pairs of H! = 2^d · Σ_k C(d,k)·k!.
            let per_source: u64 = (0..=d as usize)
                .map(|k| {
                    let binom = (0..k).fold(1u64, |b, j| b * (d - j as u64) / (j as u64 + 1));
                    binom * FACTORIAL[k] as u64
                })
                .sum();
            assert_eq!(checked, per_source << d);
        }
    }

    #[test]
    fn paths_have_hamming_length_and_count_h_factorial() {
        let t = Hypercube::new(5).unwrap();
        for (s, d) in [(0u32, 31u32), (3, 5), (7, 7), (16, 1)] {
            let h = (s ^ d).count_ones();
            assert_eq!(t.distance(s, d), h as usize);
            assert_eq!(t.path(s, d).len(), h as usize);
            assert_eq!(t.path_count(s, d), (1..=u128::from(h)).product::<u128>());
        }
    }

    #[test]
    fn canonical_path_matches_the_thesis() {
        let t = Hypercube::new(4).unwrap();
        // (0,0,0,1) → (0,0,0,0) → (0,0,1,0) → (1,0,1,0)
        assert_eq!(
            nodes(&t, &t.path(0b0001, 0b1010)),
            [0b0001, 0b0000, 0b0010, 0b1010]
        );
        // 0000 → 0001 → 0011 → 1011
        assert_eq!(
            nodes(&t, &t.path(0b0000, 0b1011)),
            [0b0000, 0b0001, 0b0011, 0b1011]
        );
        assert_eq!(t.standard_path_index(0b0001, 0b1010), 0);
        // The canonical path crosses increasing dimensions, for every pair.
        for s in 0..16 {
            for d in 0..16 {
                let dims: Vec<u32> = t.path(s, d).iter().map(|&c| t.arc_parts(c).1).collect();
                assert!(dims.windows(2).all(|w| w[0] < w[1]), "{s} -> {d}: {dims:?}");
            }
        }
    }

    #[test]
    fn path_indices_enumerate_permutations_in_lexicographic_order() {
        let t = Hypercube::new(5).unwrap();
        let (s, d) = (0b00100, 0b11001); // differing dimensions 1, 3, 4, 5
        let orders: Vec<Vec<u32>> = (0..t.path_count(s, d))
            .map(|k| t.dimension_order(s, d, k))
            .collect();
        assert_eq!(orders.len(), 24);
        assert_eq!(orders[0], [1, 3, 4, 5]);
        assert_eq!(orders[1], [1, 3, 5, 4]);
        assert_eq!(orders[6], [3, 1, 4, 5]);
        assert_eq!(orders[23], [5, 4, 3, 1]);
        assert!(orders.windows(2).all(|w| w[0] < w[1]));
        for (k, order) in orders.iter().enumerate() {
            let dims: Vec<u32> = t.shortest_paths(s, d, 24).unwrap()[k]
                .iter()
                .map(|&c| t.arc_parts(c).1)
                .collect();
            assert_eq!(&dims, order);
        }
        // Last permutation of all 24 dimensions: decreasing order.
        let big = Hypercube::new(24).unwrap();
        let all = (1 << 24) - 1;
        let last = big.dimension_order(0, all, big.path_count(0, all) - 1);
        assert_eq!(last, (1..=24).rev().collect::<Vec<u32>>());
    }

    #[test]
    fn bad_dimensions_are_typed_errors() {
        for d in [0, 25, u64::MAX] {
            assert!(matches!(
                Hypercube::new(d),
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
