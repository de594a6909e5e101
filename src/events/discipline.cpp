#include <twice/events/discipline.hpp>

#include <algorithm>
#include <array>
#include <utility>

namespace twice {

namespace {
template <class E, std::size_t N>
std::optional<E> parse_named(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view text) {
  for (const auto& [value, name] : names)
    if (name == text) return value;
  return std::nullopt;
}
template <class E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& names, E value) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return "unknown";
}

constexpr std::array<std::pair<key_mode, std::string_view>, 3> key_names{
    {{key_mode::none, "none"}, {key_mode::per_attempt, "per_attempt"}, {key_mode::stable, "stable"}}};
constexpr std::array<std::pair<work_id_mode, std::string_view>, 2> work_id_names{
    {{work_id_mode::job, "job"}, {work_id_mode::message, "message"}}};
constexpr std::array<std::pair<checkpoint_mode, std::string_view>, 3> checkpoint_names{
    {{checkpoint_mode::before_effect, "before_effect"},
     {checkpoint_mode::after_success, "after_success"},
     {checkpoint_mode::outbox, "outbox"}}};
constexpr std::array<std::pair<retry_mode, std::string_view>, 2> retry_names{
    {{retry_mode::nack, "nack"}, {retry_mode::in_slice, "in_slice"}}};
}  // namespace

bool discipline::claims(std::string_view tool) const {
  return std::find(claimed_tools.begin(), claimed_tools.end(), tool) != claimed_tools.end();
}

std::string_view to_string(key_mode v) { return name_of(key_names, v); }
std::string_view to_string(work_id_mode v) { return name_of(work_id_names, v); }
std::string_view to_string(checkpoint_mode v) { return name_of(checkpoint_names, v); }
std::string_view to_string(retry_mode v) { return name_of(retry_names, v); }
std::optional<key_mode> parse_key_mode(std::string_view t) { return parse_named(key_names, t); }
std::optional<checkpoint_mode> parse_checkpoint_mode(std::string_view t) { return parse_named(checkpoint_names, t); }
std::optional<retry_mode> parse_retry_mode(std::string_view t) { return parse_named(retry_names, t); }

}  // namespace twice
