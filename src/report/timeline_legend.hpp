#pragma once
// The legend under the report's timeline (html_timeline.hpp): every kind of
// mark the timeline drew, each drawn as on the lanes and named in the
// broker's own words. Internal to report/html_*.cpp.

#include <cstddef>
#include <set>
#include <string>

#include "report/broker_words.hpp"
#include "report/html_format.hpp"

namespace twice::html_detail {

// `used`: the keys of the marks drawn ("lease", "ack", "expiry"...), in any
// order; the legend lists them in its own. `labels_left_out`: labels the
// timeline had no room for, said first when there are any.
void write_timeline_legend(html_lines& html, const broker_words& words, const std::set<std::string, std::less<>>& used,
                           std::size_t labels_left_out);

}  // namespace twice::html_detail
