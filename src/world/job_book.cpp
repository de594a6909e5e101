#include "world/job_book.hpp"

#include <twice/sim/check.hpp>

namespace twice {

std::string_view to_string(job_end e) {
  switch (e) {
    case job_end::open:
      return "open";
    case job_end::done:
      return "done";
    case job_end::failed:
      return "failed";
    case job_end::dead_lettered:
      return "dead_lettered";
  }
  return "unknown";
}

job_book::job_book(const std::vector<job_spec>& loaded, const std::optional<workload_spec>& workload,
                   std::string split_tool)
    : loaded_(loaded), workload_(workload), split_tool_(std::move(split_tool)) {
  loaded_specs_.reserve(loaded_.size());
  loaded_ends_.reserve(loaded_.size());
  for (const job_spec& spec : loaded_) {
    TWICE_CHECK(!spec.id.empty());
    loaded_specs_.add(spec.id, &spec);
    loaded_ends_.add(spec.id, job_end::open);
  }
  // The loader keeps ':' out of job ids, so no child repeats a parent.
  for (const job_spec& spec : loaded_)
    for (job_spec& child : children_of(spec)) {
      const job_spec& kept = loaded_children_.emplace_back(std::move(child));
      loaded_specs_.add(kept.id, &kept);
    }
  // Both check that no id repeats (the loader rejects duplicate job ids).
  loaded_specs_.seal();
  loaded_ends_.seal();
  generated_ends_.assign(generated_count(), job_end::open);
  loaded_first_us_.assign(loaded_ends_.size(), -1);
  generated_first_us_.assign(generated_count(), -1);
}

std::vector<job_spec> job_book::children_of(const job_spec& spec) const {
  std::vector<job_spec> out;
  if (split_tool_.empty()) return out;
  for (std::size_t step = 1; step <= spec.steps.size(); ++step)
    if (spec.steps[step - 1].tool == split_tool_) out.push_back(split_job(spec, step));
  return out;
}

job_spec job_book::add_arrival(const generated_job& g) {
  TWICE_CHECK(workload_ && g.ordinal == static_cast<std::int64_t>(generated_.size()));
  generated_.push_back({g.enqueue_at, g.amount_cents, g.email, g.type});
  job_spec spec = generated_spec(*workload_, g);
  generated_children_ += children_of(spec).size();
  return spec;
}

std::optional<std::int64_t> job_book::arrived_ordinal(std::string_view id) const {
  if (!workload_) return std::nullopt;
  const std::optional<std::int64_t> ordinal = generated_ordinal(*workload_, id);
  if (!ordinal || *ordinal >= static_cast<std::int64_t>(generated_.size())) return std::nullopt;
  return ordinal;
}

// "gen_5", or a job split out of it: "gen_5:step_2:model".
std::optional<job_spec> job_book::generated_spec_of(std::string_view id) const {
  const std::string_view parent_id = id.substr(0, id.find(':'));
  const std::optional<std::int64_t> ordinal = arrived_ordinal(parent_id);
  if (!ordinal) return std::nullopt;
  const drawn& d = generated_[static_cast<std::size_t>(*ordinal)];
  job_spec parent = generated_spec(*workload_, {*ordinal, d.enqueue_at, d.amount_cents, d.email, d.type});
  if (parent_id.size() == id.size()) return parent;
  for (job_spec& child : children_of(parent))
    if (child.id == id) return std::move(child);
  return std::nullopt;
}

job_spec job_book::spec_of(std::string_view id) const {
  if (const auto it = loaded_specs_.find(id); it != loaded_specs_.end()) return *it->second;
  std::optional<job_spec> spec = generated_spec_of(id);
  TWICE_CHECK(spec.has_value());
  return std::move(*spec);
}

job_end* job_book::end_slot(std::string_view id) {
  if (const auto it = loaded_ends_.find(id); it != loaded_ends_.end()) return &it->second;
  if (const std::optional<std::int64_t> ordinal = arrived_ordinal(id))
    return &generated_ends_[static_cast<std::size_t>(*ordinal)];
  return nullptr;  // a split-out job: not one of the story's
}

bool job_book::mark_end(std::string_view id, job_end how) {
  job_end* end = end_slot(id);
  if (end == nullptr || *end != job_end::open) return false;
  *end = how;
  return true;
}

bool job_book::reopen_dead_lettered(std::string_view id) {
  job_end* end = end_slot(id);
  if (end == nullptr || *end != job_end::dead_lettered) return false;
  *end = job_end::open;
  return true;
}

job_end job_book::end_of(std::string_view id) const {
  if (const auto it = loaded_ends_.find(id); it != loaded_ends_.end()) return it->second;
  if (workload_)
    if (const std::optional<std::int64_t> ordinal = generated_ordinal(*workload_, id))
      return generated_ends_[static_cast<std::size_t>(*ordinal)];
  TWICE_CHECK(false && "no job has this id");
  return job_end::open;
}

std::int64_t* job_book::first_received_slot(std::string_view id) {
  if (const auto it = loaded_ends_.find(id); it != loaded_ends_.end())
    return &loaded_first_us_[static_cast<std::size_t>(it - loaded_ends_.begin())];
  if (const std::optional<std::int64_t> ordinal = arrived_ordinal(id))
    return &generated_first_us_[static_cast<std::size_t>(*ordinal)];
  return nullptr;  // a split-out job: not one of the story's
}

void job_book::note_received(std::string_view id, sim::instant at) {
  std::int64_t* slot = first_received_slot(id);
  if (slot != nullptr && *slot < 0) *slot = at.us();
}

void job_book::forget_received(std::string_view id, sim::instant at) {
  std::int64_t* slot = first_received_slot(id);
  if (slot != nullptr && *slot == at.us()) *slot = -1;
}

std::optional<sim::instant> job_book::first_received(std::string_view id) const {
  const std::int64_t* slot = const_cast<job_book*>(this)->first_received_slot(id);
  if (slot == nullptr || *slot < 0) return std::nullopt;
  return sim::instant::from_us(*slot);
}

// A loaded or split-out spec: its id, steps, targets and keys.
inline constexpr std::uint64_t job_spec_bytes = 340;

std::uint64_t job_book::footprint() const {
  return loaded_specs_.footprint() + loaded_ends_.footprint() +
         (loaded_.size() + loaded_children_.size()) * job_spec_bytes + generated_.capacity() * sizeof(drawn) +
         generated_ends_.capacity() + (loaded_first_us_.capacity() + generated_first_us_.capacity()) * 8;
}

}  // namespace twice
