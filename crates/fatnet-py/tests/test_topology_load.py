"""Topologies and load factors: numbers derivable by hand, and equal to `fatnet load`."""

import json
from fractions import Fraction

import numpy as np
import pytest

import fatnet
from conftest import cli, cli_error, cli_json


def test_bft_summary_and_channel_arrays():
    t = fatnet.Topology("bft:n=16")
    # 16 processors, 4 level-1 and 2 level-2 switches; a link each way per tree edge:
    # 16 processor links, 4 x 2 x 2 up/down level-1 links (two parents each).
    assert (t.processors, t.switches, t.channels, t.bundles) == (16, 6, 48, 40)
    levels = t.levels()
    assert sum(level["channels"] for level in levels) == t.channels
    assert [(level["level"], level["direction"]) for level in levels] == [
        (0, "up"), (0, "down"), (1, "up"), (1, "down")]
    tail, head, cap = t.tail, t.head, t.capacity
    assert tail.shape == head.shape == cap.shape == (48,)
    assert tail.dtype == np.uint32 and cap.dtype == np.uint64
    # Every processor has one channel up and one down.
    assert np.bincount(tail[tail < 16], minlength=16).tolist() == [1] * 16
    assert np.bincount(head[head < 16], minlength=16).tolist() == [1] * 16
    assert int(cap.sum()) == 48


def test_levels_equal_the_cli():
    for spec in ["bft:n=64", "fattree:n=64,profile=area", "karyntree:k=4,levels=3"]:
        t = fatnet.Topology(spec)
        want = cli_json("topology", spec)
        assert t.levels() == want["levels"]
        assert (t.spec, t.processors, t.switches, t.nodes, t.channels, t.bundles) == (
            want["spec"], want["processors"], want["switches"], want["nodes"],
            want["channels"], want["bundles"])


def test_to_networkx_has_every_channel():
    nx = pytest.importorskip("networkx")
    t = fatnet.Topology("fattree:n=16,profile=doubling")
    g = t.to_networkx()
    assert isinstance(g, nx.MultiDiGraph)
    assert g.number_of_nodes() == t.nodes
    assert g.number_of_edges() == t.channels
    assert sum(c for _, _, c in g.edges(data="capacity")) == int(t.capacity.sum())
    # Edge keys are channel ids; their ends are the arrays'.
    tail, head = t.tail, t.head
    for u, v, key in g.edges(keys=True):
        assert (tail[key], head[key]) == (u, v)
    assert sorted(d["label"] for _, d in g.nodes(data=True) if d["kind"] == "processor") == sorted(
        f"p{i}" for i in range(16))


def test_complement_by_hand():
    # A fat-tree of capacity-1 channels: the 4 messages of the left half all climb into the
    # root, λ = n/2 = 4.
    r = fatnet.load("fattree:n=8,profile=constant,cap=1", "complement")
    assert r.load_factor == Fraction(4)
    assert isinstance(r.load_factor, Fraction)
    assert (r.messages, r.self_messages, r.congestion, r.dilation) == (8, 0, 4, 6)
    # On the butterfly fat-tree every message leaves its level-1 switch, whose 4 processors
    # share 2 parent links: λ = 4/2.
    r = fatnet.load(fatnet.Topology("bft:n=16"), fatnet.Traffic("complement"))
    assert r.load_factor == Fraction(2)
    # The per-channel loads add up to the path lengths.
    assert int(r.channel_loads.sum()) == r.total_path_length == 64
    assert r.channel_loads.shape == (48,)


def test_random_permutation_equals_the_cli():
    spec, seed = "bft:n=64", 3
    want = cli_json("load", spec, "--traffic", "permutation", "--seed", seed)
    r = fatnet.load(spec, "permutation", seed=seed)
    exact = want["load_factor_exact"]
    assert r.load_factor == Fraction(exact["load"], exact["capacity"]) == Fraction(13, 4)
    assert r.congestion == want["congestion"]
    assert r.congestion_channel == want["congestion_channel"]
    assert r.dilation == want["dilation"]
    assert r.total_path_length == want["total_path_length"]
    assert r.lower_bound_cycles == want["lower_bound_cycles"]


def test_traffic_pairs_equal_fatnet_traffic():
    want = json.loads(
        cli("traffic", "-p", 64, "-t", "permutation", "--seed", 3, "--format", "json").stdout)
    pairs = fatnet.Traffic("permutation").pairs(64, seed=3)
    assert pairs.shape == (64, 2) and pairs.dtype == np.uint32
    assert pairs.tolist() == want["messages"]


def test_a_fixed_set_loads_like_its_spec():
    pairs = fatnet.Traffic("permutation").pairs(64, seed=5)
    by_spec = fatnet.load("bft:n=64", "permutation", seed=5)
    by_array = fatnet.load("bft:n=64", pairs)
    by_traffic = fatnet.load("bft:n=64", fatnet.Traffic.from_pairs(pairs.tolist(), 64))
    assert by_spec.load_factor == by_array.load_factor == by_traffic.load_factor
    assert np.array_equal(by_spec.channel_loads, by_array.channel_loads)


def test_traffic_from_a_file(tmp_path):
    path = tmp_path / "pairs.txt"
    path.write_text("0 7\n1 6\n2 5\n3 4\n")
    r = fatnet.load("fattree:n=8,profile=constant,cap=1", fatnet.Traffic.from_file(path))
    # Half a complement: 4 messages up the left subtree's root channel.
    assert r.load_factor == Fraction(4) and r.messages == 4


@pytest.mark.parametrize("args, call", [
    (["load", "bft:n=17", "-t", "complement"],
     lambda: fatnet.load("bft:n=17", "complement")),
    (["load", "bft:n=16", "-t", "complemen"],
     lambda: fatnet.load("bft:n=16", "complemen")),
    (["topology", "fattree:n=8,profile=bogus"],
     lambda: fatnet.Topology("fattree:n=8,profile=bogus")),
])
def test_errors_carry_the_cli_message(args, call):
    with pytest.raises(fatnet.FatnetError) as raised:
        call()
    assert str(raised.value) == cli_error(*args)


def test_bad_input_raises_typed_errors():
    with pytest.raises(fatnet.TopologyError, match="power of four"):
        fatnet.Topology("bft:n=17")
    with pytest.raises(fatnet.TrafficError, match="out of range"):
        fatnet.load("bft:n=16", [[0, 16]])
    with pytest.raises(fatnet.TrafficError, match="negative"):
        fatnet.load("bft:n=16", np.array([[0, -1]]))
    with pytest.raises(fatnet.TrafficError, match=r"\(k, 2\)"):
        fatnet.load("bft:n=16", np.zeros((3, 3), dtype=int))
    with pytest.raises(fatnet.FatnetError, match="path rule"):
        fatnet.load("bft:n=16", "complement", paths="leftmost")
    # Every class is a ValueError.
    assert issubclass(fatnet.ScenarioError, fatnet.FatnetError)
    assert issubclass(fatnet.FatnetError, ValueError)
