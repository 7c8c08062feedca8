//! Properties of the generators, the spec grammar and the file formats, for random `n`
//! and seeds.

use fatnet_traffic::io::{self, Format};
use fatnet_traffic::patterns::{self, morton_cell};
use fatnet_traffic::{Message, MessageSet, TrafficError, TrafficSpec, ValiantBase};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

fn sorted(s: &MessageSet) -> Vec<Message> {
    let mut v = s.messages().to_vec();
    v.sort_unstable();
    v
}

fn sources_are_identity(s: &MessageSet) -> bool {
    s.messages().iter().zip(0..).all(|(m, i)| m.src == i)
}

/// A message set on 1..=200 processors with 0..=300 messages.
fn message_set() -> impl Strategy<Value = MessageSet> {
    (1u32..=200).prop_flat_map(|n| {
        prop::collection::vec((0..n, 0..n), 0..=300).prop_map(move |pairs| {
            MessageSet::new(n, pairs.into_iter().map(Message::from).collect()).unwrap()
        })
    })
}

fn valiant_base() -> impl Strategy<Value = ValiantBase> {
    prop::sample::select(ValiantBase::ALL.to_vec())
}

fn spec() -> impl Strategy<Value = TrafficSpec> {
    prop_oneof![
        Just(TrafficSpec::Permutation),
        Just(TrafficSpec::Complement),
        Just(TrafficSpec::BitReversal),
        Just(TrafficSpec::Transpose),
        Just(TrafficSpec::ManyToOne),
        any::<bool>().prop_map(|allow_self| TrafficSpec::Uniform { allow_self }),
        any::<u32>().prop_map(|k| TrafficSpec::Replicated { k }),
        any::<bool>().prop_map(|torus| TrafficSpec::Mesh { torus }),
        valiant_base().prop_map(|base| TrafficSpec::Valiant { base }),
        (0.0f64..=1.0).prop_map(|p| TrafficSpec::BitFlip { p }),
        Just(TrafficSpec::BitFlip { p: 0.0 }),
        Just(TrafficSpec::BitFlip { p: 1.0 }),
        any::<Option<u32>>().prop_map(|src| TrafficSpec::Broadcast { src }),
        "[a-zA-Z0-9_./:,= -]{0,30}[a-zA-Z0-9_.]".prop_map(|p| TrafficSpec::File { path: p.into() }),
    ]
}

proptest! {
    #[test]
    fn random_permutation_is_a_permutation(n in 1u32..500, seed: u64) {
        let s = patterns::random_permutation(n, &mut rng(seed)).unwrap();
        prop_assert_eq!(s.len(), n as usize);
        prop_assert!(sources_are_identity(&s));
        prop_assert!(s.is_permutation());
        prop_assert_eq!(&s, &patterns::random_permutation(n, &mut rng(seed)).unwrap());
    }

    #[test]
    fn replicated_is_k_regular(n in 1u32..200, k in 0u32..6, seed: u64) {
        let s = patterns::replicated_permutations(n, k, &mut rng(seed)).unwrap();
        prop_assert_eq!(s.len(), (n * k) as usize);
        prop_assert!(s.out_degrees().iter().all(|&d| d == k));
        prop_assert!(s.in_degrees().iter().all(|&d| d == k));
        for round in s.messages().chunks(n as usize) {
            prop_assert!(MessageSet::new(n, round.to_vec()).unwrap().is_permutation());
        }
    }

    #[test]
    fn uniform_sends_one_each(n in 2u32..500, allow_self: bool, seed: u64) {
        let s = patterns::uniform(n, allow_self, &mut rng(seed)).unwrap();
        prop_assert_eq!(s.len(), n as usize);
        prop_assert!(sources_are_identity(&s));
        if !allow_self {
            prop_assert_eq!(s.self_messages(), 0);
        }
    }

    #[test]
    fn deterministic_permutations(d in 0u32..12) {
        let n = 1u32 << d;
        for s in [
            patterns::complement(n).unwrap(),
            patterns::bit_reversal(n).unwrap(),
        ] {
            prop_assert_eq!(s.len(), n as usize);
            prop_assert!(sources_are_identity(&s));
            prop_assert!(s.is_permutation());
        }
        // Complement flips every bit: every message crosses the root.
        let c = patterns::complement(n).unwrap();
        prop_assert!(c.messages().iter().all(|m| m.src ^ m.dst == n - 1));
        // Bit reversal and transpose are involutions.
        let b = patterns::bit_reversal(n).unwrap();
        prop_assert!(b.messages().iter().all(|m| b.messages()[m.dst as usize].dst == m.src));
        if d % 2 == 0 {
            let t = patterns::transpose(n).unwrap();
            prop_assert!(t.is_permutation());
            prop_assert!(t.messages().iter().all(|m| t.messages()[m.dst as usize].dst == m.src));
            prop_assert_eq!(t.self_messages(), 1usize << (d / 2));
        } else {
            let is_power_of_four = matches!(
                patterns::transpose(n),
                Err(TrafficError::NotPowerOfFour { .. })
            );
            prop_assert!(is_power_of_four);
        }
    }

    #[test]
    fn complement_any_n(n in 1u32..1000) {
        let s = patterns::complement(n).unwrap();
        prop_assert!(s.is_permutation());
        prop_assert_eq!(s.self_messages(), (n % 2) as usize);
    }

    #[test]
    fn many_to_one_hot_spots(n in 2u32..1000) {
        let s = patterns::many_to_one(n).unwrap();
        let ind = s.in_degrees();
        prop_assert_eq!(ind[n as usize - 1], n / 2);
        prop_assert_eq!(ind[0], n - n / 2);
        prop_assert_eq!(s.max_out_degree(), 1);
        prop_assert_eq!(s.self_messages(), 0);
        prop_assert_eq!(s.max_in_degree(), n - n / 2);
    }

    #[test]
    fn mesh_degrees_and_adjacency(k in 0u32..6, torus: bool) {
        let side = 1u32 << k;
        let n = side * side;
        let s = patterns::mesh_neighbours(n, torus).unwrap();
        let expected_len = if torus { 4 * n } else { 4 * side * (side - 1) };
        prop_assert_eq!(s.len(), expected_len as usize);
        prop_assert_eq!(s.out_degrees(), s.in_degrees());
        for (id, &d) in s.out_degrees().iter().enumerate() {
            let (r, c) = morton_cell(id as u32);
            prop_assert!(r < side && c < side);
            let expected = if torus {
                4
            } else {
                4 - u32::from(r == 0) - u32::from(r == side - 1) - u32::from(c == 0)
                    - u32::from(c == side - 1)
            };
            prop_assert_eq!(d, expected);
        }
        for m in s.messages() {
            let ((ra, ca), (rb, cb)) = (morton_cell(m.src), morton_cell(m.dst));
            let wrap = |x: u32, y: u32| {
                let d = x.abs_diff(y);
                if torus { d.min(side - d) } else { d }
            };
            // A 1x1 torus sends along its loops; every other message joins adjacent cells.
            prop_assert!(side == 1 || wrap(ra, rb) + wrap(ca, cb) == 1);
        }
    }

    #[test]
    fn valiant_preserves_endpoints(base in message_set(), seed: u64) {
        let v = patterns::valiant(&base, &mut rng(seed)).unwrap();
        prop_assert_eq!(v.first().len(), base.len());
        for ((b, f), s) in base.messages().iter().zip(v.first().messages()).zip(v.second().messages()) {
            prop_assert_eq!((f.src, f.dst, s.dst), (b.src, s.src, b.dst));
        }
        let c = v.combined();
        prop_assert_eq!(c.len(), 2 * base.len());
        prop_assert_eq!(c.out_degrees().iter().sum::<u32>() as usize, 2 * base.len());
    }

    #[test]
    fn bit_flip_sends_one_each(d in 0u32..12, p in 0.0f64..=1.0, seed: u64) {
        let n = 1u32 << d;
        let s = patterns::bit_flip(n, p, &mut rng(seed)).unwrap();
        prop_assert_eq!(s.len(), n as usize);
        prop_assert!(sources_are_identity(&s));
        prop_assert_eq!(&s, &patterns::bit_flip(n, p, &mut rng(seed)).unwrap());
    }

    #[test]
    fn spec_display_round_trips(spec in spec()) {
        let text = spec.to_string();
        let back: TrafficSpec = text.parse().unwrap();
        prop_assert_eq!(&back, &spec);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn spec_generate_is_seeded(spec in spec(), d in 0u32..5, seed: u64) {
        // Keep generated sets small and skip files.
        prop_assume!(!matches!(spec, TrafficSpec::File { .. }));
        let spec = match spec {
            TrafficSpec::Replicated { k } => TrafficSpec::Replicated { k: k % 4 },
            other => other,
        };
        let n = 1u32 << (2 * d);
        match (spec.generate(n, seed), spec.generate(n, seed)) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.processors(), n);
                prop_assert_eq!(a, b);
            }
            (Err(_), Err(_)) => {}
            (a, b) => prop_assert!(false, "{a:?} vs {b:?}"),
        }
    }

    #[test]
    fn text_io_round_trip(s in message_set()) {
        let mut out = Vec::new();
        io::write_text(&mut out, &s).unwrap();
        let back = io::read_text(&out[..], s.processors()).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(sorted(&back), sorted(&s));
    }

    #[test]
    fn json_io_round_trip(s in message_set()) {
        let mut out = Vec::new();
        io::write_json(&mut out, &s).unwrap();
        prop_assert_eq!(Format::detect(&out), Format::Json);
        let back = io::read_json(&out[..]).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(sorted(&back), sorted(&s));
    }

    #[test]
    fn readers_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), n in 0u32..20) {
        let _ = io::read_text(&bytes[..], n);
        let _ = io::read_json(&bytes[..]);
    }

    #[test]
    fn text_reader_never_panics_on_near_valid_input(
        lines in prop::collection::vec("[0-9 #\t,x-]{0,12}", 0..20),
        n in 1u32..20,
    ) {
        let text = lines.join("\n");
        if let Ok(s) = io::read_text(text.as_bytes(), n) {
            prop_assert!(s.messages().iter().all(|m| m.src < n && m.dst < n));
        }
    }

    #[test]
    fn parser_never_panics(s in "[a-z:=,.0-9-]{0,24}") {
        if let Ok(spec) = s.parse::<TrafficSpec>() {
            let again: TrafficSpec = spec.to_string().parse().unwrap();
            prop_assert_eq!(again, spec);
        }
    }
}

#[test]
fn broadcast_is_sources_not_a_message_set() {
    let all: TrafficSpec = "broadcast".parse().unwrap();
    assert_eq!(all.broadcast_sources(4).unwrap(), Some(vec![0, 1, 2, 3]));
    let one: TrafficSpec = "broadcast:src=3".parse().unwrap();
    assert_eq!(one, TrafficSpec::Broadcast { src: Some(3) });
    assert_eq!(one.broadcast_sources(4).unwrap(), Some(vec![3]));
    assert_eq!(
        one.broadcast_sources(3).unwrap_err().to_string(),
        "broadcast source 3 does not exist (the network has 3 processors)"
    );
    assert!(all.broadcast_sources(1).is_err());
    assert!(all.generate(4, 1).is_err());
    assert!(!all.is_randomized());
    assert_eq!(TrafficSpec::Permutation.broadcast_sources(4).unwrap(), None);
    assert!("broadcast:src=x".parse::<TrafficSpec>().is_err());
    assert!("broadcast:dst=1".parse::<TrafficSpec>().is_err());
}
