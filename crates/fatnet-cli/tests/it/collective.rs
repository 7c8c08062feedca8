//! `fatnet simulate --collective`: phase counts, every phase at or above its bound, equality
//! without contention, same seed same JSON, on a built-in topology and on the shared
//! ib_flit_sim fabric `is1_3l_32n` (skipped with a notice when absent).

use serde_json::Value;

use crate::common::{assert_one_line_error, json, stdout_of};

fn phases(v: &Value) -> &Vec<Value> {
    v["phases"].as_array().unwrap()
}

/// Every phase finished, at or above its bound; returns how many met it.
fn check_bounds(v: &Value) -> usize {
    assert_eq!(v["finished"], true, "{v}");
    let mut met = 0;
    for p in phases(v) {
        let (steps, bound) = (
            p["steps"].as_u64().unwrap(),
            p["bound"]["steps"].as_u64().unwrap(),
        );
        assert!(steps >= bound, "{p}");
        met += usize::from(steps == bound);
    }
    let total: u64 = phases(v).iter().map(|p| p["steps"].as_u64().unwrap()).sum();
    assert_eq!(v["total_steps"].as_u64(), Some(total));
    met
}

#[test]
fn phase_counts_and_bounds_on_a_butterfly_fat_tree() {
    let n = 16;
    for (spec, count) in [
        ("alltoall:order=shift", n - 1),
        ("alltoall:order=pairwise", n - 1),
        ("allreduce:alg=ring,flits=64", 2 * (n - 1)),
        ("allreduce:alg=rd,bytes=512", 4),
    ] {
        for flow in ["worm", "store"] {
            let v = json(&[
                "simulate",
                "bft:n=16",
                "--collective",
                spec,
                "--flow",
                flow,
                "--seed",
                "3",
                "--json",
            ]);
            assert_eq!(v["phase_count"], count, "{spec}");
            assert_eq!(phases(&v).len(), count, "{spec}");
            check_bounds(&v);
        }
    }
    // The ring's messages are V/N = 4 flits; recursive doubling sends the whole 8-flit vector.
    let v = json(&[
        "simulate",
        "bft:n=16",
        "--collective",
        "allreduce:alg=ring,flits=64",
        "--json",
    ]);
    assert!(phases(&v).iter().all(|p| p["flits"] == 4));
    let v = json(&[
        "simulate",
        "bft:n=16",
        "--collective",
        "allreduce:alg=rd,bytes=512",
        "--json",
    ]);
    assert!(phases(&v).iter().all(|p| p["flits"] == 8));
    // i <-> i XOR 1 stays under one leaf switch: no contention, the bound is met exactly
    // (D + L - 1 = 2 + 8 - 1).
    let p = &phases(&v)[0];
    assert_eq!(p["pattern"]["kind"], "xor");
    assert_eq!(
        (p["steps"].as_u64(), p["bound"]["steps"].as_u64()),
        (Some(9), Some(9))
    );
}

#[test]
fn same_seed_same_json_and_the_text_table() {
    let args = |seed: &'static str| {
        [
            "simulate",
            "bft:n=16",
            "--collective",
            "alltoall:order=pairwise,flits=4",
            "--seed",
            seed,
            "--json",
        ]
    };
    assert_eq!(stdout_of(args("7")), stdout_of(args("7")));
    let v = json(&args("7"));
    assert_eq!(phases(&v)[2]["seed"], json(&args("7"))["phases"][2]["seed"]);
    assert_ne!(phases(&v)[2]["seed"], json(&args("8"))["phases"][2]["seed"]);
    let text = stdout_of([
        "simulate",
        "bft:n=16",
        "--collective",
        "alltoall:order=pairwise,flits=4",
    ]);
    assert!(
        text.contains("collective  alltoall:order=pairwise,flits=4 (15 phases"),
        "{text}"
    );
    assert!(text.contains("xor k=15"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains("xor k=")).count(),
        15,
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("total")),
        "{text}"
    );
}

#[test]
fn refusals_are_one_line_errors() {
    for args in [
        &[
            "simulate",
            "bft:n=16",
            "--collective",
            "alltoall:order=ring",
        ][..],
        &[
            "simulate",
            "bft:n=16",
            "--collective",
            "alltoall:flits=4",
            "--flits",
            "8",
        ],
        &[
            "simulate",
            "bft:n=16",
            "--collective",
            "allreduce:alg=rd,flits=70000",
        ],
        &[
            "simulate",
            "bft:n=16",
            "--collective",
            "alltoall",
            "--trials",
            "3",
        ],
    ] {
        assert_one_line_error(args);
    }
    // --collective and --traffic exclude each other (clap's usage error).
    crate::common::fatnet()
        .args([
            "simulate",
            "bft:n=16",
            "--collective",
            "alltoall",
            "-t",
            "permutation",
        ])
        .assert()
        .code(2);
}

#[test]
fn collectives_on_the_shared_32_host_fabric() {
    let Some(base) = crate::common::shared_fabric("ib_flit_sim/is1_3l_32n") else {
        return;
    };
    let ned = base.join("is1_3l_32n.ned");
    let fdbs = base.join("is1_3l_32n.fdbs");
    let run = |spec: &str, flow: &str| {
        json(&[
            "simulate",
            "--fabric",
            ned.to_str().unwrap(),
            "--routes",
            fdbs.to_str().unwrap(),
            "--collective",
            spec,
            "--flow",
            flow,
            "--json",
        ])
    };
    for (spec, count) in [
        ("alltoall:order=shift,flits=8", 31),
        ("alltoall:order=pairwise,flits=8", 31),
        ("allreduce:alg=ring,flits=256", 62),
        ("allreduce:alg=rd,flits=16", 5),
    ] {
        for flow in ["worm", "store"] {
            let v = run(spec, flow);
            assert_eq!(v["processors"], 32);
            assert_eq!(v["phase_count"], count, "{spec}");
            check_bounds(&v);
            // On a fabric λ is the congestion of its tables' routes: one wire per bundle.
            assert!(
                phases(&v)
                    .iter()
                    .all(|p| p["bound"]["load_factor"]["capacity"] == 1)
            );
        }
    }
    // A phase whose routes share no link meets the bound; find one and check it is met.
    let v = run("alltoall:order=shift,flits=8", "worm");
    let free: Vec<&Value> = phases(&v)
        .iter()
        .filter(|p| p["bound"]["load_factor"]["load"] == 1)
        .collect();
    for p in &free {
        assert_eq!(p["steps"], p["bound"]["steps"], "{p}");
    }
}
