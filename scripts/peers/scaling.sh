#!/usr/bin/env bash
# The engine's scaling series of docs/bench/peers.md: the peers' batch (common.sh) on `bft:n=N`
# and `karyntree:k=4` for N = 2^10 ... 2^20, and on the full-bisection fat-tree
# `fattree:n=N,profile=doubling` up to 2^18, with `--threads 2`, written as
# docs/bench/peers-scaling.csv (network, processors, seconds, flit_hops, peak_kb), from which
# scripts/peers/scaling-figure.py draws docs/img/peers-scaling.svg.
#
# N = 2^10 ... 2^16: the mean wall time of `perf stat -r 5` (`/usr/bin/time` has 10 ms
# resolution); 2^18 and 2^20: one run under `/usr/bin/time` (about 10 and 40 s). Peak memory is
# one `/usr/bin/time` run's maximum resident set, in KiB. About 3 minutes on the 2-core machine;
# run it with nothing else running. Not run in CI.
#
# Usage: scripts/peers/scaling.sh [CSV]     (env: FATNET as in common.sh; MAX_LOG2, default 20)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
. "$here/common.sh"
csv=${1:-$here/../../docs/bench/peers-scaling.csv}
max=${MAX_LOG2:-20}
[ -x "$FATNET" ] || { echo "no fatnet binary at $FATNET (cargo build --release -p fatnet-cli)" >&2; exit 1; }

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.out"' EXIT
echo "network,processors,seconds,flit_hops,peak_kb" > "$tmp"
date -u >&2
for e in $(seq 10 2 "$max"); do
  n=$((1 << e))
  for net in bft karyntree fattree; do
    case $net in
      bft) spec="bft:n=$n" ;;
      karyntree) spec="karyntree:k=4,levels=$((e / 2))" ;;
      # Leiserson's full-bisection fat-tree: 2^25 + 16 wires at 2^20, above the engine's
      # 2^25 (refused with that count), so its series ends at 2^18.
      fattree) [ "$e" -le 18 ] || continue; spec="fattree:n=$n,profile=doubling" ;;
    esac
    # One run under /usr/bin/time: the report (flit-hops) and the peak memory.
    /usr/bin/time -f "TIME %e %M" "$FATNET" simulate "$spec" "${batch[@]}" --threads 2 > "$tmp.out" 2>&1
    hops=$(sed -n 's/.* \([0-9]*\) flit-hops.*/\1/p' "$tmp.out")
    read -r wall peak < <(sed -n 's/^TIME //p' "$tmp.out")
    if [ "$e" -le 16 ]; then
      wall=$(perf stat -r 5 -e task-clock "$FATNET" simulate "$spec" "${batch[@]}" --threads 2 2>&1 >/dev/null \
        | sed -n 's/^ *\([0-9.]*\) +- .*seconds time elapsed.*/\1/p')
    fi
    [ -n "$hops" ] && [ -n "$wall" ] || { echo "could not read the run of $spec" >&2; cat "$tmp.out" >&2; exit 1; }
    echo "$net,$n,$wall,$hops,$peak" >> "$tmp"
    echo "$spec: $wall s, $hops flit-hops, $peak KiB, load $(cut -d' ' -f1 /proc/loadavg)" >&2
  done
done
date -u >&2
mv "$tmp" "$csv"
trap 'rm -f "$tmp.out"' EXIT
echo "wrote $csv" >&2
