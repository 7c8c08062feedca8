#!/usr/bin/env bash
# Runs the side-by-side batch of docs/bench/peers.md: BookSim2, CAMINOS and fatnet's
# `bft` and `karyntree:k=4`, one 32-flit packet per endpoint, uniform destinations,
# wormhole, 2-flit buffers, 1 VC, one trial, each under `/usr/bin/time -f "%e s %M KB"`
# (wall time, peak RSS), the machine load (`uptime`) before each run.
#
# Usage: scripts/peers/run.sh [N...]      (default: 1024 4096; 16384 allowed)
# Env:   BOOKSIM   (default /work/peers-src/src/booksim)
#        CAMINOS   (default /work/peers-bin/bin/caminos)
#        FATNET    (default $CARGO_TARGET_DIR/release/fatnet, else target/release/fatnet)
#        OUT       directory for the raw outputs (default /tmp/peers-out)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
. "$here/common.sh"
OUT=${OUT:-/tmp/peers-out}
mkdir -p "$OUT"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1024 4096)

levels() { case $1 in 1024) echo 5 ;; 4096) echo 6 ;; 16384) echo 7 ;; *) echo "N must be 1024, 4096 or 16384" >&2; exit 2 ;; esac; }

measure() { # name N command...
    local name=$1 n=$2; shift 2
    local log="$OUT/$name-$n"
    echo "== $name N=$n  load: $(uptime | sed 's/.*load average: //')"
    /usr/bin/time -f "%e s %M KB" -o "$log.time" "$@" > "$log.out" 2> "$log.err"
    echo "   rc=$? time: $(cat "$log.time" | tail -1)"
}

for n in "${sizes[@]}"; do
    l=$(levels "$n")
    # BookSim2 writes nothing it needs into the working directory; run from $OUT anyway.
    (cd "$OUT" && measure booksim "$n" "$BOOKSIM" "$here/booksim/fattree_k4_n$l.cfg")
    grep -E "Packet latency average|Hops average|Batch received|Time taken" "$OUT/booksim-$n.out" | tail -4 | sed 's/^/   /'
    measure caminos "$n" "$CAMINOS" "$here/caminos/xgft_$n.cfg"
    grep -E "Traffic consumed" "$OUT/caminos-$n.out" | sed 's/^/   /'
    # The result record puts each value on the line after its key.
    grep -A1 -E "^	(accepted_load|average_message_delay|average_packet_hops):" "$OUT/caminos-$n.out" \
        | grep -v -- "--" | paste - - | sed 's/^/   /'
    for spec in "bft:n=$n" "karyntree:k=4,levels=$l"; do
        name=fatnet-${spec%%:*}
        measure "$name" "$n" "$FATNET" simulate "$spec" "${batch[@]}" --threads 1
        grep -E "latency|steps|delivered|trials" "$OUT/$name-$n.out" | head -6 | sed 's/^/   /'
        grep -E "error|refus" "$OUT/$name-$n.err" | head -2 | sed 's/^/   /'
    done
done
