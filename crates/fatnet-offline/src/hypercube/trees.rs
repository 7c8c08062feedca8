//! Completely unbalanced spanning trees of the hypercube (Stamoulis §2.1.3–2.1.4).

use serde::Serialize;

use super::{cube, e};
use crate::OfflineError;

/// A completely unbalanced spanning tree of the `d`-cube (a spanning binomial tree, Stamoulis
/// §2.1.3, after Johnsson and Ho 1989): given a root `r` and an order `o = (o_1, …, o_d)` of
/// the dimensions, node `y` is reached from `r` by crossing the dimensions where `r` and `y`
/// differ in the order `o`. The union of these paths is a tree of depth `d`; the parent of
/// `y ≠ r` is `y ⊕ e_h` with `h` the last dimension, in the order `o`, where `r` and `y`
/// differ.
///
/// [`UnbalancedTree::disjoint`] gives the `d` arc-disjoint trees of Johnsson and Ho used by the
/// `K`-broadcast algorithm (§2.1.4, §4.4).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct UnbalancedTree {
    d: u32,
    root: u32,
    order: Vec<u32>,
    /// `position[i]` = 1-based position of dimension `i` in `order` (`position[0]` unused).
    #[serde(skip)]
    position: Vec<u32>,
}

impl UnbalancedTree {
    /// The tree rooted at `root` that crosses dimensions in the order `order`.
    ///
    /// # Errors
    ///
    /// [`OfflineError::OutOfRange`] unless `1 <= d <= 12`, [`OfflineError::NodeOutOfRange`] if
    /// `root >= 2^d`, [`OfflineError::NotAPermutation`] unless `order` is a permutation of
    /// `1..=d`.
    pub fn new(d: u32, root: u32, order: Vec<u32>) -> Result<Self, OfflineError> {
        let c = cube(d)?;
        super::check_nodes(&c, &[root])?;
        let mut position = vec![0u32; d as usize + 1];
        if order.len() != d as usize {
            return Err(OfflineError::NotAPermutation { d });
        }
        for (k, &i) in order.iter().enumerate() {
            if !(1..=d).contains(&i) || position[i as usize] != 0 {
                return Err(OfflineError::NotAPermutation { d });
            }
            position[i as usize] = k as u32 + 1;
        }
        Ok(Self {
            d,
            root,
            order,
            position,
        })
    }

    /// The canonical tree at `root`: dimensions in increasing order (Figure 2.3 for `root = 0`,
    /// `d = 3`).
    ///
    /// # Errors
    ///
    /// As [`UnbalancedTree::new`].
    pub fn canonical(d: u32, root: u32) -> Result<Self, OfflineError> {
        Self::new(d, root, (1..=d).collect())
    }

    /// Johnsson and Ho's tree `T^(j)` (`1 <= j <= d`, Stamoulis §2.1.4): rooted at `e_j`, order
    /// `(j+1, …, d, 1, …, j)`. The `d` trees are pairwise arc-disjoint and leave exactly the
    /// arcs `(0, e_1)`, …, `(0, e_d)` unused; reversed, they never use the arcs `(e_j, 0)`.
    ///
    /// # Errors
    ///
    /// [`OfflineError::OutOfRange`] unless `1 <= d <= 12` and `1 <= j <= d`.
    pub fn disjoint(d: u32, j: u32) -> Result<Self, OfflineError> {
        cube(d)?;
        if !(1..=d).contains(&j) {
            return Err(OfflineError::OutOfRange {
                param: "j",
                value: u64::from(j),
                allowed: "1..=d",
            });
        }
        Self::new(d, e(j), (0..d).map(|m| (j + m) % d + 1).collect())
    }

    /// The dimension `d` of the cube.
    pub fn dimension(&self) -> u32 {
        self.d
    }

    /// The root.
    pub fn root(&self) -> u32 {
        self.root
    }

    /// The order in which paths from the root cross the dimensions.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// 1-based position of dimension `i` (`1..=d`) in the order.
    ///
    /// # Panics
    ///
    /// If `i > d`.
    pub fn position(&self, i: u32) -> u32 {
        assert!((1..=self.d).contains(&i), "dimension {i} out of range");
        self.position[i as usize]
    }

    /// Depth of node `y`: its Hamming distance from the root.
    pub fn depth(&self, y: u32) -> u32 {
        (y ^ self.root).count_ones()
    }

    /// The parent of `y` and the dimension of the arc from the parent to `y`; `None` for the
    /// root.
    ///
    /// # Panics
    ///
    /// If `y >= 2^d`.
    pub fn parent(&self, y: u32) -> Option<(u32, u32)> {
        assert!(y < 1 << self.d, "node {y} out of range");
        let z = y ^ self.root;
        (z != 0).then(|| {
            let h = (1..=self.d)
                .filter(|&i| z & e(i) != 0)
                .max_by_key(|&i| self.position[i as usize])
                .expect("z != 0");
            (y ^ e(h), h)
        })
    }

    /// The dimensions crossed from the root to `y`, in order.
    ///
    /// # Panics
    ///
    /// If `y >= 2^d`.
    pub fn path(&self, y: u32) -> Vec<u32> {
        assert!(y < 1 << self.d, "node {y} out of range");
        let z = y ^ self.root;
        self.order
            .iter()
            .copied()
            .filter(|&i| z & e(i) != 0)
            .collect()
    }

    /// The `2^d − 1` arcs of the tree, as (parent, dimension) pairs, by child node.
    pub fn arcs(&self) -> Vec<(u32, u32)> {
        (0..1u32 << self.d).filter_map(|y| self.parent(y)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_2_3_canonical_tree_at_zero() {
        let t = UnbalancedTree::canonical(3, 0).unwrap();
        let mut arcs: Vec<(u32, u32)> = t.arcs().into_iter().map(|(p, i)| (p, p ^ e(i))).collect();
        arcs.sort_unstable();
        assert_eq!(
            arcs,
            vec![
                (0b000, 0b001),
                (0b000, 0b010),
                (0b000, 0b100),
                (0b001, 0b011),
                (0b001, 0b101),
                (0b010, 0b110),
                (0b011, 0b111)
            ]
        );
        // Subtree T_i below e_i has 2^(d−i) nodes; 2^(d−1) leaves.
        let below = |i: u32| {
            (1..8u32)
                .filter(|&y| {
                    let mut v = y;
                    while let Some((p, _)) = t.parent(v) {
                        if p == 0 {
                            break;
                        }
                        v = p;
                    }
                    v == e(i)
                })
                .count()
        };
        assert_eq!((below(1), below(2), below(3)), (4, 2, 1));
        let leaves = (0..8u32)
            .filter(|&y| t.arcs().iter().all(|&(p, _)| p != y))
            .count();
        assert_eq!(leaves, 4);
    }

    #[test]
    fn the_notes_d3_disjoint_trees() {
        // "parent→child (dim)" lists of the note (A1).
        let expected: [&[(u32, u32, u32)]; 3] = [
            &[
                (1, 0, 1),
                (1, 3, 2),
                (1, 5, 3),
                (3, 2, 1),
                (3, 7, 3),
                (5, 4, 1),
                (7, 6, 1),
            ],
            &[
                (2, 0, 2),
                (2, 3, 1),
                (2, 6, 3),
                (3, 1, 2),
                (6, 4, 2),
                (6, 7, 1),
                (7, 5, 2),
            ],
            &[
                (4, 0, 3),
                (4, 5, 1),
                (4, 6, 2),
                (5, 1, 3),
                (5, 7, 2),
                (6, 2, 3),
                (7, 3, 3),
            ],
        ];
        for j in 1..=3 {
            let t = UnbalancedTree::disjoint(3, j).unwrap();
            let mut arcs: Vec<(u32, u32, u32)> = t
                .arcs()
                .into_iter()
                .map(|(p, i)| (p, p ^ e(i), i))
                .collect();
            arcs.sort_unstable();
            assert_eq!(arcs, expected[j as usize - 1], "T({j})");
        }
    }

    #[test]
    fn disjoint_trees_are_disjoint_and_miss_exactly_the_arcs_out_of_zero() {
        for d in 1..=9 {
            let mut used = vec![false; (d as usize) << d];
            for j in 1..=d {
                let t = UnbalancedTree::disjoint(d, j).unwrap();
                assert_eq!(t.root(), e(j));
                for (p, i) in t.arcs() {
                    let a = ((i as usize - 1) << d) | p as usize;
                    assert!(!used[a], "d = {d}: arc ({p}, {i}) in two trees");
                    used[a] = true;
                }
            }
            let unused: Vec<usize> = (0..used.len()).filter(|&a| !used[a]).collect();
            let expected: Vec<usize> = (0..d as usize).map(|i| i << d).collect();
            assert_eq!(unused, expected, "d = {d}");
        }
    }

    #[test]
    fn paths_follow_the_order_and_end_at_the_node() {
        let t = UnbalancedTree::new(4, 0b0110, vec![3, 1, 4, 2]).unwrap();
        assert_eq!(t.path(0b1011), vec![3, 1, 4]);
        assert_eq!(t.parent(0b1011), Some((0b0011, 4)));
        assert_eq!(t.depth(0b1011), 3);
        assert_eq!(t.parent(0b0110), None);
        assert_eq!(t.position(4), 3);
    }

    #[test]
    fn bad_orders_and_roots_are_errors() {
        assert_eq!(
            UnbalancedTree::new(3, 0, vec![1, 1, 2]),
            Err(OfflineError::NotAPermutation { d: 3 })
        );
        assert_eq!(
            UnbalancedTree::new(3, 0, vec![1, 2]),
            Err(OfflineError::NotAPermutation { d: 3 })
        );
        assert_eq!(
            UnbalancedTree::new(3, 0, vec![1, 2, 4]),
            Err(OfflineError::NotAPermutation { d: 3 })
        );
        assert_eq!(
            UnbalancedTree::canonical(3, 8),
            Err(OfflineError::NodeOutOfRange { node: 8, nodes: 8 })
        );
        assert!(UnbalancedTree::disjoint(3, 4).is_err());
    }
}
