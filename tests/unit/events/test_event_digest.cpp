// events/event_digest.hpp: the digest is XXH3-64 over the specified byte
// stream. The stream is rebuilt here by hand, byte by byte, from the
// specification alone, and hashed with libxxhash directly (names too: each
// is its text's XXH3, computed here from the text, never from the digest).

#include <catch2/catch.hpp>

#include <xxhash.h>

#include <cstdint>
#include <string>
#include <utility>
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
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  // A name: its text's XXH3-64, seed 0, at every occurrence.
  void name(const std::string& text) { u64(XXH3_64bits(text.data(), text.size())); }
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
  // start: kind, time, actor, sha.
  b.u8(kind_index<ev::pod_start>());
  b.i64(0);
  b.name("worker/0");
  b.name("v1");
  // stop: why as its enumeration value, in_flight, job.
  b.u8(kind_index<ev::stop>());
  b.i64(2'420'000);
  b.name("worker/0");  // seen before, and written in full again
  b.u8(static_cast<std::uint8_t>(ev::stop_reason::rolling_kill));
  b.u8(1);
  b.name("job_17");
  // ack: job, attempt, message, status.
  b.u8(kind_index<ev::ack>());
  b.i64(2'420'000);
  b.name("worker/0");
  b.name("job_17");
  b.i64(3);
  b.i64(42);
  b.u8(static_cast<std::uint8_t>(queue_status::stale_handle));
  CHECK(digest.value() == b.xxh3());
}

TEST_CASE("the empty name is written as the hash of no bytes", "[digest]") {
  name_table names;
  const ev::name_id vendor = names.intern("vendor/stripe");
  const ev::name_id ref = names.intern("re_1");
  const ev::name_id invoice = names.intern("in_9");
  event_digest digest;
  // No idempotency key: the key is name 0, the empty text.
  digest.add({sim::instant::from_us(7), vendor, ev::vendor_commit{11, ref, 0, 500, invoice}}, names);
  bytes b;
  b.u8(kind_index<ev::vendor_commit>());
  b.i64(7);
  b.name("vendor/stripe");
  b.i64(11);
  b.name("re_1");
  b.name("");
  b.i64(500);
  b.name("in_9");
  CHECK(digest.value() == b.xxh3());
}

TEST_CASE("a digest does not depend on the order names were interned in", "[digest]") {
  // The same events over two name tables that numbered the same texts
  // differently (other names interned before, and these in another order):
  // the ids differ, the digest does not. This is what lets a run retire a
  // name, or intern one earlier, without moving its digest.
  const auto digest_of = [](const std::vector<std::string>& intern_first) {
    name_table names;
    for (const std::string& text : intern_first) names.intern(text);
    const ev::name_id worker = names.intern("worker/0");
    const ev::name_id job = names.intern("job_17");
    const ev::name_id sha = names.intern("v1");
    event_digest digest;
    digest.add({sim::instant::from_us(0), worker, ev::pod_start{sha}}, names);
    digest.add({sim::instant::from_us(9), worker, ev::ack{job, 1, 4, queue_status::ok}}, names);
    digest.add({sim::instant::from_us(9), worker, ev::stop{ev::stop_reason::shutdown, false, job}}, names);
    return std::pair{digest.value(), std::vector<ev::name_id>{worker, job, sha}};
  };
  const auto plain = digest_of({});
  const auto reordered = digest_of({"v1", "job_99", "job_17", "queue/jobs"});
  REQUIRE(plain.second != reordered.second);  // the ids did change
  CHECK(plain.first == reordered.first);
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
  b.name("queue/jobs");
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
  CHECK(sim::format_digest(r.trace_digest) == "edff91e1dfb26e4f");
}
