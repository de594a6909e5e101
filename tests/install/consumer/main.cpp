// Uses twice as a library, with nothing but the facade:
//   consumer FILE          loads and runs a scenario with the invariants,
//                          prints its trace digest and every verdict
//   consumer --cli ARGS... the whole `twice` command line (twice::main)
#include <twice/twice.hpp>

#include <cinttypes>
#include <cstdio>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
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
