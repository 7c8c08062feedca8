"""Impossible or huge parameters: a typed error naming the problem (and, for sizes, the
estimate), raised before anything large is allocated; never a crash."""

import pytest

import fatnet


def test_huge_topologies_are_refused_with_estimates():
    with pytest.raises(fatnet.TopologyError, match="out of range"):
        fatnet.Topology("fattree:n=1099511627776,profile=constant,cap=1")
    with pytest.raises(fatnet.TopologyError, match="exceeds the supported maximum"):
        fatnet.Topology("karyntree:k=64,levels=6")
    # Built arithmetically, but every array and analysis of it is over the memory budget.
    t = fatnet.Topology("bft:n=1073741824")
    assert t.channels == 4294836224
    with pytest.raises(fatnet.TopologyError, match=r"16\.0 GiB\), over the memory budget"):
        t.tail
    with pytest.raises(fatnet.TopologyError, match="over the memory budget"):
        t.to_networkx()
    with pytest.raises(fatnet.LoadError, match="over the memory budget"):
        fatnet.load(t, "complement")
    with pytest.raises(fatnet.ScenarioError, match="too many nodes"):
        fatnet.simulate(topology=t, traffic="complement")


def test_huge_traffic_and_runs_are_refused():
    with pytest.raises(fatnet.TrafficError, match=r"48\.0 GiB\), over the memory budget"):
        fatnet.Traffic("permutation").pairs(4294967295)
    with pytest.raises(fatnet.ScenarioError, match="at most .* trials fit"):
        fatnet.simulate(topology="bft:n=16", traffic="complement", trials=10**15)
    with pytest.raises(fatnet.ScenarioError, match="threads = 1000000 is out of range"):
        fatnet.simulate(topology="bft:n=16", traffic="complement", threads=10**6)
    with pytest.raises(fatnet.FabricError, match="No such file"):
        fatnet.Fabric.read("/nonexistent/fabric.ned")
