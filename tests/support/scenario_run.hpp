#pragma once
// A world loaded from scenario text and run to its end, for the flavours'
// conformance tests (test_celery_conformance.cpp, test_pubsub_conformance.cpp):
// its trace records by kind, the vendor's refunds, a job's final status.

#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/scenario/scenario.hpp>
#include <twice/store/store.hpp>
#include <twice/world/world.hpp>

#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"

namespace twice::test {

struct scenario_run {
  std::unique_ptr<twice::world> w;
  world_result result;

  explicit scenario_run(const std::string& text) {
    load_result loaded = load_scenario_text(text, "flavour.toml");
    INFO((loaded.errors.empty() ? std::string() : loaded.errors[0].to_string()));
    REQUIRE(loaded.ok());
    w = std::make_unique<twice::world>(loaded.value->world);
    result = w->run();
  }
  std::vector<const sim::trace_record*> records(std::string_view kind) const {
    std::vector<const sim::trace_record*> out;
    for (const sim::trace_record& r : w->events().records())
      if (r.kind == kind) out.push_back(&r);
    return out;
  }
  std::size_t refunds() const { return w->payments().ledger().size(); }
  job_status status_of(const std::string& job) const {
    const std::optional<job_row> row = w->db().find_job(job);
    REQUIRE(row.has_value());
    return row->status;
  }
};

}  // namespace twice::test
