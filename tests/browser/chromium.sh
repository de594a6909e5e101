# What the browser tests share (sourced): find Chromium, run it headless on
# a page with a throwaway profile, and the checks on the DOM it built.
# Without Chromium a test FAILS: it never passes by skipping.

chromium_bin=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then
    chromium_bin=$(command -v "$candidate")
    break
  fi
done
if [ -z "$chromium_bin" ]; then
  echo "FAIL: Chromium is not installed (apt-get install chromium; scripts/setup.sh installs it)." >&2
  echo "The browser test cannot render the report without it and does not pass by skipping." >&2
  exit 1
fi

profile=$(mktemp -d "${TMPDIR:-/tmp}/twice-chromium-XXXXXX")
trap 'rm -rf "$profile"' EXIT

# The twice binary may be built with sanitizers; Chromium is not, and must
# not inherit their options.
chromium() {
  env -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS HOME="$profile" \
    timeout 120 "$chromium_bin" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$profile/user-data" "$@" 2>"$profile/chromium.log"
}

# render PAGE DOM SCREENSHOT HEIGHT: one start renders the page, serialises
# its DOM and takes the picture (the pages are laid out for 1280 px).
render() {
  local url
  url="file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  if ! chromium --hide-scrollbars --window-size=1280,"$4" --screenshot="$3" --dump-dom "$url" >"$2" || [ ! -s "$2" ]; then
    echo "FAIL: Chromium could not render $1; its log:" >&2
    cat "$profile/chromium.log" >&2
    exit 1
  fi
}

# render_probed PAGE DOM SCREENSHOT HEIGHT: the same, with the layout probe
# (layout_probe.js) run at the end of a copy of the page, so the DOM says
# what Chromium drew: labels that overlap or are cut off, and more.
probe_script="$(dirname "${BASH_SOURCE[0]}")/layout_probe.js"
render_probed() {
  local probed="${1%.html}.probed.html"
  { sed 's#</body>##; s#</html>##' "$1"; echo "<script>"; cat "$probe_script"; echo "</script>"; echo "</body>"; echo "</html>"; } >"$probed"
  render "$probed" "$2" "$3" "$4"
}

failures=0
expect_layout() {  # expect_layout DESCRIPTION: the probe found nothing wrong in the rendered DOM ($dom)
  if grep -qF '<pre id="layout-probe" hidden="" data-texts="' "$dom" && grep -qF 'data-problems="0"' "$dom"; then
    echo "ok   $1 ($(grep -o 'data-texts="[0-9]*"' "$dom" | head -1 | tr -dc 0-9) labels measured)"
  else
    echo "FAIL $1: the layout probe found:" >&2
    sed -n '/<pre id="layout-probe"/,/<\/pre>/p' "$dom" | sed 's/<[^>]*>//g' | head -40 >&2
    failures=$((failures + 1))
  fi
}
expect() {  # expect DESCRIPTION FIXED-STRING: the rendered DOM ($dom) must contain it
  if grep -qF -- "$2" "$dom"; then
    echo "ok   $1"
  else
    echo "FAIL $1: the DOM has no $2" >&2
    failures=$((failures + 1))
  fi
}
expect_count() {  # expect_count DESCRIPTION N FIXED-STRING
  local n
  n=$({ grep -oF -- "$3" "$dom" || true; } | wc -l)
  if [ "$n" -eq "$2" ]; then
    echo "ok   $1"
  else
    echo "FAIL $1: $3 appears $n times, expected $2" >&2
    failures=$((failures + 1))
  fi
}
expect_png() {  # expect_png FILE
  if [ ! -s "$1" ]; then
    echo "FAIL: no screenshot; Chromium's log:" >&2
    cat "$profile/chromium.log" >&2
    failures=$((failures + 1))
  elif [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
    echo "FAIL: $1 is not a PNG" >&2
    failures=$((failures + 1))
  else
    echo "ok   screenshot: $1"
  fi
}
