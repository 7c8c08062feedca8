#!/usr/bin/env python3
"""The overhead of the Python package over the CLI: the same simulation, `fatnet.simulate(...)`
in this interpreter and `fatnet simulate ... --json` as a process, timed alternately.

    python3 scripts/python-overhead.py FATNET_BIN [--repeat 7] [--trials 1000] [--topology bft:n=256]

Prints every sample and the medians (wall-clock seconds, `time.perf_counter`), and checks that
both gave the same summary. Run it where the fatnet wheel is installed, built with the same
profile as FATNET_BIN (both dev by default)."""

import argparse
import json
import statistics
import subprocess
import time

import fatnet

CASE = {"traffic": "permutation", "flow": "worm", "seed": 7}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fatnet_bin")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--topology", default="bft:n=256")
    args = ap.parse_args()
    case = dict(CASE, topology=args.topology, trials=args.trials, threads=args.threads)
    cmd = [args.fatnet_bin, "simulate", case["topology"], "--traffic", case["traffic"],
           "--flow", case["flow"], "--seed", str(case["seed"]), "--trials", str(args.trials),
           "--threads", str(args.threads), "--json"]
    py, cli = [], []
    for i in range(args.repeat):
        start = time.perf_counter()
        sim = fatnet.simulate(case)
        py.append(time.perf_counter() - start)
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        cli.append(time.perf_counter() - start)
        assert json.loads(out) == sim.summary, "the Python and CLI summaries differ"
        print(f"run {i}: python {py[-1]:.3f} s, cli {cli[-1]:.3f} s")
    mp, mc = statistics.median(py), statistics.median(cli)
    ratio = statistics.median(p / c for p, c in zip(py, cli))
    print(f"median: python {mp:.3f} s, cli {mc:.3f} s; median of the paired ratios "
          f"python/cli {ratio:.3f}")


if __name__ == "__main__":
    main()
