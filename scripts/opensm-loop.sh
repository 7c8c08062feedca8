#!/usr/bin/env bash
# Runs OpenSM against a simulated fabric: ibsim serves NET_FILE (ibsim's net format, e.g. from
# `fatnet fabric export ftree:n=2,m=4,r=4 --output NET_FILE`), and OpenSM configures it once with each
# routing engine, writing its dumps to OUT_DIR/<engine>/.
#
#   scripts/opensm-loop.sh NET_FILE OUT_DIR [ENGINE...]     (default engines: ftree updn minhop)
#
# Needs Debian's opensm, ibsim-utils and infiniband-diags. Each engine gets a fresh ibsim (so
# LIDs are assigned from scratch every time) and its own OSM_TMP_DIR / OSM_CACHE_DIR; OpenSM runs
# with `-o` (configure once, exit) and `-D 0x43` (errors, info, verbose and ROUTING: the ROUTING
# flag is what makes OpenSM write opensm-lfts.dump, opensm.fdbs, opensm-subnet.lst and, for
# ftree, opensm-ftree-ca-order.dump). OUT_DIR/<engine>/ also receives ibnetdiscover's view of the
# configured fabric (ibnetdiscover.out), the tables read back from the switches by `dump_fts`
# (ibroute.out), OpenSM's log and stdout, and `engine-used`: the engine
# that actually routed, from OpenSM's log (OpenSM falls back to minhop when an engine fails;
# the script then exits 3). ibsim and OpenSM are stopped on every exit path.
#
# `lash` and `dfsssp` (the engines that break credit loops with virtual lanes) run with `-Q`
# (QoS, so OpenSM programs and dumps the SL-to-VL tables: opensm-sl2vl.dump) and stay up until
# SUBNET UP, so that the SL of every ordered pair of CAs can be asked for as a path record:
# `saquery PR --slid S --dlid D`, collected in saquery-pr.out (see `fatnet fabric credit-loops`).
# Each ibsim gets its own socket name (IBSIM_SOCKNAME), so several runs can share a machine.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 NET_FILE OUT_DIR [ENGINE...]" >&2
  exit 2
fi
net=$(readlink -f "$1")
out=$2
shift 2
engines=("$@")
[[ ${#engines[@]} -gt 0 ]] || engines=(ftree updn minhop)

umad2sim=${UMAD2SIM:-}
if [[ -z $umad2sim ]]; then
  umad2sim=$(ls /usr/lib/*/umad2sim/libumad2sim.so 2>/dev/null | head -n 1 || true)
fi
for tool in ibsim opensm ibnetdiscover; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found (apt-get install opensm ibsim-utils infiniband-diags)" >&2; exit 2; }
done
[[ -f $umad2sim ]] || { echo "$0: libumad2sim.so not found (set UMAD2SIM)" >&2; exit 2; }
[[ -f $net ]] || { echo "$0: no net file $net" >&2; exit 2; }

mkdir -p "$out"
out=$(readlink -f "$out")
work=$(mktemp -d)
ibsim_pid=""
osm_pid=""

stop() {
  # Stop only the processes this script started, by pid.
  if [[ -n $osm_pid ]] && kill -0 "$osm_pid" 2>/dev/null; then kill "$osm_pid" 2>/dev/null || true; fi
  if [[ -n $ibsim_pid ]] && kill -0 "$ibsim_pid" 2>/dev/null; then
    kill "$ibsim_pid" 2>/dev/null || true
    wait "$ibsim_pid" 2>/dev/null || true
  fi
  osm_pid=""
  ibsim_pid=""
}
cleanup() {
  stop
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fallback=0
for engine in "${engines[@]}"; do
  dir="$out/$engine"
  rm -rf "$dir"
  mkdir -p "$dir"
  sock="$work/$engine"
  mkdir -p "$sock"
  # ibsim listens on the (abstract) unix socket "$IBSIM_SOCKNAME:ctl", "sim:ctl" by default,
  # one per machine: a name of our own lets several runs share the machine (umad2sim, in
  # OpenSM and the diagnostics, reads the same variable). -n: no console, -s: start at once.
  export IBSIM_SOCKNAME="fatnet$$-$engine"
  (cd "$sock" && exec ibsim -s -n "$net") >"$dir/ibsim.log" 2>&1 &
  ibsim_pid=$!
  for _ in $(seq 1 100); do
    grep -q "Network simulator ready" "$dir/ibsim.log" 2>/dev/null && break
    kill -0 "$ibsim_pid" 2>/dev/null || { echo "$0: ibsim exited; see $dir/ibsim.log" >&2; exit 1; }
    sleep 0.1
  done
  grep -q "Network simulator ready" "$dir/ibsim.log" || { echo "$0: ibsim not ready after 10 s" >&2; exit 1; }

  start=$(date +%s.%N)
  case $engine in
    lash|dfsssp) qos=1 ;;
    *) qos=0 ;;
  esac
  if [[ $qos -eq 0 ]]; then
    set +e
    OSM_TMP_DIR="$dir" OSM_CACHE_DIR="$dir" LD_PRELOAD="$umad2sim" \
      timeout 120 opensm -o -R "$engine" -D 0x43 -f "$dir/opensm.log" >"$dir/opensm.out" 2>&1 &
    osm_pid=$!
    wait "$osm_pid"
    rc=$?
    osm_pid=""
    set -e
  else
    # The deadlock-free engines spread routes over SLs: `-Q` (QoS) makes OpenSM program the
    # SL-to-VL tables and dump them (opensm-sl2vl.dump). A route's SL is only given out as a
    # path record, so OpenSM keeps running (no -o; -d2 flushes its log) until SUBNET UP, and
    # `saquery PR --slid S --dlid D` asks for each ordered pair of CA LIDs (one query per pair:
    # the all-pairs query comes back truncated under ibsim).
    OSM_TMP_DIR="$dir" OSM_CACHE_DIR="$dir" LD_PRELOAD="$umad2sim" \
      timeout 300 opensm -R "$engine" -Q -d2 -D 0x43 -f "$dir/opensm.log" >"$dir/opensm.out" 2>&1 &
    osm_pid=$!
    rc=1
    for _ in $(seq 1 600); do
      if grep -q "SUBNET UP" "$dir/opensm.log" 2>/dev/null; then rc=0; break; fi
      kill -0 "$osm_pid" 2>/dev/null || break
      sleep 0.1
    done
    if [[ $rc -eq 0 ]]; then
      lids=$(grep -o 'CA Ports:[^{]*{[^}]*} LID:[0-9A-Fa-f]*' "$dir/opensm-subnet.lst" | sed 's/.*LID://' | sort -u)
      : >"$dir/saquery-pr.out"
      for s in $lids; do
        for d in $lids; do
          [[ $s == "$d" ]] && continue
          LD_PRELOAD="$umad2sim" timeout 20 saquery PR --slid $((16#$s)) --dlid $((16#$d)) \
            >>"$dir/saquery-pr.out" 2>>"$dir/saquery.err" || rc=1
        done
      done
    fi
  fi
  end=$(date +%s.%N)
  if [[ $rc -ne 0 ]]; then
    echo "$0: opensm -R $engine exited with $rc; see $dir/opensm.log" >&2
    exit 1
  fi
  LD_PRELOAD="$umad2sim" timeout 60 ibnetdiscover >"$dir/ibnetdiscover.out" 2>"$dir/ibnetdiscover.err"
  # The tables as the switches hold them, read back with ibroute (one call per switch).
  LD_PRELOAD="$umad2sim" timeout 60 dump_fts >"$dir/ibroute.out" 2>"$dir/ibroute.err"
  stop

  # Which engine routed: "osm_ucast_mgr_process: <engine> tables configured on all switches".
  used=$(sed -n 's/.*osm_ucast_mgr_process: \([A-Za-z_0-9]*\) tables configured.*/\1/p' "$dir/opensm.log" | tail -n 1)
  echo "${used:-unknown}" >"$dir/engine-used"
  files=(opensm-lfts.dump opensm.fdbs opensm-subnet.lst)
  [[ $qos -eq 0 ]] || files+=(opensm-sl2vl.dump saquery-pr.out)
  for f in "${files[@]}"; do
    [[ -s $dir/$f ]] || { echo "$0: OpenSM wrote no $f for $engine" >&2; exit 1; }
  done
  printf "%s: routed by %s in %s s\n" "$engine" "${used:-unknown}" "$(awk -v a="$start" -v b="$end" "BEGIN { printf \"%.2f\", b - a }")"
  if [[ $used != "$engine" ]]; then
    echo "$0: $engine fell back to ${used:-unknown}:" >&2
    grep -E "0x01 ->|ERR" "$dir/opensm.log" | head -n 5 >&2 || true
    fallback=1
  fi
done
[[ $fallback -eq 0 ]] || exit 3
