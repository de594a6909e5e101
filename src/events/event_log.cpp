#include <twice/events/event_log.hpp>

#include <algorithm>

#include <twice/sim/check.hpp>
#include <twice/sim/footprint.hpp>

namespace twice {

namespace {
// The fields of a payload as the trace record's own (owned strings).
class owned_fields {
 public:
  owned_fields(const name_table& names, std::vector<sim::field>& out) : names_(names), out_(out) {}
  void name(std::string_view field, ev::name_id id) { out_.push_back({field, std::string(names_.text(id))}); }
  void integer(std::string_view field, std::int64_t v) { out_.push_back({field, v}); }
  void boolean(std::string_view field, bool v) { out_.push_back({field, v}); }
  void word(std::string_view field, std::uint8_t, std::string_view text) { out_.push_back({field, std::string(text)}); }

 private:
  const name_table& names_;
  std::vector<sim::field>& out_;
};
}  // namespace

sim::trace_record as_record(const ev::event& e, const name_table& names) {
  sim::trace_record r;
  r.time = e.at;
  r.actor = std::string(names.text(e.actor));
  std::visit(
      [&](const auto& payload) {
        r.kind = std::string(payload.kind);
        owned_fields v(names, r.fields);
        payload.fields(v);
      },
      e.body);
  return r;
}

void event_log::add_observer(event_observer* observer) {
  TWICE_CHECK(observer != nullptr);
  TWICE_CHECK(!notifying_);
  observers_.push_back(observer);
}

void event_log::remove_observer(event_observer* observer) {
  TWICE_CHECK(!notifying_);
  std::erase(observers_, observer);
}

void event_log::append(ev::event e) {
  TWICE_CHECK(!notifying_);
  if (size_ > 0) TWICE_CHECK(e.at >= last_);
  last_ = e.at;
  ++size_;
  digest_.add(e, names_);
  if (retention_ == retention::keep_records) kept_.push_back(e);
  notifying_ = true;
  for (event_observer* o : observers_) o->on_event(e, names_);
  notifying_ = false;
}

const std::vector<ev::event>& event_log::events() const {
  TWICE_CHECK(retention_ == retention::keep_records);
  return kept_;
}

const std::vector<sim::trace_record>& event_log::records() const {
  TWICE_CHECK(retention_ == retention::keep_records);
  records_.reserve(kept_.size());
  for (std::size_t i = records_.size(); i < kept_.size(); ++i) records_.push_back(as_record(kept_[i], names_));
  return records_;
}

std::vector<sim::trace_record> event_log::take_records() {
  records();
  return std::move(records_);
}

std::string event_log::canonical() const {
  std::string out;
  for (const sim::trace_record& r : records()) {
    sim::append_canonical(r, out);
    out += '\n';
  }
  return out;
}

// Events are kept only for an output, which makes a trace record of each
// (its texts: actor, kind, a vector of named fields) and a line or two of
// text: ~900 bytes an event all told (measured: 1,000 never-ending jobs kept
// 5.8 M events, and printing their timeline peaked at 8.8 GB with the records
// copied once more). Counted while the run goes, so that a run stopped by its
// memory budget still has the room to write what it kept.
inline constexpr std::uint64_t output_bytes_per_kept_event = 900;

std::uint64_t event_log::footprint() const {
  std::uint64_t bytes = sim::footprint_of(kept_) + names_.footprint() + sim::footprint_of(observers_);
  bytes += std::max(kept_.size(), records_.size()) * output_bytes_per_kept_event;
  for (const event_observer* observer : observers_) bytes += observer->footprint();
  return bytes;
}

}  // namespace twice
