#!/usr/bin/env bash
# The whole test suite: set up, build, run every test under CTest, then the
# same suite again under AddressSanitizer + UndefinedBehaviorSanitizer (the
# coroutine frames that kills destroy are where leaks and use-after-free hide).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

configure build
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2

configure build-asan -DCMAKE_BUILD_TYPE=Debug -DTWICE_SANITIZE=ON
cmake --build build-asan -j2
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j2
