#pragma once
// The bash and zsh completion scripts and the man page, written from the
// same CLI::App that `twice` parses with (cli/app.hpp): a new option shows
// up in all three at the next build, and none can name one that is gone.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace twice::cli {

struct option_doc {
  std::vector<std::string> names;  // "-h", "--help"
  std::string value_name;          // "FILE", "SEED"; empty for a flag
  std::string description;
  std::string default_value;  // as --help shows it; empty: none
};

struct positional_doc {
  std::string name;        // "files"
  std::string value_name;  // "FILE", "COMMAND"
  std::string description;
  bool many = false;
  bool required = false;
};

struct command_doc {
  std::string name;  // "twice", or "run"
  std::string description;
  std::string footer;
  std::vector<option_doc> options;
  std::vector<positional_doc> positionals;
  std::vector<command_doc> commands;  // the subcommands (only the top level has any)
};

// The app as plain values: what the three writers below need, nothing more.
command_doc describe(const CLI::App& app);

// `complete -F _twice twice` and its function: commands, each command's
// options, files (scenario files: *.toml and directories) and directories
// where an option or argument takes one.
std::string bash_completion(const command_doc& app);
// A #compdef function for zsh's completion system.
std::string zsh_completion(const command_doc& app);
// twice(1) in the man macros; `version` goes in the footer ("twice 0.1.0").
std::string man_page(const command_doc& app, const std::string& version);

}  // namespace twice::cli
