//! Channel loads, the load factor λ(M), congestion and dilation.
//!
//! Leiserson (*Fat-Trees*, 1985, §III) defines `load(M, c)` as the number of messages of `M` whose
//! path uses channel `c`, and the load factor `λ(M) = max_c load(M, c) / cap(c)`: no schedule
//! delivers `M` in fewer than `λ(M)` delivery cycles, and Greenberg–Leiserson's Lemma 1 shows
//! that on a fat-tree no directed cut has a larger load factor than the worst channel.
//! Greenberg & Oh (*Universal wormhole routing*, 1997) call the largest number of paths through one
//! link the *congestion* `c` and the longest path the *dilation* `d`.
//!
//! **Key design decision: λ is exact and taken over bundles.** A [`LoadFactor`] is the
//! rational `load / capacity` of its worst bundle, compared by cross-multiplication, so
//! `⌈λ⌉` and "λ > 1" are never off by a rounding error. It is taken over bundles of parallel
//! channels (see `fatnet_topology`): on the binary fat-tree a bundle is a channel; on the
//! butterfly fat-tree, folded Clos and k-ary n-trees it is the group of links joining two tree
//! nodes, which makes λ independent of the choice among shortest paths. Congestion, by
//! contrast, is per channel and depends on the paths chosen ([`PathSelection`]).
//!
//! On the binary fat-tree, [`fat_tree_loads`] computes every channel's load from one pass over
//! the messages and one pass over the tree, `O(|M| + n)`, without walking any path: the up
//! channel above node `v` carries the messages with source below `v` minus those whose lowest
//! common ancestor is below `v` (inclusive), and symmetrically for the down channel.
//!
//! ```
//! use fatnet_load::{PathSelection, analyze};
//! use fatnet_topology::TopologySpec;
//! use fatnet_traffic::patterns;
//!
//! // The complement permutation i → 15 − i: every message crosses the root, so the 8
//! // messages out of each half of the tree share the channel above that half.
//! let messages = patterns::complement(16)?;
//! let thin = "fattree:n=16,profile=constant,cap=1".parse::<TopologySpec>()?.build()?;
//! let report = analyze(&thin, &messages, PathSelection::Standard)?;
//! assert_eq!((report.load_factor.load, report.load_factor.capacity), (8, 1));
//! assert_eq!(report.load_factor.ceil(), 8); // no schedule needs fewer than 8 cycles
//! assert_eq!((report.congestion, report.loads.dilation), (8, 8));
//!
//! // With doubling capacities (full bisection) the channel above a half has capacity 8, and
//! // every channel is exactly full: λ = 1, one cycle delivers the whole permutation.
//! let fat = "fattree:n=16,profile=doubling".parse::<TopologySpec>()?.build()?;
//! let report = analyze(&fat, &messages, PathSelection::Standard)?;
//! assert_eq!((report.load_factor.value(), report.congestion), (1.0, 8));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

use std::cmp::Ordering;

use fatnet_topology::{AnyTopology, BundleId, ChannelId, FatTree, Topology};
use fatnet_traffic::MessageSet;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a load analysis could not be done.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The message set addresses more processors than the topology has.
    #[error("message set is on {messages} processors but the topology has {topology} processors")]
    ProcessorMismatch {
        /// Processors of the message set.
        messages: u64,
        /// Processors of the topology.
        topology: u64,
    },
    /// A path set names a channel the topology does not have.
    #[error("path {path} uses channel {channel}, but the topology has {channels} channels")]
    ChannelOutOfRange {
        /// Index of the path.
        path: usize,
        /// The channel id.
        channel: u32,
        /// Number of channels.
        channels: u32,
    },
    /// The per-channel (and per-bundle) tables of the analysis would need more memory than
    /// [`fatnet_topology::MEMORY_BUDGET`]; refused before anything large is allocated.
    #[error(
        "the load analysis of {what} would need about {estimate} bytes ({:.1} GiB), over the memory budget of {max} bytes ({:.0} GiB)",
        *estimate as f64 / f64::from(1u32 << 30),
        *max as f64 / f64::from(1u32 << 30)
    )]
    OverMemoryBudget {
        /// The topology, in the spec grammar.
        what: String,
        /// The estimated bytes.
        estimate: u64,
        /// The budget in bytes.
        max: u64,
    },
}

/// Estimated bytes of [`fat_tree_loads`] on `tree`: three `u32` counters per heap node and a
/// `u64` load per channel, `56n` bytes.
pub fn fat_tree_loads_bytes(tree: &FatTree) -> u128 {
    let n = u128::from(tree.n());
    3 * 2 * n * 4 + u128::from(tree.num_channels()) * 8
}

/// Estimated bytes of [`channel_loads`] and [`LoadReport::new`] on `topo`: a `u64` load per
/// channel and per bundle.
pub fn channel_loads_bytes<T: Topology + ?Sized>(topo: &T) -> u128 {
    (u128::from(topo.num_channels()) + u128::from(topo.num_bundles())) * 8
}

/// Checks, before any message set is made, that [`analyze`] on `topo` fits the memory budget
/// (callers check this first, so that a refused size costs nothing).
///
/// # Errors
///
/// [`LoadError::OverMemoryBudget`] with the estimate.
pub fn check_analysis(topo: &AnyTopology) -> Result<(), LoadError> {
    match topo.as_fat_tree() {
        Some(tree) => check_budget(tree, fat_tree_loads_bytes(tree)),
        None => check_budget(topo, channel_loads_bytes(topo)),
    }
}

/// [`check_analysis`] for a binary fat-tree: whether [`fat_tree_loads`] on `tree` fits the
/// memory budget.
///
/// # Errors
///
/// [`LoadError::OverMemoryBudget`] with the estimate ([`fat_tree_loads_bytes`]).
pub fn check_fat_tree_loads(tree: &FatTree) -> Result<(), LoadError> {
    check_budget(tree, fat_tree_loads_bytes(tree))
}

fn check_budget<T: Topology + ?Sized>(topo: &T, estimate: u128) -> Result<(), LoadError> {
    let max = fatnet_topology::MEMORY_BUDGET;
    if estimate > u128::from(max) {
        Err(LoadError::OverMemoryBudget {
            what: topo.name(),
            estimate: u64::try_from(estimate).unwrap_or(u64::MAX),
            max,
        })
    } else {
        Ok(())
    }
}

fatnet_topology::named_options! {
    /// The rule of a [`PathSelection`], as users name it (`--paths`).
    pub enum PathRule("path rule") {
        /// The topology's standard oblivious routing: canonical on the hypercube, d-mod-k on
        /// trees.
        Standard = "standard",
        /// Always the first shortest path (leftmost up-links).
        First = "first",
        /// A uniformly random shortest path per message (seeded).
        Random = "random",
    }
}

impl Default for PathRule {
    /// [`PathRule::Standard`], every front end's default (`--paths`, Python's `paths=`).
    fn default() -> Self {
        PathRule::Standard
    }
}

impl PathSelection {
    /// The selection of `rule`; `seed` seeds [`PathRule::Random`] and is ignored otherwise.
    pub fn new(rule: PathRule, seed: u64) -> PathSelection {
        match rule {
            PathRule::Standard => PathSelection::Standard,
            PathRule::First => PathSelection::First,
            PathRule::Random => PathSelection::Random { seed },
        }
    }
}

/// Which shortest path each message takes, on topologies with several.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PathSelection {
    /// The topology's standard oblivious routing ([`Topology::standard_path_index`]): the
    /// canonical path on the hypercube, d-mod-k on multi-path trees.
    #[default]
    Standard,
    /// Always path index 0 (the leftmost up-links on trees).
    First,
    /// A uniformly random shortest path per message, from one `Pcg64` stream seeded with
    /// `seed` and consumed in message order.
    Random {
        /// The seed.
        seed: u64,
    },
}

/// An exact load factor `load / capacity`, with the bundle that attains it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadFactor {
    /// Messages through the bundle.
    pub load: u64,
    /// Capacity of the bundle (at least 1).
    pub capacity: u64,
    /// The bundle, or `None` for an empty message set.
    pub bundle: Option<BundleId>,
}

impl LoadFactor {
    /// The load factor of an empty message set: 0.
    pub const ZERO: LoadFactor = LoadFactor {
        load: 0,
        capacity: 1,
        bundle: None,
    };

    /// λ as a float (for display; compare [`LoadFactor`]s exactly with [`LoadFactor::cmp_value`]).
    pub fn value(&self) -> f64 {
        self.load as f64 / self.capacity as f64
    }

    /// `⌈λ⌉`, the lower bound on delivery cycles.
    pub fn ceil(&self) -> u64 {
        self.load.div_ceil(self.capacity)
    }

    /// Whether λ > 1, i.e. the set is not deliverable in one cycle.
    pub fn exceeds_one(&self) -> bool {
        self.load > self.capacity
    }

    /// Exact comparison of the two ratios (ignoring which bundle attains them).
    pub fn cmp_value(&self, other: &LoadFactor) -> Ordering {
        (u128::from(self.load) * u128::from(other.capacity))
            .cmp(&(u128::from(other.load) * u128::from(self.capacity)))
    }
}

/// The load of one channel under a routing, against its capacity
/// ([`LoadReport::hottest_channels`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelLoad {
    /// The channel.
    pub channel: ChannelId,
    /// Messages routed over it.
    pub load: u64,
    /// Its capacity (at least 1).
    pub capacity: u64,
}

impl ChannelLoad {
    /// `load / capacity` as a float (for display).
    pub fn value(&self) -> f64 {
        self.load as f64 / self.capacity as f64
    }

    /// Exact comparison of the two ratios `load / capacity`.
    pub fn cmp_value(&self, other: &ChannelLoad) -> Ordering {
        (u128::from(self.load) * u128::from(other.capacity))
            .cmp(&(u128::from(other.load) * u128::from(self.capacity)))
    }
}

/// Per-channel loads of a message set routed on a topology, with path statistics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelLoads {
    /// `load(M, c)` for every channel `c`, indexed by `ChannelId`.
    pub per_channel: Vec<u64>,
    /// Number of messages.
    pub messages: u64,
    /// Longest path, in channels.
    pub dilation: u64,
    /// Sum of all path lengths (equals the sum of the channel loads).
    pub total_path_length: u64,
}

/// Loads of every channel on any topology, by walking each message's path.
///
/// `O(Σ path lengths)`. For the binary fat-tree prefer [`fat_tree_loads`] (same result,
/// `O(|M| + n)`); [`analyze`] picks it automatically.
///
/// # Errors
///
/// [`LoadError::ProcessorMismatch`] when the message set has more processors than `topo`.
/// [`LoadError::OverMemoryBudget`] when the per-channel tables ([`channel_loads_bytes`]) would
/// exceed [`fatnet_topology::MEMORY_BUDGET`].
pub fn channel_loads<T: Topology + ?Sized>(
    topo: &T,
    messages: &MessageSet,
    selection: PathSelection,
) -> Result<ChannelLoads, LoadError> {
    check_processors(topo, messages)?;
    check_budget(topo, channel_loads_bytes(topo))?;
    let mut per_channel = vec![0u64; topo.num_channels() as usize];
    let mut rng = match selection {
        PathSelection::Random { seed } => Some(Pcg64::seed_from_u64(seed)),
        _ => None,
    };
    let mut path = Vec::new();
    let (mut dilation, mut total) = (0u64, 0u64);
    for m in messages.messages() {
        let index = match selection {
            PathSelection::First => 0,
            PathSelection::Standard => topo.standard_path_index(m.src, m.dst),
            PathSelection::Random { .. } => {
                let count = topo.path_count(m.src, m.dst);
                let rng = rng.as_mut().expect("seeded above");
                if count == 1 {
                    0
                } else {
                    rng.random_range(0..count)
                }
            }
        };
        topo.path_into(m.src, m.dst, index, &mut path);
        for c in &path {
            per_channel[c.index()] += 1;
        }
        dilation = dilation.max(path.len() as u64);
        total += path.len() as u64;
    }
    Ok(ChannelLoads {
        per_channel,
        messages: messages.len() as u64,
        dilation,
        total_path_length: total,
    })
}

/// Loads of every channel of a binary fat-tree in `O(|M| + n)`: one pass over the messages,
/// one pass over the tree.
///
/// For tree node `v`, let `S(v)`, `D(v)` and `I(v)` count the messages whose source, whose
/// destination, and whose lowest common ancestor lie in the subtree of `v`. A message leaves
/// the subtree through `up(v)` exactly when its source is inside and its LCA is not, so
/// `load(up(v)) = S(v) − I(v)` and `load(down(v)) = D(v) − I(v)`. The message pass adds 1 at
/// the source leaf, the destination leaf and the LCA; the tree pass sums subtrees bottom-up.
///
/// # Errors
///
/// [`LoadError::ProcessorMismatch`] when the message set has more processors than `tree`.
/// [`LoadError::OverMemoryBudget`] when [`fat_tree_loads_bytes`] exceeds
/// [`fatnet_topology::MEMORY_BUDGET`].
pub fn fat_tree_loads(tree: &FatTree, messages: &MessageSet) -> Result<ChannelLoads, LoadError> {
    check_processors(tree, messages)?;
    check_budget(tree, fat_tree_loads_bytes(tree))?;
    let n = tree.n() as usize;
    // Counts per heap node 1..2n (index 0 unused). A MessageSet holds at most
    // `fatnet_traffic::MAX_MESSAGES` = u32::MAX messages, so u32 counters are exact and halve
    // the memory traffic of the random-access increments.
    let mut src = vec![0u32; 2 * n];
    let mut dst = vec![0u32; 2 * n];
    let mut lca = vec![0u32; 2 * n];
    let (mut dilation, mut total) = (0u32, 0u64);
    for m in messages.messages() {
        let h = 32 - (m.src ^ m.dst).leading_zeros();
        let a = n + m.src as usize;
        src[a] += 1;
        dst[n + m.dst as usize] += 1;
        lca[a >> h] += 1;
        dilation = dilation.max(h);
        total += u64::from(h);
    }
    for v in (1..n).rev() {
        src[v] = src[2 * v] + src[2 * v + 1];
        dst[v] = dst[2 * v] + dst[2 * v + 1];
        lca[v] += lca[2 * v] + lca[2 * v + 1];
    }
    let mut per_channel = Vec::with_capacity(2 * (2 * n - 1));
    for v in 1..2 * n {
        per_channel.push(u64::from(src[v] - lca[v]));
        per_channel.push(u64::from(dst[v] - lca[v]));
    }
    Ok(ChannelLoads {
        per_channel,
        messages: messages.len() as u64,
        dilation: 2 * u64::from(dilation),
        total_path_length: 2 * total,
    })
}

/// Loads of every channel of a binary fat-tree when every message leaves the tree through the
/// root's external channel (Greenberg–Leiserson's "routing out the root", Theorem 9): the up
/// channel above node `v` carries the messages whose source is below `v`; down channels carry
/// nothing. `O(|M| + n)`.
///
/// # Errors
///
/// [`LoadError::ProcessorMismatch`] when the message set has more processors than `tree`.
/// [`LoadError::OverMemoryBudget`] when [`fat_tree_loads_bytes`] exceeds
/// [`fatnet_topology::MEMORY_BUDGET`].
pub fn fat_tree_loads_out_the_root(
    tree: &FatTree,
    messages: &MessageSet,
) -> Result<ChannelLoads, LoadError> {
    check_processors(tree, messages)?;
    check_budget(tree, fat_tree_loads_bytes(tree))?;
    let n = tree.n() as usize;
    let mut src = vec![0u64; 2 * n];
    for m in messages.messages() {
        src[n + m.src as usize] += 1;
    }
    for v in (1..n).rev() {
        src[v] = src[2 * v] + src[2 * v + 1];
    }
    let mut per_channel = vec![0u64; 2 * (2 * n - 1)];
    for v in 1..2 * n {
        per_channel[2 * (v - 1)] = src[v];
    }
    let path = u64::from(tree.levels()) + 1;
    Ok(ChannelLoads {
        per_channel,
        messages: messages.len() as u64,
        dilation: if messages.is_empty() { 0 } else { path },
        total_path_length: path * messages.len() as u64,
    })
}

/// Everything `fatnet load` reports about a message set on a topology.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoadReport {
    /// Per-channel loads and path statistics.
    pub loads: ChannelLoads,
    /// `load(M, b)` for every bundle `b`, or `None` when every bundle is one channel with the
    /// same id (then the bundle loads are `loads.per_channel`); read it with
    /// [`LoadReport::per_bundle`].
    bundle_loads: Option<Vec<u64>>,
    /// λ(M) over bundles, with the bundle that attains it (the lowest id among ties).
    pub load_factor: LoadFactor,
    /// The largest number of messages on one channel.
    pub congestion: u64,
    /// The channel that carries `congestion` messages (the lowest id among ties).
    pub congestion_channel: Option<ChannelId>,
}

impl LoadReport {
    /// Aggregates channel loads into bundle loads, λ and congestion.
    pub fn new<T: Topology + ?Sized>(topo: &T, loads: ChannelLoads) -> Self {
        let mut per_bundle = vec![0u64; topo.num_bundles() as usize];
        let mut congestion = 0;
        let mut congestion_channel = None;
        for (c, &l) in loads.per_channel.iter().enumerate() {
            if l == 0 {
                continue;
            }
            let ch = ChannelId(c as u32);
            per_bundle[topo.channel(ch).bundle.index()] += l;
            if l > congestion {
                congestion = l;
                congestion_channel = Some(ch);
            }
        }
        let mut load_factor = LoadFactor::ZERO;
        for (b, &l) in per_bundle.iter().enumerate() {
            if l == 0 {
                continue;
            }
            let cand = LoadFactor {
                load: l,
                capacity: topo.bundle_capacity(BundleId(b as u32)),
                bundle: Some(BundleId(b as u32)),
            };
            if cand.cmp_value(&load_factor) == Ordering::Greater {
                load_factor = cand;
            }
        }
        let identity = topo.num_bundles() == topo.num_channels()
            && (0..topo.num_channels()).all(|c| topo.channel(ChannelId(c)).bundle.0 == c);
        Self {
            loads,
            bundle_loads: (!identity).then_some(per_bundle),
            load_factor,
            congestion,
            congestion_channel,
        }
    }

    /// `load(M, b)` for every bundle `b`, indexed by `BundleId`.
    pub fn per_bundle(&self) -> &[u64] {
        self.bundle_loads
            .as_deref()
            .unwrap_or(&self.loads.per_channel)
    }

    /// [`LoadReport::new`] for the binary fat-tree, where bundles are channels and capacities
    /// depend only on the height: one pass over the channels, level by level, without
    /// building a [`fatnet_topology::Channel`] per channel.
    ///
    /// # Panics
    ///
    /// If `loads` does not have one entry per channel of `tree`.
    pub fn for_fat_tree(tree: &FatTree, loads: ChannelLoads) -> Self {
        assert_eq!(loads.per_channel.len(), tree.num_channels() as usize);
        let mut congestion = 0;
        let mut congestion_channel = None;
        let mut load_factor = LoadFactor::ZERO;
        // Tree nodes of depth k are heap numbers 2^k..2^(k+1); their channels are contiguous.
        for depth in 0..=tree.levels() {
            let capacity = tree.capacity_at_height(tree.levels() - depth);
            let first = 2 * ((1usize << depth) - 1);
            let chunk = &loads.per_channel[first..first + (2usize << depth)];
            // Lowest index of the maximum in this level.
            let (mut best, mut at) = (0u64, 0usize);
            for (i, &l) in chunk.iter().enumerate() {
                if l > best {
                    best = l;
                    at = i;
                }
            }
            if best == 0 {
                continue;
            }
            let c = (first + at) as u32;
            // Levels come in increasing channel order, so strict comparisons keep the lowest id
            // among ties, as in `LoadReport::new`.
            if best > congestion {
                congestion = best;
                congestion_channel = Some(ChannelId(c));
            }
            let cand = LoadFactor {
                load: best,
                capacity,
                bundle: Some(BundleId(c)),
            };
            if cand.cmp_value(&load_factor) == Ordering::Greater {
                load_factor = cand;
            }
        }
        Self {
            bundle_loads: None,
            loads,
            load_factor,
            congestion,
            congestion_channel,
        }
    }

    /// The `k` bundles of largest load factor, worst first (ties by lower id).
    ///
    /// Keeps at most `k` candidates at a time (not one per loaded bundle, which on a large
    /// network is gigabytes), so `O(bundles · log k)` time and `O(k)` memory for small `k`.
    pub fn hottest_bundles<T: Topology + ?Sized>(&self, topo: &T, k: usize) -> Vec<LoadFactor> {
        let candidates = self
            .per_bundle()
            .iter()
            .enumerate()
            .filter(|&(_, &l)| l > 0)
            .map(|(b, &l)| LoadFactor {
                load: l,
                capacity: topo.bundle_capacity(BundleId(b as u32)),
                bundle: Some(BundleId(b as u32)),
            });
        top_k(candidates, k, |x, y| {
            y.cmp_value(x).then(x.bundle.cmp(&y.bundle)) == Ordering::Greater
        })
    }

    /// The `k` channels of largest `load / capacity` under the routing of the analysis (its
    /// [`PathSelection`]), worst first; ties by the larger load, then the lower id. Unlike
    /// [`LoadReport::hottest_bundles`] these depend on the routing: on unit capacities the
    /// first one carries [`LoadReport::congestion`] messages.
    ///
    /// Keeps at most `k` candidates: `O(channels · log k)` time and `O(k)` memory for small `k`.
    pub fn hottest_channels<T: Topology + ?Sized>(&self, topo: &T, k: usize) -> Vec<ChannelLoad> {
        let candidates = self
            .loads
            .per_channel
            .iter()
            .enumerate()
            .filter(|&(_, &l)| l > 0)
            .map(|(c, &l)| {
                let channel = ChannelId(c as u32);
                ChannelLoad {
                    channel,
                    load: l,
                    capacity: topo.channel(channel).capacity,
                }
            });
        top_k(candidates, k, |x, y| {
            y.cmp_value(x)
                .then(y.load.cmp(&x.load))
                .then(x.channel.cmp(&y.channel))
                == Ordering::Greater
        })
    }

    /// Whether every bundle carries at most its capacity (a one-cycle message set).
    pub fn is_one_cycle(&self) -> bool {
        !self.load_factor.exceeds_one()
    }
}

/// Loads, λ, congestion and dilation of `messages` on `topo`, using the `O(|M| + n)`
/// computation on binary fat-trees and path walking elsewhere.
///
/// # Errors
///
/// [`LoadError::ProcessorMismatch`] when the message set has more processors than `topo`.
/// [`LoadError::OverMemoryBudget`] as [`check_analysis`].
pub fn analyze(
    topo: &AnyTopology,
    messages: &MessageSet,
    selection: PathSelection,
) -> Result<LoadReport, LoadError> {
    Ok(match topo.as_fat_tree() {
        Some(tree) => LoadReport::for_fat_tree(tree, fat_tree_loads(tree, messages)?),
        None => LoadReport::new(topo, channel_loads(topo, messages, selection)?),
    })
}

/// Congestion (largest number of paths on one channel) and dilation (longest path) of an
/// explicit path set.
///
/// # Errors
///
/// [`LoadError::ChannelOutOfRange`] when a path names a channel `topo` does not have.
/// [`LoadError::OverMemoryBudget`] when a `u64` per channel exceeds the memory budget.
pub fn congestion_and_dilation<T: Topology + ?Sized>(
    topo: &T,
    paths: &[Vec<ChannelId>],
) -> Result<(u64, u64), LoadError> {
    let channels = topo.num_channels();
    check_budget(topo, u128::from(channels) * 8)?;
    let mut load = vec![0u64; channels as usize];
    let mut dilation = 0u64;
    for (i, p) in paths.iter().enumerate() {
        for c in p {
            if c.0 >= channels {
                return Err(LoadError::ChannelOutOfRange {
                    path: i,
                    channel: c.0,
                    channels,
                });
            }
            load[c.index()] += 1;
        }
        dilation = dilation.max(p.len() as u64);
    }
    Ok((load.into_iter().max().unwrap_or(0), dilation))
}

fn check_processors<T: Topology + ?Sized>(topo: &T, m: &MessageSet) -> Result<(), LoadError> {
    if m.processors() > topo.num_processors() {
        return Err(LoadError::ProcessorMismatch {
            messages: u64::from(m.processors()),
            topology: u64::from(topo.num_processors()),
        });
    }
    Ok(())
}

/// The `k` best of `candidates`, best first, where `worse(x, y)` says `x` ranks below `y`:
/// at most `k` are held at a time (a sorted insertion), so `O(n · log k)` time and `O(k)`
/// memory however many candidates there are.
fn top_k<T>(
    candidates: impl Iterator<Item = T>,
    k: usize,
    worse: impl Fn(&T, &T) -> bool,
) -> Vec<T> {
    let mut best: Vec<T> = Vec::new();
    if k == 0 {
        return best;
    }
    for cand in candidates {
        if best.len() == k && !worse(best.last().expect("k > 0"), &cand) {
            continue;
        }
        // `best` is sorted worst-last: insert after every entry not worse than `cand`.
        let at = best.partition_point(|x| !worse(x, &cand));
        best.insert(at, cand);
        best.truncate(k);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use fatnet_topology::CapacityProfile;
    use fatnet_traffic::Message;

    fn set(n: u32, pairs: &[(u32, u32)]) -> MessageSet {
        MessageSet::new(
            n,
            pairs
                .iter()
                .map(|&(src, dst)| Message { src, dst })
                .collect(),
        )
        .unwrap()
    }

    fn over_budget<T>(r: Result<T, LoadError>, name: &str) {
        match r {
            Err(LoadError::OverMemoryBudget {
                what,
                estimate,
                max,
            }) => {
                assert!(what.starts_with(name), "{what}");
                assert!(estimate > max);
                assert_eq!(max, fatnet_topology::MEMORY_BUDGET);
            }
            Err(e) => panic!("{name}: expected OverMemoryBudget, got {e:?}"),
            Ok(_) => panic!("{name}: expected OverMemoryBudget, got Ok"),
        }
    }

    #[test]
    fn analyses_over_the_memory_budget_are_refused_before_allocating() {
        let spec = |s: &str| {
            s.parse::<fatnet_topology::TopologySpec>()
                .unwrap()
                .build()
                .unwrap()
        };
        for name in [
            "hypercube:d=24",
            "bft:n=1073741824",
            "fattree:n=1073741824,profile=doubling,leaf=1",
            "fattree:n=67108864,profile=doubling,leaf=1",
        ] {
            let topo = spec(name);
            over_budget(check_analysis(&topo), name);
            let empty = MessageSet::new(1, vec![]).unwrap();
            over_budget(analyze(&topo, &empty, PathSelection::First), name);
            if let Some(tree) = topo.as_fat_tree() {
                over_budget(fat_tree_loads(tree, &empty), name);
                over_budget(fat_tree_loads_out_the_root(tree, &empty), name);
            } else {
                over_budget(channel_loads(&topo, &empty, PathSelection::First), name);
            }
        }
        for name in [
            "hypercube:d=20",
            "fattree:n=33554432,profile=doubling,leaf=1",
        ] {
            assert_eq!(check_analysis(&spec(name)), Ok(()), "{name}");
        }
    }

    #[test]
    fn hottest_bundles_are_the_sorted_prefix() {
        let topo = fatnet_topology::TopologySpec::Bft { n: 64 }
            .build()
            .unwrap();
        let mut rng = Pcg64::seed_from_u64(5);
        let pairs: Vec<(u32, u32)> = (0..300)
            .map(|_| (rng.random_range(0..64), rng.random_range(0..64)))
            .collect();
        let report = analyze(&topo, &set(64, &pairs), PathSelection::First).unwrap();
        let mut all: Vec<LoadFactor> = report
            .per_bundle()
            .iter()
            .enumerate()
            .filter(|&(_, &l)| l > 0)
            .map(|(b, &l)| LoadFactor {
                load: l,
                capacity: topo.bundle_capacity(BundleId(b as u32)),
                bundle: Some(BundleId(b as u32)),
            })
            .collect();
        all.sort_by(|x, y| y.cmp_value(x).then(x.bundle.cmp(&y.bundle)));
        for k in [0, 1, 2, 5, 17, all.len(), all.len() + 10] {
            let top = report.hottest_bundles(&topo, k);
            assert_eq!(top, all[..k.min(all.len())], "k = {k}");
        }
    }

    #[test]
    fn hottest_channels_are_the_sorted_prefix_by_load_over_capacity() {
        let mut rng = Pcg64::seed_from_u64(9);
        // Doubling capacities (ratios differ from loads) and a k-ary n-tree's first paths.
        for (topo, n) in [
            (
                FatTree::new(32, CapacityProfile::Doubling { leaf: 1 })
                    .unwrap()
                    .into(),
                32,
            ),
            (
                fatnet_topology::TopologySpec::KAryNTree { k: 4, levels: 3 }
                    .build()
                    .unwrap(),
                64,
            ),
        ] {
            let topo: AnyTopology = topo;
            let pairs: Vec<(u32, u32)> = (0..200)
                .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
                .collect();
            let report = analyze(&topo, &set(n, &pairs), PathSelection::First).unwrap();
            let mut all: Vec<ChannelLoad> = report
                .loads
                .per_channel
                .iter()
                .enumerate()
                .filter(|&(_, &l)| l > 0)
                .map(|(c, &l)| ChannelLoad {
                    channel: ChannelId(c as u32),
                    load: l,
                    capacity: topo.channel(ChannelId(c as u32)).capacity,
                })
                .collect();
            all.sort_by(|x, y| {
                y.cmp_value(x)
                    .then(y.load.cmp(&x.load))
                    .then(x.channel.cmp(&y.channel))
            });
            // The ratios are not all equal: the order is tested.
            assert!(all.first().unwrap().cmp_value(all.last().unwrap()) == Ordering::Greater);
            for k in [0, 1, 3, 10, all.len(), all.len() + 4] {
                let top = report.hottest_channels(&topo, k);
                assert_eq!(top, all[..k.min(all.len())], "k = {k}");
            }
            let unit = (0..topo.num_channels()).all(|c| topo.channel(ChannelId(c)).capacity == 1);
            // The k-ary n-tree has unit links; the doubling tree does not.
            assert_eq!(unit, n == 64);
            if unit {
                let first = report.hottest_channels(&topo, 1)[0];
                assert_eq!(first.load, report.congestion);
                assert_eq!(Some(first.channel), report.congestion_channel);
            }
        }
    }

    #[test]
    fn fast_fat_tree_loads_equal_path_walking() {
        let tree = FatTree::new(8, CapacityProfile::Constant(1)).unwrap();
        let m = set(8, &[(0, 7), (1, 2), (3, 3), (7, 0), (4, 5), (4, 5), (2, 6)]);
        let fast = fat_tree_loads(&tree, &m).unwrap();
        let slow = channel_loads(&tree, &m, PathSelection::First).unwrap();
        assert_eq!(fast, slow);
        assert_eq!(fast.dilation, 6);
        // (3,3) is a self-message: no channels.
        assert_eq!(
            fast.total_path_length,
            [6, 4, 6, 2, 2, 6].iter().sum::<u64>()
        );
    }

    #[test]
    fn load_factor_is_exact_and_names_the_bundle() {
        // Complement on n = 8 with unit capacities: every message crosses the root, so the
        // two root-child up channels carry 4 messages each: λ = 4.
        let tree = FatTree::new(8, CapacityProfile::Constant(1)).unwrap();
        let m = set(8, &(0..8).map(|i| (i, 7 - i)).collect::<Vec<_>>());
        let r = analyze(&tree.clone().into(), &m, PathSelection::Standard).unwrap();
        assert_eq!((r.load_factor.load, r.load_factor.capacity), (4, 1));
        assert_eq!(
            r.load_factor.bundle,
            Some(BundleId(FatTree::up_channel(2).0))
        );
        assert_eq!(r.congestion, 4);
        assert!(!r.is_one_cycle());
        // Full bisection (doubling) carries the complement in one cycle.
        let full = FatTree::new(8, CapacityProfile::Doubling { leaf: 1 }).unwrap();
        let r = analyze(&full.into(), &m, PathSelection::Standard).unwrap();
        assert!(r.is_one_cycle());
        assert_eq!(r.load_factor.ceil(), 1);
    }

    #[test]
    fn fat_tree_report_equals_the_generic_report() {
        let tree = FatTree::universal(64, 16).unwrap();
        let pairs: Vec<(u32, u32)> = (0..200u32)
            .map(|i| ((i * 37) % 64, (i * 11 + 5) % 64))
            .collect();
        let m = set(64, &pairs);
        let loads = fat_tree_loads(&tree, &m).unwrap();
        let fast = LoadReport::for_fat_tree(&tree, loads.clone());
        let generic = LoadReport::new(&tree, loads);
        assert_eq!(fast, generic);
        assert!(fast.load_factor.load > 0);
    }

    #[test]
    fn out_the_root_loads_count_sources_below_each_channel() {
        let tree = FatTree::new(4, CapacityProfile::Constant(2)).unwrap();
        let m = set(4, &[(0, 0), (0, 3), (1, 2), (3, 3)]);
        let l = fat_tree_loads_out_the_root(&tree, &m).unwrap();
        assert_eq!(l.per_channel[FatTree::up_channel(1).index()], 4); // external
        assert_eq!(l.per_channel[FatTree::up_channel(2).index()], 3);
        assert_eq!(l.per_channel[FatTree::up_channel(4).index()], 2);
        assert_eq!(l.per_channel[FatTree::down_channel(4).index()], 0);
        assert_eq!(l.per_channel.iter().sum::<u64>(), l.total_path_length);
        let r = LoadReport::for_fat_tree(&tree, l);
        assert_eq!((r.load_factor.load, r.load_factor.capacity), (4, 2));
    }

    #[test]
    fn empty_set_has_zero_load_factor() {
        let tree = FatTree::new(4, CapacityProfile::Constant(1)).unwrap();
        let r = analyze(&tree.into(), &set(4, &[]), PathSelection::Standard).unwrap();
        assert_eq!(r.load_factor, LoadFactor::ZERO);
        assert_eq!(r.congestion, 0);
        assert_eq!(r.congestion_channel, None);
    }

    #[test]
    fn too_many_processors_is_an_error() {
        let tree = FatTree::new(4, CapacityProfile::Constant(1)).unwrap();
        assert_eq!(
            fat_tree_loads(&tree, &set(8, &[(0, 7)])),
            Err(LoadError::ProcessorMismatch {
                messages: 8,
                topology: 4
            })
        );
    }

    #[test]
    fn exact_comparison_distinguishes_close_ratios() {
        let a = LoadFactor {
            load: 1_000_000_001,
            capacity: 1_000_000_000,
            bundle: None,
        };
        let b = LoadFactor {
            load: 1_000_000_000,
            capacity: 999_999_999,
            bundle: None,
        };
        assert_eq!(a.cmp_value(&b), Ordering::Less);
        assert!(a.exceeds_one());
        assert_eq!(a.ceil(), 2);
    }
}
