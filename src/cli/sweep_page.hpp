#pragma once
// `twice sweep --report F.html`: the sweep as a self-contained page of
// charts and its table. Each chart puts one key on the x axis (the last
// whose values are all numbers or durations; else the last key, as names)
// and draws a line per value of another (the first of the rest), with one
// set of charts per combination of any further keys. The charts: makespan
// and calls per job with their 95% intervals; dead letters per run, job
// time p99 and retries per run where some cell has any. An axis is
// logarithmic where the values span a factor of 30 or more. No wall-clock
// figure: the same sweep writes the same bytes (reports/ keeps them).

#include <string>

#include "explore/sweep.hpp"

namespace twice::cli {

std::string sweep_page_html(const explore::sweep_result& r, const std::string& path, const std::string& name);

}  // namespace twice::cli
