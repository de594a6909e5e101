#include "cli/usage_errors.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "sim/edit_distance.hpp"
#include "sim/quoted_text.hpp"

namespace twice::cli {
namespace {

// "FILE", "SEED": the value's name as --help shows it, without the validator's note.
std::string value_name(const CLI::Option& o) {
  const std::string full = o.get_type_name();
  return full.substr(0, full.find(':'));
}

// Each option of `command` by its long name ("--report"), or its short one when it has none.
std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> out;
  for (const CLI::Option* o : command.get_options()) {
    if (!o->get_lnames().empty())
      out.push_back("--" + o->get_lnames().front());
    else if (!o->get_snames().empty())
      out.push_back("-" + o->get_snames().front());
  }
  return out;
}

// A flag shows no value's name in --help.
bool is_flag(const CLI::Option& o) { return o.get_type_size_max() == 0 || value_name(o).empty(); }

bool is_option_word(const std::string& word) { return word.starts_with('-') && word != "-" && word != "--"; }

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string lower_first(std::string text) {
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return text;
}

// An argument the command has no place for: a mistyped option, or one word too many.
std::string extras_text(const CLI::App& command, const std::vector<std::string>& extras) {
  const std::vector<std::string> names = option_names(command);
  for (const std::string& word : extras) {
    if (!is_option_word(word)) continue;
    const std::string name = word.substr(0, word.find('='));
    // One letter is one edit from every other: no guess for "-x".
    const std::optional<std::string> guess =
        name.find_first_not_of('-') + 1 < name.size() ? closest_word(name, names) : std::nullopt;
    if (guess) return fmt::format("unknown option {}; did you mean {}?", name, *guess);
    return fmt::format("unknown option {}; the options are {}", name, joined(names));
  }
  // Positionals only: one word too many.
  std::string takes;
  for (const CLI::Option* o : command.get_options())
    if (o->get_positional()) takes = o->get_items_expected_max() > 1 ? value_name(*o) + "..." : "one " + value_name(*o);
  const std::string who = command.get_parent() != nullptr ? "twice " + command.get_name() : std::string("twice");
  const std::string word = sim::quoted_text(extras.front());
  if (takes.empty()) return fmt::format("unexpected argument {}: {} takes options only", word, who);
  return fmt::format("unexpected argument {}: {} takes {} and options", word, who, takes);
}

// The first required option or argument that is missing.
std::string required_text(const CLI::App& command, const std::string& fallback) {
  for (const CLI::Option* o : command.get_options()) {
    if (!o->get_required() || o->count() > 0) continue;
    const std::string name = o->get_positional() ? value_name(*o) : o->get_name();
    return fmt::format("no {} given: {}", name, lower_first(o->get_description()));
  }
  return fallback;
}

// CLI11 names the option first ("--seed: 1 required SEED missing").
const CLI::Option* option_named_in(const CLI::App& command, std::string_view message) {
  const std::string_view name = message.substr(0, std::min(message.find(':'), message.size()));
  for (const CLI::Option* o : command.get_options())
    if (o->get_name() == name || o->check_name(std::string(name))) return o;
  return nullptr;
}

}  // namespace

std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  const std::string_view bare = word.substr(std::min(word.find_first_not_of('-'), word.size()));
  for (const std::string& candidate : candidates) {
    const std::string_view name = std::string_view(candidate).substr(candidate.find_first_not_of('-'));
    const std::size_t allowed = name.size() <= 4 ? 1 : 2;
    std::size_t distance = sim::edit_distance(bare, name);
    if (bare.size() >= 2 && name.starts_with(bare)) distance = std::min<std::size_t>(distance, 1);
    if (distance <= allowed && distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string usage_error_text(const CLI::App& command, const CLI::ParseError& e) {
  const std::string message = e.what();
  // What CLI11 found no place for, in the command and above it ("twice --reprot run").
  std::vector<std::string> extras = command.remaining(false);
  if (const CLI::App* parent = command.get_parent(); parent != nullptr)
    for (const std::string& word : parent->remaining(false)) extras.push_back(word);
  // A mistyped option first: the missing argument may be its value.
  if (std::any_of(extras.begin(), extras.end(), is_option_word) ||
      (!extras.empty() && dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr))
    return extras_text(command, extras);
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) return required_text(command, message);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    if (const CLI::Option* o = option_named_in(command, message)) {
      if (is_flag(*o)) return fmt::format("{} takes no value", o->get_name());
      return fmt::format("{} needs a value ({})", o->get_name(), value_name(*o));
    }
  }
  // "Could not convert: --json = x"
  constexpr std::string_view unconverted = "Could not convert: ";
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr && message.starts_with(unconverted)) {
    const std::string rest = message.substr(unconverted.size());
    const std::size_t eq = rest.find(" = ");
    if (const CLI::Option* o = option_named_in(command, rest.substr(0, eq)); o != nullptr && eq != std::string::npos) {
      const std::string value = sim::quoted_text(rest.substr(eq + 3));
      if (is_flag(*o)) return fmt::format("{} takes no value, found {}", o->get_name(), value);
      return fmt::format("{}: expected {}, found {}", o->get_name(), value_name(*o), value);
    }
  }
  return message;
}

CLI::Validator whole_number_check(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        const auto [at, ec] = std::from_chars(text.data(), end, value);
        if (!text.empty() && text[0] != '+' && ec == std::errc() && at == end && value >= lo && value <= hi) return {};
        return fmt::format("expected a whole number from {} to {}, found {}", lo, hi, sim::quoted_text(text));
      },
      "", "N");
}

}  // namespace twice::cli
