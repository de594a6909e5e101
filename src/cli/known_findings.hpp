#pragma once
// A ratchet of accepted findings: `twice explore F --known known.json` fails
// only on findings not in the file, so a team can put explore in CI before
// every old bug is fixed, and a new one still fails the build;
// `--update-known` rewrites the file with what was found. A finding is known
// by its scenario's name, its invariant and its shrunk repro's trace digest:
// the same bug found the same way shrinks to the same repro, byte for byte.
//
//   {"format": "twice known findings 1",
//    "findings": [{"scenario": "billing", "invariant": "no_double_payment",
//                  "repro_digest": "5b074a6675f66e1e"}]}

#include <string>
#include <tuple>
#include <vector>

namespace twice::cli {

struct known_finding {
  std::string scenario;
  std::string invariant;
  std::string repro_digest;  // 16 hex digits
  bool operator==(const known_finding&) const = default;
  // Not <=>: the libc++ of the WebAssembly build has no <=> for strings.
  bool operator<(const known_finding& o) const {
    return std::tie(scenario, invariant, repro_digest) < std::tie(o.scenario, o.invariant, o.repro_digest);
  }
};

struct known_read {
  std::vector<known_finding> findings;  // sorted
  std::string error;                    // "known.json: ..." when it cannot be read
};

// A file that does not exist reads as none when `missing_ok`.
known_read read_known_findings(const std::string& path, bool missing_ok);
// Sorted, one finding a line, so a change to it reads well in a diff.
std::string known_findings_text(std::vector<known_finding> findings);

}  // namespace twice::cli
