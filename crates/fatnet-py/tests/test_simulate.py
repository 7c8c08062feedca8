"""Packet simulations: the same numbers as `fatnet simulate --json` for the same seed."""

import threading

import numpy as np
import pytest

import fatnet
from conftest import cli, cli_error, cli_json

FIELDS = ["messages", "delivered", "steps", "latency", "mean_latency", "congestion", "dilation",
          "unit_hops", "mean_queued", "max_queue", "trial", "seed"]


def check_equal_to_cli(sim, *cli_args):
    want = cli_json("simulate", *cli_args, "--per-trial")
    per_trial = want.pop("per_trial")
    # The summary, key for key (floats bit for bit: the same trials, summed in the same order).
    assert sim.summary == want
    assert len(sim) == want["trials"] == len(per_trial)
    trials = sim.trials
    for field in FIELDS:
        assert trials[field].tolist() == [t[field] for t in per_trial], field
    assert trials["outcome"].tolist() == [t["outcome"]["kind"] for t in per_trial]


def test_permutations_on_a_bft_equal_the_cli():
    sim = fatnet.simulate(topology="bft:n=64", traffic="permutation", trials=20, seed=7)
    check_equal_to_cli(sim, "bft:n=64", "-t", "permutation", "--trials", 20, "--seed", 7)
    assert sim.summary["finished"] == 20
    # Every message is delivered; a 64-processor bft's paths are at most 6 links long.
    assert (sim.trials["delivered"] == 64).all()
    assert sim.trials["dilation"].max() == 6
    # The same records as a structured array.
    rec = sim.to_records()
    assert rec.shape == (20,) and rec.dtype.names == tuple(sim.trials)
    assert rec["latency"].tolist() == sim.trials["latency"].tolist()
    assert rec[3]["seed"] == sim.trials["seed"][3]


def test_a_config_dict_and_a_toml_file_equal_the_cli(tmp_path):
    keys = {"topology": "fattree:n=32,profile=area", "traffic": "uniform", "flow": "store",
            "queue": "unbounded", "delay": 4, "trials": 12, "seed": 3}
    sim = fatnet.simulate(keys)
    config = tmp_path / "case.toml"
    config.write_text(
        'topology = "fattree:n=32,profile=area"\ntraffic = "uniform"\nflow = "store"\n'
        'queue = "unbounded"\ndelay = 4\ntrials = 12\nseed = 3\n')
    check_equal_to_cli(sim, "--config", config)
    assert fatnet.simulate(config).summary == sim.summary
    # Keyword arguments override the dict, as flags override --config.
    other = fatnet.simulate(keys, seed=4)
    check_equal_to_cli(other, "--config", config, "--seed", 4)
    assert other.summary["seed"] == 4


def test_topology_and_traffic_objects_stand_for_their_specs():
    a = fatnet.simulate(topology=fatnet.Topology("karyntree:k=4,levels=2"),
                        traffic=fatnet.Traffic("complement"), flits=8, trials=3, seed=2)
    b = fatnet.simulate(topology="karyntree:k=4,levels=2", traffic="complement", flits=8,
                        trials=3, seed=2)
    assert a.summary == b.summary


def test_results_do_not_depend_on_threads():
    runs = [fatnet.simulate(topology="bft:n=64", traffic="uniform", trials=16, seed=11,
                            threads=threads) for threads in (1, 2, 3)]
    assert runs[0].summary == runs[1].summary == runs[2].summary


def test_latencies_are_recorded_on_request():
    sim = fatnet.simulate(topology="bft:n=16", traffic="complement", trials=2, latencies=True)
    lat = sim.latencies
    assert len(lat) == 2 and all(len(l) == 16 for l in lat)
    # The trial's maximum latency is the largest message latency.
    assert [int(l.max()) for l in lat] == sim.trials["latency"].tolist()
    assert fatnet.simulate(topology="bft:n=16", traffic="complement").latencies is None


def test_the_gil_is_released_while_trials_run():
    done = []
    worker = threading.Thread(target=lambda: done.append(
        fatnet.simulate(topology="bft:n=256", traffic="permutation", trials=40, threads=1)))
    worker.start()
    spins = 0
    while worker.is_alive():
        spins += 1
    worker.join()
    assert done and done[0].summary["finished"] == 40
    # Had the simulation held the GIL, this loop could not have run while it did.
    assert spins > 10_000, spins


@pytest.mark.parametrize("keys, args", [
    ({"topology": "bft:n=64", "traffic": "permutation", "flits": 0},
     ["bft:n=64", "-t", "permutation", "--flits", 0]),
    ({"topology": "bft:n=64", "traffic": "permutation", "priority_range": 3},
     ["bft:n=64", "-t", "permutation", "--priority-range", 3]),
    ({"topology": "bft:n=64", "traffic": "permutation", "trials": 0},
     ["bft:n=64", "-t", "permutation", "--trials", 0]),
])
def test_refusals_carry_the_cli_message(keys, args):
    with pytest.raises(fatnet.ScenarioError) as raised:
        fatnet.simulate(**keys)
    assert str(raised.value) == cli_error("simulate", *args)


def test_bad_keys_are_refused_like_a_config_file(tmp_path):
    config = tmp_path / "bad.toml"
    config.write_text('topology = "bft:n=16"\nflw = "worm"\n')
    with pytest.raises(fatnet.ScenarioError) as from_file:
        fatnet.simulate(config)
    assert str(from_file.value) == cli_error("simulate", "--config", config)
    with pytest.raises(fatnet.ScenarioError) as from_dict:
        fatnet.simulate(topology="bft:n=16", traffic="complement", flw="worm")
    # The same message as the file's, without its line and column.
    assert str(from_dict.value) in str(from_file.value)
    with pytest.raises(fatnet.ScenarioError, match="no traffic"):
        fatnet.simulate(topology="bft:n=16")
    # The scenario layer's error (its class), with the CLI's message.
    with pytest.raises(fatnet.ScenarioError) as raised:
        fatnet.simulate(topology="bft:n=17", traffic="complement")
    assert str(raised.value) == cli_error("simulate", "bft:n=17", "-t", "complement")
