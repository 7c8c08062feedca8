#!/usr/bin/env bash
# Builds the two peers of docs/bench/peers.md (not run in CI):
#   BookSim2 from its public repository (github.com/booksim/booksim2), with its Makefile;
#   CAMINOS 0.6.3 with `cargo install --locked` (without --locked it does not compile).
#
# Usage: scripts/peers/build.sh [SRC_DIR] [BIN_DIR]
#   SRC_DIR  where BookSim2 is checked out and built   (default /work/peers-src)
#   BIN_DIR  cargo install root for CAMINOS             (default /work/peers-bin)
# BOOKSIM_GIT_DIR may name an existing git mirror of booksim2 to export from instead
# of cloning. Needs g++, make, flex and bison (Debian: apt-get install -y flex bison).
set -euo pipefail

SRC_DIR=${1:-/work/peers-src}
BIN_DIR=${2:-/work/peers-bin}
BOOKSIM_REV=28f43299f1706a3160ffac721ca461d74eb6e618 # master, 2017-06-27, as measured

for tool in g++ make flex bison cargo; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y flex bison g++ make)" >&2; exit 1; }
done

if [ ! -f "$SRC_DIR/src/Makefile" ]; then
    mkdir -p "$SRC_DIR"
    if [ -n "${BOOKSIM_GIT_DIR:-}" ]; then
        git --git-dir="$BOOKSIM_GIT_DIR" archive "$BOOKSIM_REV" | tar -x -C "$SRC_DIR"
    else
        tmp=$(mktemp -d)
        git clone --quiet https://github.com/booksim/booksim2.git "$tmp/booksim2"
        git -C "$tmp/booksim2" archive "$BOOKSIM_REV" | tar -x -C "$SRC_DIR"
        rm -rf "$tmp"
    fi
fi
make -C "$SRC_DIR/src" -j"$(nproc)"
echo "BookSim2: $SRC_DIR/src/booksim"

cargo install caminos --version 0.6.3 --locked --root "$BIN_DIR"
echo "CAMINOS:  $BIN_DIR/bin/caminos"
