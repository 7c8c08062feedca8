#!/usr/bin/env bash
# The packet engine's regression set: `fatnet simulate --json` on every flow control, path and
# scan policy, queue size, sink and topology family, on input and on output queues (unicast,
# broadcast trees, labelled queues), and every multiple-broadcast scheme of Stamoulis
# (`--arrivals poisson --broadcast ...`), small enough to run in about a minute.
# A change that must keep every draw and every result runs it with the binary before and the
# binary after, and compares:
#
#   scripts/engine-regression.sh BIN OUT_DIR          # writes OUT_DIR/NN.json, one per run
#   diff -r OUT_BEFORE OUT_AFTER                      # must print nothing
#
# Not run in CI (CI compares the paper tables, `cargo xtask reproduce --check`); the
# engine's own tests cover the same ground with assertions.
set -euo pipefail
bin=${1:?usage: engine-regression.sh BIN OUT_DIR}
out=${2:?usage: engine-regression.sh BIN OUT_DIR}
mkdir -p "$out"
common=(--seed 7 --json)
runs=(
  "bft:n=256 -t uniform --flow worm --trials 3"
  "bft:n=256 -t uniform --flow store --trials 3"
  "bft:n=256 -t uniform --flow split --flits 8 --trials 3"
  "bft:n=1024 -t uniform --flow split --flits 4 --trials 2"
  "bft:n=1024 -t uniform --flow store --scan fo --trials 3"
  "bft:n=256 -t complement --flow worm --path gp --scan ff --trials 3"
  "bft:n=256 -t uniform --flow worm --queue 1 --trials 3"
  "bft:n=256 -t uniform --flow worm --queue 4 --scan oldest --trials 3"
  "bft:n=256 -t uniform --flow worm --queue 8 --trials 3"
  "bft:n=256 -t uniform --flow worm --queue unbounded --trials 3"
  "bft:n=256 -t uniform --flow worm --scan prio --trials 3"
  "bft:n=256 -t uniform --flow worm --path fp --sink immediate --trials 3"
  "hypercube:d=6 -t uniform --flow worm --path dor --trials 3"
  "hypercube:d=6 -t uniform --flow store --path rp --trials 3"
  "hypercube:d=5 -t broadcast --flow store --trials 3"
  "karyntree:k=4,levels=4 -t uniform:self=false --flow worm --trials 3"
  "karyntree:k=4,levels=4 -t uniform --flow worm --path gp --trials 3"
  "karyntree:k=4,levels=4 -t uniform --flow store --path std --trials 3"
  "karyntree:k=4,levels=4 -t permutation --flow split --flits 4 --trials 3"
  "karyntree:k=4,levels=5 -t uniform:self=false --flow worm --threads 2 --trials 3"
  "karyntree:k=4,levels=6 -t uniform:self=false --flow worm --trials 1 --threads 2"
  "fattree:n=64,profile=area -t uniform --flow worm --trials 3"
  "fattree:n=64,profile=doubling -t uniform --flow store --path fp --trials 3"
  "ftree:n=2,m=4,r=4 -t uniform --flow worm --trials 3"
  "ftree:n=3,m=9,r=12 -t uniform --flow store --path std --trials 3"
  "ftree:n=3,m=9,r=12 -t uniform --flow split --flits 4 --trials 3"
  "clos:n=3,m=4,r=4 -t uniform --flow worm --trials 3"
  "butterfly:d=4 -t uniform --flow worm --trials 3"
  "bft:n=1024 -t uniform --flow worm --threads 2 --trials 2"
  "hypercube:d=6 --collective alltoall:order=pairwise,flits=4 --flow worm"
  "hypercube:d=6 -t uniform --queueing output --trials 3"
  "hypercube:d=6 -t uniform --queueing output --scan oldest --trials 3"
  "hypercube:d=6 -t uniform --queueing output --scan fo --trials 3"
  "hypercube:d=6 -t uniform --queueing output --scan label --trials 3"
  "hypercube:d=6 -t uniform --queueing output --path gp --trials 3"
  "hypercube:d=6 -t uniform --queueing output --path fp --trials 3"
  "hypercube:d=6 -t uniform --queueing output --path dor --delay 8 --trials 3"
  "bft:n=256 -t uniform --queueing output --trials 3"
  "karyntree:k=4,levels=4 -t uniform --queueing output --path std --trials 3"
  "butterfly:d=5 -t uniform --queueing output --trials 3"
  "hypercube:d=5 -t broadcast --queueing output --trials 3"
  "hypercube:d=5 -t broadcast --queueing output --scan label --trials 3"
  "hypercube:d=6 --arrivals poisson --broadcast direct --rate 0.057 --slots 3000 --trials 2"
  "hypercube:d=6 --arrivals poisson --broadcast indirect --rate 0.03 --slots 3000 --trials 2"
  "hypercube:d=6 --arrivals poisson --broadcast nonidling --rate 0.05 --slots 3000 --trials 2"
  "hypercube:d=6 --arrivals poisson --broadcast one-tree --rate 0.02 --slots 3000 --trials 2"
  "hypercube:d=6 --arrivals poisson --broadcast periodic --rate 0.05 --slots 3000 --trials 2"
  "hypercube:d=6 --arrivals poisson --broadcast periodic-nonidling --rate 0.08 --slots 3000 --trials 2"
  "hypercube:d=8 --arrivals poisson --broadcast direct --rate 0.0188 --slots 3000 --trials 1"
)
i=0
for r in "${runs[@]}"; do
  i=$((i + 1))
  extra=(--per-trial)
  [[ $r == *--collective* ]] && extra=()
  # shellcheck disable=SC2086
  if ! "$bin" simulate $r "${common[@]}" "${extra[@]}" >"$out/$(printf %02d $i).json" 2>"$out/$(printf %02d $i).err"; then
    echo "run $i failed: $r" >&2
    cat "$out/$(printf %02d $i).err" >&2
  fi
done
echo "$i runs in $out"
