#!/usr/bin/env python3
"""Draws docs/img/peers-scaling.svg, flit-hops (a flit crossing one link) per second against the
number of processors, from docs/bench/peers-scaling.csv (network, processors, seconds, flit_hops: one
`fatnet simulate` batch per row, the peers' batch of docs/bench/peers.md).

Usage: scripts/peers/scaling-figure.py [CSV] [SVG]
"""
import csv
import math
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "docs/bench/peers-scaling.csv"
dst = sys.argv[2] if len(sys.argv) > 2 else "docs/img/peers-scaling.svg"
rows = list(csv.DictReader(open(src)))
series = {}
for r in rows:
    n = int(r["processors"])
    rate = int(r["flit_hops"]) / float(r["seconds"]) / 1e6
    series.setdefault(r["network"], []).append((n, rate))

W, H, L, R, T, B = 560, 340, 60, 540, 40, 290
top = 10 * math.ceil(max(rate for s in series.values() for _, rate in s) / 10)
lo, hi = 10, 20  # log2 N on the axis


def x(n):
    return L + (math.log2(n) - lo) / (hi - lo) * (R - L)


def y(rate):
    return B - rate / top * (B - T)


out = [
    f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
    f'<rect width="{W}" height="{H}" fill="white"/>',
    f'<text x="{W / 2}" y="18" text-anchor="middle">fatnet packet engine: flit-hops/s, 1 worm of 32 flits per processor, 2 threads</text>',
]
for m in range(0, top + 1, 10):
    out.append(
        f'<line x1="{L}" x2="{R}" y1="{y(m):.1f}" y2="{y(m):.1f}" stroke="#ddd"/>'
        f'<text x="{L - 6}" y="{y(m) + 4:.1f}" text-anchor="end">{m} M</text>'
    )
for e in range(lo, hi + 1, 2):
    out.append(f'<text x="{x(2 ** e):.1f}" y="308" text-anchor="middle">2^{e}</text>')
out.append(f'<text x="{(L + R) / 2}" y="326" text-anchor="middle">processors N (one fatnet simulate process per point)</text>')
colours = {"bft": "#d62728", "karyntree": "#1f77b4", "fattree": "#2ca02c"}
labels = {
    "bft": "bft (butterfly fat-tree)",
    "karyntree": "karyntree:k=4 (4-ary n-tree)",
    "fattree": "fattree:profile=doubling",
}
for i, (name, pts) in enumerate(sorted(series.items())):
    pts.sort()
    c = colours.get(name, "#333")
    poly = " ".join(f"{x(n):.1f},{y(r):.1f}" for n, r in pts)
    out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{poly}"/>')
    for n, r in pts:
        out.append(f'<circle cx="{x(n):.1f}" cy="{y(r):.1f}" r="4" fill="{c}"/>')
    out.append(f'<rect x="{R - 190}" y="{T + 8 + 18 * i}" width="12" height="4" fill="{c}"/>')
    out.append(f'<text x="{R - 172}" y="{T + 14 + 18 * i}">{labels.get(name, name)}</text>')
out.append("</svg>")
open(dst, "w").write("\n".join(out) + "\n")
