// twice_shell_docs DIR: writes DIR/twice.bash, DIR/_twice and DIR/twice.1,
// the completions and the man page, from the app `twice` itself parses with.

#include <fmt/core.h>

#include <filesystem>

#include "cli/app.hpp"
#include "cli/output_file.hpp"
#include "cli/shell_docs.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: twice_shell_docs DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    fmt::print(stderr, "twice_shell_docs: cannot create {}: {}\n", dir.string(), ec.message());
    return 2;
  }
  twice::cli::command_values values;
  const std::unique_ptr<CLI::App> app = twice::cli::make_app(values);
  const twice::cli::command_doc doc = twice::cli::describe(*app);
  const std::pair<std::string, std::string> files[] = {
      {"twice.bash", twice::cli::bash_completion(doc)},
      {"_twice", twice::cli::zsh_completion(doc)},
      {"twice.1", twice::cli::man_page(doc, std::string("twice ") + TWICE_VERSION)},
  };
  for (const auto& [name, text] : files) {
    const std::string error = twice::cli::write_file_atomically((dir / name).string(), text);
    if (!error.empty()) {
      fmt::print(stderr, "twice_shell_docs: {}\n", error);
      return 2;
    }
  }
  return 0;
}
