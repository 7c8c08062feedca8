//! Routings of `ftree(n+m, r)`: a top switch (or a set of them) per pair across bottom
//! switches (Yuan, §III–§V).

use fatnet_topology::FoldedClos;

use super::is_cross;
use crate::OfflineError;

/// The top switches a routing may use for one pair: one for a single-path routing, several
/// for an oblivious multipath routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tops<'a> {
    /// A single top switch.
    One(u32),
    /// Several top switches (the pair's packets may take any of them).
    Many(&'a [u32]),
}

impl Tops<'_> {
    /// The top switches as a slice.
    pub fn as_slice(&self) -> &[u32] {
        match self {
            Tops::One(t) => std::slice::from_ref(t),
            Tops::Many(ts) => ts,
        }
    }
}

/// A deterministic (single-path) or oblivious multipath routing of `ftree(n+m, r)`: the top
/// switches of each pair `src -> dst` across bottom switches, independent of the traffic
/// (Yuan §IV).
///
/// Implementations are built for one [`FoldedClos`]; they are only asked about pairs of its
/// leaves with `src / n != dst / n`. The checkers validate what they get: a top `>= m` or an
/// empty set is an [`OfflineError`], not a panic.
pub trait ClosRouting {
    /// The top switches of the cross pair `src -> dst`.
    fn tops(&self, src: u32, dst: u32) -> Tops<'_>;
}

impl<R: ClosRouting + ?Sized> ClosRouting for &R {
    fn tops(&self, src: u32, dst: u32) -> Tops<'_> {
        (**self).tops(src, dst)
    }
}

fatnet_topology::named_options! {
    /// The routings of a folded Clos network by name (`fatnet clos --routing`, sweeps).
    pub enum ClosRoutingKind("Clos routing") {
        /// Yuan's n² routing, top switch (s mod n)·n + (d mod n) (Theorem 3; needs m ≥ n²).
        Yuan = "yuan",
        /// Top switch d mod m.
        Dmodm = "dmodm",
        /// Top switch s mod m.
        Smodm = "smodm",
        /// NONBLOCKINGADAPTIVE (Fig. 4): routes chosen per permutation, no table.
        Adaptive = "adaptive",
    }
}

impl ClosRoutingKind {
    /// The oblivious routing of this kind on `clos`, or `None` for
    /// [`ClosRoutingKind::Adaptive`], which has no fixed table.
    ///
    /// # Errors
    ///
    /// Those of [`YuanRouting::new`].
    pub fn oblivious(
        self,
        clos: &FoldedClos,
    ) -> Result<Option<Box<dyn ClosRouting>>, OfflineError> {
        Ok(match self {
            ClosRoutingKind::Yuan => Some(Box::new(YuanRouting::new(clos)?)),
            ClosRoutingKind::Dmodm => Some(Box::new(DModM::new(clos))),
            ClosRoutingKind::Smodm => Some(Box::new(SModM::new(clos))),
            ClosRoutingKind::Adaptive => None,
        })
    }
}

/// Yuan's nonblocking routing (Theorem 3): the pair `(v, i) -> (w, j)` goes
/// through top switch `i·n + j`, indexed by the local ports of its source and destination
/// and independent of the switches `v`, `w`.
///
/// Every uplink `Up(v, i·n+j)` then carries pairs from the single source `(v, i)` and every
/// downlink `Down(i·n+j, w)` pairs to the single destination `(w, j)`, so by Lemma 1 the
/// routing is nonblocking for every `r`. It needs `m >= n²`; with more top switches, tops
/// `n²..m` stay idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YuanRouting {
    n: u32,
}

impl YuanRouting {
    /// Yuan's routing on `clos`.
    ///
    /// # Errors
    ///
    /// [`OfflineError::TooFewTopSwitches`] when `clos` has fewer than `n²` top switches.
    pub fn new(clos: &FoldedClos) -> Result<Self, OfflineError> {
        let n = clos.n();
        let needed = u64::from(n) * u64::from(n);
        if u64::from(clos.m()) < needed {
            return Err(OfflineError::TooFewTopSwitches {
                what: "Yuan's routing (Theorem 3)",
                needed,
                m: u64::from(clos.m()),
            });
        }
        Ok(Self { n })
    }

    /// The top switch of `src -> dst`: `(src mod n)·n + (dst mod n)`.
    #[inline]
    pub fn top(&self, src: u32, dst: u32) -> u32 {
        (src % self.n) * self.n + dst % self.n
    }
}

impl ClosRouting for YuanRouting {
    fn tops(&self, src: u32, dst: u32) -> Tops<'_> {
        Tops::One(self.top(src, dst))
    }
}

/// The d-mod-m routing (Yuan's baseline, [`FoldedClos`]'s standard path): top switch
/// `dst mod m`, where `dst` is the destination leaf id.
///
/// Exactly when it blocks [ours, checked against [`check_nonblocking`](super::check_nonblocking)
/// by the property tests]: never for `n = 1` or `r = 1`; for `n >= 2` it is nonblocking iff
/// `m >= n` when `r = 2`, and iff `m >= r·n` (every destination its own top) when `r >= 3`.
/// - `Down(t, w)` carries every source outside `w`, so it blocks iff two leaves of `w`
///   (`n` consecutive ids) agree mod `m`, i.e. `m < n`;
/// - `Up(v, t)` carries all `n` sources of `v`, so it blocks iff two leaves outside `v` agree
///   mod `m`: for `r = 2` they are `n` consecutive ids (so `m >= n` suffices); for `r >= 3`
///   the `(r−1)·n` consecutive ids outside switch 0 force `m >= (r−1)·n >= 2n`, and then
///   leaves `0` and `m` both lie outside switch 1 unless `m >= r·n`.
///
/// So for `r >= 2n+1` (where `r·n > n²`) it blocks for every `m < n²`, as Theorem 2 says
/// any deterministic routing must; for `r = 2` or `r < n` it is nonblocking with some
/// `m < n²`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DModM {
    m: u32,
}

impl DModM {
    /// d-mod-m on `clos`.
    pub fn new(clos: &FoldedClos) -> Self {
        Self { m: clos.m() }
    }

    /// The top switch of `src -> dst`: `dst mod m`.
    #[inline]
    pub fn top(&self, _src: u32, dst: u32) -> u32 {
        dst % self.m
    }
}

impl ClosRouting for DModM {
    fn tops(&self, src: u32, dst: u32) -> Tops<'_> {
        Tops::One(self.top(src, dst))
    }
}

/// The s-mod-m routing: top switch `src mod m` (the source-side mirror of [`DModM`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SModM {
    m: u32,
}

impl SModM {
    /// s-mod-m on `clos`.
    pub fn new(clos: &FoldedClos) -> Self {
        Self { m: clos.m() }
    }

    /// The top switch of `src -> dst`: `src mod m`.
    #[inline]
    pub fn top(&self, src: u32, _dst: u32) -> u32 {
        src % self.m
    }
}

impl ClosRouting for SModM {
    fn tops(&self, src: u32, dst: u32) -> Tops<'_> {
        Tops::One(self.top(src, dst))
    }
}

/// Largest number of processors [`RoutingTable`] accepts: the table has one entry per ordered
/// pair of processors.
const MAX_TABLE_PROCESSORS: u32 = 2048;

/// An explicit routing: the sorted, duplicate-free top switches of every pair across bottom
/// switches, validated against one [`FoldedClos`] when built.
///
/// Use it to check any routing given as a closure ([`RoutingTable::from_fn`],
/// [`RoutingTable::from_fn_multi`]) or to freeze another one
/// ([`RoutingTable::from_routing`]). Pairs within a bottom switch have no entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoutingTable {
    n: u32,
    m: u32,
    r: u32,
    /// `offsets[s·P + d] .. offsets[s·P + d + 1]` indexes `tops` (empty for non-cross pairs).
    offsets: Vec<u32>,
    tops: Vec<u32>,
}

impl RoutingTable {
    /// A single-path routing: `top(src, dst)` for every pair across bottom switches, asked
    /// in the order of `(src, dst)`.
    ///
    /// # Errors
    ///
    /// - [`OfflineError::TopOutOfRange`] when `top` returns a top `>= m`;
    /// - [`OfflineError::OutOfRange`] when `clos` has more than 2048 processors (the table
    ///   has an entry per ordered pair).
    pub fn from_fn(
        clos: &FoldedClos,
        mut top: impl FnMut(u32, u32) -> u32,
    ) -> Result<Self, OfflineError> {
        Self::build(clos, |s, d, out| out.push(top(s, d)))
    }

    /// A multipath routing: the set `tops(src, dst)` (order and repeats do not matter) for
    /// every pair across bottom switches.
    ///
    /// # Errors
    ///
    /// As [`RoutingTable::from_fn`], and [`OfflineError::NoTopSwitch`] for an empty set.
    pub fn from_fn_multi(
        clos: &FoldedClos,
        mut tops: impl FnMut(u32, u32) -> Vec<u32>,
    ) -> Result<Self, OfflineError> {
        Self::build(clos, |s, d, out| out.extend(tops(s, d)))
    }

    /// The table of another routing on `clos`.
    ///
    /// # Errors
    ///
    /// As [`RoutingTable::from_fn_multi`].
    pub fn from_routing(
        clos: &FoldedClos,
        routing: &(impl ClosRouting + ?Sized),
    ) -> Result<Self, OfflineError> {
        Self::build(clos, |s, d, out| {
            out.extend_from_slice(routing.tops(s, d).as_slice())
        })
    }

    fn build(
        clos: &FoldedClos,
        mut fill: impl FnMut(u32, u32, &mut Vec<u32>),
    ) -> Result<Self, OfflineError> {
        let p = clos.ports();
        if p > MAX_TABLE_PROCESSORS {
            return Err(OfflineError::OutOfRange {
                param: "processors",
                value: u64::from(p),
                allowed: "at most 2048 for an explicit routing table",
            });
        }
        let mut offsets = Vec::with_capacity((p * p + 1) as usize);
        let mut tops = Vec::new();
        let mut buf = Vec::new();
        offsets.push(0);
        for s in 0..p {
            for d in 0..p {
                if is_cross(clos, s, d) {
                    buf.clear();
                    fill(s, d, &mut buf);
                    buf.sort_unstable();
                    buf.dedup();
                    match buf.last() {
                        None => return Err(OfflineError::NoTopSwitch { src: s, dst: d }),
                        Some(&t) if t >= clos.m() => {
                            return Err(OfflineError::TopOutOfRange {
                                src: s,
                                dst: d,
                                top: u64::from(t),
                                m: u64::from(clos.m()),
                            });
                        }
                        Some(_) => tops.extend_from_slice(&buf),
                    }
                }
                offsets.push(tops.len() as u32);
            }
        }
        Ok(Self {
            n: clos.n(),
            m: clos.m(),
            r: clos.r(),
            offsets,
            tops,
        })
    }

    /// The network's `(n, m, r)` the table was built for.
    pub fn params(&self) -> (u32, u32, u32) {
        (self.n, self.m, self.r)
    }

    /// Whether every pair has exactly one top switch.
    pub fn is_single_path(&self) -> bool {
        self.offsets.windows(2).all(|w| w[1] - w[0] <= 1)
    }

    /// The top switches of `src -> dst` (empty within a bottom switch).
    ///
    /// # Panics
    ///
    /// When `src` or `dst` is not a processor of the network.
    pub fn get(&self, src: u32, dst: u32) -> &[u32] {
        let p = self.r * self.n;
        assert!(src < p && dst < p, "processor out of range");
        let i = (src * p + dst) as usize;
        &self.tops[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Every pair across bottom switches with its top switches, in `(src, dst)` order.
    pub fn entries(&self) -> impl Iterator<Item = (u32, u32, &[u32])> + '_ {
        let p = self.r * self.n;
        (0..p)
            .flat_map(move |s| (0..p).map(move |d| (s, d)))
            .map(|(s, d)| (s, d, self.get(s, d)))
            .filter(|(_, _, t)| !t.is_empty())
    }
}

impl ClosRouting for RoutingTable {
    fn tops(&self, src: u32, dst: u32) -> Tops<'_> {
        Tops::Many(self.get(src, dst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yuan_top_is_local_ports() {
        let clos = FoldedClos::new(3, 9, 4).unwrap();
        let y = YuanRouting::new(&clos).unwrap();
        // (v, i) = (0, 2) -> (w, j) = (3, 1): top 2·3 + 1.
        assert_eq!(y.top(2, 3 * 3 + 1), 7);
        assert_eq!(y.tops(2, 10).as_slice(), &[7]);
        let small = FoldedClos::new(3, 8, 4).unwrap();
        assert_eq!(
            YuanRouting::new(&small),
            Err(OfflineError::TooFewTopSwitches {
                what: "Yuan's routing (Theorem 3)",
                needed: 9,
                m: 8
            })
        );
    }

    #[test]
    fn mod_routings() {
        let clos = FoldedClos::new(2, 3, 4).unwrap();
        assert_eq!(DModM::new(&clos).top(0, 7), 1);
        assert_eq!(SModM::new(&clos).top(7, 0), 1);
    }

    #[test]
    fn tables_validate_and_normalise() {
        let clos = FoldedClos::new(2, 3, 3).unwrap();
        let t = RoutingTable::from_fn_multi(&clos, |s, _| vec![2, s % 3, 2]).unwrap();
        assert_eq!(t.get(0, 2), &[0, 2]);
        assert_eq!(t.get(4, 1), &[1, 2]);
        assert!(t.get(0, 1).is_empty());
        assert!(!t.is_single_path());
        // r(r−1)n² = 24 cross pairs.
        assert_eq!(t.entries().count(), 24);
        assert_eq!(t.params(), (2, 3, 3));
        let frozen = RoutingTable::from_routing(&clos, &DModM::new(&clos)).unwrap();
        assert!(frozen.is_single_path());
        assert_eq!(frozen.get(1, 5), &[2]);
        assert_eq!(
            RoutingTable::from_fn(&clos, |_, d| d),
            Err(OfflineError::TopOutOfRange {
                src: 0,
                dst: 3,
                top: 3,
                m: 3
            })
        );
        assert_eq!(
            RoutingTable::from_fn_multi(&clos, |_, _| vec![]),
            Err(OfflineError::NoTopSwitch { src: 0, dst: 2 })
        );
        let big = FoldedClos::new(64, 1, 64).unwrap();
        assert!(matches!(
            RoutingTable::from_fn(&big, |_, _| 0),
            Err(OfflineError::OutOfRange {
                param: "processors",
                ..
            })
        ));
    }
}
