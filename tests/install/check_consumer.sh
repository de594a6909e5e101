#!/usr/bin/env bash
# A user's program built against the installed twice, never the build tree:
# `cmake --install` into a temporary prefix, configure tests/install/consumer
# (find_package(twice COMPONENTS testing), twice::twice, <twice/twice.hpp>,
# and its tests on twice::testing) from a copy outside the source tree,
# build it, and run it. Its digest of a catalogue scenario
# must be the twice binary's, and `consumer --cli` must be the whole CLI.
#   usage: check_consumer.sh BUILD_DIR SOURCE_DIR CXX_COMPILER [PREFIX]
# With PREFIX (an unpacked .deb's usr/, say), that install is used instead.
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) cxx=$3 prefix=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z $prefix ]]; then
  prefix=$work/prefix
  cmake --install "$build" --prefix "$prefix" >/dev/null
fi
cp -R "$source/tests/install/consumer" "$work/consumer"
cp "$source/tests/points_example.hpp" "$work/consumer/"
cmake -S "$work/consumer" -B "$work/out" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAIL: the consumer does not configure against $prefix"; exit 1; }
if grep -qF -e "$source/" -e "$build/" "$work/out/compile_commands.json"; then
  echo "FAIL: the consumer compiles against the source or build tree, not the install:"
  grep -oF -e "$source/" -e "$build/" "$work/out/compile_commands.json" | sort -u
  exit 1
fi
cmake --build "$work/out" >"$work/build.log" 2>&1 || { cat "$work/build.log"; echo "FAIL: the consumer does not build"; exit 1; }

scenario=$source/scenarios/double_refund.toml
expected=$("$build/twice" run --quiet "$scenario" | grep -o 'trace digest [0-9a-f]*' || true)
got=$("$work/out/consumer" "$scenario")
failures=0
if [[ -z $expected ]] || ! grep -qx "$expected" <<<"$got"; then
  echo "FAIL: the consumer's run is not the twice binary's ($expected):"
  echo "$got"
  failures=$((failures + 1))
fi
# The double refund: two refunds at the vendor for one job.
grep -qx 'no_double_payment VIOLATED' <<<"$got" || { echo "FAIL: no_double_payment not VIOLATED:"; echo "$got"; failures=$((failures + 1)); }
grep -qx 'every_job_ends held' <<<"$got" || { echo "FAIL: every_job_ends not held:"; echo "$got"; failures=$((failures + 1)); }
"$work/out/consumer" --cli --version | grep -q '^twice ' || { echo "FAIL: consumer --cli --version"; failures=$((failures + 1)); }
# The CLI's own run, through the library, prints the same digest.
"$work/out/consumer" --cli run --quiet "$scenario" | grep -qF "$expected" ||
  { echo "FAIL: consumer --cli run does not print $expected"; failures=$((failures + 1)); }
# The program's own handler, tool and invariant, named by a scenario file and
# run through the whole CLI: the invariant catches the second grant, as the
# file expects (exit 0), and --json reports it like a built-in one.
points=$source/tests/install/consumer/points.toml
"$work/out/consumer" --cli run --quiet "$points" >"$work/points.txt" ||
  { cat "$work/points.txt"; echo "FAIL: consumer --cli run points.toml exits non-zero"; failures=$((failures + 1)); }
"$work/out/consumer" --cli run --json "$points" >"$work/points.json" || true
grep -q '"name": *"no_points_twice"' "$work/points.json" && grep -q '"VIOLATED"\|"held": *false' "$work/points.json" ||
  { echo "FAIL: --json has no violated no_points_twice:"; head -c 2000 "$work/points.json"; failures=$((failures + 1)); }
# And explore: without the file's expectation, the runs that keep the crash
# violate the program's invariant; the shrunk repro names the registered
# code and fails again when run.
sed '/^violated = \["no_points_twice"\]$/d' "$points" >"$work/points_bug.toml"
"$work/out/consumer" --cli explore "$work/points_bug.toml" --runs 20 --out "$work/repro" >"$work/explore.txt" 2>&1 || true
repro=$work/repro/points-no_points_twice.toml
if [[ ! -f $repro ]] || ! grep -q 'implementation = "points_api"' "$repro"; then
  cat "$work/explore.txt"; echo "FAIL: explore wrote no repro of no_points_twice"; failures=$((failures + 1))
elif "$work/out/consumer" --cli run --quiet "$repro" >/dev/null; then
  echo "FAIL: the repro of no_points_twice exits 0"; failures=$((failures + 1))
fi
# The user's own tests (points_test.cpp, twice::testing): the file's
# verdicts, the property over any fault with the key, and the property
# failing without it. A pinned seed: a red build is reproducible.
RC_PARAMS="seed=20261207 max_success=100" "$work/out/points_test" >"$work/points_test.txt" 2>&1 ||
  { tail -40 "$work/points_test.txt"; echo "FAIL: the user's property tests (points_test)"; failures=$((failures + 1)); }
((failures == 0)) && echo "ok: consumer built against $prefix: $expected; points.toml's own invariant VIOLATED as expected, found by explore; points_test passed"
