#!/usr/bin/env bash
# One side-by-side sitting for docs/bench/peers.md's record: BookSim2 and CAMINOS alternately,
# three times at N = 4,096 and once at 16,384 (`/usr/bin/time -f "%e s %M KB"`, wall time and
# peak RSS), then fatnet's `karyntree:k=4` and `bft` batches with 1 and 2 threads under
# `perf stat -r 10` (wall time; `/usr/bin/time` has 10 ms resolution) and once under
# `/usr/bin/time` for the peak RSS. About 8 minutes on the 2-core machine; run it with nothing
# else running, and compare only figures of one sitting (the VM's speed drifts by 10-20 %
# between hours).
#
# Usage: scripts/peers/sitting.sh          (env: BOOKSIM, CAMINOS, FATNET, OUT as in run.sh)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
. "$here/common.sh"
OUT=${OUT:-/tmp/peers-sitting}
mkdir -p "$OUT"

date -u
for n in 4096 16384; do
  case $n in 4096) l=6; reps=3 ;; 16384) l=7; reps=1 ;; esac
  for r in $(seq "$reps"); do
    echo "== booksim N=$n run $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd "$OUT" && /usr/bin/time -f "%e s %M KB" "$BOOKSIM" "$here/booksim/fattree_k4_n$l.cfg" \
      > "$OUT/booksim-$n-$r.out" 2> "$OUT/booksim-$n-$r.err")
    tail -1 "$OUT/booksim-$n-$r.err"
    grep -E "Time taken|Packet latency average" "$OUT/booksim-$n-$r.out" | tail -2 | sed 's/^/   /'
    echo "== caminos N=$n run $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f "%e s %M KB" "$CAMINOS" "$here/caminos/xgft_$n.cfg" \
      > "$OUT/caminos-$n-$r.out" 2> "$OUT/caminos-$n-$r.err"
    tail -1 "$OUT/caminos-$n-$r.err"
  done
  for spec in "karyntree:k=4,levels=$l" "bft:n=$n"; do
    for t in 1 2; do
      echo -n "== fatnet $spec --threads $t: "
      perf stat -r 10 -e task-clock "$FATNET" simulate "$spec" "${batch[@]}" --threads "$t" 2>&1 >/dev/null \
        | grep -E "elapsed"
    done
    /usr/bin/time -f "   peak %M KB" "$FATNET" simulate "$spec" "${batch[@]}" --threads 1 2>&1 \
      | grep -E "peak|work|latency"
  done
done
date -u
