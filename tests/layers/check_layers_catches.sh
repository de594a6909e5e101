#!/usr/bin/env bash
# check_layers.sh must pass on the tree as it is and fail, naming the file,
# on each include planted against the layer order in a copy of it.
#   usage: check_layers_catches.sh SOURCE_ROOT
set -euo pipefail
root=$(cd "${1:?usage: check_layers_catches.sh SOURCE_ROOT}" && pwd)
check="$root/tests/layers/check_layers.sh"
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -R "$root/src" "$root/include" "$copy/"

bash "$check" "$copy" >/dev/null || { echo "check_layers.sh fails on the tree as it is"; exit 1; }

failures=0
# plant FILE LINE EXPECTED: append LINE to FILE; the check must fail with a
# line matching EXPECTED; then FILE is put back.
plant() {
  local file=$1 bad=$2 expected=$3 out
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
plant include/twice/broker/queue.hpp '#include <twice/store/store.hpp>' '^include/twice/broker/queue.hpp:[0-9]+: broker may not include store/'
plant src/vendors/service_tool.cpp '#include <twice/runtime/worker.hpp>' '^src/vendors/service_tool.cpp:[0-9]+: vendors may not include'
plant include/twice/events/trace_events.hpp '#include <twice/broker/queue.hpp>' '^include/twice/events/trace_events.hpp:[0-9]+: events may not include broker/queue.hpp'
plant include/twice/events/job_status.hpp '#include <twice/store/store.hpp>' '^include/twice/events/job_status.hpp:[0-9]+: events may not include store/'
plant include/twice/world/world.hpp '#include "world/incidents.hpp"' '^include/twice/world/world.hpp:[0-9]+: a public header includes "world/incidents.hpp"'
plant include/twice/tools/tool.hpp '#include <fmt/core.h>' '^include/twice/tools/tool.hpp:[0-9]+: a public header includes <fmt/core.h>'
plant src/world/world.cpp '#include "world/world.hpp"' '^src/world/world.cpp:[0-9]+: "world/world.hpp" is public'
plant src/world/world.cpp '#include <twice/world/incidents.hpp>' '^src/world/world.cpp:[0-9]+: <twice/world/incidents.hpp>: no such public header'
plant src/store/store.cpp '#include "../cli/app.hpp"' '^src/store/store.cpp:[0-9]+: .*never with ".."'
plant src/world/world.cpp '#include "fuzz/input_checks.hpp"' '^src/world/world.cpp:[0-9]+: .*which is no layer'
plant src/runtime/worker.cpp '#include <thread>' '^src/runtime/worker.cpp:[0-9]+: runtime is in the core.*<thread>'
plant include/twice/sim/trace.hpp '#include <chrono>' '^include/twice/sim/trace.hpp:[0-9]+: sim is in the core.*<chrono>'

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
