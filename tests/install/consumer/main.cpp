// Uses twice as a library, with nothing but the facade, as a team's own
// simulator would: it registers its handler, tool and invariant (the
// points example, points_example.hpp, copied beside it), then
//   consumer FILE          loads and runs a scenario with the invariants,
//                          prints its trace digest and every verdict
//   consumer --cli ARGS... the whole `twice` command line (twice::main), for
//                          which points.toml names the registered code
#include <twice/twice.hpp>

#include "points_example.hpp"

#include <cinttypes>
#include <memory>
#include <cstdio>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  twice::registry::add_handler("grant_points", [] { return std::make_unique<points_example::grant_points_handler>(); });
  twice::registry::add_tool("points_api",
                            [](const twice::tool_setup&) { return std::make_unique<points_example::points_api>(); });
  twice::registry::add_invariant("no_points_twice", [](const twice::world_config&) {
    return std::make_unique<points_example::no_points_twice>();
  });
  if (argc >= 2 && std::string_view(argv[1]) == "--cli") return twice::main(argc - 1, argv + 1);
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer FILE | consumer --cli ARGS...\n");
    return 2;
  }
  twice::load_result loaded = twice::load_scenario_file(argv[1]);
  if (!loaded.ok()) {
    for (const twice::scenario_error& e : loaded.errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
    return 2;
  }
  twice::checked_result run = twice::run_with_checkers(loaded.value->world);
  std::printf("trace digest %016" PRIx64 "\n", run.result.trace_digest);
  for (const twice::verdict& v : run.verdicts) {
    std::printf("%s %s\n", v.name.c_str(), std::string(twice::verdict_word(v)).c_str());
  }
  return 0;
}
