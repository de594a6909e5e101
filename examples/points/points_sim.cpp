// points_sim: twice with the team's own handler, tool and invariant
// registered (points.hpp), built against the installed package alone.
//   points_sim ARGS...        the whole twice command line (twice::main):
//                             points_sim run points.toml, explore, lint ...
//   points_sim --digest FILE  the library without the CLI: load and run a
//                             scenario, print its trace digest and verdicts
#include <twice/twice.hpp>

#include <cinttypes>
#include <cstdio>
#include <string>
#include <string_view>

#include "points.hpp"

int main(int argc, char** argv) {
  points::register_all();
  if (argc != 3 || std::string_view(argv[1]) != "--digest") return twice::main(argc, argv);
  twice::load_result loaded = twice::load_scenario_file(argv[2]);
  if (!loaded.ok()) {
    for (const twice::scenario_error& e : loaded.errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
    return 2;
  }
  twice::checked_result run = twice::run_with_checkers(loaded.value->world);
  std::printf("trace digest %016" PRIx64 "\n", run.result.trace_digest);
  for (const twice::verdict& v : run.verdicts)
    std::printf("%s %s\n", v.name.c_str(), std::string(twice::verdict_word(v)).c_str());
  return 0;
}
