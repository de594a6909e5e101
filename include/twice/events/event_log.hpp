#pragma once
// Where models report what happened: one typed event at a time
// (events/trace_events.hpp), at the kernel's current instant. The log folds
// each event into the run's digest (events/event_digest.hpp), keeps it when
// asked to, and hands it to its observers (typed callbacks: the world's
// bookkeeping, the checkers). Names are interned here, once per distinct
// text, so an event is a few integers; text is made only at the output edge
// (as_record).
//
//   log.emit(actor, ev::ack{job, attempt, message, status});

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <twice/events/event_digest.hpp>
#include <twice/events/trace_events.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/string_ids.hpp>
#include <twice/sim/trace.hpp>

namespace twice {

// The texts behind name_ids: id 0 is "", ids follow first appearance. Each
// name's XXH3-64 (seed 0) is taken once, at intern, and kept: it is what the
// event digest writes for the name (event_digest::put_name).
class name_table {
 public:
  name_table() : ids_(sim::string_ids::keep_hashes) { ids_.intern_copy({}); }
  ev::name_id intern(std::string_view text) { return ids_.intern_copy(text); }
  std::string_view text(ev::name_id id) const { return ids_.name(id); }
  std::uint64_t hash(ev::name_id id) const { return ids_.hash(id); }
  std::optional<ev::name_id> find(std::string_view text) const { return ids_.find(text); }
  std::size_t size() const { return ids_.size(); }
  std::uint64_t footprint() const { return ids_.footprint(); }

 private:
  sim::string_ids ids_;
};

// Sees every event as it is emitted, in emission order; `names` turns the
// event's names into text where an observer keeps text (evidence lines).
class event_observer {
 public:
  virtual ~event_observer() = default;
  virtual void on_event(const ev::event& e, const name_table& names) = 0;
  // Bytes the observer holds (sim/footprint.hpp): a checker attached to a
  // world counts against the world's memory budget.
  virtual std::uint64_t footprint() const { return 0; }
};

// The event as the trace record it is written as (its text form).
sim::trace_record as_record(const ev::event& e, const name_table& names);

class event_log {
 public:
  // keep_records: keep every event (reports, timelines, tests); digest_only:
  // keep nothing but the digest and the count, so memory does not grow with
  // the run. Observers see every event either way.
  using retention = sim::trace_recorder::retention;

  explicit event_log(sim::kernel& k, retention keep = retention::keep_records) : kernel_(k), retention_(keep) {}
  event_log(const event_log&) = delete;
  event_log& operator=(const event_log&) = delete;

  ev::name_id name(std::string_view text) { return names_.intern(text); }
  const name_table& names() const { return names_; }
  sim::kernel& kernel() { return kernel_; }

  // Emits one event at the kernel's current instant. Must not be called
  // from inside an observer (events stay in order).
  template <class Payload>
  void emit(ev::name_id actor, const Payload& payload) {
    append(ev::event{kernel_.now(), actor, payload});
  }

  // Not owned; called in the order added. Must outlive the log's use.
  void add_observer(event_observer* observer);
  // `observer` sees no later event and is no longer counted in footprint().
  void remove_observer(event_observer* observer);
  // Nobody sees later events (a world tearing down after its run).
  void detach_observers() { observers_.clear(); }

  // The digest of every event so far (events/event_digest.hpp).
  std::uint64_t digest() const { return digest_.value(); }
  std::uint64_t size() const { return size_; }
  retention mode() const { return retention_; }
  // The kept events (keep_records only).
  const std::vector<ev::event>& events() const;
  // The kept events as trace records, their text form (keep_records only),
  // made when first asked for and then kept with the events.
  const std::vector<sim::trace_record>& records() const;
  // The same, moved out (a run handing its records to the outputs as the
  // world goes away); records() makes them again if asked.
  std::vector<sim::trace_record> take_records();
  // Every kept event's canonical line (sim/trace.hpp), each ending in '\n':
  // for comparing two runs by eye.
  std::string canonical() const;
  // Bytes held: the kept events and records, the names, and every observer's.
  std::uint64_t footprint() const;

 private:
  void append(ev::event e);

  sim::kernel& kernel_;
  retention retention_;
  name_table names_;
  event_digest digest_;
  std::uint64_t size_ = 0;
  sim::instant last_;
  bool notifying_ = false;
  std::vector<ev::event> kept_;
  mutable std::vector<sim::trace_record> records_;  // kept_[0, records_.size()) as text
  std::vector<event_observer*> observers_;
};

}  // namespace twice
