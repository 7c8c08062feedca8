"""Sweeps: the records of `fatnet sweep run`, as columns."""

import json

import numpy as np
import pytest

import fatnet
from conftest import cli

PACKET = {"simulator": "packet", "trials": 4, "seed": 7,
          "params": {"topology": "bft:n=64", "traffic": ["permutation", "complement"],
                     "flow": ["worm", "store"]}}

PACKET_TOML = """simulator = "packet"
trials = 4
seed = 7
[params]
topology = "bft:n=64"
traffic = ["permutation", "complement"]
flow = ["worm", "store"]
"""


def cli_records(tmp_path, toml_text):
    path = tmp_path / "sweep.toml"
    path.write_text(toml_text)
    out = tmp_path / "out"
    cli("sweep", "run", path, "--out", out)
    lines = (out / "results.jsonl").read_text().splitlines()
    return path, sorted((json.loads(line) for line in lines), key=lambda r: r["task"])


def test_a_packet_sweep_equals_fatnet_sweep_run(tmp_path):
    path, want = cli_records(tmp_path, PACKET_TOML)
    for got in [fatnet.sweep(PACKET), fatnet.sweep(path, threads=1)]:
        # 2 x 2 points x 4 trials, in task order.
        assert got["task"].tolist() == list(range(16)) == [r["task"] for r in want]
        for key in ["point", "trial", "seed"]:
            assert got[key].tolist() == [r[key] for r in want], key
        for key in ["topology", "traffic", "flow"]:
            assert got[key].tolist() == [r["params"][key] for r in want], key
        for key in ["latency", "mean_latency", "steps", "congestion", "unit_hops"]:
            assert got[key].tolist() == [r["result"][key] for r in want], key
        assert (got["outcome"] == "delivered").all()


def test_a_schedule_sweep(tmp_path):
    text = ('scheduler = "leiserson"\ntrials = 2\nseed = 3\n[params]\n'
            'topology = "fattree:n=64,profile=area"\ntraffic = ["permutation", "complement"]\n')
    _, want = cli_records(tmp_path, text)
    got = fatnet.sweep({"scheduler": "leiserson", "trials": 2, "seed": 3,
                        "params": {"topology": "fattree:n=64,profile=area",
                                   "traffic": ["permutation", "complement"]}})
    assert got["cycles"].tolist() == [r["result"]["cycles"] for r in want]
    assert got["verified"].all()
    assert (got["lower_bound"] <= got["cycles"]).all() and (got["cycles"] <= got["bound"]).all()


def test_problems_are_listed_like_the_cli():
    with pytest.raises(fatnet.ReproError) as raised:
        fatnet.sweep({"simulator": "packet", "trials": 3,
                      "params": {"topology": "bft:n=64", "flw": "worm"}})
    text = str(raised.value)
    assert "unknown key `params.flw`" in text and "missing key `seed`" in text
    assert issubclass(fatnet.ReproError, fatnet.FatnetError)
