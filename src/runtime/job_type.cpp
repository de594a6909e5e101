#include <twice/runtime/job_type.hpp>

#include <twice/sim/check.hpp>

namespace twice {

std::string_view to_string(progress_mode m) {
  switch (m) {
    case progress_mode::per_step:
      return "per_step";
    case progress_mode::per_item:
      return "per_item";
    case progress_mode::none:
      return "none";
  }
  return "?";
}

std::optional<progress_mode> parse_progress_mode(std::string_view s) {
  for (const progress_mode m : {progress_mode::per_step, progress_mode::per_item, progress_mode::none})
    if (s == to_string(m)) return m;
  return std::nullopt;
}

std::int64_t job_type::call_count() const {
  std::int64_t n = 0;
  for (const step_template& s : steps) n += s.items;
  return n;
}

namespace {
// "{job}" replaced by the job's id, everywhere it appears.
std::string with_job(std::string_view target, std::string_view id) {
  constexpr std::string_view placeholder = "{job}";
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = target.find(placeholder); at != std::string_view::npos; at = target.find(placeholder, from)) {
    out.append(target.substr(from, at - from));
    out.append(id);
    from = at + placeholder.size();
  }
  out.append(target.substr(from));
  return out;
}
}  // namespace

job_spec make_job(const job_type& t, std::string id) {
  TWICE_CHECK(!t.steps.empty());
  job_spec job;
  job.id = std::move(id);
  job.type = t.name;
  job.tenant = t.tenant;
  job.steps.reserve(static_cast<std::size_t>(t.call_count()));
  for (const step_template& s : t.steps) {
    TWICE_CHECK(s.items >= 1);
    const std::string target = with_job(s.target, job.id);
    for (std::int64_t i = 1; i <= s.items; ++i) {
      step_spec step;
      step.tool = s.tool;
      step.target = s.items == 1 ? target : target + "_" + std::to_string(i);
      step.amount_cents = s.amount_cents;
      step.checkpointed =
          t.progress == progress_mode::per_item || (t.progress == progress_mode::per_step && i == s.items);
      job.steps.push_back(std::move(step));
    }
  }
  return job;
}

}  // namespace twice
