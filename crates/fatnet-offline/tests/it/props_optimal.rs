//! Properties of the exact scheduler (`fatnet_offline::optimal`): its schedule verifies, its
//! count lies between ⌈λ⌉ and Leiserson's Theorem 1 count, and on tiny instances it equals
//! an independent brute force over every assignment of messages to cycles.

use fatnet_load::fat_tree_loads;
use fatnet_offline::leiserson::theorem1;
use fatnet_offline::optimal::{ExactConfig, Optimality, min_cycles};
use fatnet_topology::{CapacityProfile, FatTree};
use fatnet_traffic::{Message, MessageSet};
use proptest::prelude::*;

/// Trees on 2, 4 or 8 processors with per-height capacities in `1..=hi`.
fn tree(hi: u64) -> impl Strategy<Value = FatTree> {
    (1u32..=3).prop_flat_map(move |levels| {
        prop::collection::vec(1..=hi, levels as usize + 1)
            .prop_map(move |caps| FatTree::new(1 << levels, CapacityProfile::Custom(caps)).unwrap())
    })
}

fn tree_and_messages(hi: u64, max: usize) -> impl Strategy<Value = (FatTree, MessageSet)> {
    tree(hi).prop_flat_map(move |t| {
        let n = t.n();
        let set = prop::collection::vec((0..n, 0..n), 0..max).prop_map(move |v| {
            MessageSet::new(n, v.into_iter().map(|(s, d)| Message::new(s, d)).collect()).unwrap()
        });
        (Just(t), set)
    })
}

/// Whether `cycle[i]` (a cycle per message) puts at most `cap` on every channel.
fn feasible(tree: &FatTree, m: &MessageSet, cycle: &[usize], k: usize) -> bool {
    (0..k).all(|b| {
        let sub = MessageSet::new(
            m.processors(),
            m.messages()
                .iter()
                .zip(cycle)
                .filter(|&(_, &c)| c == b)
                .map(|(x, _)| *x)
                .collect(),
        )
        .unwrap();
        let loads = fat_tree_loads(tree, &sub).unwrap().per_channel;
        loads.iter().enumerate().all(|(c, &l)| {
            l <= fatnet_topology::Topology::channel(tree, fatnet_topology::ChannelId(c as u32))
                .capacity
        })
    })
}

/// The fewest cycles by trying every map of messages to `k` cycles, `k = 1, 2, …`.
fn brute_force(tree: &FatTree, m: &MessageSet) -> u64 {
    let len = m.len();
    if len == 0 {
        return 0;
    }
    for k in 1..=len {
        let mut cycle = vec![0usize; len];
        loop {
            if feasible(tree, m, &cycle, k) {
                return k as u64;
            }
            // Next map in base k.
            let mut i = 0;
            while i < len && cycle[i] == k - 1 {
                cycle[i] = 0;
                i += 1;
            }
            if i == len {
                break;
            }
            cycle[i] += 1;
        }
    }
    unreachable!("one message per cycle is always feasible")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The schedule verifies; ⌈λ⌉ ≤ optimum ≤ Leiserson's Theorem 1 cycles and ≤ first fit;
    /// the proof is consistent with the count.
    #[test]
    fn exact_schedules_verify_between_lambda_and_leiserson((t, m) in tree_and_messages(3, 40)) {
        let s = min_cycles(&t, &m, ExactConfig::default()).unwrap();
        prop_assert_eq!(s.schedule.verify(&t, &m), Ok(()));
        prop_assert!(s.cycles() >= s.load_factor.ceil());
        prop_assert!(s.cycles() <= s.first_fit);
        let leiserson = theorem1(&t, &m).unwrap();
        prop_assert!(s.cycles() <= leiserson.cycles() as u64);
        match s.proof {
            Optimality::LowerBoundMet { lower_bound } => {
                prop_assert_eq!(lower_bound, s.cycles());
                prop_assert_eq!(lower_bound, s.lower_bound);
            }
            Optimality::Exhausted { cycles, nodes } => {
                prop_assert_eq!(cycles + 1, s.cycles());
                prop_assert!(cycles >= s.lower_bound && nodes > 0);
            }
        }
    }

    /// On tiny instances the optimum is the brute force's.
    #[test]
    fn exact_equals_brute_force_on_tiny_sets((t, m) in tree_and_messages(2, 7)) {
        let s = min_cycles(&t, &m, ExactConfig::default()).unwrap();
        prop_assert_eq!(s.cycles(), brute_force(&t, &m));
    }
}
