#include "checks/checked_run.hpp"

#include <utility>

namespace twice {

checked_result run_with_checkers(world& w, const check_options& options) {
  invariant_checker checker(options);
  w.trace().add_observer(&checker);
  checked_result out;
  out.result = w.run();
  out.verdicts = checker.finish(w, out.result);
  return out;
}

checked_result run_with_checkers(world_config config, const check_options& options) {
  world w(std::move(config));
  return run_with_checkers(w, options);
}

}  // namespace twice
