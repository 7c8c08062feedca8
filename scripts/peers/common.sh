# Sourced by scripts/peers/run.sh and sitting.sh: where the simulators are (override with
# BOOKSIM, CAMINOS, FATNET) and fatnet's side of the batch of docs/bench/peers.md (one
# 32-flit worm per endpoint, uniform destinations without self, 2-flit queues, one trial).
# Expects `here` (the scripts' directory).
BOOKSIM=${BOOKSIM:-/work/peers-src/src/booksim}
CAMINOS=${CAMINOS:-/work/peers-bin/bin/caminos}
FATNET=${FATNET:-${CARGO_TARGET_DIR:-$here/../../target}/release/fatnet}
batch=(--traffic uniform:self=false --flow worm --flits 32 --queue 2 --trials 1 --seed 1)
