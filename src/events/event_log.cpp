#include "events/event_log.hpp"

#include "sim/check.hpp"

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
  observers_.push_back(observer);
}

}  // namespace twice
