#include "cli/known_findings.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace twice::cli {
namespace {
constexpr std::string_view format = "twice known findings 1";
}

known_read read_known_findings(const std::string& path, bool missing_ok) {
  known_read out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (!missing_ok) out.error = path + ": no such file (--update-known writes it)";
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  auto fail = [&](const std::string& why) {
    out.error = path + ": " + why;
    out.findings.clear();
    return out;
  };
  if (j.is_discarded() || !j.is_object()) return fail("not JSON, or not an object");
  if (j.value("format", std::string()) != format)
    return fail("not a known-findings file (its \"format\" is not \"" + std::string(format) + "\")");
  const auto list = j.find("findings");
  if (list == j.end() || !list->is_array()) return fail("no \"findings\" array");
  for (std::size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& f = (*list)[i];
    known_finding k;
    try {
      k = {f.at("scenario").get<std::string>(), f.at("invariant").get<std::string>(),
           f.at("repro_digest").get<std::string>()};
    } catch (const nlohmann::json::exception&) {
      return fail("findings[" + std::to_string(i) + "] needs \"scenario\", \"invariant\" and \"repro_digest\" strings");
    }
    out.findings.push_back(std::move(k));
  }
  std::sort(out.findings.begin(), out.findings.end());
  return out;
}

std::string known_findings_text(std::vector<known_finding> findings) {
  std::sort(findings.begin(), findings.end());
  findings.erase(std::unique(findings.begin(), findings.end()), findings.end());
  std::string out = "{\"format\": \"" + std::string(format) + "\",\n \"findings\": [";
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const nlohmann::json line{{"scenario", findings[i].scenario},
                              {"invariant", findings[i].invariant},
                              {"repro_digest", findings[i].repro_digest}};
    out += (i == 0 ? "\n  " : ",\n  ") + line.dump();
  }
  out += findings.empty() ? "]}\n" : "\n ]}\n";
  return out;
}

}  // namespace twice::cli
