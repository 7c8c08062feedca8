//! Yuan's two-level folded Clos network `ftree(n+m, r)` ([`FoldedClos`]) and the unfolded
//! three-stage `Clos(n, m, r)` ([`Clos`]) (Yuan, *On nonblocking folded-Clos networks*,
//! §III and Table I).

use serde::Serialize;

use crate::{
    BundleId, Channel, ChannelId, Direction, Node, NodeId, NodeKind, Processor, Topology,
    TopologyError, fits_u32,
};

/// Validates `n, m, r >= 1` and that `nodes` and `channels` (functions of `(n, m, r)` in
/// saturating `u128` arithmetic) fit the `u32` ids.
fn validate(
    n: u64,
    m: u64,
    r: u64,
    nodes: impl Fn(u128, u128, u128) -> u128,
    channels: impl Fn(u128, u128, u128) -> u128,
) -> Result<(u32, u32, u32), TopologyError> {
    for (param, value) in [("n", n), ("m", m), ("r", r)] {
        if value == 0 {
            return Err(TopologyError::OutOfRange {
                param,
                value,
                min: 1,
                max: u64::from(u32::MAX),
            });
        }
    }
    let (n2, m2, r2) = (u128::from(n), u128::from(m), u128::from(r));
    fits_u32("channels", channels(n2, m2, r2))?;
    fits_u32("nodes", nodes(n2, m2, r2))?;
    // Every parameter is below the channel count (2rn + 2rm >= 2n, 2m, 2r), so all fit u32.
    Ok((n as u32, m as u32, r as u32))
}

/// `2rn + 2rm`, saturating: the channel count of both networks.
fn clos_channels(n: u128, m: u128, r: u128) -> u128 {
    r.saturating_mul(n)
        .saturating_add(r.saturating_mul(m))
        .saturating_mul(2)
}

/// Yuan's two-level folded Clos network `ftree(n+m, r)`.
///
/// Structure (Yuan, §III and Fig. 1(b)): `r` bottom switches with `n` down ports to
/// processors and `m` up ports, one to each of `m` top switches with `r` ports each; `r·n`
/// processors. Processor (leaf) `x = v·n + k` hangs off bottom switch `v = x / n` at local port
/// `k = x % n` (Yuan's `(v, k)`; the numbering is ours, the paper's figure is missing).
/// Links are bidirectional and each direction is a separate channel of capacity 1, as in the
/// proof of Yuan's Lemma 3.
///
/// Numbering (with `P = r·n`):
///
/// - nodes: processor `x` is `NodeId(x)` (level 0), bottom switch `v` is `NodeId(P + v)`
///   (level 1), top switch `t` is `NodeId(P + r + t)` (level 2);
/// - channels: `LeafUp(x) = x` and `LeafDown(x) = P + x` (level 0), `Up(v, t) = 2P + v·m + t`
///   (bottom `v` → top `t`, level 1, [`Direction::Up`]) and `Down(t, v) = 2P + r·m + v·m + t`
///   (top `t` → bottom `v`, level 1, [`Direction::Down`]);
/// - bundles: each leaf channel is its own bundle (same id as the channel); the `m` up channels
///   leaving bottom switch `v` form bundle `2P + v` and the `m` down channels entering `v` form
///   bundle `2P + r + v`, both of capacity `m`.
///
/// Paths: a pair on one bottom switch turns around there (`[LeafUp(s), LeafDown(d)]`, one
/// path; empty for `s = d`); a pair across bottom switches has `m` paths, path `t` going
/// through top switch `t`. The standard routing is Yuan's "d-mod-m" baseline: top `d mod m`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FoldedClos {
    n: u32,
    m: u32,
    r: u32,
}

impl FoldedClos {
    /// `ftree(n+m, r)`: `r` bottom switches with `n` processors and `m` up links each, `m` top
    /// switches.
    ///
    /// # Errors
    ///
    /// - [`TopologyError::OutOfRange`] when `n`, `m` or `r` is zero;
    /// - [`TopologyError::TooLarge`] when the `2rn + 2rm` channels or the `rn + r + m` nodes do
    ///   not fit `u32` ids.
    pub fn new(n: u64, m: u64, r: u64) -> Result<Self, TopologyError> {
        let (n, m, r) = validate(
            n,
            m,
            r,
            |n, m, r| r.saturating_mul(n).saturating_add(r).saturating_add(m),
            clos_channels,
        )?;
        Ok(Self { n, m, r })
    }

    /// Yuan's nonblocking two-level network `ftree(n+n², n+n²)` built from `N = n+n²`-port
    /// switches (Yuan, Theorem 3 and Table I): `n+n²` bottom switches with `n` processors
    /// and `n²` up links each, `n²` top switches with `n+n²` ports. It has `2n²+n` switches and
    /// `n³+n²` processor ports, and is nonblocking under Yuan's deterministic routing (top
    /// switch `(s mod n)·n + (d mod n)` for a cross pair); the d-mod-m routing of
    /// [`Topology::standard_path_index`] blocks some permutations when `n >= 2`.
    ///
    /// # Errors
    ///
    /// [`TopologyError::OutOfRange`] when `n = 0`; [`TopologyError::TooLarge`] when the network
    /// does not fit `u32` ids (`n > 214`).
    pub fn nonblocking(n: u64) -> Result<Self, TopologyError> {
        let m = n.saturating_mul(n);
        Self::new(n, m, n.saturating_add(m))
    }

    /// The traditional rearrangeably nonblocking `m`-port 2-tree `FT(N, 2)` that Yuan's Table I
    /// compares against (Yuan, §IV discussion; Lin, Chung and Huang): `N` bottom switches
    /// with `N/2` processors and `N/2` up links each, `N/2` top switches with `N` ports, that
    /// is `ftree(N/2 + N/2, N)`. It has `3N/2` switches and `N²/2` processor ports.
    ///
    /// # Errors
    ///
    /// [`TopologyError::OutOfRange`] when `radix = 0`, [`TopologyError::NotEven`] when `radix`
    /// is odd, [`TopologyError::TooLarge`] when the network does not fit `u32` ids.
    pub fn two_level_mport(radix: u64) -> Result<Self, TopologyError> {
        if radix == 0 {
            return Err(TopologyError::OutOfRange {
                param: "radix",
                value: radix,
                min: 2,
                max: u64::from(u32::MAX),
            });
        }
        if !radix.is_multiple_of(2) {
            return Err(TopologyError::NotEven {
                param: "radix",
                value: radix,
            });
        }
        Self::new(radix / 2, radix / 2, radix)
    }

    /// Processors per bottom switch (Yuan's `n`).
    #[inline]
    pub fn n(&self) -> u32 {
        self.n
    }

    /// Up links per bottom switch, and number of top switches (Yuan's `m`).
    #[inline]
    pub fn m(&self) -> u32 {
        self.m
    }

    /// Number of bottom switches, and ports per top switch (Yuan's `r`).
    #[inline]
    pub fn r(&self) -> u32 {
        self.r
    }

    /// Number of processor ports `r·n` (the "# of ports" of Yuan's Table I).
    #[inline]
    pub fn ports(&self) -> u32 {
        self.r * self.n
    }

    /// Ports of a bottom switch, `n + m`.
    #[inline]
    pub fn bottom_radix(&self) -> u32 {
        self.n + self.m
    }

    /// Ports of a top switch, `r`.
    #[inline]
    pub fn top_radix(&self) -> u32 {
        self.r
    }

    /// The bottom switch of processor `x`, `x / n` (Yuan's `SRC`/`DST` switch).
    #[inline]
    pub fn bottom_switch(&self, x: Processor) -> u32 {
        x / self.n
    }

    /// The node of bottom switch `v`.
    #[inline]
    pub fn bottom_node(&self, v: u32) -> NodeId {
        assert!(v < self.r, "bottom switch {v} out of range");
        NodeId(self.ports() + v)
    }

    /// The node of top switch `t`.
    #[inline]
    pub fn top_node(&self, t: u32) -> NodeId {
        assert!(t < self.m, "top switch {t} out of range");
        NodeId(self.ports() + self.r + t)
    }

    /// The channel from processor `x` to its bottom switch.
    #[inline]
    pub fn leaf_up_channel(&self, x: Processor) -> ChannelId {
        assert!(x < self.ports(), "processor {x} out of range");
        ChannelId(x)
    }

    /// The channel from processor `x`'s bottom switch to `x`.
    #[inline]
    pub fn leaf_down_channel(&self, x: Processor) -> ChannelId {
        assert!(x < self.ports(), "processor {x} out of range");
        ChannelId(self.ports() + x)
    }

    /// The channel from bottom switch `v` up to top switch `t`.
    #[inline]
    pub fn up_channel(&self, v: u32, t: u32) -> ChannelId {
        assert!(v < self.r && t < self.m, "switch out of range");
        ChannelId(2 * self.ports() + v * self.m + t)
    }

    /// The channel from top switch `t` down to bottom switch `v`.
    #[inline]
    pub fn down_channel(&self, t: u32, v: u32) -> ChannelId {
        assert!(v < self.r && t < self.m, "switch out of range");
        ChannelId(2 * self.ports() + self.r * self.m + v * self.m + t)
    }

    /// The bundle of the `m` up channels leaving bottom switch `v`.
    #[inline]
    pub fn up_bundle(&self, v: u32) -> BundleId {
        assert!(v < self.r, "bottom switch {v} out of range");
        BundleId(2 * self.ports() + v)
    }

    /// The bundle of the `m` down channels entering bottom switch `v`.
    #[inline]
    pub fn down_bundle(&self, v: u32) -> BundleId {
        assert!(v < self.r, "bottom switch {v} out of range");
        BundleId(2 * self.ports() + self.r + v)
    }

    /// The top switch a channel touches: `Some(t)` for `Up(v, t)` and `Down(t, v)`, `None` for
    /// the leaf channels.
    #[inline]
    pub fn top_of(&self, c: ChannelId) -> Option<u32> {
        assert!(c.0 < self.num_channels(), "channel {c:?} out of range");
        (c.0 >= 2 * self.ports()).then(|| (c.0 - 2 * self.ports()) % self.m)
    }
}

impl Topology for FoldedClos {
    fn name(&self) -> String {
        format!("ftree:n={},m={},r={}", self.n, self.m, self.r)
    }

    fn num_processors(&self) -> u32 {
        self.ports()
    }

    fn num_nodes(&self) -> u32 {
        self.ports() + self.r + self.m
    }

    fn num_switches(&self) -> u32 {
        self.r + self.m
    }

    fn num_channels(&self) -> u32 {
        2 * self.ports() + 2 * self.r * self.m
    }

    fn num_bundles(&self) -> u32 {
        2 * self.ports() + 2 * self.r
    }

    fn node(&self, v: NodeId) -> Node {
        assert!(v.0 < self.num_nodes(), "node {v:?} out of range");
        let p = self.ports();
        let (kind, level, index) = if v.0 < p {
            (NodeKind::Processor, 0, v.0)
        } else if v.0 < p + self.r {
            (NodeKind::Switch, 1, v.0 - p)
        } else {
            (NodeKind::Switch, 2, v.0 - p - self.r)
        };
        Node { kind, level, index }
    }

    fn channel(&self, c: ChannelId) -> Channel {
        assert!(c.0 < self.num_channels(), "channel {c:?} out of range");
        let p = self.ports();
        let rm = self.r * self.m;
        let leaf = |x: u32| NodeId(x);
        let bottom = |v: u32| NodeId(p + v);
        let top = |t: u32| NodeId(p + self.r + t);
        let (from, to, capacity, level, direction, bundle) = if c.0 < p {
            let x = c.0;
            (leaf(x), bottom(x / self.n), 1, 0, Direction::Up, c.0)
        } else if c.0 < 2 * p {
            let x = c.0 - p;
            (bottom(x / self.n), leaf(x), 1, 0, Direction::Down, c.0)
        } else if c.0 < 2 * p + rm {
            let i = c.0 - 2 * p;
            let (v, t) = (i / self.m, i % self.m);
            (bottom(v), top(t), 1, 1, Direction::Up, 2 * p + v)
        } else {
            let i = c.0 - 2 * p - rm;
            let (v, t) = (i / self.m, i % self.m);
            (top(t), bottom(v), 1, 1, Direction::Down, 2 * p + self.r + v)
        };
        Channel {
            from,
            to,
            capacity,
            level,
            direction,
            bundle: BundleId(bundle),
        }
    }

    fn bundle_capacity(&self, b: BundleId) -> u64 {
        assert!(b.0 < self.num_bundles(), "bundle {b:?} out of range");
        if b.0 < 2 * self.ports() {
            1
        } else {
            u64::from(self.m)
        }
    }

    fn injection_node(&self, p: Processor) -> NodeId {
        assert!(p < self.ports(), "processor {p} out of range");
        NodeId(p)
    }

    fn ejection_node(&self, p: Processor) -> NodeId {
        self.injection_node(p)
    }

    /// 1 within a bottom switch (and for `src = dst`), `m` across bottom switches.
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        assert!(
            src < self.ports() && dst < self.ports(),
            "processor out of range"
        );
        if self.bottom_switch(src) == self.bottom_switch(dst) {
            1
        } else {
            u128::from(self.m)
        }
    }

    /// Empty for `src = dst`; `[LeafUp(src), LeafDown(dst)]` within a bottom switch;
    /// `[LeafUp(src), Up(v, t), Down(t, w), LeafDown(dst)]` with top switch `t = index` across
    /// bottom switches `v ≠ w`.
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        assert!(
            index < self.path_count(src, dst),
            "path index {index} out of range"
        );
        out.clear();
        if src == dst {
            return;
        }
        let (v, w) = (self.bottom_switch(src), self.bottom_switch(dst));
        out.push(self.leaf_up_channel(src));
        if v != w {
            let t = index as u32;
            out.push(self.up_channel(v, t));
            out.push(self.down_channel(t, w));
        }
        out.push(self.leaf_down_channel(dst));
    }

    /// Yuan's "d-mod-m" baseline: top switch `dst mod m` across bottom switches, 0 otherwise.
    fn standard_path_index(&self, src: Processor, dst: Processor) -> u128 {
        if self.path_count(src, dst) == 1 {
            0
        } else {
            u128::from(dst % self.m)
        }
    }

    fn distance(&self, src: Processor, dst: Processor) -> usize {
        assert!(
            src < self.ports() && dst < self.ports(),
            "processor out of range"
        );
        if src == dst {
            0
        } else if self.bottom_switch(src) == self.bottom_switch(dst) {
            2
        } else {
            4
        }
    }
}

/// The unfolded three-stage Clos network `Clos(n, m, r)` (Yuan, §III and Fig. 1(a)).
///
/// Structure: `r` input switches (`n × m`), `m` middle switches (`r × r`), `r` output
/// switches (`m × n`); one unidirectional link from every input switch to every middle switch
/// and from every middle switch to every output switch; `r·n` input and `r·n` output
/// terminals. Processor `p` injects at input terminal `p` (on input switch `p / n`) and ejects
/// at output terminal `p` (on output switch `p / n`): two different nodes, so even `p → p`
/// crosses the network. Terminals are [`NodeKind::Processor`] nodes.
///
/// Numbering (with `P = r·n`):
///
/// - nodes: input terminal `p` is `NodeId(p)` (level 0), input switch `v` is `NodeId(P + v)`
///   (level 1), middle switch `t` is `NodeId(P + r + t)` (level 2), output switch `w` is
///   `NodeId(P + r + m + w)` (level 3), output terminal `p` is `NodeId(P + 2r + m + p)`
///   (level 4);
/// - channels, all [`Direction::Forward`] with capacity 1: terminal `p` → input switch is
///   `p` (level 0), input `v` → middle `t` is `P + v·m + t` (level 1), middle `t` → output
///   `w` is `P + r·m + w·m + t` (level 2), output switch → terminal `p` is `P + 2r·m + p`
///   (level 3);
/// - bundles: terminal channels are single (bundle `p` and `P + 2r + p`); the `m` links from
///   input switch `v` to the middle stage form bundle `P + v` and the `m` links from the
///   middle stage to output switch `w` form bundle `P + r + w`, both of capacity `m`.
///
/// Paths: every pair has `m` paths of 4 channels, path `t` through middle switch `t`. The
/// standard routing is "d-mod-m" (middle `dst mod m`), the unfolded analogue of
/// [`FoldedClos`]'s baseline.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Clos {
    n: u32,
    m: u32,
    r: u32,
}

impl Clos {
    /// `Clos(n, m, r)`: `r` input switches with `n` terminals, `m` middle switches, `r` output
    /// switches with `n` terminals.
    ///
    /// # Errors
    ///
    /// - [`TopologyError::OutOfRange`] when `n`, `m` or `r` is zero;
    /// - [`TopologyError::TooLarge`] when the `2rn + 2rm` channels or the `2rn + 2r + m` nodes
    ///   do not fit `u32` ids.
    pub fn new(n: u64, m: u64, r: u64) -> Result<Self, TopologyError> {
        let (n, m, r) = validate(
            n,
            m,
            r,
            |n, m, r| {
                r.saturating_mul(n)
                    .saturating_add(r)
                    .saturating_mul(2)
                    .saturating_add(m)
            },
            clos_channels,
        )?;
        Ok(Self { n, m, r })
    }

    /// Terminals per input (and output) switch.
    #[inline]
    pub fn n(&self) -> u32 {
        self.n
    }

    /// Number of middle switches.
    #[inline]
    pub fn m(&self) -> u32 {
        self.m
    }

    /// Number of input (and output) switches.
    #[inline]
    pub fn r(&self) -> u32 {
        self.r
    }

    /// Number of processors `r·n` (input terminals; as many output terminals).
    #[inline]
    pub fn ports(&self) -> u32 {
        self.r * self.n
    }

    /// The input (and output) switch of processor `p`, `p / n`.
    #[inline]
    pub fn edge_switch(&self, p: Processor) -> u32 {
        p / self.n
    }

    /// The node of input switch `v`.
    #[inline]
    pub fn input_switch_node(&self, v: u32) -> NodeId {
        assert!(v < self.r, "input switch {v} out of range");
        NodeId(self.ports() + v)
    }

    /// The node of middle switch `t`.
    #[inline]
    pub fn middle_node(&self, t: u32) -> NodeId {
        assert!(t < self.m, "middle switch {t} out of range");
        NodeId(self.ports() + self.r + t)
    }

    /// The node of output switch `w`.
    #[inline]
    pub fn output_switch_node(&self, w: u32) -> NodeId {
        assert!(w < self.r, "output switch {w} out of range");
        NodeId(self.ports() + self.r + self.m + w)
    }

    /// The channel from input terminal `p` to its input switch.
    #[inline]
    pub fn input_channel(&self, p: Processor) -> ChannelId {
        assert!(p < self.ports(), "processor {p} out of range");
        ChannelId(p)
    }

    /// The channel from input switch `v` to middle switch `t`.
    #[inline]
    pub fn input_middle_channel(&self, v: u32, t: u32) -> ChannelId {
        assert!(v < self.r && t < self.m, "switch out of range");
        ChannelId(self.ports() + v * self.m + t)
    }

    /// The channel from middle switch `t` to output switch `w`.
    #[inline]
    pub fn middle_output_channel(&self, t: u32, w: u32) -> ChannelId {
        assert!(w < self.r && t < self.m, "switch out of range");
        ChannelId(self.ports() + self.r * self.m + w * self.m + t)
    }

    /// The channel from output terminal `p`'s output switch to the terminal.
    #[inline]
    pub fn output_channel(&self, p: Processor) -> ChannelId {
        assert!(p < self.ports(), "processor {p} out of range");
        ChannelId(self.ports() + 2 * self.r * self.m + p)
    }

    /// The middle switch a channel touches, `None` for the terminal channels.
    #[inline]
    pub fn middle_of(&self, c: ChannelId) -> Option<u32> {
        assert!(c.0 < self.num_channels(), "channel {c:?} out of range");
        let p = self.ports();
        (p..p + 2 * self.r * self.m)
            .contains(&c.0)
            .then(|| (c.0 - p) % self.m)
    }
}

impl Topology for Clos {
    fn name(&self) -> String {
        format!("clos:n={},m={},r={}", self.n, self.m, self.r)
    }

    fn num_processors(&self) -> u32 {
        self.ports()
    }

    fn num_nodes(&self) -> u32 {
        2 * self.ports() + 2 * self.r + self.m
    }

    fn num_switches(&self) -> u32 {
        2 * self.r + self.m
    }

    fn num_channels(&self) -> u32 {
        2 * self.ports() + 2 * self.r * self.m
    }

    fn num_bundles(&self) -> u32 {
        2 * self.ports() + 2 * self.r
    }

    fn node(&self, v: NodeId) -> Node {
        assert!(v.0 < self.num_nodes(), "node {v:?} out of range");
        let p = self.ports();
        let (r, m) = (self.r, self.m);
        let (kind, level, index) = if v.0 < p {
            (NodeKind::Processor, 0, v.0)
        } else if v.0 < p + r {
            (NodeKind::Switch, 1, v.0 - p)
        } else if v.0 < p + r + m {
            (NodeKind::Switch, 2, v.0 - p - r)
        } else if v.0 < p + 2 * r + m {
            (NodeKind::Switch, 3, v.0 - p - r - m)
        } else {
            (NodeKind::Processor, 4, v.0 - p - 2 * r - m)
        };
        Node { kind, level, index }
    }

    fn channel(&self, c: ChannelId) -> Channel {
        assert!(c.0 < self.num_channels(), "channel {c:?} out of range");
        let p = self.ports();
        let rm = self.r * self.m;
        let (from, to, level, bundle) = if c.0 < p {
            let x = c.0;
            (NodeId(x), self.input_switch_node(x / self.n), 0, x)
        } else if c.0 < p + rm {
            let i = c.0 - p;
            let (v, t) = (i / self.m, i % self.m);
            (self.input_switch_node(v), self.middle_node(t), 1, p + v)
        } else if c.0 < p + 2 * rm {
            let i = c.0 - p - rm;
            let (w, t) = (i / self.m, i % self.m);
            (
                self.middle_node(t),
                self.output_switch_node(w),
                2,
                p + self.r + w,
            )
        } else {
            let x = c.0 - p - 2 * rm;
            let terminal = NodeId(p + 2 * self.r + self.m + x);
            (
                self.output_switch_node(x / self.n),
                terminal,
                3,
                p + 2 * self.r + x,
            )
        };
        Channel {
            from,
            to,
            capacity: 1,
            level,
            direction: Direction::Forward,
            bundle: BundleId(bundle),
        }
    }

    fn bundle_capacity(&self, b: BundleId) -> u64 {
        assert!(b.0 < self.num_bundles(), "bundle {b:?} out of range");
        let p = self.ports();
        if (p..p + 2 * self.r).contains(&b.0) {
            u64::from(self.m)
        } else {
            1
        }
    }

    fn injection_node(&self, p: Processor) -> NodeId {
        assert!(p < self.ports(), "processor {p} out of range");
        NodeId(p)
    }

    fn ejection_node(&self, p: Processor) -> NodeId {
        assert!(p < self.ports(), "processor {p} out of range");
        NodeId(self.ports() + 2 * self.r + self.m + p)
    }

    /// `m` for every pair, `src = dst` included.
    fn path_count(&self, src: Processor, dst: Processor) -> u128 {
        assert!(
            src < self.ports() && dst < self.ports(),
            "processor out of range"
        );
        u128::from(self.m)
    }

    /// `[input(src), (v → t), (t → w), output(dst)]` through middle switch `t = index`.
    fn path_into(&self, src: Processor, dst: Processor, index: u128, out: &mut Vec<ChannelId>) {
        assert!(
            index < self.path_count(src, dst),
            "path index {index} out of range"
        );
        let t = index as u32;
        out.clear();
        out.extend([
            self.input_channel(src),
            self.input_middle_channel(self.edge_switch(src), t),
            self.middle_output_channel(t, self.edge_switch(dst)),
            self.output_channel(dst),
        ]);
    }

    /// "d-mod-m": middle switch `dst mod m`.
    fn standard_path_index(&self, src: Processor, dst: Processor) -> u128 {
        assert!(
            src < self.ports() && dst < self.ports(),
            "processor out of range"
        );
        u128::from(dst % self.m)
    }

    fn distance(&self, src: Processor, dst: Processor) -> usize {
        assert!(
            src < self.ports() && dst < self.ports(),
            "processor out of range"
        );
        4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_all_paths_same_bundles, check_structure};

    #[test]
    fn folded_counts_follow_yuan() {
        for (n, m, r) in [
            (1, 1, 1),
            (2, 3, 4),
            (3, 2, 5),
            (4, 16, 20),
            (1, 5, 1),
            (7, 1, 3),
        ] {
            let t = FoldedClos::new(n, m, r).unwrap();
            let (n, m, r) = (n as u32, m as u32, r as u32);
            assert_eq!(t.num_switches(), r + m);
            assert_eq!(t.num_processors(), r * n);
            assert_eq!(t.ports(), r * n);
            assert_eq!(t.num_nodes(), r * n + r + m);
            assert_eq!(t.num_channels(), 2 * r * n + 2 * r * m);
            assert_eq!(t.num_bundles(), 2 * r * n + 2 * r);
            assert_eq!((t.bottom_radix(), t.top_radix()), (n + m, r));
            assert_eq!((t.n(), t.m(), t.r()), (n, m, r));
            check_structure(&t);
        }
    }

    #[test]
    fn yuan_table_one() {
        // (n, switches, ports) of the nonblocking ftree(n+n², n+n²), with N = n+n².
        for (n, radix, switches, ports) in [(4, 20, 36, 80), (5, 30, 55, 150), (6, 42, 78, 252)] {
            let t = FoldedClos::nonblocking(n).unwrap();
            assert_eq!((t.num_switches(), t.ports()), (switches, ports));
            assert_eq!((t.bottom_radix(), t.top_radix()), (radix, radix));
            assert_eq!(t.num_switches() as u64, 2 * n * n + n);
        }
        // FT(N, 2): 3N/2 switches and N²/2 ports.
        for (radix, switches, ports) in [(20, 30, 200), (30, 45, 450), (42, 63, 882)] {
            let t = FoldedClos::two_level_mport(radix).unwrap();
            assert_eq!((t.num_switches(), t.ports()), (switches, ports));
            assert_eq!(
                (t.bottom_radix(), t.top_radix()),
                (radix as u32, radix as u32)
            );
        }
    }

    #[test]
    fn folded_paths_are_the_shortest_walks() {
        for (n, m, r) in [
            (1, 1, 1),
            (2, 3, 3),
            (3, 2, 4),
            (1, 4, 3),
            (2, 1, 2),
            (2, 6, 5),
        ] {
            let t = FoldedClos::new(n, m, r).unwrap();
            let checked = check_all_paths_same_bundles(&t);
            // r·n self pairs, r·n(n−1) intra-switch pairs, r(r−1)n² cross pairs with m paths.
            assert_eq!(checked, r * n + r * n * (n - 1) + r * (r - 1) * n * n * m);
        }
    }

    #[test]
    fn folded_paths_follow_yuan_route() {
        let t = FoldedClos::new(2, 3, 4).unwrap();
        // s = 1 on switch 0, d = 6 on switch 3, top 2.
        assert_eq!(
            {
                let mut out = Vec::new();
                t.path_into(1, 6, 2, &mut out);
                out
            },
            vec![
                t.leaf_up_channel(1),
                t.up_channel(0, 2),
                t.down_channel(2, 3),
                t.leaf_down_channel(6)
            ]
        );
        assert_eq!(
            t.path(0, 1),
            vec![t.leaf_up_channel(0), t.leaf_down_channel(1)]
        );
        assert!(t.path(5, 5).is_empty());
        assert_eq!(
            (t.path_count(5, 5), t.path_count(4, 5), t.path_count(0, 7)),
            (1, 1, 3)
        );
        // d-mod-m for cross pairs, 0 within a switch.
        assert_eq!(t.standard_path_index(0, 7), 1);
        assert_eq!(t.standard_path_index(7, 2), 2);
        assert_eq!(t.standard_path_index(6, 7), 0);
    }

    #[test]
    fn folded_channels_and_bundles() {
        let t = FoldedClos::new(2, 3, 4).unwrap();
        for v in 0..4 {
            for s in 0..3 {
                let up = t.channel(t.up_channel(v, s));
                assert_eq!((up.from, up.to), (t.bottom_node(v), t.top_node(s)));
                assert_eq!(
                    (up.level, up.direction, up.bundle),
                    (1, Direction::Up, t.up_bundle(v))
                );
                let down = t.channel(t.down_channel(s, v));
                assert_eq!((down.from, down.to), (t.top_node(s), t.bottom_node(v)));
                assert_eq!(
                    (down.level, down.direction, down.bundle),
                    (1, Direction::Down, t.down_bundle(v))
                );
                assert_eq!(t.top_of(t.up_channel(v, s)), Some(s));
                assert_eq!(t.top_of(t.down_channel(s, v)), Some(s));
            }
            assert_eq!(t.bundle_capacity(t.up_bundle(v)), 3);
            assert_eq!(t.bundle_capacity(t.down_bundle(v)), 3);
        }
        for x in 0..8 {
            let up = t.channel(t.leaf_up_channel(x));
            assert_eq!(
                (up.from, up.to, up.level),
                (NodeId(x), t.bottom_node(x / 2), 0)
            );
            assert_eq!(t.top_of(t.leaf_up_channel(x)), None);
            assert_eq!(t.top_of(t.leaf_down_channel(x)), None);
            assert_eq!(t.bundle_capacity(up.bundle), 1);
        }
        assert_eq!(
            t.node(t.top_node(2)),
            Node {
                kind: NodeKind::Switch,
                level: 2,
                index: 2
            }
        );
        assert_eq!(t.node(NodeId(7)).kind, NodeKind::Processor);
        assert_eq!(t.name(), "ftree:n=2,m=3,r=4");
    }

    #[test]
    fn clos_counts_and_channels() {
        for (n, m, r) in [(1, 1, 1), (2, 3, 4), (3, 2, 5), (4, 16, 20)] {
            let t = Clos::new(n, m, r).unwrap();
            let (n, m, r) = (n as u32, m as u32, r as u32);
            assert_eq!(t.num_switches(), 2 * r + m);
            assert_eq!(t.num_processors(), r * n);
            assert_eq!(t.num_nodes(), 2 * r * n + 2 * r + m);
            assert_eq!(t.num_channels(), 2 * r * n + 2 * r * m);
            assert_eq!(t.num_bundles(), 2 * r * n + 2 * r);
            check_structure(&t);
            for c in 0..t.num_channels() {
                let ch = t.channel(ChannelId(c));
                assert_eq!(ch.direction, Direction::Forward);
                assert_eq!(ch.level + 1, t.node(ch.to).level);
                assert_eq!(ch.level, t.node(ch.from).level);
            }
        }
        let t = Clos::new(2, 3, 4).unwrap();
        assert_ne!(t.injection_node(5), t.ejection_node(5));
        assert_eq!(
            t.node(t.ejection_node(5)),
            Node {
                kind: NodeKind::Processor,
                level: 4,
                index: 5
            }
        );
        let c = t.channel(t.middle_output_channel(2, 3));
        assert_eq!((c.from, c.to), (t.middle_node(2), t.output_switch_node(3)));
        assert_eq!(t.bundle_capacity(c.bundle), 3);
        assert_eq!(t.middle_of(t.input_middle_channel(1, 2)), Some(2));
        assert_eq!(t.middle_of(t.input_channel(1)), None);
        assert_eq!(t.middle_of(t.output_channel(1)), None);
        assert_eq!(t.name(), "clos:n=2,m=3,r=4");
    }

    #[test]
    fn clos_paths_are_the_shortest_walks() {
        for (n, m, r) in [(1, 1, 1), (2, 3, 3), (3, 2, 4), (1, 4, 2)] {
            let t = Clos::new(n, m, r).unwrap();
            let checked = check_all_paths_same_bundles(&t);
            let p = u64::from(t.ports());
            assert_eq!(checked, p * p * m);
        }
        let t = Clos::new(2, 3, 4).unwrap();
        // p -> p still crosses a middle switch.
        assert_eq!(t.path_count(3, 3), 3);
        assert_eq!(
            t.shortest_paths(3, 3, 10).unwrap()[1],
            vec![
                t.input_channel(3),
                t.input_middle_channel(1, 1),
                t.middle_output_channel(1, 1),
                t.output_channel(3)
            ]
        );
        assert_eq!(t.standard_path_index(0, 7), 1);
    }

    #[test]
    fn bad_parameters_are_typed_errors() {
        for (n, m, r, param) in [(0, 1, 1, "n"), (1, 0, 1, "m"), (1, 1, 0, "r")] {
            for err in [
                FoldedClos::new(n, m, r).unwrap_err(),
                Clos::new(n, m, r).unwrap_err(),
            ] {
                assert!(
                    matches!(err, TopologyError::OutOfRange { param: p, value: 0, .. } if p == param)
                );
            }
        }
        for (n, m, r) in [
            (1 << 16, 1, 1 << 16),
            (1, u64::MAX, u64::MAX),
            (u64::MAX, 1, 1),
        ] {
            assert!(matches!(
                FoldedClos::new(n, m, r),
                Err(TopologyError::TooLarge {
                    what: "channels",
                    ..
                })
            ));
            assert!(matches!(
                Clos::new(n, m, r),
                Err(TopologyError::TooLarge { .. })
            ));
        }
        assert!(matches!(
            FoldedClos::nonblocking(0),
            Err(TopologyError::OutOfRange { param: "n", .. })
        ));
        assert!(FoldedClos::nonblocking(214).is_ok());
        assert!(matches!(
            FoldedClos::nonblocking(215),
            Err(TopologyError::TooLarge { .. })
        ));
        assert!(matches!(
            FoldedClos::nonblocking(u64::MAX),
            Err(TopologyError::TooLarge { .. })
        ));
        assert!(matches!(
            FoldedClos::two_level_mport(21),
            Err(TopologyError::NotEven {
                param: "radix",
                value: 21
            })
        ));
        assert!(matches!(
            FoldedClos::two_level_mport(0),
            Err(TopologyError::OutOfRange { param: "radix", .. })
        ));
        assert!(FoldedClos::two_level_mport(2).is_ok());
    }
}
