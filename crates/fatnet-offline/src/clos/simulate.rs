//! The permutation simulator: per-channel pair counts of one communication
//! pattern under given routes, the ground truth every other answer is tested against.

use fatnet_topology::{ChannelId, FoldedClos, Topology};
use fatnet_traffic::MessageSet;
use serde::Serialize;

use super::{ClosChannel, ClosRouting, is_cross};
use crate::OfflineError;

/// A channel and the number of pairs routed over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ChannelLoad {
    /// The channel.
    pub channel: ClosChannel,
    /// Its id in the [`FoldedClos`].
    pub id: u32,
    /// Pairs routed over it.
    pub load: u32,
}

/// The outcome of routing one pattern: Yuan's contention is two pairs on one directed
/// channel, so the pattern is contention-free iff every channel carries at most one pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SimReport {
    /// Messages of the pattern.
    pub messages: u64,
    /// Messages across bottom switches (the ones with a top switch).
    pub cross: u64,
    /// The largest number of pairs on one channel (0 when no message leaves its processor).
    pub max_load: u32,
    /// Every channel with two or more pairs, in channel id order.
    pub contended: Vec<ChannelLoad>,
}

impl SimReport {
    /// Whether no channel carries two pairs.
    pub fn is_contention_free(&self) -> bool {
        self.max_load <= 1
    }
}

fn check_processors(clos: &FoldedClos, messages: &MessageSet) -> Result<(), OfflineError> {
    if messages.processors() != clos.ports() {
        return Err(OfflineError::ProcessorMismatch {
            messages: u64::from(messages.processors()),
            topology: u64::from(clos.ports()),
        });
    }
    Ok(())
}

/// Counts, for each channel, the messages routed over it; `route(i)` gives the top switches
/// of cross message `i`.
fn count<'a>(
    clos: &FoldedClos,
    messages: &MessageSet,
    mut route: impl FnMut(usize, u32, u32) -> Result<&'a [u32], OfflineError>,
) -> Result<SimReport, OfflineError> {
    let mut load = vec![0u32; clos.num_channels() as usize];
    let mut cross = 0;
    for (i, m) in messages.messages().iter().enumerate() {
        let (s, d) = (m.src, m.dst);
        if s == d {
            continue;
        }
        load[clos.leaf_up_channel(s).0 as usize] += 1;
        load[clos.leaf_down_channel(d).0 as usize] += 1;
        if is_cross(clos, s, d) {
            cross += 1;
            let (v, w) = (clos.bottom_switch(s), clos.bottom_switch(d));
            for &t in route(i, s, d)? {
                load[clos.up_channel(v, t).0 as usize] += 1;
                load[clos.down_channel(t, w).0 as usize] += 1;
            }
        }
    }
    let contended = load
        .iter()
        .enumerate()
        .filter(|&(_, &l)| l >= 2)
        .map(|(c, &l)| ChannelLoad {
            channel: ClosChannel::from_id(clos, ChannelId(c as u32)),
            id: c as u32,
            load: l,
        })
        .collect();
    Ok(SimReport {
        messages: messages.len() as u64,
        cross,
        max_load: load.iter().copied().max().unwrap_or(0),
        contended,
    })
}

/// Routes `messages` with `routes[i]` the top switch of message `i` (`None` for a message
/// within one bottom switch or to itself) and counts the pairs on every channel.
///
/// Any message set is accepted; for a (partial) permutation the leaf channels carry at most
/// one pair, so contention can only be on the links between bottom and top switches.
///
/// # Errors
///
/// - [`OfflineError::ProcessorMismatch`] when `messages` is not on `clos`'s processors;
/// - [`OfflineError::RouteCountMismatch`] when there is not one route per message;
/// - [`OfflineError::MissingTop`] / [`OfflineError::NeedlessTop`] when a cross message has no
///   top switch, or a message within one bottom switch has one;
/// - [`OfflineError::TopOutOfRange`] when a top switch is `>= m`.
pub fn simulate(
    clos: &FoldedClos,
    messages: &MessageSet,
    routes: &[Option<u32>],
) -> Result<SimReport, OfflineError> {
    check_processors(clos, messages)?;
    if routes.len() != messages.len() {
        return Err(OfflineError::RouteCountMismatch {
            routes: routes.len() as u64,
            messages: messages.len() as u64,
        });
    }
    for (i, (m, r)) in messages.messages().iter().zip(routes).enumerate() {
        match (is_cross(clos, m.src, m.dst), r) {
            (true, None) => return Err(OfflineError::MissingTop { message: i as u32 }),
            (false, Some(_)) => return Err(OfflineError::NeedlessTop { message: i as u32 }),
            (true, Some(t)) if *t >= clos.m() => {
                return Err(OfflineError::TopOutOfRange {
                    src: m.src,
                    dst: m.dst,
                    top: u64::from(*t),
                    m: u64::from(clos.m()),
                });
            }
            _ => {}
        }
    }
    count(clos, messages, |i, _, _| Ok(routes[i].as_slice()))
}

/// Routes `messages` with an oblivious `routing` and counts the pairs on every channel.
///
/// A multipath pair is counted on **every** one of its paths: its packets may take any of
/// them at any time, which is the union Yuan's §IV-B applies Lemma 1 to. For a single-path
/// routing this is just the routing's paths.
///
/// # Errors
///
/// [`OfflineError::ProcessorMismatch`] when `messages` is not on `clos`'s processors;
/// [`OfflineError::TopOutOfRange`] / [`OfflineError::NoTopSwitch`] when the routing names a
/// top `>= m` or none.
pub fn simulate_routing(
    clos: &FoldedClos,
    routing: &(impl ClosRouting + ?Sized),
    messages: &MessageSet,
) -> Result<SimReport, OfflineError> {
    check_processors(clos, messages)?;
    let m = clos.m();
    // The routing's answers borrow from it; collect them so that `count` can hand out slices.
    let mut all: Vec<u32> = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(messages.len());
    for msg in messages.messages() {
        let start = all.len();
        if is_cross(clos, msg.src, msg.dst) {
            let tops = routing.tops(msg.src, msg.dst);
            let tops = tops.as_slice();
            if tops.is_empty() {
                return Err(OfflineError::NoTopSwitch {
                    src: msg.src,
                    dst: msg.dst,
                });
            }
            if let Some(&t) = tops.iter().find(|&&t| t >= m) {
                return Err(OfflineError::TopOutOfRange {
                    src: msg.src,
                    dst: msg.dst,
                    top: u64::from(t),
                    m: u64::from(m),
                });
            }
            // A top named twice is still one path.
            let mut unique = tops.to_vec();
            unique.sort_unstable();
            unique.dedup();
            all.extend(unique);
        }
        spans.push((start, all.len()));
    }
    count(clos, messages, |i, _, _| Ok(&all[spans[i].0..spans[i].1]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clos::{DModM, RoutingTable, YuanRouting};
    use fatnet_traffic::Message;

    fn set(p: u32, pairs: &[(u32, u32)]) -> MessageSet {
        MessageSet::new(p, pairs.iter().map(|&(s, d)| Message::new(s, d)).collect()).unwrap()
    }

    #[test]
    fn counts_one_contended_uplink() {
        // ftree(2+2, 3), d-mod-m: 0 -> 2 and 1 -> 4 both take top 0 up from switch 0.
        let clos = FoldedClos::new(2, 2, 3).unwrap();
        let msgs = set(6, &[(0, 2), (1, 4), (3, 3), (5, 4 - 4)]);
        let rep = simulate_routing(&clos, &DModM::new(&clos), &msgs).unwrap();
        assert_eq!((rep.messages, rep.cross, rep.max_load), (4, 3, 2));
        assert!(!rep.is_contention_free());
        assert_eq!(
            rep.contended,
            vec![ChannelLoad {
                channel: ClosChannel::Up { bottom: 0, top: 0 },
                id: clos.up_channel(0, 0).0,
                load: 2
            }]
        );
        // The same pairs as explicit routes, with 1 -> 4 moved to top 1: no contention.
        let rep = simulate(&clos, &msgs, &[Some(0), Some(1), None, Some(0)]).unwrap();
        assert!(rep.is_contention_free());
        assert_eq!(rep.max_load, 1);
    }

    #[test]
    fn yuan_routes_a_full_permutation_without_contention() {
        let clos = FoldedClos::new(2, 4, 3).unwrap();
        // The shift by 3 leaves: every pair crosses switches.
        let msgs = set(6, &(0..6).map(|s| (s, (s + 3) % 6)).collect::<Vec<_>>());
        let rep = simulate_routing(&clos, &YuanRouting::new(&clos).unwrap(), &msgs).unwrap();
        assert!(rep.is_contention_free());
        assert_eq!((rep.cross, rep.max_load), (6, 1));
    }

    #[test]
    fn multipath_pairs_occupy_every_path() {
        let clos = FoldedClos::new(1, 2, 3).unwrap();
        let table = RoutingTable::from_fn_multi(&clos, |_, _| vec![0, 1]).unwrap();
        let msgs = set(3, &[(0, 1), (2, 1)]);
        let rep = simulate_routing(&clos, &table, &msgs).unwrap();
        // Both pairs use Down(0, 1) and Down(1, 1), and leaf 1's down channel.
        assert_eq!(rep.contended.len(), 3);
        assert_eq!(rep.max_load, 2);
    }

    #[test]
    fn bad_routes_are_typed_errors() {
        let clos = FoldedClos::new(2, 2, 2).unwrap();
        let msgs = set(4, &[(0, 2), (0, 1)]);
        assert_eq!(
            simulate(&clos, &msgs, &[Some(0)]),
            Err(OfflineError::RouteCountMismatch {
                routes: 1,
                messages: 2
            })
        );
        assert_eq!(
            simulate(&clos, &msgs, &[None, None]),
            Err(OfflineError::MissingTop { message: 0 })
        );
        assert_eq!(
            simulate(&clos, &msgs, &[Some(1), Some(0)]),
            Err(OfflineError::NeedlessTop { message: 1 })
        );
        assert_eq!(
            simulate(&clos, &msgs, &[Some(2), None]),
            Err(OfflineError::TopOutOfRange {
                src: 0,
                dst: 2,
                top: 2,
                m: 2
            })
        );
        assert_eq!(
            simulate(&clos, &set(5, &[]), &[]),
            Err(OfflineError::ProcessorMismatch {
                messages: 5,
                topology: 4
            })
        );
    }
}
