#!/usr/bin/env bash
# Renders `fatnet fabric report` pages in a real browser (Debian's chromium, headless) and checks
# that each one loaded cleanly and drew something.
#
#   scripts/report-browser-check.sh [OUT_DIR]
#
# Fabrics: OpenSM's ftree tables for ftree(3+9, 12) (a fixture in the repository: always), and
# ib_flit_sim's is1_3l_32n and is4_3l_1944n from $FATNET_FABRICS (default ../shared/fabrics)
# when they are there. Per page, in OUT_DIR (default: a temporary folder):
#   1. `fatnet fabric report ... -o NAME.html`;
#   2. chromium --headless --screenshot at 1600x1200 with `--enable-logging=stderr --v=0`: every
#      message the page sends to the console is logged as `...:CONSOLE:<line>] "..."`. The page
#      has no scripts, so anything there is the browser complaining about the page (a resource
#      refused by its Content-Security-Policy `default-src 'none'`, a parse error): any CONSOLE
#      line fails the check;
#   3. chromium --dump-dom: the serialised DOM must hold the footer `id="fatnet-report-end"` (the
#      page was parsed to its end) and the fabric's `<svg`;
#   4. scripts/png-check.py decodes the screenshot (Python's zlib, no PIL) and requires many
#      distinct colours and non-white pixels: not a blank page.
# Before that, the checks are run on three pages that must fail them (a page loading an external
# image, a page without the end marker, a blank page), so a check that silently stopped working
# is noticed.
# Set FATNET_REPORT_SCREENSHOT=FILE to write is4_3l_1944n's screenshot there, shrunk
# (scripts/png-check.py --shrink): docs/img/fabric-report.png.
set -euo pipefail
cd "$(dirname "$0")/.."

chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [[ -z $chromium ]]; then
  echo "$0: chromium not found (apt-get install --no-install-recommends chromium)" >&2
  exit 2
fi
out=${1:-$(mktemp -d)}
mkdir -p "$out"
out=$(readlink -f "$out")
fabrics=${FATNET_FABRICS:-../shared/fabrics}

cargo build -q -p fatnet-cli
fatnet="${CARGO_TARGET_DIR:-target}/debug/fatnet"

browser() {
  # A fresh profile per run; chromium's exit status is 0 even when the page is broken.
  local profile
  profile=$(mktemp -d)
  # --disable-dev-shm-usage: containers often give /dev/shm 64 MB, where chromium's renderer
  # can crash at random; this keeps its shared memory in /tmp.
  timeout 180 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --disable-dev-shm-usage --user-data-dir="$profile" --window-size=1600,1200 "$@"
  rm -rf "$profile"
}

# check NAME: NAME.html -> NAME.png, NAME.console, NAME.dom; returns 1 on any failure.
check() {
  local name=$1 html="$out/$1.html" ok=0
  browser --enable-logging=stderr --v=0 --screenshot="$out/$name.png" "file://$html" \
    >/dev/null 2>"$out/$name.console" || true
  if grep -q ':CONSOLE' "$out/$name.console"; then
    echo "$name: console messages:"
    grep ':CONSOLE' "$out/$name.console" | sed 's/^/  /'
    ok=1
  fi
  # Up to three tries, each failed one's exit status and size logged: a CI run once got a dump
  # without the marker for a page whose screenshot passed, and the same page's dump was whole
  # in every run here. The page is a fixed file, so a page that lacks the marker fails all three.
  local try status dom_ok=0
  for try in 1 2 3; do
    status=0
    browser --dump-dom "file://$html" >"$out/$name.dom" 2>"$out/$name.dom.err" || status=$?
    if grep -q 'id="fatnet-report-end"' "$out/$name.dom" && grep -q '<svg' "$out/$name.dom"; then
      dom_ok=1
      break
    fi
    echo "$name: --dump-dom try $try: exit $status, $(wc -c <"$out/$name.dom") bytes," \
      "no end marker or <svg> (stderr: $out/$name.dom.err)"
  done
  if [[ $dom_ok -ne 1 ]]; then
    echo "$name: the DOM lacks the report's end marker or its <svg>;" \
      "the last try's stderr ends (dbus lines left out):"
    grep -v "dbus/" "$out/$name.dom.err" | tail -n 5 | sed 's/^/  /'
    ok=1
  fi
  if [[ ! -s $out/$name.png ]]; then
    echo "$name: no screenshot"
    return 1
  fi
  python3 scripts/png-check.py "$out/$name.png" 64 0.03 || ok=1
  return $ok
}

# The checks must catch a broken page and a blank one.
cat >"$out/selftest-external.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>external</title></head>
<body><svg xmlns="http://www.w3.org/2000/svg" width="1500" height="1000"><defs><linearGradient id="g"><stop offset="0" stop-color="#fed976"/><stop offset="1" stop-color="#800026"/></linearGradient></defs><rect width="1500" height="1000" fill="url(#g)"/></svg>
<img src="http://example.invalid/x.png"><footer id="fatnet-report-end"></footer></body></html>
EOF
cat >"$out/selftest-truncated.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>truncated</title></head>
<body><svg xmlns="http://www.w3.org/2000/svg" width="1500" height="1000"><defs><linearGradient id="g"><stop offset="0" stop-color="#fed976"/><stop offset="1" stop-color="#800026"/></linearGradient></defs><rect width="1500" height="1000" fill="url(#g)"/></svg>
</body></html>
EOF
cat >"$out/selftest-blank.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>blank</title></head><body><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg><footer id="fatnet-report-end"></footer></body></html>
EOF
# Each must fail for its own reason: the colourful external page on the console alone (its
# screenshot passes), the page cut before its footer on the DOM alone, the blank page on its
# screenshot alone.
for t in "selftest-external:console messages:" "selftest-truncated:lacks" \
  "selftest-blank:blank?"; do
  name=${t%%:*} reason=${t#*:}
  if check "$name" >"$out/$name.log" 2>&1; then
    echo "ERROR: the browser check passed $name.html, which it must fail:"
    cat "$out/$name.log"
    exit 1
  fi
  if ! grep -qF "$reason" "$out/$name.log" || [[ $(grep -c ': blank?\|console messages:\|lacks' "$out/$name.log") -ne 1 ]]; then
    echo "ERROR: $name.html should fail only with \"$reason\":"
    cat "$out/$name.log"
    exit 1
  fi
  echo "self-test: $name.html fails the check with \"$reason\", as it must"
done

pages=()
"$fatnet" fabric report crates/fatnet-fabric/tests/fixtures/opensm/ftree-3-9-12/ftree \
  -o "$out/opensm-ftree-3-9-12.html"
pages+=(opensm-ftree-3-9-12)
for name in is1_3l_32n is4_3l_1944n; do
  base="$fabrics/ib_flit_sim/$name"
  if [[ -d $base ]]; then
    "$fatnet" fabric report "$base/$name.ned" --routes "$base/$name.fdbs" -o "$out/$name.html"
    pages+=("$name")
  else
    echo "NOTICE: $base not found (set FATNET_FABRICS); $name skipped"
  fi
done

failed=0
for name in "${pages[@]}"; do
  if check "$name"; then
    echo "$name: rendered in chromium without console messages, not blank"
  else
    failed=1
  fi
done
if [[ -n ${FATNET_REPORT_SCREENSHOT:-} && -f $out/is4_3l_1944n.png ]]; then
  python3 scripts/png-check.py --shrink "$out/is4_3l_1944n.png" "$FATNET_REPORT_SCREENSHOT"
fi
if [[ $failed -ne 0 ]]; then
  echo "ERROR: the report browser check failed (pages and logs in $out)"
  exit 1
fi
echo "report browser check: ${#pages[@]} pages ok ($out)"
