#!/usr/bin/env bash
# The main job: set up, build, run the default scenario: the double refund,
# as it happened, the same rolling deploy with the stable key (the only
# difference), and the key against two failures right after the write.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
configure build
cmake --build build -j2 --target twice
./build/twice run scenarios/double_refund.toml scenarios/double_refund_rolling_deploy_fixed.toml \
  scenarios/double_refund_fixed.toml
