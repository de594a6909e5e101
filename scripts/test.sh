#!/usr/bin/env bash
# The whole test suite: set up, build, run every test under CTest, then the
# same suite again under AddressSanitizer + UndefinedBehaviorSanitizer (the
# coroutine frames that kills destroy are where leaks and use-after-free hide).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

# Warnings are errors here (TWICE_WERROR), never in a user's own build.
# What a user gets from `cmake -DCMAKE_BUILD_TYPE=Release`: gcc at -O3 warns
# about more than at -O2 (maybe-uninitialized, restrict), so it is the
# optimised build tested here (a second, RelWithDebInfo, build of the same
# tests cost CI eight minutes and found nothing the -O3 and sanitizer builds
# do not).
configure build-release -DCMAKE_BUILD_TYPE=Release -DTWICE_WERROR=ON
cmake --build build-release -j2
ctest --test-dir build-release --output-on-failure -j2

# At -O1, as AddressSanitizer's own documentation advises "to get a
# reasonable performance": the catalogue runs 3-4x faster than at -O0 (the
# postgres_long_transaction scenario 3.2 s against 11-14 s), with asserts on.
configure build-asan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1" -DTWICE_SANITIZE=ON -DTWICE_WERROR=ON
cmake --build build-asan -j2
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j2

# Determinism across compilers and build types: `twice` alone, built by clang
# in Debug, must regenerate reports/ byte for byte and give every catalogue
# scenario the same trace digest as the gcc release build above.
CXX=clang++ configure build-clang -DCMAKE_BUILD_TYPE=Debug -DTWICE_BUILD_TESTS=OFF -DTWICE_WERROR=ON
cmake --build build-clang -j2 --target twice
bash tests/shell/check_reports.sh . build-clang/twice
bash tests/shell/compare_digests.sh build-release/twice build-clang/twice
