#include "cli/output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include <twice/sim/check.hpp>

namespace twice::cli {
namespace {

namespace fs = std::filesystem;

std::string temp_path_of(const fs::path& target) {
  return (target.parent_path() / (".twice-tmp-" + target.filename().string())).string();
}

// A device, a pipe or a socket: written in place (renaming over it would replace it).
bool is_special(const fs::path& target) {
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  return !ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
}

// Why a file cannot be created in the existing directory `dir`, or "": tried.
std::string creation_problem(const fs::path& dir) {
  const std::string probe = (dir / ".twice-tmp-probe").string();
  std::ofstream out(probe, std::ios::binary | std::ios::trunc);
  if (!out) return std::strerror(errno);
  out.close();
  std::error_code ignored;
  fs::remove(probe, ignored);
  return {};
}

// The longest leading part of `p` that exists ("." when none of a relative path does).
fs::path nearest_existing(fs::path p) {
  while (true) {
    std::error_code ec;
    if (fs::exists(fs::status(p, ec))) return p;
    const fs::path up = p.parent_path();
    if (up.empty()) return ".";
    if (up == p) return p;  // a root that does not exist: nothing above it
    p = up;
  }
}

// The directory a path names as text: "." for a bare file name.
fs::path directory_of(const fs::path& p) { return p.parent_path().empty() ? fs::path(".") : p.parent_path(); }

}  // namespace

streamed_file::streamed_file(std::string path) : path_(std::move(path)) {
  const fs::path target(path_);
  if (!is_special(target)) temp_ = temp_path_of(target);
  out_.open(temp_.empty() ? path_ : temp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    error_ = "cannot write " + path_ + ": " + std::strerror(errno);
    done_ = true;
  }
}

streamed_file::~streamed_file() {
  if (!done_) discard();
}

void streamed_file::write(std::string_view piece) {
  if (!done_) out_.write(piece.data(), static_cast<std::streamsize>(piece.size()));
}

void streamed_file::discard() {
  out_.close();
  if (!temp_.empty()) {
    std::error_code ignored;
    fs::remove(temp_, ignored);
  }
  done_ = true;
}

std::string streamed_file::commit() {
  if (!error_.empty()) return error_;
  TWICE_CHECK(!done_);
  out_.flush();
  if (!out_) {
    const std::string error = "cannot write " + path_ + ": " + std::strerror(errno);
    discard();
    return error;
  }
  out_.close();
  if (temp_.empty()) {
    done_ = true;
    return {};
  }
  std::error_code ec;
  fs::rename(temp_, path_, ec);
  if (ec) {
    discard();
    return "cannot write " + path_ + ": " + ec.message();
  }
  done_ = true;
  return {};
}

std::string write_file_atomically(const std::string& path, std::string_view contents) {
  streamed_file file(path);
  file.write(contents);
  return file.commit();
}

std::string output_path_problem(const std::string& path) {
  if (path.empty()) return "an empty path";
  const fs::path target(path);
  std::error_code ec;
  if (!target.has_filename() || fs::is_directory(target, ec)) return "it is a directory; give a file name";
  if (is_special(target)) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    return out ? std::string() : std::string(std::strerror(errno));
  }
  // An output file's directory is not created: a missing one is most likely a typo.
  const fs::path dir = directory_of(target);
  const fs::path existing = nearest_existing(dir);
  if (!fs::is_directory(existing, ec)) return existing.string() + " is not a directory";
  if (existing != dir) return "no directory " + dir.string();
  return creation_problem(dir);
}

std::string output_dir_problem(const std::string& dir) {
  if (dir.empty()) return "an empty path";
  const fs::path existing = nearest_existing(fs::path(dir));
  std::error_code ec;
  if (!fs::is_directory(existing, ec)) return existing.string() + " is not a directory";
  const std::string why = creation_problem(existing);
  if (why.empty() || existing == fs::path(dir)) return why;
  return "cannot create it in " + existing.string() + ": " + why;
}

std::string outputs_problem(const std::vector<std::pair<std::string_view, const std::string*>>& outputs) {
  for (const auto& [flag, path] : outputs) {
    if (path->empty()) continue;
    if (const std::string why = output_path_problem(*path); !why.empty())
      return "cannot write " + std::string(flag) + " " + *path + ": " + why;
  }
  return {};
}

std::string outputs_clash(const std::vector<std::pair<std::string_view, const std::string*>>& outputs,
                          const std::string& input) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path->empty()) continue;
    if (!input.empty() && input != "-" && same_path(*path, input))
      return std::string(flag) + " " + *path + " would overwrite the scenario itself";
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [other_flag, other_path] = outputs[j];
      if (!other_path->empty() && same_path(*path, *other_path))
        return std::string(flag) + " " + *path + " and " + std::string(other_flag) + " " + *other_path +
               " name the same file; give each output its own";
    }
  }
  return {};
}

bool same_path(const std::string& a, const std::string& b) {
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
