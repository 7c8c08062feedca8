//! Each [`StoreTiming`] reading on hand-built cases of the butterfly fat-tree on 16
//! processors, whose step-by-step outcome is worked out in the comments.

use std::collections::BTreeSet;

use fatnet_topology::ButterflyFatTree;

use super::{
    FlowControl, Injection, OnlineError, PacketConfig, PacketNet, PathPolicy, SinkModel,
    StoreTiming, simulate, simulate_multicast,
};

fn net() -> PacketNet {
    PacketNet::new(ButterflyFatTree::new(16).unwrap()).unwrap()
}

fn store(path: PathPolicy, timing: StoreTiming) -> PacketConfig {
    PacketConfig {
        path,
        store_timing: timing,
        check_conservation: true,
        ..PacketConfig::store()
    }
}

fn inj(pairs: &[(u32, u32)]) -> Vec<Injection> {
    pairs
        .iter()
        .map(|&(src, dst)| Injection {
            src,
            dst,
            release: 0,
        })
        .collect()
}

/// Latencies (flit-steps, `L = 32`) of `pairs` over seeds `0..64`.
fn latencies(pairs: &[(u32, u32)], config: &PacketConfig) -> BTreeSet<u64> {
    let net = net();
    (0..64)
        .map(|seed| {
            let r = simulate(&net, &inj(pairs), config, seed).unwrap();
            assert!(r.finished());
            r.latency
        })
        .collect()
}

/// Two packets enter the level-1 switch of processors 0–3 in step 0 (from processors 0 and
/// 1, to 4 and 8: disjoint paths of 4 links but for the two up links they share). In step 1
/// both seek an up link:
///
/// - different draws: both go up, and every link after is free: latency 3 packet-steps (96);
/// - the same draw `U`: one goes up, the other is blocked. In step 2 `U`'s queue is still
///   full at the start of the step (the first packet leaves it in step 2), the other up link
///   is free. Snapshot RP draws again: the free link (up in step 2, latency 4·32 = 128) or
///   `U` (blocked again, up in step 3, latency 160). Sticky keeps `U`: always 160. Other-up
///   takes the other link already in step 1: always 96, like GP.
const TWO_UP: [(u32, u32); 2] = [(0, 4), (1, 8)];

#[test]
fn snapshot_rp_waits_and_draws_again() {
    let got = latencies(&TWO_UP, &store(PathPolicy::Random, StoreTiming::Snapshot));
    assert_eq!(got, BTreeSet::from([96, 128, 160]));
}

#[test]
fn other_up_link_takes_the_free_up_link_in_the_same_step() {
    let want = BTreeSet::from([96]);
    for timing in [StoreTiming::OtherUpLink, StoreTiming::OtherUpLinkSameStep] {
        let got = latencies(&TWO_UP, &store(PathPolicy::Random, timing));
        assert_eq!(got, want, "{timing}");
    }
    // GP does the same by definition, under every timing.
    for &timing in StoreTiming::ALL {
        let got = latencies(&TWO_UP, &store(PathPolicy::Greedy, timing));
        assert_eq!(got, want, "GP {timing}");
    }
}

#[test]
fn sticky_draw_waits_for_the_drawn_link() {
    let got = latencies(&TWO_UP, &store(PathPolicy::Random, StoreTiming::StickyDraw));
    assert_eq!(got, BTreeSet::from([96, 160]));
}

/// Two packets from processor 0 to processor 1 (the same level-1 switch: the injection link,
/// then the ejection link). Snapshot, `q = 1`: A crosses the injection link in step 0 and the
/// ejection link in step 1; B may cross the injection link only in step 2 (its queue was
/// full at the start of step 1), and the ejection link in step 3 (A, drained in step 2, is
/// gone): latency 3·32 = 96. Same-step: B follows A into the injection link's queue in step
/// 1, and into the ejection queue in step 2, as the terminal drains A: 2·32 = 64.
#[test]
fn same_step_moves_into_a_queue_freed_in_the_step() {
    let pairs = [(0, 1), (0, 1)];
    for (timing, want) in [
        (StoreTiming::Snapshot, 96),
        (StoreTiming::OtherUpLink, 96),
        (StoreTiming::StickyDraw, 96),
        (StoreTiming::SameStep, 64),
        (StoreTiming::OtherUpLinkSameStep, 64),
    ] {
        let got = latencies(&pairs, &store(PathPolicy::Random, timing));
        assert_eq!(got, BTreeSet::from([want]), "{timing}");
    }
    // With immediate sinks the ejection link has no queue, but B is held back by the
    // injection link's queue all the same: 96 under the snapshot, 64 under same-step.
    let immediate = |timing| PacketConfig {
        sink: SinkModel::Immediate,
        ..store(PathPolicy::Random, timing)
    };
    assert_eq!(
        latencies(&pairs, &immediate(StoreTiming::Snapshot)),
        BTreeSet::from([96])
    );
    assert_eq!(
        latencies(&pairs, &immediate(StoreTiming::SameStep)),
        BTreeSet::from([64])
    );
}

/// Three packets from processors 0, 1 and 2 to processor 4, GP paths: two go up in step 1
/// (up links 0 and 1), the third in step 2 under same-step (into up link 0's queue as the
/// first packet leaves it) but in step 3 under the snapshot. The shared ejection link into
/// processor 4 is the bottleneck: under the snapshot it takes a packet every second step
/// (steps 3, 5, 7: latency 7·32 = 224), under same-step every step (3, 4, 5: 160), whichever
/// way the RR scans of the switch above processor 4 break the ties.
#[test]
fn same_step_pipelines_a_shared_path() {
    let pairs = [(0, 4), (1, 4), (2, 4)];
    let snap = latencies(&pairs, &store(PathPolicy::Greedy, StoreTiming::Snapshot));
    let same = latencies(&pairs, &store(PathPolicy::Greedy, StoreTiming::SameStep));
    assert_eq!(snap, BTreeSet::from([224]));
    assert_eq!(same, BTreeSet::from([160]));
}

#[test]
fn other_readings_refuse_other_flow_control_and_multicast() {
    let net = net();
    for flow in [FlowControl::Wormhole, FlowControl::Split] {
        let config = PacketConfig {
            flow,
            store_timing: StoreTiming::SameStep,
            ..PacketConfig::store()
        };
        assert!(matches!(
            config.validate(),
            Err(OnlineError::Unsupported { .. })
        ));
        assert!(simulate(&net, &inj(&TWO_UP), &config, 0).is_err());
    }
    let config = store(PathPolicy::Random, StoreTiming::SameStep);
    let tree = super::MulticastTree::shortest_paths(&net, 0, &[4, 8]).unwrap();
    let mc = [super::Multicast {
        tree: 0,
        release: 0,
    }];
    assert!(matches!(
        simulate_multicast(&net, &[], &[tree], &mc, &config, 0),
        Err(OnlineError::Unsupported { .. })
    ));
    // The default, and its name.
    assert_eq!(PacketConfig::store().store_timing, StoreTiming::Snapshot);
    assert_eq!(
        "other-up".parse::<StoreTiming>().unwrap(),
        StoreTiming::OtherUpLink
    );
}
