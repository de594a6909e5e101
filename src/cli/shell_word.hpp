#pragma once
// A word of a command a reader pastes into a POSIX shell: as it is when
// every character is one no shell treats specially, else in single quotes
// (a single quote inside written '\''). The reproducing commands in the
// JUnit reports carry user paths and values (a string value in quotes).

#include <string>
#include <string_view>

namespace twice::cli {

inline std::string shell_word(std::string_view word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789_-./:=,+@%") == std::string_view::npos;
  if (plain) return std::string(word);
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace twice::cli
