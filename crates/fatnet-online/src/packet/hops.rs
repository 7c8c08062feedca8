//! Next hops by index arithmetic on the tree families: Petrini–Vanneschi's k-ary n-tree,
//! Yuan's folded and unfolded Clos networks and Leiserson's binary fat-tree; and on
//! Stamoulis' butterfly, not a tree, whose unique paths fit the same form (one link).
//!
//! **Key design decision: the candidates of a head are one arithmetic progression of link
//! ids.** On every one of these networks the shortest paths to a destination go up (over any
//! up link) until they reach an ancestor of the destination, then down a unique way; at a
//! node the candidates are therefore either one channel's wires, or all up channels, whose
//! ids are evenly spaced (stride 2 on the k-ary n-tree, whose up and down channels
//! alternate; stride 1 elsewhere). A [`Run`] `(first, count, stride)` describes them in
//! link-id order, exactly the order of the BFS table they replace, so results stay
//! bit-identical; [`super::PacketNet::first_hop`] takes `first` without building a list. The
//! state is the topology's parameters (and a power table): no memory per node or per
//! processor.

use super::net::ChannelLinks;
use fatnet_topology::{Butterfly, Clos, FatTree, FoldedClos, KAryNTree};

/// The candidate links of a head: `first, first + stride, …` (`count` of them, in increasing
/// link-id order); none when `count` is 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    pub(crate) first: u32,
    pub(crate) count: u32,
    pub(crate) stride: u32,
}

impl Run {
    const NONE: Run = Run {
        first: 0,
        count: 0,
        stride: 1,
    };

    #[inline]
    fn one(link: u32) -> Run {
        Run {
            first: link,
            count: 1,
            stride: 1,
        }
    }

    /// The wires `lo..hi` of one channel.
    #[inline]
    fn wires(lo: u32, hi: u32) -> Run {
        Run {
            first: lo,
            count: hi - lo,
            stride: 1,
        }
    }

    /// Appends the links to `out`.
    #[inline]
    pub(crate) fn push_into(self, out: &mut Vec<u32>) {
        out.extend((0..self.count).map(|i| self.first + i * self.stride));
    }
}

/// A tree family with arithmetic next hops (see the module documentation for the rule).
#[derive(Debug, Clone)]
pub(crate) enum TreeHops {
    /// The k-ary n-tree (every channel one wire: link ids are channel ids).
    KAryNTree {
        k: u32,
        levels: u32,
        /// `k^n`.
        leaves: u32,
        /// `k^(n−1)`.
        per_level: u32,
        /// `k^i` for `i` in `0..=n`.
        pow: Vec<u32>,
    },
    /// Yuan's folded Clos `ftree(n+m, r)` (one wire per channel).
    FoldedClos { n: u32, m: u32, r: u32 },
    /// The unfolded three-stage `Clos(n, m, r)` (one wire per channel).
    Clos { n: u32, m: u32, r: u32 },
    /// Leiserson's binary fat-tree on `2^levels` processors; a channel of capacity `c` is `c`
    /// consecutive links (the packet net's `ChannelLinks`).
    FatTree { levels: u32 },
    /// Stamoulis' `d`-dimensional butterfly (one wire per arc).
    Butterfly { d: u32 },
}

impl TreeHops {
    /// The k-ary n-tree.
    pub(crate) fn karyntree(t: &KAryNTree) -> Self {
        let (k, levels) = (t.k(), t.levels());
        TreeHops::KAryNTree {
            k,
            levels,
            leaves: t.num_leaves(),
            per_level: t.switches_per_level(),
            pow: (0..=levels).map(|i| k.pow(i)).collect(),
        }
    }

    /// The folded Clos network.
    pub(crate) fn folded_clos(t: &FoldedClos) -> Self {
        TreeHops::FoldedClos {
            n: t.n(),
            m: t.m(),
            r: t.r(),
        }
    }

    /// The unfolded Clos network.
    pub(crate) fn clos(t: &Clos) -> Self {
        TreeHops::Clos {
            n: t.n(),
            m: t.m(),
            r: t.r(),
        }
    }

    /// The binary fat-tree.
    pub(crate) fn fat_tree(t: &FatTree) -> Self {
        TreeHops::FatTree { levels: t.levels() }
    }

    /// The butterfly.
    pub(crate) fn butterfly(t: &Butterfly) -> Self {
        TreeHops::Butterfly { d: t.dimension() }
    }

    /// Whether channel ids are link ids (every channel is one wire).
    pub(crate) fn single_wires(&self) -> bool {
        !matches!(self, TreeHops::FatTree { .. })
    }

    /// The largest distance from any node to any processor's ejection node that reaches it
    /// (what the BFS table's maximum is).
    pub(crate) fn max_hops(&self) -> u32 {
        match *self {
            // Processor to processor through a top switch.
            TreeHops::KAryNTree { levels, .. } => 2 * levels,
            // Across bottom switches; with one bottom switch, a top switch is 2 from every
            // processor and two processors are 2 apart.
            TreeHops::FoldedClos { r, .. } => {
                if r >= 2 {
                    4
                } else {
                    2
                }
            }
            TreeHops::Clos { .. } => 4,
            TreeHops::FatTree { levels } => 2 * levels,
            // Every path from level 1 has d arcs.
            TreeHops::Butterfly { d } => d,
        }
    }

    /// The links on shortest paths from `node` to `dst`'s ejection node, in link-id order;
    /// none at the ejection node itself and at nodes that cannot reach it.
    /// `channel_links` are the packet net's wires of every channel.
    #[inline]
    pub(crate) fn run(&self, node: u32, dst: u32, channel_links: &ChannelLinks) -> Run {
        match *self {
            TreeHops::KAryNTree {
                k,
                leaves,
                per_level,
                ref pow,
                ..
            } => {
                if node < leaves {
                    // A processor: its link to its leaf switch (up channel 2p).
                    return if node == dst {
                        Run::NONE
                    } else {
                        Run::one(2 * node)
                    };
                }
                let i = node - leaves;
                let (h, w) = (i / per_level + 1, i % per_level);
                let below = pow[h as usize - 1]; // k^(h−1)
                if dst / (below * k) != w / below {
                    // dst is outside the height-h subtree: every up port (channels
                    // 2h·k^n + 2(k·w + j), j = 0..k).
                    return Run {
                        first: 2 * h * leaves + 2 * k * w,
                        count: k,
                        stride: 2,
                    };
                }
                if h == 1 {
                    // The leaf switch: down to dst (down channel 2·dst + 1).
                    return Run::one(2 * dst + 1);
                }
                // Down to (h−1, child), child = w with digit h−2 set to dst's digit h−1,
                // entering through its up port `port` = w's digit h−2 (as
                // `KAryNTree::path_into`).
                let place = pow[h as usize - 2];
                let port = w / place % k;
                let child = w - port * place + dst / below % k * place;
                Run::one(2 * (h - 1) * leaves + 2 * (k * child + port) + 1)
            }
            TreeHops::FoldedClos { n, m, r } => {
                let p = r * n;
                if node < p {
                    // A processor: LeafUp(x) = x.
                    if node == dst {
                        Run::NONE
                    } else {
                        Run::one(node)
                    }
                } else if node < p + r {
                    let v = node - p;
                    if dst / n == v {
                        // LeafDown(dst) = P + dst.
                        Run::one(p + dst)
                    } else {
                        // Up(v, t) = 2P + v·m + t for every top switch t.
                        Run {
                            first: 2 * p + v * m,
                            count: m,
                            stride: 1,
                        }
                    }
                } else {
                    // Top switch t: Down(t, dst's bottom switch) = 2P + r·m + w·m + t.
                    let t = node - p - r;
                    Run::one(2 * p + r * m + dst / n * m + t)
                }
            }
            TreeHops::Clos { n, m, r } => {
                let p = r * n;
                if node < p {
                    // Input terminal p → its input switch: channel p.
                    Run::one(node)
                } else if node < p + r {
                    // Input switch v → every middle switch t: P + v·m + t.
                    let v = node - p;
                    Run {
                        first: p + v * m,
                        count: m,
                        stride: 1,
                    }
                } else if node < p + r + m {
                    // Middle t → dst's output switch w: P + r·m + w·m + t.
                    let t = node - p - r;
                    Run::one(p + r * m + dst / n * m + t)
                } else if node < p + 2 * r + m && node - p - r - m == dst / n {
                    // dst's output switch → its output terminal: P + 2r·m + dst.
                    Run::one(p + 2 * r * m + dst)
                } else {
                    // Another output switch (it cannot reach dst) or an output terminal.
                    Run::NONE
                }
            }
            TreeHops::FatTree { levels } => {
                // Heap numbers: node 0 the external world, leaf of p at 2^levels + p; up
                // channel of v is 2(v−1), down channel into v is 2(v−1)+1.
                let wires = |c: u32| {
                    let (lo, hi) = channel_links
                        .wires(c as usize)
                        .expect("the fat-tree's own channels");
                    Run::wires(lo, hi)
                };
                let leaf = (1 << levels) + dst;
                if node == 0 {
                    // The external world: down into the root.
                    return wires(1);
                }
                if node == leaf {
                    return Run::NONE;
                }
                let h = levels - node.ilog2();
                if h > 0 && leaf >> h == node {
                    // dst is below: down into the child on its side.
                    wires(2 * ((leaf >> (h - 1)) - 1) + 1)
                } else {
                    wires(2 * (node - 1))
                }
            }
            TreeHops::Butterfly { d } => {
                // Node [x; j] is (j−1)·2^d + x; its arcs (x; j; s) and (x; j; v) are
                // (j−1)·2^(d+1) + 2x and the next id. The arcs of stages j..d flip bits
                // j−1..d−1 only: [x; j] reaches [dst; d+1] iff the lower bits agree, and then
                // by one arc, vertical iff bit j−1 differs.
                let (x, stage) = (node & ((1 << d) - 1), node >> d); // stage = j − 1
                let diff = x ^ dst;
                if stage == d || diff & ((1 << stage) - 1) != 0 {
                    return Run::NONE;
                }
                Run::one((stage << (d + 1)) | (x << 1) | ((diff >> stage) & 1))
            }
        }
    }
}
