#include "sim/byte_size_text.hpp"

#include <array>

#include "sim/quoted_text.hpp"

namespace twice::sim {

namespace {
struct unit {
  std::string_view name;
  std::uint64_t bytes;
};
// Largest first: format picks the first that divides exactly.
constexpr std::array<unit, 5> units{{
    {"TiB", std::uint64_t{1} << 40},
    {"GiB", std::uint64_t{1} << 30},
    {"MiB", std::uint64_t{1} << 20},
    {"KiB", std::uint64_t{1} << 10},
    {"B", 1},
}};
}  // namespace

result<std::uint64_t> parse_byte_size(std::string_view text) {
  auto fail = [&] {
    return result<std::uint64_t>::failure(quoted_text(text) +
                                          " is not a size: expected digits and a unit, B, KiB, MiB, GiB or TiB "
                                          "(like \"512MiB\")");
  };
  std::size_t digits = 0;
  std::uint64_t n = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    if (__builtin_mul_overflow(n, 10, &n) ||
        __builtin_add_overflow(n, static_cast<std::uint64_t>(text[digits] - '0'), &n))
      return result<std::uint64_t>::failure(quoted_text(text) + " is too large a size");
    ++digits;
  }
  if (digits == 0) return fail();
  const std::string_view suffix = text.substr(digits);
  for (const unit& u : units)
    if (suffix == u.name) {
      std::uint64_t bytes = 0;
      if (__builtin_mul_overflow(n, u.bytes, &bytes))
        return result<std::uint64_t>::failure(quoted_text(text) + " is too large a size");
      return result<std::uint64_t>::success(bytes);
    }
  return fail();
}

std::string format_byte_size(std::uint64_t bytes) {
  if (bytes == 0) return "0B";
  for (const unit& u : units)
    if (bytes % u.bytes == 0) return std::to_string(bytes / u.bytes) + std::string(u.name);
  return std::to_string(bytes) + "B";
}

std::string describe_byte_size(std::uint64_t bytes) {
  for (const unit& u : units)
    if (bytes >= u.bytes && u.bytes > 1) {
      // Tenths, rounded down, in integers: 1.5 GiB, not 1.4999.
      const std::uint64_t tenths = bytes / (u.bytes / 1024) * 10 / 1024;
      return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " " + std::string(u.name);
    }
  return std::to_string(bytes) + " B";
}

}  // namespace twice::sim
