#include "cli/shell_docs.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string_view>

namespace twice::cli {
namespace {

// CLI11's type name with its validators' descriptions ("N:INT in [1 - 1024]"): the name alone.
std::string value_name_of(const CLI::Option& o) {
  const std::string full = o.get_type_name();
  return full.substr(0, full.find(':'));
}

bool is_flag(const CLI::Option& o) { return o.get_type_size_max() == 0; }

option_doc describe_option(const CLI::Option& o) {
  option_doc out;
  for (const std::string& s : o.get_snames()) out.names.push_back("-" + s);
  for (const std::string& l : o.get_lnames()) out.names.push_back("--" + l);
  if (!is_flag(o)) out.value_name = value_name_of(o);
  out.description = o.get_description();
  out.default_value = o.get_default_str();
  return out;
}

positional_doc describe_positional(const CLI::Option& o) {
  return {o.get_name(true), value_name_of(o), o.get_description(), o.get_items_expected_max() > 1, o.get_required()};
}

// Lines joined into one paragraph each; a line ending a sentence ends its paragraph.
std::vector<std::string> paragraphs(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.empty()) continue;
    current += (current.empty() ? "" : " ") + std::string(line);
    if (line.back() == '.') out.push_back(std::exchange(current, {}));
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

std::string joined(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : std::string(separator)) + w;
  return out;
}

std::vector<std::string> all_names(const command_doc& c) {
  std::vector<std::string> out;
  for (const command_doc& sub : c.commands) out.push_back(sub.name);
  for (const option_doc& o : c.options) out.insert(out.end(), o.names.begin(), o.names.end());
  return out;
}

// ---- bash ------------------------------------------------------------------------

// What completes a value of this kind: the helper functions' words.
std::string bash_value(std::string_view value_name, bool positional) {
  if (value_name == "FILE") return positional ? "_twice_files scenario" : "_twice_files any";
  if (value_name == "DIR") return "_twice_files dir";
  if (value_name == "COMMAND") return "_twice_words \"$_twice_commands\"";
  return "return";  // a number, a seed, a duration: nothing to offer
}

std::string bash_command_case(const command_doc& c) {
  std::string out = fmt::format("    {})\n", c.name);
  std::string value_cases;
  for (const option_doc& o : c.options) {
    if (o.value_name.empty()) continue;
    const std::string action = bash_value(o.value_name, false);
    value_cases +=
        fmt::format("        {}) {};;\n", joined(o.names, "|"), action == "return" ? action : action + "; return");
  }
  if (!value_cases.empty()) out += "      case $option in\n" + value_cases + "      esac\n";
  const std::string positional = c.positionals.empty() ? "return" : bash_value(c.positionals.front().value_name, true);
  out += fmt::format("      if [[ $cur == -* ]]; then _twice_words '{}'; else {}; fi;;\n", joined(all_names(c), " "),
                     positional);
  return out;
}

// ---- zsh -------------------------------------------------------------------------

// Text inside '...' in the script, and inside [...] or after ':' in an _arguments spec.
std::string zsh_quoted(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\'')
      out += "'\\''";
    else if (c == '[' || c == ']' || c == ':' || c == '\\')
      out += std::string("\\") + c;
    else
      out += c;
  }
  return out;
}

std::string zsh_action(std::string_view value_name, bool positional) {
  if (value_name == "FILE") return positional ? "_files -g \"*.toml(-.)\"" : "_files";
  if (value_name == "DIR") return "_files -/";
  if (value_name == "COMMAND") return "_twice_commands";
  return " ";  // a value with nothing to offer
}

std::string zsh_option_specs(const command_doc& c) {
  std::string out;
  for (const option_doc& o : c.options) {
    const bool stops = o.names.back() == "--help" || o.names.back() == "--version";
    for (const std::string& name : o.names) {
      std::string spec = (stops ? "(- *)" : "") + name;
      if (!o.value_name.empty()) spec += "=";
      spec += "[" + zsh_quoted(o.description) + "]";
      if (!o.value_name.empty()) spec += ":" + zsh_quoted(o.value_name) + ":" + zsh_action(o.value_name, false);
      out += fmt::format("    '{}' \\\n", spec);
    }
  }
  for (const positional_doc& p : c.positionals) {
    out +=
        fmt::format("    '{}:{}:{}' \\\n", p.many ? "*" : "", zsh_quoted(p.value_name), zsh_action(p.value_name, true));
  }
  return out;
}

// ---- man ---------------------------------------------------------------------------

// Text for a roff line: backslashes and hyphens as escapes, and a line that
// would start with a control character ('.' or '\'') guarded.
std::string roff(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

std::string man_paragraphs(std::string_view text) {
  std::string out;
  for (const std::string& p : paragraphs(text)) out += ".PP\n" + roff(p) + "\n";
  return out;
}

std::string man_synopsis(const command_doc& c, std::string_view program) {
  std::string out = fmt::format(".B {} {}\n.RB [ OPTIONS ]", program, c.name);
  for (const positional_doc& p : c.positionals) {
    const std::string name = roff(p.value_name) + (p.many ? "\\&..." : "");
    out += p.required ? fmt::format("\n.I {}", name) : fmt::format("\n.RI [ {} ]", name);
  }
  return out + "\n";
}

std::string man_options(const command_doc& c) {
  std::string out;
  for (const option_doc& o : c.options) {
    std::vector<std::string> names;
    for (const std::string& n : o.names) names.push_back("\\fB" + roff(n) + "\\fR");
    std::string head = joined(names, ", ");
    if (!o.value_name.empty()) head += " \\fI" + roff(o.value_name) + "\\fR";
    out += ".TP\n" + head + "\n" + roff(o.description);
    if (!o.default_value.empty()) out += " (default: " + roff(o.default_value) + ")";
    out += "\n";
  }
  for (const positional_doc& p : c.positionals)
    out += ".TP\n\\fI" + roff(p.value_name) + "\\fR" + (p.many ? "\\&..." : "") + "\n" + roff(p.description) + "\n";
  return out;
}

}  // namespace

command_doc describe(const CLI::App& app) {
  command_doc out;
  out.name = app.get_name();
  out.description = app.get_description();
  out.footer = app.get_footer();
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional() && !o->nonpositional())
      out.positionals.push_back(describe_positional(*o));
    else
      out.options.push_back(describe_option(*o));
  }
  for (const CLI::App* sub : app.get_subcommands({})) out.commands.push_back(describe(*sub));
  return out;
}

std::string bash_completion(const command_doc& app) {
  std::vector<std::string> commands;
  for (const command_doc& c : app.commands) commands.push_back(c.name);
  std::string cases;
  for (const command_doc& c : app.commands) cases += bash_command_case(c);
  return fmt::format(R"(# bash completion for {0}(1), generated from {0}'s own command-line definitions
# (src/cli/app.cpp) by {0}_shell_docs. Do not edit.

_{0}_commands='{1}'

# Words from a list that start with the word being completed.
_{0}_words() {{
  COMPREPLY=($(compgen -W "$1" -- "$cur"))
}}

# Files: "scenario" (*.toml and directories), "any", or "dir".
_{0}_files() {{
  local IFS=$'\n'
  compopt -o filenames 2>/dev/null
  case $1 in
    scenario) COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur"));;
    dir) COMPREPLY=($(compgen -d -- "$cur"));;
    *) COMPREPLY=($(compgen -f -- "$cur"));;
  esac
}}

_{0}() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} option=${{COMP_WORDS[COMP_CWORD-1]}}
  # "--seed=1" arrives as "--seed" "=" "1".
  if [[ $cur == = ]]; then
    cur=
  elif [[ $option == = ]]; then
    option=${{COMP_WORDS[COMP_CWORD-2]}}
  fi
  COMPREPLY=()
  # The command is the first word that is not an option: {0}'s own options take no value.
  local command= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${{COMP_WORDS[i]}} != -* ]]; then
      command=${{COMP_WORDS[i]}}
      break
    fi
  done
  case $command in
    '') _{0}_words '{2}';;
{3}  esac
}}

complete -F _{0} {0}
)",
                     app.name, joined(commands, " "), joined(all_names(app), " "), cases);
}

std::string zsh_completion(const command_doc& app) {
  std::string described;
  for (const command_doc& c : app.commands)
    described += fmt::format("    '{}:{}'\n", c.name, zsh_quoted(c.description));
  std::string functions;
  std::string cases;
  for (const command_doc& c : app.commands) {
    functions += fmt::format("_{}_{}() {{\n  _arguments -s -S \\\n{}    && return 0\n}}\n\n", app.name, c.name,
                             zsh_option_specs(c));
    cases += fmt::format("        {1}) _{0}_{1};;\n", app.name, c.name);
  }
  return fmt::format(R"(#compdef {0}
# zsh completion for {0}(1), generated from {0}'s own command-line definitions
# (src/cli/app.cpp) by {0}_shell_docs. Do not edit.

_{0}_commands() {{
  local -a commands
  commands=(
{1}  )
  _describe -t commands '{0} command' commands
}}

{2}_{0}() {{
  local curcontext=$curcontext state line
  typeset -A opt_args
  _arguments -C \
{3}    '1: :_{0}_commands' \
    '*:: :->args' \
    && return 0
  case $state in
    args)
      curcontext=${{curcontext%:*:*}}:{0}-$words[1]:
      case $words[1] in
{4}      esac;;
  esac
}}

_{0} "$@"
)",
                     app.name, described, functions, zsh_option_specs(app), cases);
}

std::string man_page(const command_doc& app, const std::string& version) {
  const std::vector<std::string> about = paragraphs(app.description);
  // "twice: a deterministic simulator ..." -> "a deterministic simulator ..." for NAME.
  std::string summary = about.empty() ? std::string() : about.front();
  if (summary.starts_with(app.name + ": ")) summary.erase(0, app.name.size() + 2);
  if (!summary.empty() && summary.back() == '.') summary.pop_back();
  std::string out = fmt::format(
      ".\\\" Generated from {0}'s own command-line definitions (src/cli/app.cpp) by {0}_shell_docs. Do not edit.\n"
      ".TH {1} 1 \"\" \"{2}\" \"User Commands\"\n"
      ".SH NAME\n{0} \\- {3}\n"
      ".SH SYNOPSIS\n.B {0}\n.I COMMAND\n.RI [ OPTIONS ]\n.RI [ ARGUMENTS ]\n"
      ".SH DESCRIPTION\n",
      app.name,
      [&] {
        std::string upper = app.name;
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return upper;
      }(),
      roff(version), roff(summary));
  // The footer's "Exit status: ..." goes under EXIT STATUS, the rest into the description.
  std::vector<std::string> described(about.begin() + std::min<std::size_t>(1, about.size()), about.end());
  std::string exit_status;
  constexpr std::string_view exit_prefix = "Exit status: ";
  for (std::string& p : paragraphs(app.footer)) {
    if (p.starts_with(exit_prefix))
      exit_status += ".PP\n" + roff(p.substr(exit_prefix.size())) + "\n";
    else
      described.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < described.size(); ++i) out += (i == 0 ? "" : ".PP\n") + roff(described[i]) + "\n";
  out += ".SH OPTIONS\n" + man_options(app);
  out += ".SH COMMANDS\n";
  for (const command_doc& c : app.commands) {
    out += ".SS " + c.name + "\n" + man_synopsis(c, app.name) + ".PP\n" + roff(c.description) + ".\n";
    out += ".RS\n" + man_options(c) + ".RE\n" + man_paragraphs(c.footer);
  }
  out += ".SH EXIT STATUS\n" + exit_status;
  out +=
      ".SH FILES\nScenario files are TOML; their keys are in \\fIdocs/scenario\\-format.md\\fR, the JSON of "
      "\\fB\\-\\-json\\fR in \\fIdocs/json\\-output.md\\fR.\n";
  out += fmt::format(".SH SEE ALSO\nThe README and docs/ of the {} sources.\n", app.name);
  return out;
}

}  // namespace twice::cli
