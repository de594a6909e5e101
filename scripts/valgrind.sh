#!/usr/bin/env bash
# Valgrind memcheck over the catalogue: `twice run --quiet` of every scenario
# in scenarios/, all in one process (valgrind's start-up dominates: a process
# per file took 57 s against 3 s, RelWithDebInfo). Fails on any memory error or
# definite/indirect leak; then each file is run alone to name the culprits.
# Without an argument it builds build-valgrind/ (RelWithDebInfo, readable
# stacks) with -DTWICE_FRAME_POOL=OFF: pooled coroutine frames are never given
# back to malloc, so memcheck could not see a use after a kill. A binary passed
# in should be built the same way.
#
#   bash scripts/valgrind.sh [TWICE_BINARY]
#
# Not part of scripts/test.sh (CI time is tight; ASan + LSan run there).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
  echo "valgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2
  exit 2
fi
if [ $# -eq 0 ]; then
  source scripts/setup.sh
  configure build-valgrind -DTWICE_FRAME_POOL=OFF -DTWICE_BUILD_TESTS=OFF
  cmake --build build-valgrind -j2 --target twice
  twice=build-valgrind/twice
else
  twice=$1
fi
if [ ! -x "$twice" ]; then
  echo "valgrind.sh: no binary at $twice" >&2
  exit 2
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Valgrind's exit code for an error is 1, and so is twice's for an unmet
# expectation: the log's error summary tells them apart.
memcheck() {
  local status=0
  valgrind --tool=memcheck --error-exitcode=1 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --log-file="$log" \
    "$twice" run --quiet "$@" >/dev/null 2>&1 || status=$?
  if ! grep -q 'ERROR SUMMARY: 0 errors' "$log"; then return 1; fi
  if [ "$status" -ne 0 ]; then
    echo "valgrind.sh: twice run exited $status under valgrind, without a memory error" >&2
    return 2
  fi
}

files=(scenarios/*.toml)
start=$SECONDS
status=0
memcheck "${files[@]}" || status=$?
echo "valgrind.sh: ${#files[@]} scenarios in $((SECONDS - start))s"
case $status in
  0) echo "valgrind.sh: memcheck clean"; exit 0 ;;
  2) exit 1 ;;
esac

cat "$log"
echo "valgrind.sh: memcheck found errors; each file alone:" >&2
for f in "${files[@]}"; do
  if memcheck "$f"; then echo "ok      $f"; else echo "FAILED  $f: $(grep -m1 'ERROR SUMMARY' "$log" | sed 's/^==[0-9]*== //')"; fi
done
exit 1
