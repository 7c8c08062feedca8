//! A topology compiled for the packet engine: links (one per wire), the inputs every node
//! scans, which links end at a terminal's sink, and the shortest-path next hops.

use std::collections::VecDeque;

use fatnet_topology::{AnyTopology, ButterflyFatTree, NodeKind, Processor, Topology};
use rand::Rng;

use super::PacketError;

/// Marker for "no such node / no processor".
pub(crate) const NONE: u32 = u32::MAX;

/// Most links (wires) and most nodes the engine simulates: its state is about 80 bytes per
/// link, so this keeps a run under about 3 GB.
pub const MAX_LINKS: u64 = 1 << 25;

/// Largest `processors × nodes` for which a network without arithmetic next hops gets a
/// distance table (two bytes per entry: 256 MiB).
pub const MAX_TABLE_ENTRIES: u64 = 1 << 27;

/// How the next hops of a head are found.
#[derive(Debug, Clone)]
enum Hops {
    /// Greenberg–Oh's butterfly fat-tree, by index arithmetic.
    Bft {
        bft: ButterflyFatTree,
        level: Vec<u8>,
        index: Vec<u32>,
    },
    /// The hypercube: one arc per differing dimension, lowest dimension first.
    Hypercube { d: u32 },
    /// Any other topology: BFS distances to every destination's ejection node.
    Table {
        /// `dist[dst · nodes + v]`, hops from `v` to `dst`'s ejection node (`u16::MAX`:
        /// unreachable).
        dist: Vec<u16>,
        /// Outgoing links of every node, CSR.
        out_start: Vec<u32>,
        out: Vec<u32>,
    },
}

/// A topology compiled for the synchronous packet engine ([`super::simulate`]).
///
/// **Links are wires.** A channel of capacity `k` (a bundle of `k` wires on Leiserson's
/// fat-trees) becomes `k` links, each moving at most one flit per step and each with its own
/// queue; a head may take any wire of a channel on a shortest path. On Greenberg–Oh's
/// butterfly fat-tree and on the hypercube every channel is one wire and link ids are channel
/// ids.
///
/// **Queues.** Every link has a FIFO queue at its head node. A node scans, as its *inputs*,
/// the queues of the links entering it (in channel-id order: on trees the up links from the
/// children come first, then the down links from the parents) followed by the injection queue
/// of the processor it hosts, if any.
///
/// **Terminals.** A processor node that forwards nothing (a leaf: at most one outgoing link)
/// is a *terminal*; the links entering it are *ejection links*, whose queue is the
/// processor's input buffer, drained by the processor one unit per step (Greenberg–Oh,
/// notes §2.6) unless the run's [`super::SinkModel`] absorbs units at once. A processor that
/// also routes (a hypercube node) absorbs the units addressed to it on arrival.
#[derive(Debug, Clone)]
pub struct PacketNet {
    topology: AnyTopology,
    processors: u32,
    nodes: u32,
    pub(crate) link_head: Vec<u32>,
    pub(crate) link_tail: Vec<u32>,
    link_channel: Vec<u32>,
    channel_first_link: Vec<u32>,
    pub(crate) inputs_start: Vec<u32>,
    pub(crate) inputs: Vec<u32>,
    pub(crate) ejection: Vec<bool>,
    pub(crate) injection_node: Vec<u32>,
    pub(crate) ejection_node: Vec<u32>,
    /// Whether every processor's sink node is a terminal.
    pub(crate) terminal_sinks: bool,
    /// Outgoing links of every node (CSR, link-id order).
    out_start: Vec<u32>,
    out_links: Vec<u32>,
    hops: Hops,
    max_hops: u32,
}

impl PacketNet {
    /// Compiles `topology`.
    ///
    /// # Errors
    ///
    /// [`PacketError::TooLarge`] when the topology has more than [`MAX_LINKS`] wires or nodes or needs a
    /// distance table of more than [`MAX_TABLE_ENTRIES`] entries (every topology except the
    /// butterfly fat-tree and the hypercube), and [`PacketError::Unroutable`] when some
    /// processor cannot reach another.
    pub fn new(topology: impl Into<AnyTopology>) -> Result<Self, PacketError> {
        let topology = topology.into();
        let t = topology.as_dyn();
        let nodes = t.num_nodes();
        let channels = t.num_channels();
        let processors = t.num_processors();

        let too_large = |what, value| PacketError::TooLarge {
            what,
            value,
            max: MAX_LINKS,
        };
        if u64::from(nodes) > MAX_LINKS {
            return Err(too_large("nodes", u64::from(nodes)));
        }
        if u64::from(channels) > MAX_LINKS {
            return Err(too_large("wires", u64::from(channels)));
        }
        let mut channel_first_link = Vec::with_capacity(channels as usize + 1);
        let mut total: u64 = 0;
        for c in 0..channels {
            channel_first_link.push(total as u32);
            total += t.channel(fatnet_topology::ChannelId(c)).capacity;
            if total > MAX_LINKS {
                return Err(too_large("wires", total));
            }
        }
        channel_first_link.push(total as u32);
        let links = total as u32;
        let mut link_head = Vec::with_capacity(links as usize);
        let mut link_tail = Vec::with_capacity(links as usize);
        let mut link_channel = Vec::with_capacity(links as usize);
        for c in 0..channels {
            let ch = t.channel(fatnet_topology::ChannelId(c));
            for _ in 0..ch.capacity {
                link_head.push(ch.to.0);
                link_tail.push(ch.from.0);
                link_channel.push(c);
            }
        }

        let injection_node: Vec<u32> = (0..processors).map(|p| t.injection_node(p).0).collect();
        let ejection_node: Vec<u32> = (0..processors).map(|p| t.ejection_node(p).0).collect();
        // Distinct out-neighbours of every node, up to 2 (wires of one channel count once).
        let mut neighbour = vec![NONE; nodes as usize];
        let mut branching = vec![false; nodes as usize];
        for (&tail, &head) in link_tail.iter().zip(&link_head) {
            let slot = &mut neighbour[tail as usize];
            if *slot == NONE {
                *slot = head;
            } else if *slot != head {
                branching[tail as usize] = true;
            }
        }
        let mut terminal = vec![false; nodes as usize];
        for &v in &ejection_node {
            let kind = t.node(fatnet_topology::NodeId(v)).kind;
            let leaf = !branching[v as usize];
            terminal[v as usize] =
                neighbour[v as usize] == NONE || (kind != NodeKind::Switch && leaf);
        }
        let ejection: Vec<bool> = link_head.iter().map(|&h| terminal[h as usize]).collect();
        let terminal_sinks = ejection_node.iter().all(|&v| terminal[v as usize]);

        // Inputs: forwarding links by id, then the injection queue (id links + p).
        let mut hosted: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
        for (p, &v) in injection_node.iter().enumerate() {
            hosted[v as usize].push(links + p as u32);
        }
        let mut per_node: Vec<Vec<u32>> = vec![Vec::new(); nodes as usize];
        for (e, &h) in link_head.iter().enumerate() {
            if !ejection[e] {
                per_node[h as usize].push(e as u32);
            }
        }
        let mut inputs_start = Vec::with_capacity(nodes as usize + 1);
        let mut inputs = Vec::new();
        for v in 0..nodes as usize {
            inputs_start.push(inputs.len() as u32);
            inputs.extend_from_slice(&per_node[v]);
            inputs.extend_from_slice(&hosted[v]);
        }
        inputs_start.push(inputs.len() as u32);
        let mut out_start = vec![0u32; nodes as usize + 1];
        for &tail in &link_tail {
            out_start[tail as usize + 1] += 1;
        }
        for v in 0..nodes as usize {
            out_start[v + 1] += out_start[v];
        }
        let mut fill = out_start.clone();
        let mut out_links = vec![0u32; links as usize];
        for (e, &tail) in link_tail.iter().enumerate() {
            out_links[fill[tail as usize] as usize] = e as u32;
            fill[tail as usize] += 1;
        }

        let (hops, max_hops) = match &topology {
            AnyTopology::ButterflyFatTree(b) => {
                let mut level = Vec::with_capacity(nodes as usize);
                let mut index = Vec::with_capacity(nodes as usize);
                for v in 0..nodes {
                    let n = t.node(fatnet_topology::NodeId(v));
                    level.push(n.level as u8);
                    index.push(n.index);
                }
                (
                    Hops::Bft {
                        bft: b.clone(),
                        level,
                        index,
                    },
                    2 * b.levels(),
                )
            }
            AnyTopology::Hypercube(h) => {
                let d = h.dimension();
                (Hops::Hypercube { d }, d)
            }
            _ => Self::table(nodes, processors, &link_head, &link_tail, &ejection_node)?,
        };
        Ok(Self {
            topology,
            processors,
            nodes,
            link_head,
            link_tail,
            link_channel,
            channel_first_link,
            inputs_start,
            inputs,
            ejection,
            injection_node,
            ejection_node,
            terminal_sinks,
            out_start,
            out_links,
            hops,
            max_hops,
        })
    }

    /// BFS distances from every node to every destination, on the reversed links.
    fn table(
        nodes: u32,
        processors: u32,
        link_head: &[u32],
        link_tail: &[u32],
        ejection_node: &[u32],
    ) -> Result<(Hops, u32), PacketError> {
        let entries = u64::from(nodes) * u64::from(processors);
        if entries > MAX_TABLE_ENTRIES {
            return Err(PacketError::TooLarge {
                what: "next-hop table entries (processors × nodes)",
                value: entries,
                max: MAX_TABLE_ENTRIES,
            });
        }
        let n = nodes as usize;
        let csr = |key: &[u32]| {
            let mut start = vec![0u32; n + 1];
            for &k in key {
                start[k as usize + 1] += 1;
            }
            for i in 0..n {
                start[i + 1] += start[i];
            }
            let mut fill = start.clone();
            let mut items = vec![0u32; key.len()];
            for (e, &k) in key.iter().enumerate() {
                items[fill[k as usize] as usize] = e as u32;
                fill[k as usize] += 1;
            }
            (start, items)
        };
        let (out_start, out) = csr(link_tail);
        let (in_start, inn) = csr(link_head);
        let mut dist = vec![u16::MAX; n * processors as usize];
        let mut max_hops = 0u32;
        let mut queue = VecDeque::new();
        for (dst, &target) in ejection_node.iter().enumerate() {
            let row = &mut dist[dst * n..(dst + 1) * n];
            row[target as usize] = 0;
            queue.clear();
            queue.push_back(target);
            while let Some(v) = queue.pop_front() {
                let dv = row[v as usize];
                for &e in &inn[in_start[v as usize] as usize..in_start[v as usize + 1] as usize] {
                    let u = link_tail[e as usize] as usize;
                    if row[u] == u16::MAX {
                        row[u] = dv + 1;
                        queue.push_back(u as u32);
                    }
                }
            }
            max_hops = max_hops.max(u32::from(
                row.iter()
                    .copied()
                    .filter(|&d| d != u16::MAX)
                    .max()
                    .unwrap_or(0),
            ));
        }
        Ok((
            Hops::Table {
                dist,
                out_start,
                out,
            },
            max_hops,
        ))
    }

    /// The compiled topology.
    pub fn topology(&self) -> &AnyTopology {
        &self.topology
    }

    /// Number of processors.
    pub fn processors(&self) -> u32 {
        self.processors
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Number of links (wires).
    pub fn links(&self) -> u32 {
        self.link_head.len() as u32
    }

    /// The node link `link` enters (where its queue is).
    ///
    /// # Panics
    ///
    /// If `link ≥ links()`.
    pub fn link_head(&self, link: u32) -> u32 {
        self.link_head[link as usize]
    }

    /// The node link `link` leaves.
    ///
    /// # Panics
    ///
    /// If `link ≥ links()`.
    pub fn link_tail(&self, link: u32) -> u32 {
        self.link_tail[link as usize]
    }

    /// Whether link `link` enters a terminal (its queue is a processor's input buffer).
    ///
    /// # Panics
    ///
    /// If `link ≥ links()`.
    pub fn is_ejection(&self, link: u32) -> bool {
        self.ejection[link as usize]
    }

    /// The node where processor `p` injects.
    ///
    /// # Panics
    ///
    /// If `p ≥ processors()`.
    pub fn injection_node(&self, p: Processor) -> u32 {
        self.injection_node[p as usize]
    }

    /// The node where units for processor `p` arrive (its sink).
    ///
    /// # Panics
    ///
    /// If `p ≥ processors()`.
    pub fn ejection_node(&self, p: Processor) -> u32 {
        self.ejection_node[p as usize]
    }

    /// The links leaving node `v`, in link-id order.
    ///
    /// # Panics
    ///
    /// If `v ≥ nodes()`.
    pub fn out_links(&self, v: u32) -> &[u32] {
        &self.out_links
            [self.out_start[v as usize] as usize..self.out_start[v as usize + 1] as usize]
    }

    /// The dimension `d` when the network is the `d`-cube (whose link `(i << d) | x` is the arc
    /// from node `x` along dimension `i`, 0-based), else `None`.
    pub fn hypercube_dimension(&self) -> Option<u32> {
        match self.hops {
            Hops::Hypercube { d } => Some(d),
            _ => None,
        }
    }

    /// The channel link `link` is a wire of.
    pub fn channel_of(&self, link: u32) -> fatnet_topology::ChannelId {
        fatnet_topology::ChannelId(self.link_channel[link as usize])
    }

    /// An upper bound on the length of every shortest path.
    pub fn max_hops(&self) -> u32 {
        self.max_hops
    }

    /// Shortest-path length from `src` to `dst` in links.
    pub fn distance(&self, src: Processor, dst: Processor) -> u32 {
        self.topology.distance(src, dst) as u32
    }

    /// The links on shortest paths from `node` towards `dst`, in port order (appended to
    /// `out`, which is cleared first); empty when `node` is `dst`'s ejection node.
    #[inline]
    pub(crate) fn next_hops(&self, node: u32, dst: Processor, out: &mut Vec<u32>) {
        out.clear();
        match &self.hops {
            Hops::Bft { bft, level, index } => {
                let (l, s) = (u32::from(level[node as usize]), index[node as usize]);
                if l == 0 {
                    if s != dst {
                        out.push(bft.up_channel(0, s, 0).0);
                    }
                    return;
                }
                let tree = s >> (l - 1);
                if dst >> (2 * l) == tree {
                    if l == 1 {
                        out.push(bft.down_channel(0, dst, 0).0);
                    } else {
                        // Into dst's level-(l−1) tree node tc: see `ButterflyFatTree::path_into`.
                        let c = l - 1;
                        let tc = dst >> (2 * c);
                        let y = s & ((1 << c) - 1);
                        let child = (tc << (c - 1)) | (y & ((1 << (c - 1)) - 1));
                        let port = ((y >> (c - 1)) ^ tc) & 1;
                        out.push(bft.down_channel(c, child, port).0);
                    }
                } else {
                    out.push(bft.up_channel(l, s, 0).0);
                    out.push(bft.up_channel(l, s, 1).0);
                }
            }
            Hops::Hypercube { d } => {
                let mut diff = node ^ dst;
                while diff != 0 {
                    let bit = diff.trailing_zeros();
                    out.push((bit << d) | node);
                    diff &= diff - 1;
                }
            }
            Hops::Table {
                dist,
                out_start,
                out: outs,
            } => {
                let n = self.nodes as usize;
                let row = &dist[dst as usize * n..(dst as usize + 1) * n];
                let here = row[node as usize];
                if here == 0 || here == u16::MAX {
                    return;
                }
                for &e in
                    &outs[out_start[node as usize] as usize..out_start[node as usize + 1] as usize]
                {
                    if row[self.link_head[e as usize] as usize] == here - 1 {
                        out.push(e);
                    }
                }
            }
        }
    }

    /// The first next hop of [`Self::next_hops`] (dimension order on the hypercube, up port 0
    /// on the trees), without building the list where arithmetic allows.
    #[inline]
    pub(crate) fn first_hop(&self, node: u32, dst: Processor, scratch: &mut Vec<u32>) -> u32 {
        if let Hops::Hypercube { d } = self.hops {
            let bit = (node ^ dst).trailing_zeros();
            return (bit << d) | node;
        }
        self.next_hops(node, dst, scratch);
        scratch[0]
    }

    /// A uniformly random shortest path from `src` to `dst` (uniform over the topology's
    /// numbered paths, then over the wires of each channel), written to `out` as links.
    pub(crate) fn random_path<R: Rng + ?Sized>(
        &self,
        src: Processor,
        dst: Processor,
        rng: &mut R,
        channels: &mut Vec<fatnet_topology::ChannelId>,
        out: &mut Vec<u32>,
    ) {
        let t = self.topology.as_dyn();
        let count = t.path_count(src, dst);
        let index = if count > 1 {
            rng.random_range(0..count)
        } else {
            0
        };
        t.path_into(src, dst, index, channels);
        out.clear();
        for c in channels.iter() {
            let (lo, hi) = (
                self.channel_first_link[c.index()],
                self.channel_first_link[c.index() + 1],
            );
            out.push(if hi - lo > 1 {
                rng.random_range(lo..hi)
            } else {
                lo
            });
        }
    }

    /// The inputs node `v` scans.
    #[inline]
    pub(crate) fn inputs_of(&self, v: u32) -> &[u32] {
        &self.inputs
            [self.inputs_start[v as usize] as usize..self.inputs_start[v as usize + 1] as usize]
    }

    /// Checks that every processor reaches every other one (the distance table has no holes).
    pub(crate) fn check_reachable(
        &self,
        src: Processor,
        dst: Processor,
    ) -> Result<(), PacketError> {
        if let Hops::Table { dist, .. } = &self.hops {
            let v = self.injection_node[src as usize] as usize;
            if dist[dst as usize * self.nodes as usize + v] == u16::MAX {
                return Err(PacketError::Unroutable { src, dst });
            }
        }
        Ok(())
    }
}
