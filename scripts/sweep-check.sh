#!/usr/bin/env bash
# End-to-end check of `fatnet sweep` (issue 8), as CI runs it: the 1,080-trial example sweep
#   1. on all cores, in one go (the reference);
#   2. killed with SIGKILL in the middle, then resumed: must equal the reference byte for byte;
#   3. under `mpirun -np 2` (the `mpi` feature): must equal the reference byte for byte;
#   4. under `mpirun -np 2`, all its processes killed with SIGKILL in the middle, then resumed
#      under `mpirun -np 2`: must equal the reference byte for byte;
# then `fatnet sweep summarize` on the reference.
# Needs Open MPI and libclang (Debian: libopenmpi-dev openmpi-bin libclang-dev).
# Usage: scripts/sweep-check.sh [SWEEP_FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
sweep=${1:-docs/sweeps/bft-flow-control.toml}

cargo build -q -p fatnet-cli --features mpi
bin=target/debug/fatnet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "-- one process, all cores"
"$bin" sweep run "$sweep" --out "$work/whole"
total=$(wc -l < "$work/whole/results.jsonl")

echo "-- kill -9 in the middle, then --resume"
"$bin" sweep run "$sweep" --out "$work/cut" --batch 4 --quiet &
pid=$!
lines=0
for _ in $(seq 1 2000); do
  lines=$( (wc -l < "$work/cut/results.jsonl") 2>/dev/null || echo 0)
  if (( lines >= total / 3 )); then break; fi
  sleep 0.005
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
killed_at=$( (wc -l < "$work/cut/results.jsonl") 2>/dev/null || echo 0)
echo "killed with $killed_at of $total trials written"
if (( killed_at >= total )); then
  echo "ERROR: the run finished before it was killed; use a longer sweep" >&2
  exit 1
fi
"$bin" sweep run "$sweep" --out "$work/cut" --resume
cmp "$work/whole/results.jsonl" "$work/cut/results.jsonl"
echo "resumed results identical to the uninterrupted run ($total lines)"

echo "-- mpirun -np 2"
mpi_flags=(--oversubscribe -np 2)
if [[ $(id -u) -eq 0 ]]; then mpi_flags+=(--allow-run-as-root); fi
mpirun "${mpi_flags[@]}" "$bin" sweep run "$sweep" --out "$work/mpi"
cmp <(sort "$work/whole/results.jsonl") <(sort "$work/mpi/results.jsonl")
cmp "$work/whole/results.jsonl" "$work/mpi/results.jsonl"
echo "2-rank results identical to the 1-process run ($total lines)"

echo "-- mpirun -np 2, every process of the job killed with SIGKILL in the middle, then --resume under mpirun"
mpirun "${mpi_flags[@]}" "$bin" sweep run "$sweep" --out "$work/mpicut" --batch 4 --quiet &
for _ in $(seq 1 2000); do
  lines=$( (wc -l < "$work/mpicut/results.jsonl") 2>/dev/null || echo 0)
  if (( lines >= total / 2 )); then break; fi
  sleep 0.005
done
pkill -9 -f "sweep run $sweep --out $work/mpicut" || true
wait || true
killed_at=$( (wc -l < "$work/mpicut/results.jsonl") 2>/dev/null || echo 0)
echo "killed with $killed_at of $total trials written"
if (( killed_at >= total )); then
  echo "ERROR: the MPI run finished before it was killed; use a longer sweep" >&2
  exit 1
fi
mpirun "${mpi_flags[@]}" "$bin" sweep run "$sweep" --out "$work/mpicut" --resume
cmp "$work/whole/results.jsonl" "$work/mpicut/results.jsonl"
echo "resumed 2-rank results identical to the uninterrupted run ($total lines)"

echo "-- summarize"
"$bin" sweep summarize "$work/whole"
