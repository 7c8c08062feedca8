"""A real fabric: is1_3l_32n (ib_flit_sim, 32 HCAs, OpenSM ftree tables), as fatnet-fabric's
Rust tests and `fatnet fabric check` see it."""

import json

import numpy as np
import pytest

import fatnet
from conftest import cli_json, cli_error, shared_fabric


@pytest.fixture(scope="module")
def is1():
    base = shared_fabric("is1_3l_32n")
    return base, fatnet.Fabric.read(base / "is1_3l_32n.ned", base / "is1_3l_32n.fdbs")


def test_worst_case_is_4(is1):
    _, f = is1
    assert (f.format, f.switches, f.cas, f.links, f.has_routes) == ("flitsim", 20, 32, 96, True)
    w = f.worst_case_permutation()
    # The four hosts of a leaf switch sent to destinations the tables route up one uplink.
    assert w["contention"] == 4
    assert w["link"] == "SW_L2_0_0_U1[5] -> SW_L1_0_0_U1[1]"
    assert w["permutation"].tolist() == [[0, 4], [1, 8], [2, 12], [3, 16]]
    assert f.link_label(w["link_id"]) == w["link"]
    # Per link: 52 unused ports, 128 links at 1, 32 at 3 and 32 at 4 (the Rust test's histogram).
    values, counts = np.unique(w["per_link"], return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist())) == {0: 52, 1: 128, 3: 32, 4: 32}
    # Routing the permutation through the tables loads that link with all four.
    loads = f.link_loads(w["permutation"])
    assert loads["congestion"] == 4 and loads["per_link"][w["link_id"]] == 4


def test_check_equals_the_cli(is1):
    base, f = is1
    want = cli_json("fabric", "check", base / "is1_3l_32n.ned", "--routes",
                    base / "is1_3l_32n.fdbs")
    got = f.check()
    for key in ["routes_valid", "nonblocking", "blocking_links", "lemma1_witness_link",
                "worst_contention", "worst_link", "shifts", "shifts_congestion_free"]:
        assert got[key] == want[key], key
    assert json.loads(json.dumps(got["lemma1_witness"])) == want["lemma1_witness"]
    assert got["worst_permutation"].tolist() == want["worst_permutation"]
    # OpenSM's ftree promise: every cyclic shift is congestion-free.
    assert (got["shift_congestion"] == 1).all() and got["shifts"] == 31


def test_link_loads_equal_fabric_load(is1):
    base, f = is1
    want = cli_json("fabric", "load", base / "is1_3l_32n.ned", "--routes",
                    base / "is1_3l_32n.fdbs", "--traffic", "permutation", "--seed", 4)
    got = f.link_loads("permutation", seed=4)
    for key in ["messages", "delivered", "congestion", "loaded_links"]:
        assert got[key] == want[key], key
    assert [list(h) for h in got["hottest"]] == [[h["link"], h["load"]] for h in want["hottest"]]
    assert int(got["per_link"].sum()) > 0 and got["faults"].shape == (0, 2)


def test_credit_loops_and_ebb(is1):
    _, f = is1
    c = f.credit_loops()
    # Up*/down* ftree routes on a fat-tree: no cycle in the channel dependency graph.
    assert c["loop_free"] and c["witness"] is None and c["routes"] == 32 * 31
    e = f.ebb(bisections=200, seed=3)
    assert e["per_draw"].shape == (200,)
    assert 0 < e["min"] <= e["mean"] <= e["max"] <= 1
    assert e["mean"] == pytest.approx(float(e["per_draw"].mean()))
    # Seeded: the same draws again.
    assert np.array_equal(f.ebb(bisections=200, seed=3)["per_draw"], e["per_draw"])


def test_simulate_on_the_fabric_equals_the_cli(is1):
    base, _ = is1
    ned, fdbs = base / "is1_3l_32n.ned", base / "is1_3l_32n.fdbs"
    sim = fatnet.simulate(topology={"fabric": str(ned), "routes": str(fdbs)},
                          traffic="permutation", trials=5, seed=2)
    want = cli_json("simulate", "--fabric", ned, "--routes", fdbs, "-t", "permutation",
                    "--trials", 5, "--seed", 2)
    assert sim.summary == want
    assert sim.summary["finished"] == 5
    # A Fabric stands for its files.
    fabric = fatnet.Fabric.read(ned, fdbs)
    again = fatnet.simulate(topology=fabric, traffic="permutation", trials=5, seed=2)
    assert again.summary == want


def test_a_missing_file_carries_the_cli_message(tmp_path):
    missing = tmp_path / "none.ned"
    with pytest.raises(fatnet.FabricError) as raised:
        fatnet.Fabric.read(missing)
    assert str(raised.value) == cli_error("fabric", "check", missing)


def test_failures_equal_the_cli(is1):
    base, f = is1
    want = cli_json("fabric", "failures", base / "is1_3l_32n.ned", "--routes",
                    base / "is1_3l_32n.fdbs", "--links", 1, "--draws", 5, "--seed", 3,
                    "--reroute", "minhop")
    got = f.failures(links=1, draws=5, seed=3, reroute="minhop")
    assert got["removed"] == [d["removed"] for d in want["draws"]]
    assert got["baseline"]["worst_contention"] == want["baseline"]["worst_contention"] == 4
    for side in ["before", "after"]:
        for name, values in got[side].items():
            assert values.shape == (5,)
            # (A metric a draw does not define, such as its eBB, is NaN here and null there.)
            expected = [np.nan if d[side][name] is None else float(d[side][name])
                        for d in want["draws"]]
            np.testing.assert_array_equal(values, expected, err_msg=f"{side} {name}")
    # Re-routed around one switch-to-switch link, every pair arrives again.
    assert (got["after"]["delivered"] == 992).all()
    assert f.failures(remove=[got["removed"][0][0]])["after"] is None
    with pytest.raises(fatnet.FabricError, match="exactly one"):
        f.failures(links=1, switches=1)
