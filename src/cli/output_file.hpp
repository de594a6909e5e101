#pragma once
// Output files are written whole or not at all: to a temporary file beside
// the target, then renamed over it. A reader never sees half a report.
// A target that exists and is not a regular file (/dev/null, /dev/stdout, a
// pipe) is written directly: renaming over it would replace the device.
//
// Every output path is checked before a run starts (output_path_problem),
// so a typo in a directory costs nothing and leaves nothing behind.

#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  std::string temp_;  // empty when the target is written directly
  std::ofstream out_;
  std::string error_;
  bool done_ = false;
};

// Empty on success, else a message naming the path and the reason.
std::string write_file_atomically(const std::string& path, std::string_view contents);

// Why `path` cannot take an output file, or "": its directory is missing or
// is a file, the path is a directory, or a file cannot be created there
// (tried, and removed again). "no directory out/reports"
std::string output_path_problem(const std::string& path);
// The same for a directory an output goes into, created when needed (the
// nearest part of it that exists must be a directory a file can be made in).
std::string output_dir_problem(const std::string& dir);

// The first of some outputs (an option and its path; empty paths are not
// given) that cannot be written: "cannot write --report out/r.html: no
// directory out", or "".
std::string outputs_problem(const std::vector<std::pair<std::string_view, const std::string*>>& outputs);

// The first output that would overwrite the scenario `input` (unless it is
// "" or standard input, "-") or another output: "--csv F would overwrite the
// scenario itself", "--markdown F and --report G name the same file; give
// each output its own", or "".
std::string outputs_clash(const std::vector<std::pair<std::string_view, const std::string*>>& outputs,
                          const std::string& input);

// Whether two paths name one file, once "..", "." and symbolic links are
// resolved (the file need not exist yet).
bool same_path(const std::string& a, const std::string& b);

}  // namespace twice::cli
