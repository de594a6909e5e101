#include "cli/output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "sim/check.hpp"

namespace twice::cli {

streamed_file::streamed_file(std::string path) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  const fs::path target(path_);
  temp_ = (target.parent_path() / (".twice-tmp-" + target.filename().string())).string();
  out_.open(temp_, std::ios::binary | std::ios::trunc);
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
  std::error_code ignored;
  std::filesystem::remove(temp_, ignored);
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
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
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
