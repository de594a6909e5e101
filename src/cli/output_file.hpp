#pragma once
// Output files are written whole or not at all: to a temporary file beside
// the target, then renamed over it. A reader never sees half a report.

#include <fstream>
#include <string>
#include <string_view>

namespace twice::cli {

// A file written in pieces as a run goes (a streamed trace), then put in
// place whole by commit(); dropped without commit (an error, an early
// return), it leaves no file behind, not even its temporary one.
class streamed_file {
 public:
  explicit streamed_file(std::string path);
  streamed_file(const streamed_file&) = delete;
  streamed_file& operator=(const streamed_file&) = delete;
  ~streamed_file();

  // Empty when the temporary file opened, else a message naming the path.
  const std::string& open_error() const { return error_; }
  void write(std::string_view piece);
  // Flushes and renames over the target. Empty on success, else a message
  // naming the path and the reason (and the temporary file is gone).
  std::string commit();

 private:
  void discard();

  std::string path_;
  std::string temp_;
  std::ofstream out_;
  std::string error_;
  bool done_ = false;
};

// Empty on success, else a message naming the path and the reason.
std::string write_file_atomically(const std::string& path, std::string_view contents);

// Whether two paths name one file, once "..", "." and symbolic links are
// resolved (the file need not exist yet).
bool same_path(const std::string& a, const std::string& b);

}  // namespace twice::cli
