#include <twice/explore/result_file.hpp>

#include <algorithm>
#include <map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <xxhash.h>

namespace twice::explore {
namespace {

using json = nlohmann::json;

constexpr std::string_view shard_format = "twice explore shard 1";
constexpr std::string_view result_format = "twice explore result 1";

std::string hex64(std::uint64_t v) { return fmt::format("{:016x}", v); }

json stamp_json(const explore_stamp& s) {
  return json{{"path", s.path}, {"scenario_xxh3", s.scenario_hash}, {"root_seed", s.root_seed}, {"runs", s.runs},
              {"all", s.all},   {"shrink_runs", s.shrink_runs},     {"guide", s.guide},         {"version", s.version}};
}

// Runs as [index, world seed, [violated...], situations reached]: a row a
// run, compact at thousands of runs; the last is a bitmask over the file's
// "situations" list.
json runs_json(const std::vector<run_record>& runs) {
  json out = json::array();
  for (const run_record& r : runs) out.push_back(json::array({r.index, r.world_seed, r.violated, r.reached}));
  return out;
}

// --time-limit's split in microseconds (a setting, not a measurement: the
// same limit writes the same bytes), or null without one.
json time_limit_json(const std::optional<time_split>& split) {
  if (!split) return nullptr;
  return json{{"limit_us", split->limit.us()}, {"runs_us", split->runs.us()}, {"shrink_us", split->shrink.us()}};
}

// The field `key` of `j` as a T, or a message naming it.
template <class T>
bool field(const json& j, std::string_view key, T& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end()) {
    error = fmt::format("no \"{}\"", key);
    return false;
  }
  try {
    out = it->get<T>();
    return true;
  } catch (const json::exception&) {
    error = fmt::format("\"{}\" is not a {}", key, std::is_same_v<T, std::string> ? "string" : "number or flag");
    return false;
  }
}

}  // namespace

explore_stamp stamp_of(const explore_input& input, const explore_options& options, std::uint64_t root_seed,
                       std::string version) {
  return {input.path,
          hex64(XXH3_64bits(input.text.data(), input.text.size())),
          root_seed,
          options.runs,
          options.all,
          options.shrink_runs,
          options.guide == guide_mode::coverage ? "coverage" : "none",
          std::move(version)};
}

std::string shard_file_name(shard part) { return fmt::format("shard-{}-of-{}.json", part.index, part.count); }

std::string shard_json(const explore_stamp& stamp, const explore_input& input, const run_set& runs) {
  json names = json::array();
  for (const situation_info& s : situations()) names.push_back(s.name);
  const json j{{"format", shard_format},         {"stamp", stamp_json(stamp)},
               {"situations", std::move(names)}, {"shard", {{"index", runs.part.index}, {"count", runs.part.count}}},
               {"scenario_text", input.text},    {"deadline_hit", runs.deadline_hit},
               {"runs", runs_json(runs.runs)}};
  return j.dump() + "\n";
}

std::string result_json(const explore_stamp& stamp, const explore_input& input, const explore_result& result) {
  json violations = json::array();
  for (const auto& [invariant, count] : result.violations)
    violations.push_back({{"invariant", invariant}, {"runs", count}});
  json findings = json::array();
  for (const finding& f : result.findings)
    findings.push_back({{"invariant", f.invariant},
                        {"run", f.run_index},
                        {"world_seed", f.world_seed},
                        {"original", describe(f.original_size)},
                        {"shrink_steps", f.shrunk.steps.size()},
                        {"candidates", f.shrunk.runs},
                        // Stopped before a pass changed nothing: "candidates", "time_limit" or "passes".
                        {"cut_short", f.shrunk.cut_short},
                        {"cut_short_by", f.shrunk.cut_short ? json(stop_name(f.shrunk.stop)) : json(nullptr)},
                        {"shrunk", describe(f.shrunk_size)},
                        {"repro", repro_file_name(input.name, f.invariant)},
                        {"repro_digest", hex64(f.repro_digest)},
                        {"reproduces", f.repro_checked}});
  json reached = json::array();
  for (std::size_t i = 0; i < result.reached.size(); ++i)
    reached.push_back({{"situation", situations()[i].name}, {"runs", result.reached[i]}});
  const json j{{"format", result_format},
               {"stamp", stamp_json(stamp)},
               {"scenario", input.name},
               {"runs_asked", result.runs_asked},
               {"runs_done", result.runs_done},
               {"deadline_hit", result.deadline_hit},
               {"time_limit", time_limit_json(result.time_limit)},
               {"violating_runs", result.violating_runs},
               {"violations", std::move(violations)},
               {"findings", std::move(findings)},
               {"situations", std::move(reached)},
               {"unreached_expected", result.unreached_expected},
               {"runs", runs_json(result.runs)}};
  return j.dump() + "\n";
}

shard_read read_shard_json(std::string_view text, const std::string& file) {
  shard_read out;
  auto fail = [&](const std::string& why) {
    out.error = file + ": " + why;
    return out;
  };
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("not JSON, or not an object");
  std::string format;
  if (!field(j, "format", format, out.error) || format != shard_format)
    return fail(fmt::format("not a twice shard file (its \"format\" is not \"{}\")", shard_format));
  shard_file s;
  s.file = file;
  std::string error;
  const auto stamp = j.find("stamp");
  const auto part = j.find("shard");
  if (stamp == j.end() || !stamp->is_object()) return fail("no \"stamp\" object");
  if (part == j.end() || !part->is_object()) return fail("no \"shard\" object");
  if (!field(*stamp, "path", s.stamp.path, error) || !field(*stamp, "scenario_xxh3", s.stamp.scenario_hash, error) ||
      !field(*stamp, "root_seed", s.stamp.root_seed, error) || !field(*stamp, "runs", s.stamp.runs, error) ||
      !field(*stamp, "all", s.stamp.all, error) || !field(*stamp, "shrink_runs", s.stamp.shrink_runs, error) ||
      !field(*stamp, "guide", s.stamp.guide, error) || !field(*stamp, "version", s.stamp.version, error))
    return fail("stamp: " + error);
  if (!field(*part, "index", s.part.index, error) || !field(*part, "count", s.part.count, error))
    return fail("shard: " + error);
  if (s.part.count == 0 || s.part.index >= s.part.count)
    return fail(fmt::format("shard {} of {}: the index must be below the count", s.part.index, s.part.count));
  if (!field(j, "scenario_text", s.scenario_text, error)) return fail(error);
  // The runs' situation bits mean this build's list: another list, another build.
  std::vector<std::string> names;
  for (const situation_info& info : situations()) names.emplace_back(info.name);
  std::vector<std::string> listed;
  try {
    listed = j.at("situations").get<std::vector<std::string>>();
  } catch (const json::exception&) {
    return fail("no \"situations\" list of names");
  }
  if (listed != names)
    return fail("its \"situations\" list is not this build's (the shard was explored by another build)");
  const auto runs = j.find("runs");
  if (runs == j.end() || !runs->is_array()) return fail("no \"runs\" array");
  for (const json& row : *runs) {
    run_record r;
    try {
      r.index = row.at(0).get<std::size_t>();
      r.world_seed = row.at(1).get<std::uint64_t>();
      r.violated = row.at(2).get<std::vector<std::string>>();
      r.reached = row.at(3).get<situation_set>();
    } catch (const json::exception&) {
      return fail("a run is not [index, world seed, [invariants], situations]");
    }
    if (r.index >= s.stamp.runs || r.index % s.part.count != s.part.index)
      return fail(fmt::format("run {} is not one of shard {} of {} of {} runs", r.index, s.part.index, s.part.count,
                              s.stamp.runs));
    s.runs.push_back(std::move(r));
  }
  out.value = std::move(s);
  return out;
}

std::string merge_problem(const std::vector<shard_file>& shards) {
  if (shards.empty()) return "no shard files to merge";
  const shard_file& first = shards.front();
  for (const shard_file& s : shards) {
    const explore_stamp& a = first.stamp;
    const explore_stamp& b = s.stamp;
    auto differ = [&](std::string_view what, const std::string& x, const std::string& y) {
      return fmt::format(
          "{} and {} come from different explorations: {} {} against {} (merge only the shards of one "
          "`twice explore ... --shard K/N` run)",
          first.file, s.file, what, x, y);
    };
    if (a.scenario_hash != b.scenario_hash) return differ("scenario bytes (XXH3)", a.scenario_hash, b.scenario_hash);
    if (a.path != b.path) return differ("scenario path", a.path, b.path);
    if (a.root_seed != b.root_seed)
      return differ("root seed", std::to_string(a.root_seed), std::to_string(b.root_seed));
    if (a.runs != b.runs) return differ("--runs", std::to_string(a.runs), std::to_string(b.runs));
    if (a.all != b.all) return differ("--all", a.all ? "on" : "off", b.all ? "on" : "off");
    if (a.shrink_runs != b.shrink_runs)
      return differ("shrink candidates", std::to_string(a.shrink_runs), std::to_string(b.shrink_runs));
    if (a.version != b.version) return differ("binary", a.version, b.version);
    if (s.part.count != first.part.count)
      return differ("shard count", std::to_string(first.part.count), std::to_string(s.part.count));
    if (fmt::format("{:016x}", XXH3_64bits(s.scenario_text.data(), s.scenario_text.size())) != b.scenario_hash)
      return s.file + ": its scenario text is not the one its stamp hashed (the file was edited)";
  }
  std::map<std::size_t, const shard_file*> by_index;
  for (const shard_file& s : shards)
    if (const auto [it, fresh] = by_index.emplace(s.part.index, &s); !fresh)
      return fmt::format("shard {} of {} is given twice: {} and {}", s.part.index, s.part.count, it->second->file,
                         s.file);
  std::string missing;
  for (std::size_t k = 0; k < first.part.count; ++k)
    if (!by_index.contains(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
  if (!missing.empty())
    return fmt::format("{} {} of {} {} missing: a merge needs every shard of the exploration",
                       missing.find(',') == std::string::npos ? "shard" : "shards", missing, first.part.count,
                       missing.find(',') == std::string::npos ? "is" : "are");
  return "";
}

}  // namespace twice::explore
