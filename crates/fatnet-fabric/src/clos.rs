//! A [`Fabric`] with forwarding tables from a generated folded Clos `ftree(n+m, r)`
//! (`fatnet_topology::FoldedClos`) and a routing of `fatnet_offline::clos`: the bridge that
//! lets the fabric analysis be checked against Yuan's checker, and later lets generated
//! networks be exported with their tables.

use fatnet_offline::clos::ClosRouting;
use fatnet_topology::FoldedClos;

use crate::FabricError;
use crate::error::Loc;
use crate::fabric::{Builder, Fabric, Lft, NodeId, NodeKind};

/// Builds `ftree(n+m, r)` as a fabric whose tables route every pair across bottom switches
/// through the top switch `routing` gives it.
///
/// Layout: nodes in the order leaves `H0..H{rn−1}`, bottom switches `B0..B{r−1}`, top
/// switches `T0..T{m−1}` (so CA order = leaf order). Bottom switch `v` has port `k + 1` to
/// its leaf `v·n + k` and port `n + 1 + t` to top `t`; top `t` has port `v + 1` to bottom
/// `v`; a leaf's port 1 goes to its bottom switch. LIDs: leaf `x` has LID `x + 1`, bottom `v`
/// LID `rn + 1 + v`, top `t` LID `rn + r + 1 + t`. Tables route every leaf LID (switch LIDs
/// only to the switch itself).
///
/// Forwarding tables are per destination, so the routing must give one top per
/// (source bottom switch, destination): d-mod-m, or any `RoutingTable` of that shape. A
/// source-dependent routing such as Yuan's `i·n + j` needs several LIDs per CA (LMC), which
/// this conversion does not build.
///
/// # Errors
/// [`FabricError::NotTableRouting`] for a pair with no single top `< m` or whose top differs
/// from that of another source of the same bottom switch; [`FabricError::TooLarge`] when a
/// switch would need more than 254 ports or the LIDs exceed the unicast range.
pub fn from_folded_clos(
    clos: &FoldedClos,
    routing: &(impl ClosRouting + ?Sized),
) -> Result<Fabric, FabricError> {
    let (n, m, r) = (clos.n(), clos.m(), clos.r());
    let p = clos.ports();
    let too_large = |what, count: u64, limit| FabricError::TooLarge { what, count, limit };
    if u64::from(n) + u64::from(m) > 254 {
        return Err(too_large(
            "bottom switch ports",
            u64::from(n) + u64::from(m),
            254,
        ));
    }
    if r > 254 {
        return Err(too_large("top switch ports", u64::from(r), 254));
    }
    let lids = u64::from(p) + u64::from(r) + u64::from(m);
    if lids > 0xBFFF {
        return Err(too_large("unicast LIDs", lids, 0xBFFF));
    }
    // Which top serves destination d from bottom switch v: the same for every source of v.
    let mut up = vec![None::<(u32, u32)>; r as usize * p as usize];
    for s in 0..p {
        let v = clos.bottom_switch(s);
        for d in 0..p {
            if clos.bottom_switch(d) == v {
                continue;
            }
            let tops = routing.tops(s, d);
            let tops = tops.as_slice();
            let bad = |other_src| FabricError::NotTableRouting {
                src: s,
                dst: d,
                tops: tops.to_vec(),
                m,
                other_src,
            };
            let &[t] = tops else { return Err(bad(s)) };
            if t >= m {
                return Err(bad(s));
            }
            let slot = &mut up[(v * p + d) as usize];
            match *slot {
                Some((t0, s0)) if t0 != t => return Err(bad(s0)),
                Some(_) => {}
                None => *slot = Some((t, s)),
            }
        }
    }
    let loc = Loc {
        file: "ftree",
        line: 0,
    };
    let mut b = Builder::default();
    let leaves: Vec<NodeId> = (0..p)
        .map(|x| b.add_node(NodeKind::Ca, &format!("H{x}"), None))
        .collect();
    let bottoms: Vec<NodeId> = (0..r)
        .map(|v| b.add_node(NodeKind::Switch, &format!("B{v}"), None))
        .collect();
    let tops: Vec<NodeId> = (0..m)
        .map(|t| b.add_node(NodeKind::Switch, &format!("T{t}"), None))
        .collect();
    for &bv in &bottoms {
        b.declare_ports(loc, bv, n + m)?;
    }
    for &tt in &tops {
        b.declare_ports(loc, tt, r)?;
    }
    for x in 0..p {
        b.declare_ports(loc, leaves[x as usize], 1)?;
        let v = clos.bottom_switch(x);
        b.connect(
            loc,
            leaves[x as usize],
            1,
            bottoms[v as usize],
            x - v * n + 1,
        )?;
        b.set_lid(loc, leaves[x as usize], 1, x + 1)?;
    }
    for v in 0..r {
        for t in 0..m {
            b.connect(loc, bottoms[v as usize], n + 1 + t, tops[t as usize], v + 1)?;
        }
        b.set_lid(loc, bottoms[v as usize], 0, p + 1 + v)?;
    }
    for t in 0..m {
        b.set_lid(loc, tops[t as usize], 0, p + r + 1 + t)?;
    }
    let mut fabric = b.finish();
    let len = lids as usize + 1;
    for v in 0..r {
        let mut e = vec![Lft::NO_ROUTE; len];
        for d in 0..p {
            e[d as usize + 1] = if clos.bottom_switch(d) == v {
                (d - v * n + 1) as u8
            } else {
                // Every destination outside v has a top: r >= 2 and n >= 1 give a source in v.
                let (t, _) = up[(v * p + d) as usize].expect("filled above");
                (n + 1 + t) as u8
            };
        }
        e[(p + 1 + v) as usize] = 0;
        fabric.set_lft(bottoms[v as usize], Lft::new(e));
    }
    for t in 0..m {
        let mut e = vec![Lft::NO_ROUTE; len];
        for d in 0..p {
            e[d as usize + 1] = (clos.bottom_switch(d) + 1) as u8;
        }
        e[(p + r + 1 + t) as usize] = 0;
        fabric.set_lft(tops[t as usize], Lft::new(e));
    }
    Ok(fabric)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fatnet_offline::clos::{DModM, YuanRouting};

    #[test]
    fn dmodm_tables_trace_every_pair() {
        let clos = FoldedClos::new(2, 3, 4).unwrap();
        let f = from_folded_clos(&clos, &DModM::new(&clos)).unwrap();
        assert_eq!((f.switches().count(), f.cas().count()), (7, 8));
        assert_eq!(f.links().len(), 8 + 4 * 3);
        let s = f.trace_all();
        assert_eq!((s.routes, s.delivered), (56, 56));
        // 0 -> 7: leaf, bottom 0 up to top 7 mod 3 = 1, down to bottom 3, leaf 7.
        let hops = f.trace(NodeId(0), NodeId(7)).unwrap();
        let names: Vec<_> = hops
            .iter()
            .map(|h| (f.node(h.node).name(), h.port))
            .collect();
        assert_eq!(
            names,
            vec![("H0", 1), ("B0", 2 + 1 + 1), ("T1", 4), ("B3", 2)]
        );
    }

    #[test]
    fn source_dependent_routing_is_refused() {
        let clos = FoldedClos::new(2, 4, 3).unwrap();
        let err = from_folded_clos(&clos, &YuanRouting::new(&clos).unwrap()).unwrap_err();
        // 1 -> 2 takes top 1·2 + 0 = 2, but 0 -> 2 (same bottom switch) took top 0.
        assert!(matches!(
            err,
            FabricError::NotTableRouting {
                src: 1,
                dst: 2,
                other_src: 0,
                ..
            }
        ));
    }
}
