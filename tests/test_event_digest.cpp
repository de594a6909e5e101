// events/event_digest.hpp: the digest is XXH3-64 over the specified byte
// stream. The stream is rebuilt here by hand, byte by byte, from the
// specification alone, and hashed with libxxhash directly.

#include <catch2/catch.hpp>

#include <xxhash.h>

#include <cstdint>
#include <string>
#include <vector>

#include <twice/events/event_digest.hpp>
#include <twice/events/event_log.hpp>
#include "world/incidents.hpp"
#include <twice/world/world.hpp>

using namespace twice;

namespace {

// The specification's encoder, written out on its own.
struct bytes {
  std::vector<std::uint8_t> out;
  void u8(std::uint8_t v) { out.push_back(v); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void i64(std::int64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
  }
  void first_name(std::uint32_t id, const std::string& text) {
    u32(id);
    u32(static_cast<std::uint32_t>(text.size()));
    for (char c : text) out.push_back(static_cast<std::uint8_t>(c));
  }
  std::uint64_t xxh3() const { return XXH3_64bits(out.data(), out.size()); }
};

template <class P>
constexpr std::uint8_t kind_index() {
  return static_cast<std::uint8_t>(ev::payload(P{}).index());
}

}  // namespace

TEST_CASE("an empty stream's digest is XXH3 of no bytes", "[digest]") {
  CHECK(event_digest().value() == XXH3_64bits(nullptr, 0));
}

TEST_CASE("the digest is XXH3-64 of the specified stream", "[digest]") {
  name_table names;
  const ev::name_id worker = names.intern("worker/0");
  const ev::name_id sha = names.intern("v1");
  const ev::name_id job = names.intern("job_17");
  event_digest digest;
  digest.add({sim::instant::from_us(0), worker, ev::pod_start{sha}}, names);
  digest.add({sim::instant::from_us(2'420'000), worker, ev::stop{ev::stop_reason::rolling_kill, true, job}}, names);
  digest.add({sim::instant::from_us(2'420'000), worker, ev::ack{job, 3, 42, queue_status::stale_handle}}, names);

  bytes b;
  // start: kind, time, actor (first use: its text), sha (first use).
  b.u8(kind_index<ev::pod_start>());
  b.i64(0);
  b.first_name(worker, "worker/0");
  b.first_name(sha, "v1");
  // stop: why as its enumeration value, in_flight, job (first use).
  b.u8(kind_index<ev::stop>());
  b.i64(2'420'000);
  b.u32(worker);  // known by now: the id alone
  b.u8(static_cast<std::uint8_t>(ev::stop_reason::rolling_kill));
  b.u8(1);
  b.first_name(job, "job_17");
  // ack: job, attempt, message, status.
  b.u8(kind_index<ev::ack>());
  b.i64(2'420'000);
  b.u32(worker);
  b.u32(job);
  b.i64(3);
  b.i64(42);
  b.u8(static_cast<std::uint8_t>(queue_status::stale_handle));
  CHECK(digest.value() == b.xxh3());
}

TEST_CASE("a field left out is absent from the stream", "[digest]") {
  name_table names;
  const ev::name_id q = names.intern("queue/jobs");
  event_digest digest;
  digest.add({sim::instant::from_us(5), q,
              ev::change_visibility{7, 9, sim::duration::from_us(100), queue_status::invalid_handle, false, false,
                                    sim::instant::from_us(105)}},
             names);
  bytes b;
  b.u8(kind_index<ev::change_visibility>());
  b.i64(5);
  b.first_name(q, "queue/jobs");
  b.i64(7);
  b.i64(9);
  b.i64(100);
  b.u8(static_cast<std::uint8_t>(queue_status::invalid_handle));
  b.u8(0);
  b.u8(0);  // not applied: no visible_until
  CHECK(digest.value() == b.xxh3());
}

TEST_CASE("a run's digest is the digest of its kept events, and pinned", "[digest]") {
  world w(double_refund_config(false));
  const world_result r = w.run();
  event_digest again;
  for (const ev::event& e : w.events().events()) again.add(e, w.events().names());
  CHECK(again.value() == r.trace_digest);
  CHECK(sim::format_digest(r.trace_digest) == "28a008970c6d29fb");
}
