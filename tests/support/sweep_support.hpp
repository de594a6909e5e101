#pragma once
// What the sweep tests share: a catalogue file's text, a --vary axis, a file
// prepared for sweeping, and a cell of a result by its values.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "explore/sweep.hpp"
#include <twice/scenario/sweep_spec.hpp>
#include "test_files.hpp"

namespace twice::sweep_test {

using twice::test::catalogue;

inline sweep_axis axis(std::string_view text) {
  std::string problem;
  const std::optional<sweep_axis> a = explore::parse_vary_argument(text, problem);
  INFO(problem);
  REQUIRE(a.has_value());
  return *a;
}

inline explore::sweep_input prepared_ok(const std::string& text, std::vector<sweep_axis> axes,
                                        std::optional<std::uint32_t> seeds) {
  explore::sweep_prepared p = explore::prepare_sweep_text(text, "s.toml", std::move(axes), seeds);
  INFO((p.errors.empty() ? std::string() : p.errors.front().to_string()));
  REQUIRE(p.input.has_value());
  return *p.input;
}

inline const explore::sweep_cell& cell_of(const explore::sweep_result& r, const std::vector<std::string>& values) {
  for (const explore::sweep_cell& c : r.cells)
    if (c.values == values) return c;
  FAIL("no such cell");
  return r.cells.front();
}

}  // namespace twice::sweep_test
