#pragma once
// --progress auto|json|none: how `twice run`, `explore` and `sweep` show
// their progress on stderr (cli/progress_line.hpp says what each shows).

#include <map>
#include <string>

namespace twice::cli {

enum class progress_mode { automatic, json, none };

// The words --progress takes.
inline const std::map<std::string, progress_mode>& progress_mode_words() {
  static const std::map<std::string, progress_mode> words{
      {"auto", progress_mode::automatic}, {"json", progress_mode::json}, {"none", progress_mode::none}};
  return words;
}

}  // namespace twice::cli
