#pragma once
// The world's jobs: their specs, found by id, and how each story job ended.
//
// Loaded jobs ([[job]] tables) are held as the scenario gave them. A
// generated workload is not: each job is drawn as it arrives and the book
// keeps what the draws decided (24 bytes), making the spec again whenever a
// worker asks for it. Jobs split out of a step (runtime.rules.split_tool)
// are derived from their parent the same way. So a million generated jobs
// cost 25 bytes each here, not a spec (~340 bytes) apiece.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/job_catalogue.hpp"
#include "runtime/job_index.hpp"
#include "runtime/workload.hpp"

namespace twice {

enum class job_end : std::uint8_t { open, done, failed, dead_lettered };
std::string_view to_string(job_end);

class job_book final : public job_catalogue {
 public:
  // `loaded` and `workload` must outlive the book (the world's config).
  // `split_tool`: the tool whose steps are split out ("" for none).
  job_book(const std::vector<job_spec>& loaded, const std::optional<workload_spec>& workload, std::string split_tool);

  // The story's jobs, loaded and generated (split-out jobs are not).
  std::size_t story_jobs() const { return loaded_.size() + generated_count(); }
  std::size_t generated_count() const { return workload_ ? static_cast<std::size_t>(workload_->count) : 0; }
  // Every spec made so far: loaded jobs and their split-out jobs, and the
  // generated jobs that arrived and theirs (all of them, once all arrived).
  std::size_t spec_count() const { return loaded_specs_.size() + generated_.size() + generated_children_; }

  // The jobs split out of `spec`, in step order.
  std::vector<job_spec> children_of(const job_spec& spec) const;
  // A generated job has arrived: from now on its id is known. Ordinals
  // arrive in order. Returns its spec, made once here for the arrival's
  // own use (its rows, its message) rather than again by the caller.
  job_spec add_arrival(const generated_job& g);

  job_spec spec_of(std::string_view id) const override;

  // Ends. mark_end returns whether the job was open (and now is not).
  bool mark_end(std::string_view id, job_end how);
  // A dead-lettered job redriven back to its queue is open again; returns
  // whether it was dead-lettered (a job that ended otherwise stays ended).
  bool reopen_dead_lettered(std::string_view id);
  job_end end_of(std::string_view id) const;
  // Every story job's end, arrived or not (one not arrived is open):
  // loaded jobs in id order, then generated ones in generation order.
  // fn(std::string_view id, job_end).
  template <class Fn>
  void for_each_end(Fn&& fn) const {
    for (const auto& [id, end] : loaded_ends_) fn(id, end);
    for (std::size_t i = 0; i < generated_ends_.size(); ++i)
      fn(std::string_view(generated_job_id(*workload_, static_cast<std::int64_t>(i))), generated_ends_[i]);
  }

  // Queue wait: when a story job's message was first received (its first
  // delivery, the end of its first wait in the queue). The first call for a
  // job counts; later ones (retries, redeliveries) do nothing.
  void note_received(std::string_view id, sim::instant at);
  std::optional<sim::instant> first_received(std::string_view id) const;
  // The first receive, if it was at `at`, did not count (a worker gave the
  // message straight back: runtime.tenant_limit).
  void forget_received(std::string_view id, sim::instant at);

  std::uint64_t footprint() const;

 private:
  std::int64_t* first_received_slot(std::string_view id);
  struct drawn {
    sim::instant enqueue_at;
    std::int64_t amount_cents = 0;
    bool email = false;
    std::uint16_t type = 0;
  };
  std::optional<std::int64_t> arrived_ordinal(std::string_view id) const;
  job_end* end_slot(std::string_view id);
  std::optional<job_spec> generated_spec_of(std::string_view id) const;

  const std::vector<job_spec>& loaded_;
  const std::optional<workload_spec>& workload_;
  std::string split_tool_;
  std::deque<job_spec> loaded_children_;     // a deque never moves them: the index views their ids
  job_index<const job_spec*> loaded_specs_;  // loaded jobs and their children
  job_index<job_end> loaded_ends_;
  std::vector<drawn> generated_;         // by ordinal, as they arrived
  std::vector<job_end> generated_ends_;  // by ordinal, every generated job's
  // First receive, microseconds (-1: not yet): loaded jobs by their place in
  // loaded_ends_ (sorted by id), generated ones by ordinal.
  std::vector<std::int64_t> loaded_first_us_;
  std::vector<std::int64_t> generated_first_us_;
  std::size_t generated_children_ = 0;  // split out of the generated jobs that arrived
};

}  // namespace twice
