#pragma once
// Output files are written whole or not at all: to a temporary file beside
// the target, then renamed over it. A reader never sees half a report.

#include <string>
#include <string_view>

namespace twice::cli {

// Empty on success, else a message naming the path and the reason.
std::string write_file_atomically(const std::string& path, std::string_view contents);

// Whether two paths name one file, once "..", "." and symbolic links are
// resolved (the file need not exist yet).
bool same_path(const std::string& a, const std::string& b);

}  // namespace twice::cli
