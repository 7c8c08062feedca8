#!/usr/bin/env bash
# Builds the fuzz targets (libFuzzer + AddressSanitizer, release with debug assertions and
# overflow checks) and runs each one for a short time from its seed corpus (fuzz/seeds/TARGET).
# Usage: scripts/fuzz-smoke.sh [SECONDS per target, default 20]
# Needs cargo-fuzz (`cargo install cargo-fuzz`); the stable toolchain with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-20}
export RUSTC_BOOTSTRAP=1
cargo fuzz build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in $(cargo fuzz list); do
  mkdir -p "$work/$target"
  cp -r "seeds/$target/." "$work/$target/"
  echo "== fuzz $target (${seconds}s)"
  status=0
  cargo fuzz run "$target" "$work/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=4096 -malloc_limit_mb=4096 -timeout=20 \
    -print_final_stats=1 >"$work/$target.log" 2>&1 || status=$?
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$work/$target.log" || true
  # A finding (crash, leak, timeout, out-of-memory) exits non-zero and leaves its input in
  # fuzz/artifacts/TARGET/: commit it as a regression input once fixed.
  if [[ $status -ne 0 ]]; then
    echo "ERROR: fuzz target $target failed (status $status); last lines:"
    tail -n 40 "$work/$target.log"
    ls "artifacts/$target" 2>/dev/null || true
    exit 1
  fi
done
echo "fuzz: every target ran ${seconds}s without a finding"
