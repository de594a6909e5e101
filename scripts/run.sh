#!/usr/bin/env bash
# The main job: set up, build, run the default scenario: the double refund,
# as it happened and fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
configure build
cmake --build build -j2 --target twice
./build/twice run scenarios/double_refund.toml scenarios/double_refund_fixed.toml
