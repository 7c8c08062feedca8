//! `fatnet simulate --fabric`: the packet engine on real fabrics, routed by their forwarding
//! tables — an inline two-switch fixture, the committed OpenSM dumps, and the ib_flit_sim
//! fabrics of `../shared/fabrics` when present. The two-switch fixture is `fabric.rs`'s.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{assert_one_line_error, json, stderr_of_failure};
use crate::fabric::{fixture, s};

/// Everything between the switches over the first cable (0-based port 2).
const ONE_CABLE: &str = "0: 255 0 1 2 2 255 255\n1: 255 2 2 0 1 255 255\n";
/// Hosts 3 and 1 over the first cable, hosts 4 and 2 over the second.
const TWO_CABLES: &str = "0: 255 0 1 2 3 255 255\n1: 255 2 3 0 1 255 255\n";

fn simulate(ned: &Path, tables: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "simulate",
        "--fabric",
        s(ned),
        "--routes",
        s(tables),
        "--json",
    ];
    args.extend_from_slice(extra);
    json(&args)
}

#[test]
fn the_tables_decide_the_routes() {
    // Complement on four hosts: 0 -> 3, 1 -> 2, 2 -> 1, 3 -> 0, every message across.
    let (_d1, ned, one) = fixture(ONE_CABLE);
    let (_d2, _, two) = fixture(TWO_CABLES);
    for flow in ["store", "worm"] {
        let a = simulate(&ned, &one, &["-t", "complement", "--flow", flow]);
        let b = simulate(&ned, &two, &["-t", "complement", "--flow", flow]);
        for v in [&a, &b] {
            assert_eq!(v["processors"], 4);
            assert_eq!(v["finished"], 1);
            assert_eq!(v["path"], "std");
            // Host, switch, switch, host: three links.
            assert_eq!(v["dilation_max"], 3);
        }
        assert_eq!(a["topology"]["routes"], s(&one));
        // One cable carries two messages each way; two cables one each.
        assert_eq!(
            (a["congestion_max"].as_u64(), b["congestion_max"].as_u64()),
            (Some(2), Some(1))
        );
        assert!(
            a["latency_max"].as_u64() > b["latency_max"].as_u64(),
            "{flow}: one cable {} vs two {}",
            a["latency_max"],
            b["latency_max"]
        );
    }
    // Output queues and a broadcast run on a fabric too.
    let v = simulate(&ned, &two, &["-t", "broadcast", "--queueing", "output"]);
    assert_eq!(
        (v["messages"].as_u64(), v["finished"].as_u64()),
        (Some(4), Some(1))
    );
}

#[test]
fn a_config_file_names_a_fabric_as_a_table() {
    let (dir, ned, tables) = fixture(TWO_CABLES);
    let config = dir.path().join("run.toml");
    std::fs::write(
        &config,
        format!(
            "topology = {{ fabric = {:?}, routes = {:?} }}\ntraffic = \"permutation\"\ntrials = 3\n",
            s(&ned),
            s(&tables)
        ),
    )
    .unwrap();
    let from_file = json(&["simulate", "--config", s(&config), "--json"]);
    let from_flags = simulate(&ned, &tables, &["-t", "permutation", "--trials", "3"]);
    assert_eq!(from_file, from_flags);
    assert_eq!(from_file["trials"], 3);
}

#[test]
fn bad_fabric_input_is_one_line_exit_2() {
    let (_d, ned, tables) = fixture(TWO_CABLES);
    let (ned, tables) = (s(&ned), s(&tables));
    // A path policy that would choose, where the tables choose.
    let e = stderr_of_failure([
        "simulate",
        "--fabric",
        ned,
        "--routes",
        tables,
        "-t",
        "complement",
        "--path",
        "rp",
    ]);
    assert!(
        e.contains("path = rp") && e.contains("std on a fabric"),
        "{e}"
    );
    // No tables: no routes.
    let e = stderr_of_failure(["simulate", "--fabric", ned, "-t", "complement"]);
    assert!(e.contains("no forwarding tables"), "{e}");
    for args in [
        &[
            "simulate",
            "--fabric",
            ned,
            "--routes",
            tables,
            "-t",
            "complement",
            "--path",
            "gp",
        ][..],
        &[
            "simulate",
            "--fabric",
            "/nonexistent/x.ned",
            "--routes",
            tables,
            "-t",
            "complement",
        ],
        &["simulate", "bft:n=16", "--fabric", ned, "-t", "complement"],
        &[
            "simulate",
            "bft:n=16",
            "--routes",
            tables,
            "-t",
            "complement",
        ],
        &["simulate", "--routes", tables, "-t", "complement"],
        &[
            "simulate",
            "--fabric",
            ned,
            "--routes",
            tables,
            "--arrivals",
            "poisson",
            "--rate",
            "0.1",
        ],
        &[
            "simulate",
            "--fabric",
            ned,
            "--routes",
            tables,
            "-t",
            "complement",
            "--fabric-format",
            "tofu",
        ],
        // More processors than the fabric has CAs.
        &[
            "simulate",
            "--fabric",
            ned,
            "--routes",
            tables,
            "-t",
            "broadcast:src=4",
        ],
    ] {
        assert_one_line_error(args);
    }
}

fn opensm_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fatnet-fabric/tests/fixtures/opensm")
}

#[test]
fn opensm_dumps_of_generated_folded_clos_networks() {
    // ftree(3+6, 6), routed by OpenSM 3.3.23's ftree, updn and minhop engines.
    let base = opensm_fixtures().join("ftree-3-6-6");
    let lst = base.join("opensm-subnet.lst");
    for engine in ["ftree", "updn", "minhop"] {
        let routes = base.join(engine);
        for flow in ["worm", "store"] {
            let v = simulate(
                &lst,
                &routes,
                &["-t", "permutation", "--trials", "5", "--flow", flow],
            );
            assert_eq!(v["processors"], 18, "{engine}");
            assert_eq!(v["finished"], 5, "{engine} {flow}");
            // CA, leaf, top, leaf, CA at most.
            assert!(
                v["dilation_max"].as_u64().unwrap() <= 4,
                "{engine}: {}",
                v["dilation_max"]
            );
        }
    }
}

#[test]
fn shared_ib_flit_sim_fabrics() {
    let dir = std::env::var_os("FATNET_FABRICS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fabrics"),
        PathBuf::from,
    );
    for (name, cas) in [("is1_3l_32n", 32), ("is4_3l_1944n", 1944)] {
        let base = dir.join("ib_flit_sim").join(name);
        if !base.is_dir() {
            eprintln!("NOTICE: {} not found; skipping", base.display());
            continue;
        }
        let ned = base.join(format!("{name}.ned"));
        let fdbs = base.join(format!("{name}.fdbs"));
        for flow in ["worm", "store"] {
            let v = simulate(
                &ned,
                &fdbs,
                &["-t", "permutation", "--trials", "2", "--flow", flow],
            );
            assert_eq!(v["processors"], cas, "{name}");
            assert_eq!(v["finished"], 2, "{name} {flow}");
            // A three-level tree: at most CA, three switches up, two down, CA: 6 links.
            assert!(
                v["dilation_max"].as_u64().unwrap() <= 6,
                "{name}: {}",
                v["dilation_max"]
            );
            assert!(v["topology"]["ca_order"].is_null());
        }
    }
}

#[test]
fn sweeps_take_a_fabric_as_a_topology_string() {
    let (dir, ned, tables) = fixture(TWO_CABLES);
    let fabric = format!("fabric:{},routes={}", s(&ned), s(&tables));
    // The one-string form is also SPEC.
    let v = json(&["simulate", &fabric, "-t", "complement", "--json"]);
    assert_eq!(v["congestion_max"], 1);
    let sweep = dir.path().join("s.toml");
    std::fs::write(
        &sweep,
        format!(
            "simulator = \"packet\"\ntrials = 2\nseed = 3\n[params]\ntopology = [\"{fabric}\", \"bft:n=4\"]\ntraffic = \"complement\"\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    crate::common::stdout_of(["sweep", "run", s(&sweep), "--out", s(&out)]);
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 4);
    // A path policy that would choose is refused on the fabric's point, at its line.
    std::fs::write(
        &sweep,
        format!(
            "simulator = \"packet\"\ntrials = 1\nseed = 3\n[params]\ntopology = \"{fabric}\"\ntraffic = \"complement\"\npath = [\"std\", \"gp\"]\n"
        ),
    )
    .unwrap();
    let e = stderr_of_failure(["sweep", "check", s(&sweep)]);
    assert!(
        e.contains("line 7: point 1") && e.contains("std on a fabric"),
        "{e}"
    );
    // The delivery-cycle routers run on binary fat-trees only.
    std::fs::write(
        &sweep,
        format!(
            "simulator = \"route\"\ntrials = 1\nseed = 3\n[params]\ntopology = \"{fabric}\"\ntraffic = \"complement\"\n"
        ),
    )
    .unwrap();
    let e = stderr_of_failure(["sweep", "check", s(&sweep)]);
    assert!(
        e.contains("line 5") && e.contains("packet simulator"),
        "{e}"
    );
}

#[test]
fn a_device_is_not_read_as_a_fabric_and_not_replaced_as_an_output() {
    // /dev/zero would be read forever; /dev/null would be renamed over.
    let e = stderr_of_failure(["simulate", "--fabric", "/dev/zero", "-t", "complement"]);
    assert!(e.contains("not a regular file"), "{e}");
    let e = stderr_of_failure([
        "fabric",
        "export",
        "ftree:n=2,m=4,r=4",
        "--output",
        "/dev/null",
    ]);
    assert!(e.contains("not a regular file"), "{e}");
    let null = std::fs::metadata("/dev/null").unwrap();
    assert!(!null.file_type().is_file(), "/dev/null was replaced");
    // A symbolic link is not replaced either; a regular file is.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.net");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.net");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    stderr_of_failure([
        "fabric",
        "export",
        "ftree:n=2,m=4,r=4",
        "--output",
        s(&link),
    ]);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    crate::common::stdout_of([
        "fabric",
        "export",
        "ftree:n=2,m=4,r=4",
        "--output",
        s(&target),
    ]);
    assert!(std::fs::read_to_string(&target).unwrap().contains("Switch"));
}
