#pragma once
// Everything a program needs to use twice as a library: a handler and its
// tools, the typed events an invariant observes, the registry that names
// them for scenario files, a world or a scenario run
// with the invariants, the reports, explore, and the whole command line.
// twice's own sources never include it (tests/layers/check_layers.sh).

#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>
#include <twice/tools/tool.hpp>
#include <twice/runtime/handler.hpp>
#include <twice/store/store.hpp>
#include <twice/events/event_log.hpp>
#include <twice/events/trace_events.hpp>
#include <twice/world/world.hpp>
#include <twice/world/registry.hpp>
#include <twice/checks/invariants.hpp>
#include <twice/checks/invariant.hpp>
#include <twice/checks/evidence_log.hpp>
#include <twice/checks/checked_run.hpp>
#include <twice/scenario/scenario.hpp>
#include <twice/lint/lint.hpp>
#include <twice/report/run_summary.hpp>
#include <twice/report/json_report.hpp>
#include <twice/report/markdown_report.hpp>
#include <twice/report/html_report.hpp>
#include <twice/explore/explore.hpp>
#include <twice/cli/exit_codes.hpp>
#include <twice/cli/main.hpp>
