#!/usr/bin/env bash
# twice through add_subdirectory (FetchContent does the same): configures
# with CLI11, Catch2 and rapidcheck unavailable, adds none of its tests to
# the parent's ctest and no install rules, and gives twice::twice and each
# layer's library; with TWICE_BUILD_CLI=ON the parent also gets twice::app
# (the targets are checked by tests/install/subdirectory/CMakeLists.txt).
#   usage: check_subdirectory.sh SOURCE_DIR CXX_COMPILER
set -euo pipefail
source=$(cd "$1" && pwd) cxx=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
cmake -S "$source/tests/install/subdirectory" -B "$work/out" -DTWICE_SOURCE_DIR="$source" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON \
      -DCMAKE_DISABLE_FIND_PACKAGE_rapidcheck=ON >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAIL: twice as a subdirectory needs what only its CLI or tests need"; exit 1; }
tests=$(cd "$work/out" && ctest -N | grep -o 'Total Tests: [0-9]*')
[[ $tests == 'Total Tests: 0' ]] || { echo "FAIL: the parent's ctest lists twice's tests ($tests)"; failures=$((failures + 1)); }
if grep -q 'libtwice_sim.a\|twiceTargets' "$work/out/twice/cmake_install.cmake" "$work/out/twice/src/cmake_install.cmake" 2>/dev/null; then
  echo "FAIL: twice adds install rules to its parent's"
  failures=$((failures + 1))
fi
grep -q 'CMAKE_BUILD_TYPE:STRING=RelWithDebInfo' "$work/out/CMakeCache.txt" &&
  { echo "FAIL: twice set its parent's build type"; failures=$((failures + 1)); }
cmake -S "$source/tests/install/subdirectory" -B "$work/cli" -DTWICE_SOURCE_DIR="$source" -DCMAKE_CXX_COMPILER="$cxx" \
      -DTWICE_BUILD_CLI=ON >"$work/configure_cli.log" 2>&1 || { cat "$work/configure_cli.log"; failures=$((failures + 1)); }
((failures == 0)) && echo "ok: twice as a subdirectory"
