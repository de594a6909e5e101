#!/usr/bin/env bash
# The main job: set up, build, run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
configure build
cmake --build build -j2 --target twice
./build/twice demo
