//! `fatnet fabric failures` on the two-switch fixture of `fabric.rs`.

use crate::common::{assert_one_line_error, fatnet, json};
use crate::fabric::{fixture, s};

/// Everything across goes over the first cable (A_U1[3] -> B_U1[3]).
const FDBS: &str = "0: 255 0 1 2 2 255 255\n1: 255 2 2 0 1 255 255\n";

#[test]
fn named_removal_before_and_after_minhop() {
    let (_d, ned, fdbs) = fixture(FDBS);
    let args = [
        "fabric",
        "failures",
        s(&ned),
        "--routes",
        s(&fdbs),
        "--remove",
        "A_U1[3]",
        "--reroute",
        "minhop",
        "--json",
    ];
    let v = json(&args);
    assert_eq!(v["baseline"]["delivered"], 12);
    let d = &v["draws"][0];
    assert_eq!(d["removed"][0], "A_U1[3] -> B_U1[3]");
    // The 8 cross pairs die with the stale tables; minhop moves them to the second cable.
    assert_eq!(d["before"]["unrouted"], 8);
    assert_eq!(d["before"]["disconnected"], 0);
    assert_eq!(d["after"]["delivered"], 12);
    assert_eq!(d["after"]["worst_contention"], 2);
    assert_eq!(v["after"][0]["name"], "disconnected");
    let text = String::from_utf8(
        fatnet()
            .args(&args[..args.len() - 1])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert!(
        text.contains("removed: A_U1[3] -> B_U1[3]; re-routing: minhop"),
        "{text}"
    );
    assert!(text.contains("unrouted"), "{text}");
}

#[test]
fn random_draws_are_seeded_and_bad_input_is_refused() {
    let (_d, ned, fdbs) = fixture(FDBS);
    let run = |seed: &str| {
        json(&[
            "fabric",
            "failures",
            s(&ned),
            "--routes",
            s(&fdbs),
            "--links",
            "1",
            "--draws",
            "8",
            "--seed",
            seed,
            "--json",
        ])
    };
    let a = run("3");
    assert_eq!(a, run("3"));
    assert_eq!(a["draws"].as_array().unwrap().len(), 8);
    // One of the two cables: the stale tables lose the 8 cross pairs exactly when the
    // first cable fails.
    for d in a["draws"].as_array().unwrap() {
        let first = d["removed"][0] == "A_U1[3] -> B_U1[3]";
        assert_eq!(d["before"]["unrouted"], if first { 8 } else { 0 });
        assert!(d["after"].is_null());
    }
    for bad in [
        vec!["--links", "3"],
        vec!["--remove", "NOPE[1]"],
        vec!["--links", "1", "--reroute", "ftree"],
        vec!["--links", "1", "--draws", "4294967295"],
        vec![
            "--links",
            "1",
            "--reroute",
            "opensm:updn",
            "--opensm-script",
            "/nonexistent/opensm-loop.sh",
        ],
    ] {
        let mut args = vec!["fabric", "failures", s(&ned), "--routes", s(&fdbs)];
        args.extend(bad);
        assert_one_line_error(&args);
    }
}

fn have(tool: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// OpenSM in the loop: each damaged fabric is written as an ibsim net, routed by a real
/// `opensm -R ENGINE` and read back; the built-in engines give the same tables, so every
/// metric after re-routing agrees draw by draw.
#[test]
fn opensm_in_the_loop_agrees_with_the_builtin_engines() {
    if !["opensm", "ibsim", "ibnetdiscover", "dump_fts"]
        .iter()
        .all(|t| have(t))
    {
        eprintln!("NOTICE: opensm/ibsim/infiniband-diags not installed; skipping");
        return;
    }
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fatnet-fabric/tests/fixtures/opensm/ftree-2-4-4/minhop"
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/opensm-loop.sh");
    for engine in ["minhop", "updn"] {
        let real = format!("opensm:{engine}");
        let run = |reroute: &str| {
            json(&[
                "fabric",
                "failures",
                dir,
                "--links",
                "1",
                "--draws",
                "3",
                "--seed",
                "4",
                "--reroute",
                reroute,
                "--opensm-script",
                script,
                "--json",
            ])
        };
        let (a, b) = (run(&real), run(engine));
        assert_eq!(a["draws"].as_array().unwrap().len(), 3);
        for (x, y) in a["draws"]
            .as_array()
            .unwrap()
            .iter()
            .zip(b["draws"].as_array().unwrap())
        {
            assert_eq!(x["removed"], y["removed"]);
            assert_eq!(x["after"], y["after"], "{engine}");
            assert_eq!(x["after"]["delivered"], 56);
        }
    }
}
