#pragma once
// The run's digest: one 64-bit number that summarises every event, so CI
// and bug reports compare runs by it. Same scenario + seed + build => same
// digest on every machine, compiler and optimisation level.
//
// Specification (recompute it with any XXH3 implementation):
//
//   digest = XXH3_64bits, seed 0 (libxxhash), over the byte stream below.
//
// The stream is the run's events in emission order, each as
//
//   event := u8 kind  i64 time_us  name(actor)  field*
//
// where `kind` is the payload's index in ev::payload (trace_events.hpp) and
// the fields are the payload's, in the order its fields(v) lists them, each
// as its value only:
//
//   name     := u64 XXH3_64bits(text), seed 0, where text is the name's
//               bytes (its UTF-8 text, no length, no terminator); at every
//               occurrence, the empty name included
//   integer  := i64
//   boolean  := u8 0 or 1
//   word     := u8 (the enumeration's value)
//
// Every integer, a name's hash included, is little-endian, fixed width,
// whatever the host. A field a payload leaves out (a change_visibility that
// was not applied has no visible_until) is simply absent. So the digest
// covers every event's names and integers, and can be recomputed from the
// events and their names' texts alone.
//
// A name is its text's hash, not its id in the name table: ids follow the
// order names were first interned over the whole run, so a digest made of
// ids would change whenever anything interned a name earlier or later, and
// would need every name the run ever saw kept to the end.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <twice/events/trace_events.hpp>

namespace twice {

class name_table;

class event_digest {
 public:
  event_digest();
  ~event_digest();
  event_digest(const event_digest&) = delete;
  event_digest& operator=(const event_digest&) = delete;

  // Folds one event in.
  void add(const ev::event& e, const name_table& names);
  // The digest of every event added so far (an empty stream's, XXH3 of no
  // bytes, before any).
  std::uint64_t value() const;

  // The encoder, for the tests and anyone checking the specification.
  // Fixed-width fields are written byte by byte in little-endian order
  // whatever the host's; inline, so each is a store or two into the buffer.
  void put_u8(std::uint8_t v) {
    std::uint8_t* at = room(1);
    at[0] = v;
  }
  void put_u64(std::uint64_t v) {
    std::uint8_t* at = room(8);
    for (int i = 0; i < 8; ++i) at[i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  void put_i64(std::int64_t v) { put_u64(static_cast<std::uint64_t>(v)); }
  // The name's hash, XXH3-64 of its text, as `names` keeps it.
  void put_name(ev::name_id id, const name_table& names);

 private:
  // Where the next `n` bytes (n <= the buffer) go, flushing first if they
  // would not fit.
  std::uint8_t* room(std::size_t n) {
    if (buffer_.size() - used_ < n) flush();
    std::uint8_t* at = buffer_.data() + used_;
    used_ += n;
    return at;
  }
  void flush();

  struct state;
  std::unique_ptr<state> state_;
  // Bytes are gathered here and handed to XXH3 in blocks: one update call
  // per block, not per field.
  std::array<std::uint8_t, 4096> buffer_{};
  std::size_t used_ = 0;
};

}  // namespace twice
