"""Leiserson's schedules: verified by the library and, independently, channel by channel."""

import json
from fractions import Fraction

import numpy as np
import pytest

import fatnet
from conftest import cli_error, cli_json


def as_json(value):
    """`value` as JSON would hold it (tuples become lists)."""
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("spec, traffic, seed", [
    ("fattree:n=64,profile=area", "permutation", 5),
    ("fattree:n=128,profile=universal,w=32", "replicated:k=3", 2),
])
def test_a_schedule_equals_the_cli_and_is_verified(spec, traffic, seed):
    s = fatnet.schedule(spec, traffic, seed=seed)
    assert s.verify() is True
    want = cli_json("schedule", spec, "--traffic", traffic, "--seed", seed)
    assert as_json(s.summary) == want
    assert s.cycles == want["cycles"] and want["verified"]
    assert s.load_factor == Fraction(*want["load_factor_exact"])
    assert s.lower_bound <= s.cycles <= s.bound


def test_every_cycle_fits_every_channel():
    # Independently of `verify`: the messages of each cycle, loaded on the tree's unique
    # paths, never exceed a channel's capacity.
    t = fatnet.Topology("fattree:n=64,profile=area")
    s = fatnet.schedule(t, "permutation", seed=9)
    pairs, cycle = s.pairs, s.cycle
    assert pairs.shape == (64, 2) and cycle.shape == (64,)
    assert set(cycle.tolist()) == set(range(s.cycles))
    for c in range(s.cycles):
        loads = fatnet.load(t, pairs[cycle == c]).channel_loads
        assert (loads <= t.capacity).all(), c


def test_complement_on_unit_channels_by_hand():
    # λ = 4 (all four left-half messages through the root): at least 4 cycles, and the
    # four messages that cross into the root go in four different cycles.
    s = fatnet.schedule("fattree:n=8,profile=constant,cap=1", "complement")
    assert s.load_factor == 4 and s.lower_bound == 4 and s.verify()
    left = s.cycle[:4]
    assert len(set(left.tolist())) == 4


def test_refusals_carry_the_cli_message():
    with pytest.raises(fatnet.ScenarioError) as raised:
        fatnet.schedule("bft:n=64", "permutation")
    assert str(raised.value) == cli_error("schedule", "bft:n=64", "--traffic", "permutation")
    with pytest.raises(fatnet.FatnetError):
        fatnet.schedule("fattree:n=64,profile=area", "permutation", algorithm="theorem9")
