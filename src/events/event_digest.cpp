#include <twice/events/event_digest.hpp>

#include <xxhash.h>

#include <string_view>

#include <twice/events/event_log.hpp>
#include <twice/sim/check.hpp>

namespace twice {

struct event_digest::state {
  XXH3_state_t* xxh = XXH3_createState();
  state() {
    TWICE_CHECK(xxh != nullptr);
    TWICE_CHECK(XXH3_64bits_reset(xxh) == XXH_OK);
  }
  ~state() { XXH3_freeState(xxh); }
  state(const state&) = delete;
  state& operator=(const state&) = delete;
};

namespace {
// Writes a payload's fields as the specification says.
class field_encoder {
 public:
  field_encoder(event_digest& out, const name_table& names) : out_(out), names_(names) {}
  void name(std::string_view, ev::name_id id) { out_.put_name(id, names_); }
  void integer(std::string_view, std::int64_t v) { out_.put_i64(v); }
  void boolean(std::string_view, bool v) { out_.put_u8(v ? 1 : 0); }
  void word(std::string_view, std::uint8_t value, std::string_view) { out_.put_u8(value); }

 private:
  event_digest& out_;
  const name_table& names_;
};
}  // namespace

event_digest::event_digest() : state_(std::make_unique<state>()) {}
event_digest::~event_digest() = default;

void event_digest::flush() {
  if (used_ == 0) return;
  TWICE_CHECK(XXH3_64bits_update(state_->xxh, buffer_.data(), used_) == XXH_OK);
  used_ = 0;
}

// The name table took the text's XXH3-64 (seed 0) at intern.
void event_digest::put_name(ev::name_id id, const name_table& names) { put_u64(names.hash(id)); }

void event_digest::add(const ev::event& e, const name_table& names) {
  static_assert(std::variant_size_v<ev::payload> <= 0x100, "a kind is one byte");
  put_u8(static_cast<std::uint8_t>(e.body.index()));
  put_i64(e.at.us());
  put_name(e.actor, names);
  field_encoder fields(*this, names);
  std::visit([&](const auto& payload) { payload.fields(fields); }, e.body);
}

std::uint64_t event_digest::value() const {
  XXH3_state_t* copy = XXH3_createState();
  TWICE_CHECK(copy != nullptr);
  XXH3_copyState(copy, state_->xxh);
  if (used_ > 0) TWICE_CHECK(XXH3_64bits_update(copy, buffer_.data(), used_) == XXH_OK);
  const std::uint64_t out = XXH3_64bits_digest(copy);
  XXH3_freeState(copy);
  return out;
}

}  // namespace twice
