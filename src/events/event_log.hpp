#pragma once
// Where models report what happened: one typed event at a time
// (events/trace_events.hpp), at the kernel's current instant. The log hands
// each event to its observers (typed callbacks: the world's bookkeeping, the
// checkers) and to the trace recorder, as the record whose canonical text
// the digest is computed from (sim/trace.hpp). Names are interned here, once
// per distinct text, so an event is a few integers.
//
//   log.emit(actor, ev::ack{job, attempt, message, status});

#include <cstdint>
#include <string_view>
#include <vector>

#include "events/trace_events.hpp"
#include "sim/kernel.hpp"
#include "sim/string_ids.hpp"
#include "sim/trace.hpp"

namespace twice {

// The texts behind name_ids: id 0 is "", ids follow first appearance.
class name_table {
 public:
  name_table() { ids_.intern_copy({}); }
  ev::name_id intern(std::string_view text) { return ids_.intern_copy(text); }
  std::string_view text(ev::name_id id) const { return ids_.name(id); }
  std::size_t size() const { return ids_.size(); }

 private:
  sim::string_ids ids_;
};

// Sees every event as it is emitted, in emission order; `names` turns the
// event's names into text where an observer keeps text (evidence lines).
class event_observer {
 public:
  virtual ~event_observer() = default;
  virtual void on_event(const ev::event& e, const name_table& names) = 0;
};

// The event as the trace record it is written as (its text form).
sim::trace_record as_record(const ev::event& e, const name_table& names);

class event_log {
 public:
  event_log(sim::kernel& k, sim::trace_recorder& trace) : kernel_(k), trace_(trace) {}
  event_log(const event_log&) = delete;
  event_log& operator=(const event_log&) = delete;

  ev::name_id name(std::string_view text) { return names_.intern(text); }
  const name_table& names() const { return names_; }
  sim::kernel& kernel() { return kernel_; }

  // Emits one event at the kernel's current instant. Must not be called
  // from inside an observer (events stay in order).
  template <class Payload>
  void emit(ev::name_id actor, const Payload& payload) {
    record(actor, Payload::kind, payload);
    if (observers_.empty()) return;
    const ev::event e{kernel_.now(), actor, payload};
    for (event_observer* o : observers_) o->on_event(e, names_);
  }

  // Not owned; called in the order added. Must outlive the log's use.
  void add_observer(event_observer* observer);
  // Nobody sees later events (a world tearing down after its run).
  void detach_observers() { observers_.clear(); }

 private:
  // The event's fields as the trace record's field list.
  class record_fields {
   public:
    explicit record_fields(const name_table& names, std::vector<sim::field_arg>& out) : names_(names), out_(out) {}
    void name(std::string_view field, ev::name_id id) { out_.push_back({field, names_.text(id)}); }
    void integer(std::string_view field, std::int64_t v) { out_.push_back({field, v}); }
    void boolean(std::string_view field, bool v) { out_.push_back({field, v}); }
    void word(std::string_view field, std::uint8_t, std::string_view text) { out_.push_back({field, text}); }

   private:
    const name_table& names_;
    std::vector<sim::field_arg>& out_;
  };

  template <class Payload>
  void record(ev::name_id actor, std::string_view kind, const Payload& payload) {
    fields_.clear();
    record_fields v(names_, fields_);
    payload.fields(v);
    trace_.record(kernel_.now(), names_.text(actor), kind, fields_);
  }

  sim::kernel& kernel_;
  sim::trace_recorder& trace_;
  name_table names_;
  std::vector<sim::field_arg> fields_;  // reused: no allocation per event
  std::vector<event_observer*> observers_;
};

}  // namespace twice
