#include "cli/output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace twice::cli {

std::string write_file_atomically(const std::string& path, std::string_view contents) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path temp = target.parent_path() / (".twice-tmp-" + target.filename().string());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot write " + path + ": " + std::strerror(errno);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      return "cannot write " + path + ": " + std::strerror(errno);
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return "cannot write " + path + ": " + ec.message();
  }
  return {};
}

bool same_path(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  // When a path cannot be resolved (a parent that cannot be read), compare it as written, made absolute.
  const auto resolved = [](const std::string& p) {
    std::error_code ec;
    fs::path out = fs::weakly_canonical(p, ec);
    if (ec) out = fs::absolute(p, ec).lexically_normal();
    return out;
  };
  return resolved(a) == resolved(b);
}

}  // namespace twice::cli
