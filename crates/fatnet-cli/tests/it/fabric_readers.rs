//! `fatnet fabric check|load --format ibnetdiscover --routes`, the traffic that names hosts
//! (`dstseq:`, `hosts:`) and `fatnet fabric compare`, on the committed OpenSM fixtures and on
//! `../shared/fabrics/ib_flit_sim` when present.

use std::path::{Path, PathBuf};

use crate::common::{assert_one_line_error, json, stdout_of};
use crate::fabric::s;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fatnet-fabric/tests/fixtures/opensm")
        .join(rel)
}

fn shared(rel: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("FATNET_FABRICS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fabrics"),
        PathBuf::from,
    );
    let p = dir.join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("NOTICE: {} not found; skipping", p.display());
        None
    }
}

/// `ibnetdiscover.out` with the tables `dump_fts` read back from the switches judges the
/// routing as the OpenSM read of the same folder does.
#[test]
fn check_ibnetdiscover_with_ibroute_tables() {
    let dir = fixture("karyntree-2-3/ftree");
    let ibnd = dir.join("ibnetdiscover.out");
    let tables = dir.join("ibroute.out");
    let a = json(&[
        "fabric",
        "check",
        s(&ibnd),
        "--routes",
        s(&tables),
        "--json",
    ]);
    let b = json(&["fabric", "check", s(&dir), "--format", "opensm", "--json"]);
    assert_eq!(a["format"], "ibnetdiscover");
    assert_eq!(a["unrecognised_lines"], 0);
    assert!(
        a["ca_order"]
            .as_str()
            .unwrap()
            .ends_with("opensm-ftree-ca-order.dump")
    );
    for key in [
        "switches",
        "end_nodes",
        "links",
        "routes_valid",
        "nonblocking",
        "blocking_links",
        "worst_contention",
        "shifts_congestion_free",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!(a["routes"]["traced"], 8 * 7);
    assert_eq!(a["routes"]["delivered"], 8 * 7);
    // Tables of a fabric the dump does not have: the error names the table file and line.
    assert_one_line_error(&[
        "fabric",
        "check",
        s(&fixture("ftree-2-4-4/ftree/ibnetdiscover.out")),
        "--routes",
        s(&tables),
    ]);
}

#[test]
fn load_by_host_names() {
    let dir = fixture("karyntree-2-3/ftree");
    let tmp = tempfile::tempdir().unwrap();
    let hosts = tmp.path().join("pairs.txt");
    // The exported CAs are described `ca <x>`.
    std::fs::write(
        &hosts,
        "# two pairs\n\"ca 0\" \"ca 7\"\n\"ca 7\" \"ca 0\"\n",
    )
    .unwrap();
    let traffic = format!("hosts:{}", s(&hosts));
    let v = json(&[
        "fabric",
        "load",
        s(&dir.join("ibnetdiscover.out")),
        "--routes",
        s(&dir.join("ibroute.out")),
        "--traffic",
        &traffic,
        "--json",
    ]);
    assert_eq!(v["messages"], 2);
    assert_eq!(v["delivered"], 2);
    assert_eq!(v["traffic"], traffic);
    // ca 0 and ca 7 are on different halves: each route climbs to the top level and uses 6
    // directed links (3 up, 3 down, CA links included), none shared.
    assert_eq!(v["congestion"], 1);
    assert_eq!(v["loaded_links"], 12);
    std::fs::write(&hosts, "\"ca 0\" \"ca 7\"\n\"ca 0\" nobody\n").unwrap();
    let a = crate::common::fatnet()
        .args([
            "fabric",
            "load",
            s(&dir.join("ibnetdiscover.out")),
            "--routes",
            s(&dir.join("ibroute.out")),
            "--traffic",
            &traffic,
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("pairs.txt:2: unknown host `nobody`"), "{err}");
}

#[test]
fn load_dstseq_on_is1() {
    let Some(base) = shared("ib_flit_sim/is1_3l_32n") else {
        return;
    };
    let traffic = format!("dstseq:{}", s(&base.join("is1_3l_32n.dstSeq")));
    let v = json(&[
        "fabric",
        "load",
        s(&base.join("is1_3l_32n.ned")),
        "--routes",
        s(&base.join("is1_3l_32n.fdbs")),
        "--traffic",
        &traffic,
        "--json",
    ]);
    // 32 hosts, each sending to the 31 others.
    assert_eq!(v["messages"], 32 * 31);
    assert_eq!(v["delivered"], 32 * 31);
    let text = stdout_of([
        "fabric",
        "load",
        s(&base.join("is1_3l_32n.ned")),
        "--routes",
        s(&base.join("is1_3l_32n.fdbs")),
        "--traffic",
        &traffic,
    ]);
    assert!(text.contains("messages 992, delivered 992"), "{text}");
}

#[test]
fn compare_is4_topo_and_ned() {
    let Some(base) = shared("ib_flit_sim/is4_3l_1944n") else {
        return;
    };
    let v = json(&[
        "fabric",
        "compare",
        s(&base.join("is4_3l_1944n.topo")),
        s(&base.join("is4_3l_1944n.ned")),
        "--json",
    ]);
    assert_eq!(v["same"], false);
    assert_eq!(v["a"]["unrecognised_lines"], 0);
    // The .ned's director spine chips and line-card-to-spine cables, which the .topo leaves
    // to ibdm's .ibnl system definitions.
    assert_eq!(v["b"]["only_here_count"], 54);
    assert_eq!(v["b"]["links_only_here_count"], 108 * 18);
    assert_eq!(v["a"]["links_only_here_count"], 0);
    assert_eq!(
        v["a"]["only_here"],
        serde_json::json!(["SWS_0", "SWS_1", "SWS_2"])
    );
    let text = stdout_of([
        "fabric",
        "compare",
        s(&base.join("is4_3l_1944n.topo")),
        s(&base.join("is4_3l_1944n.ned")),
    ]);
    assert!(text.contains("1944 links only in B"), "{text}");
}

#[test]
fn compare_the_same_subnet_from_two_tools() {
    let v = json(&[
        "fabric",
        "compare",
        s(&fixture("ftree-2-4-4/ftree/ibnetdiscover.out")),
        s(&fixture("ftree-2-4-4/opensm-subnet.lst")),
        "--json",
    ]);
    assert_eq!(v["same"], true);
    assert_eq!(v["matched"]["by_guid"], 16);
    assert_one_line_error(&["fabric", "compare", "/nonexistent/a", "/nonexistent/b"]);
}
