#!/usr/bin/env bash
# check_layers.sh and check_public_headers.sh must pass on the tree as it is
# and fail, naming the file, on each include planted against the layer
# order or the public contract in a copy of it.
#   usage: check_layers_catches.sh SOURCE_ROOT
set -euo pipefail
root=$(cd "${1:?usage: check_layers_catches.sh SOURCE_ROOT}" && pwd)
check="$root/tests/layers/check_layers.sh"
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -R "$root/src" "$root/include" "$copy/"
mkdir -p "$copy/tests/layers"
cp "$root/tests/layers/private_models.txt" "$copy/tests/layers/"

bash "$check" "$copy" >/dev/null || { echo "check_layers.sh fails on the tree as it is"; exit 1; }

failures=0
# plant FILE LINE EXPECTED: append LINE to FILE; the check must fail with a
# line matching EXPECTED; then FILE is put back.
plant() {
  plant_for "$check" "$@"
}
plant_for() {
  local check=$1 file=$2 bad=$3 expected=$4 out
  cp "$copy/$file" "$copy/$file.orig"
  printf '%s\n' "$bad" >>"$copy/$file"
  if out=$(bash "$check" "$copy" 2>&1); then
    echo "not caught: $bad in $file"
    failures=$((failures + 1))
  elif ! grep -Eq "$expected" <<<"$out"; then
    echo "caught, but not as expected ($expected): $bad in $file"
    echo "$out"
    failures=$((failures + 1))
  fi
  mv "$copy/$file.orig" "$copy/$file"
}

plant src/sim/kernel.cpp '#include <twice/world/world.hpp>' '^src/sim/kernel.cpp:[0-9]+: sim may not include world/world.hpp'
plant src/world/world.cpp '#include "cli/app.hpp"' '^src/world/world.cpp:[0-9]+: world may not include cli/app.hpp'
plant src/checks/invariants.cpp '#include <twice/scenario/scenario.hpp>' '^src/checks/invariants.cpp:[0-9]+: checks may not include'
plant include/twice/checks/invariants.hpp '#  include <twice/lint/lint.hpp>' '^include/twice/checks/invariants.hpp:[0-9]+: checks may not include lint/'
plant include/twice/report/timeline.hpp '#include <twice/explore/explore.hpp>' '^include/twice/report/timeline.hpp:[0-9]+: report may not include explore/'
plant include/twice/broker/queue_config.hpp '#include <twice/store/store.hpp>' '^include/twice/broker/queue_config.hpp:[0-9]+: broker may not include store/'
plant src/vendors/service_tool.cpp '#include "runtime/worker.hpp"' '^src/vendors/service_tool.cpp:[0-9]+: vendors may not include'
plant include/twice/events/trace_events.hpp '#include <twice/broker/queue_config.hpp>' '^include/twice/events/trace_events.hpp:[0-9]+: events may not include broker/queue_config.hpp'
plant include/twice/events/job_status.hpp '#include <twice/store/store.hpp>' '^include/twice/events/job_status.hpp:[0-9]+: events may not include store/'
plant include/twice/world/world.hpp '#include "world/incidents.hpp"' '^include/twice/world/world.hpp:[0-9]+: a public header includes "world/incidents.hpp"'
plant include/twice/tools/tool.hpp '#include <fmt/core.h>' '^include/twice/tools/tool.hpp:[0-9]+: a public header includes <fmt/core.h>'
plant src/world/world.cpp '#include "world/world.hpp"' '^src/world/world.cpp:[0-9]+: "world/world.hpp" is public'
plant src/world/world.cpp '#include <twice/world/incidents.hpp>' '^src/world/world.cpp:[0-9]+: <twice/world/incidents.hpp>: no such public header'
plant src/store/store.cpp '#include "../cli/app.hpp"' '^src/store/store.cpp:[0-9]+: .*never with ".."'
plant src/world/world.cpp '#include "fuzz/input_checks.hpp"' '^src/world/world.cpp:[0-9]+: .*which is no layer'
plant src/runtime/worker.cpp '#include <thread>' '^src/runtime/worker.cpp:[0-9]+: runtime is in the core.*<thread>'
plant include/twice/sim/trace.hpp '#include <chrono>' '^include/twice/sim/trace.hpp:[0-9]+: sim is in the core.*<chrono>'
# rapidcheck is for include/twice/testing/ alone (it includes it already).
plant include/twice/world/queue_health.hpp '#include <rapidcheck.h>' '^include/twice/world/queue_health.hpp:[0-9]+: a public header includes <rapidcheck.h>'
plant include/twice/testing/faults.hpp '#include <twice/cli/main.hpp>' '^include/twice/testing/faults.hpp:[0-9]+: testing may not include cli/main.hpp'
plant src/cli/run_command.cpp '#include <twice/twice.hpp>' '^src/cli/run_command.cpp:[0-9]+: the facade <twice/twice.hpp> is for users'

# The contract: no public header defines a concrete model, and the list of
# them cannot keep a line that no longer holds.
public="$root/tests/layers/check_public_headers.sh"
bash "$public" "$copy" >/dev/null || { echo "check_public_headers.sh fails on the tree as it is"; exit 1; }
plant_for "$public" include/twice/world/queue_health.hpp 'class worker final : public job_catalogue {' \
  '^include/twice/world/queue_health.hpp:[0-9]+: defines worker, a concrete model'
plant_for "$public" include/twice/world/world.hpp 'struct world_state' \
  '^include/twice/world/world.hpp:[0-9]+: defines world_state, a concrete model'
plant_for "$public" tests/layers/private_models.txt 'retry_storm src/runtime/retry_storm.hpp' \
  'retry_storm: src/runtime/retry_storm.hpp does not exist'
plant_for "$public" tests/layers/private_models.txt 'retry_storm src/runtime/worker.hpp' \
  'retry_storm: src/runtime/worker.hpp does not define it'

mkdir "$copy/src/plugins"
touch "$copy/src/plugins/plugin.cpp"
if out=$(bash "$check" "$copy" 2>&1) || ! grep -q '^src/plugins/: a directory with no place' <<<"$out"; then
  echo "not caught: a directory src/plugins/ with no place in the layer order"
  failures=$((failures + 1))
fi

# Threads are fine above the core.
printf '#include <thread>\n' >>"$copy/src/explore/explore.cpp"
rm -r "$copy/src/plugins"
bash "$check" "$copy" >/dev/null || { echo "<thread> in explore/ is refused, but explore is not the core"; failures=$((failures + 1)); }

((failures == 0)) || exit 1
