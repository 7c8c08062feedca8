#!/usr/bin/env bash
# One side-by-side sitting for docs/bench/peers.md's record, reporting medians:
#
# - at N = 4,096, three rounds, each BookSim2 once, CAMINOS once (`/usr/bin/time -f "%e s %M KB"`:
#   wall time and peak RSS), then fatnet's `karyntree:k=4` and `bft` batches on 1 and 2 threads,
#   10 timed runs each after 2 warm-up runs (`hyperfine -N`; `/usr/bin/time` has 10 ms
#   resolution). fatnet's runs are spread over the sitting, between the peers' runs, so that its
#   median is taken over the same stretch of the machine's drift as theirs;
# - at N = 16,384, one round of the same (a BookSim2 run takes about 3 minutes);
# - fatnet's peak RSS once per network and size under `/usr/bin/time`;
# - then `sitting-summary.py` prints the table: the median of every tool's runs at each size and
#   the ratios of the medians, with each round's fatnet median to show the drift.
#
# About 15 minutes on the 2-core machine; run it with nothing else running, and compare only
# figures of one sitting (the VM's speed drifts by 10-20 % between hours, and fatnet's
# 50-millisecond runs by as much between minutes).
#
# Needs hyperfine (`cargo install hyperfine@1.20.0 --locked` on rustc 1.95; 2.x needs 1.97).
# Usage: scripts/peers/sitting.sh          (env: BOOKSIM, CAMINOS, FATNET, OUT as in run.sh)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
. "$here/common.sh"
OUT=${OUT:-/tmp/peers-sitting}
mkdir -p "$OUT"
command -v hyperfine >/dev/null || {
  echo "sitting.sh: hyperfine not found (cargo install hyperfine@1.20.0 --locked)" >&2
  exit 2
}
rm -f "$OUT"/*.json "$OUT"/*.time

# fatnet_round N LEVELS ROUND: one round of fatnet's four batches, one JSON file of runs each.
fatnet_round() {
  local n=$1 l=$2 r=$3 spec t
  for spec in "karyntree:k=4,levels=$l" "bft:n=$n"; do
    for t in 1 2; do
      hyperfine -N --style none --warmup 2 --runs 10 \
        --export-json "$OUT/fatnet-$n-${spec%%:*}-t$t-r$r.json" \
        "$FATNET simulate $spec ${batch[*]} --threads $t" > /dev/null
      echo "== fatnet $spec --threads $t, round $r: median $(python3 -c "import json,statistics,sys; print('%.4f s' % statistics.median(json.load(open(sys.argv[1]))['results'][0]['times']))" "$OUT/fatnet-$n-${spec%%:*}-t$t-r$r.json")"
    done
  done
}

date -u
for n in 4096 16384; do
  case $n in 4096) l=6; reps=3 ;; 16384) l=7; reps=1 ;; esac
  for r in $(seq "$reps"); do
    echo "== booksim N=$n run $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd "$OUT" && /usr/bin/time -f "%e s %M KB" -o "$OUT/booksim-$n-$r.time" \
      "$BOOKSIM" "$here/booksim/fattree_k4_n$l.cfg" > "$OUT/booksim-$n-$r.out" 2> "$OUT/booksim-$n-$r.err")
    tail -1 "$OUT/booksim-$n-$r.time"
    grep -E "Time taken|Packet latency average" "$OUT/booksim-$n-$r.out" | tail -2 | sed 's/^/   /'
    echo "== caminos N=$n run $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f "%e s %M KB" -o "$OUT/caminos-$n-$r.time" \
      "$CAMINOS" "$here/caminos/xgft_$n.cfg" > "$OUT/caminos-$n-$r.out" 2> "$OUT/caminos-$n-$r.err"
    tail -1 "$OUT/caminos-$n-$r.time"
    fatnet_round "$n" "$l" "$r"
  done
  for spec in "karyntree:k=4,levels=$l" "bft:n=$n"; do
    /usr/bin/time -f "%e s %M KB" -o "$OUT/fatnet-$n-${spec%%:*}-peak.time" \
      "$FATNET" simulate "$spec" "${batch[@]}" --threads 1 2>&1 | grep -E "work|latency"
    echo "   peak: $(tail -1 "$OUT/fatnet-$n-${spec%%:*}-peak.time")"
  done
done
date -u
python3 "$here/sitting-summary.py" "$OUT"
