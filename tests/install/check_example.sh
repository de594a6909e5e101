#!/usr/bin/env bash
# examples/points built against the installed twice, never the source or
# build tree, as a team builds its own: `cmake --install` into a temporary
# prefix, the example copied out of the source tree, configured with
# find_package(twice COMPONENTS testing), built and run:
#   - points_sim --digest gives a catalogue scenario the twice binary's digest
#     (the library without the CLI), and points_sim is the whole CLI;
#   - points.toml names the registered handler, tool and invariant: the
#     invariant is VIOLATED as the file expects, --json reports it, and
#     explore (without the expectation) finds, shrinks and reproduces it;
#   - points_test (Catch2 + rapidcheck on twice::testing) passes.
#   usage: check_example.sh BUILD_DIR SOURCE_DIR CXX_COMPILER [PREFIX]
# With PREFIX (an unpacked .deb's usr/, say), that install is used instead.
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) cxx=$3 prefix=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z $prefix ]]; then
  prefix=$work/prefix
  cmake --install "$build" --prefix "$prefix" >/dev/null
fi
example=$work/points
cp -R "$source/examples/points" "$example"
cmake -S "$example" -B "$work/out" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAIL: the example does not configure against $prefix"; exit 1; }
if grep -qF -e "$source/" -e "$build/" "$work/out/compile_commands.json"; then
  echo "FAIL: the example compiles against the source or build tree, not the install:"
  grep -oF -e "$source/" -e "$build/" "$work/out/compile_commands.json" | sort -u
  exit 1
fi
cmake --build "$work/out" >"$work/build.log" 2>&1 || { cat "$work/build.log"; echo "FAIL: the example does not build"; exit 1; }
sim=$work/out/points_sim
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

scenario=$source/scenarios/double_refund.toml
expected=$("$build/twice" run --quiet "$scenario" | grep -o 'trace digest [0-9a-f]*' || true)
got=$("$sim" --digest "$scenario")
[[ -n $expected ]] && grep -qx "$expected" <<<"$got" || fail "points_sim --digest is not the twice binary's run ($expected): $got"
# The double refund: two refunds at the vendor for one job.
grep -qx 'no_double_payment VIOLATED' <<<"$got" || fail "no_double_payment not VIOLATED: $got"
grep -qx 'every_job_ends held' <<<"$got" || fail "every_job_ends not held: $got"
"$sim" --version | grep -q '^twice ' || fail "points_sim --version"
"$sim" run --quiet "$scenario" | grep -qF "$expected" || fail "points_sim run does not print $expected"

points=$example/points.toml
"$sim" run --quiet "$points" >"$work/points.txt" || { cat "$work/points.txt"; fail "points_sim run points.toml exits non-zero"; }
"$sim" run --json "$points" >"$work/points.json" || true
# (nlohmann's JSON: a verdict's keys in order, no spaces)
grep -q '"held":false,"judged":true,"name":"no_points_twice"' "$work/points.json" ||
  { head -c 2000 "$work/points.json"; fail "--json has no violated no_points_twice"; }
"$sim" run --quiet "$example/points_fixed.toml" >"$work/points_fixed.txt" ||
  { cat "$work/points_fixed.txt"; fail "points_sim run points_fixed.toml exits non-zero"; }
sed '/^violated = \["no_points_twice"\]$/d' "$points" >"$work/points_bug.toml"
"$sim" explore "$work/points_bug.toml" --runs 20 --out "$work/repro" >"$work/explore.txt" 2>&1 || true
repro=$work/repro/points-no_points_twice.toml
if [[ ! -f $repro ]] || ! grep -q 'implementation = "points_api"' "$repro"; then
  cat "$work/explore.txt"; fail "explore wrote no repro of no_points_twice"
elif "$sim" run --quiet "$repro" >/dev/null; then
  fail "the repro of no_points_twice exits 0"
fi
# A pinned seed: a red build is reproducible.
RC_PARAMS="seed=20261207 max_success=100" "$work/out/points_test" >"$work/points_test.txt" 2>&1 ||
  { tail -40 "$work/points_test.txt"; fail "the example's own tests (points_test)"; }
((failures == 0)) && echo "ok: examples/points against $prefix: $expected; no_points_twice VIOLATED as points.toml expects, held in points_fixed.toml, found by explore; points_test passed"
