#!/usr/bin/env python3
"""The table of one sitting (scripts/peers/sitting.sh) from its raw files in OUT.

For each N: every tool's median wall time over its runs of the sitting (BookSim2 and CAMINOS:
one run a round; fatnet: ten runs a round after two warm-ups, hyperfine's JSON), the range, the
peak RSS (the largest of the runs; fatnet's from its one `/usr/bin/time` run on one thread), and
the ratios of the medians. Each round's fatnet median is listed too: the spread between them is
the machine's drift over the sitting.

Usage: scripts/peers/sitting-summary.py OUT
"""
import glob
import json
import os
import re
import statistics
import sys


def peer_runs(out, tool, n):
    """(seconds, KB) of each run of `tool` at `n`, in round order."""
    runs = []
    for path in sorted(glob.glob(os.path.join(out, f"{tool}-{n}-*.time"))):
        m = re.search(r"([0-9.]+) s ([0-9]+) KB", open(path).read())
        if m:
            runs.append((float(m.group(1)), int(m.group(2))))
    return runs


def fatnet_rounds(out, n, net, threads):
    """The run times of each round (a list of lists), in round order."""
    rounds = []
    paths = glob.glob(os.path.join(out, f"fatnet-{n}-{net}-t{threads}-r*.json"))
    for path in sorted(paths, key=lambda p: int(re.search(r"-r([0-9]+)\.json$", p).group(1))):
        rounds.append(json.load(open(path))["results"][0]["times"])
    return rounds


def fatnet_peak(out, n, net):
    path = os.path.join(out, f"fatnet-{n}-{net}-peak.time")
    if not os.path.exists(path):
        return None
    m = re.search(r"([0-9]+) KB", open(path).read())
    return int(m.group(1)) if m else None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    out = sys.argv[1]
    for n in (4096, 16384):
        peers = {t: peer_runs(out, t, n) for t in ("booksim", "caminos")}
        if not all(peers.values()):
            continue
        print(f"\nN = {n:,}")
        print("| tool | runs | median | range | peak RSS | BookSim2 / tool | CAMINOS / tool |")
        print("|---|---|---|---|---|---|---|")
        med = {t: statistics.median(s for s, _ in r) for t, r in peers.items()}
        for t, name in (("booksim", "BookSim2"), ("caminos", "CAMINOS")):
            secs = [s for s, _ in peers[t]]
            print(f"| {name} | {len(secs)} | {med[t]:.2f} s | {min(secs):.2f}–{max(secs):.2f} s"
                  f" | {max(k for _, k in peers[t]):,} KB | | |")
        for net in ("karyntree", "bft"):
            for threads in (1, 2):
                rounds = fatnet_rounds(out, n, net, threads)
                times = [x for r in rounds for x in r]
                if not times:
                    continue
                m = statistics.median(times)
                peak = fatnet_peak(out, n, net) if threads == 1 else None
                per_round = ", ".join(f"{statistics.median(r):.4f}" for r in rounds)
                print(f"| fatnet `{net}`, {threads} thread{'s' if threads > 1 else ''} | {len(times)}"
                      f" | {m:.4f} s | {min(times):.4f}–{max(times):.4f} s"
                      f" (round medians {per_round})"
                      f" | {f'{peak:,} KB' if peak else ''}"
                      f" | {med['booksim'] / m:.0f}× | {med['caminos'] / m:.0f}× |")


if __name__ == "__main__":
    main()
