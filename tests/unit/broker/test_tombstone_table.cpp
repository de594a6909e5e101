// tombstone_table: a queue's gone messages found by id, whether they went
// in order (the sorted vector) or far out of it (the tree beside it), and
// forgotten in batches.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>

#include "broker/tombstone_table.hpp"

using twice::tombstone_table;
using twice::sim::instant;

namespace {
tombstone_table::tombstone stone(std::uint64_t from, std::uint32_t issued, std::int64_t forget_us) {
  return {from, instant::from_us(forget_us), issued};
}
}  // namespace

TEST_CASE("tombstone_table finds what went in order and what went far out of it", "[tombstones]") {
  tombstone_table t;
  // 2000 messages leave in order, then the oldest, held for long, leaves last.
  for (std::uint64_t id = 2; id <= 2001; ++id) t.insert(id, stone(10 * id, 1, static_cast<std::int64_t>(id)));
  t.insert(1, stone(7, 3, 99));  // 2000 rows back: beside the vector, not shifting it
  CHECK(t.size() == 2001);
  REQUIRE(t.find(1) != nullptr);
  CHECK(t.find(1)->handles_from == 7);
  CHECK(t.find(1)->handles_issued == 3);
  CHECK(t.find(1)->forget_at == instant::from_us(99));
  CHECK(t.find(1500)->handles_from == 15000);
  CHECK_FALSE(t.contains(0));
  CHECK_FALSE(t.contains(2002));

  // Out of order near the end: into the vector.
  t.insert(3000, stone(1, 1, 1));
  t.insert(2999, stone(2, 2, 2));
  CHECK(t.find(2999)->handles_issued == 2);
  CHECK(t.find(3000)->handles_issued == 1);

  CHECK(t.erase(1).handles_issued == 3);
  CHECK_FALSE(t.contains(1));
  CHECK(t.erase(1500).handles_from == 15000);
  CHECK_FALSE(t.contains(1500));
  // The same message leaves again (redriven away and back): its forgotten row comes back.
  t.insert(1500, stone(20000, 4, 5));
  CHECK(t.find(1500)->handles_issued == 4);
  CHECK(t.size() == 2002);
}

TEST_CASE("tombstone_table agrees with a map through forgetting in batches", "[tombstones]") {
  tombstone_table t;
  std::map<std::uint64_t, std::uint32_t> model;
  std::uint64_t next = 1;
  // Waves: 3000 in, then the older half out (a batch drop), some back far out of order.
  for (int wave = 0; wave < 4; ++wave) {
    for (int i = 0; i < 3000; ++i, ++next) {
      const std::uint32_t issued = static_cast<std::uint32_t>(next % 5 + 1);
      t.insert(next, stone(next, issued, 0));
      model[next] = issued;
    }
    for (auto it = model.begin(); it != model.end() && model.size() > 1500;) {
      CHECK(t.erase(it->first).handles_issued == it->second);
      it = model.erase(it);
    }
    const std::uint64_t old = next - 2900;  // gone, and far behind the end
    if (!model.contains(old)) {
      t.insert(old, stone(old, 9, 0));
      model[old] = 9;
    }
  }
  CHECK(t.size() == model.size());
  for (std::uint64_t id = 0; id <= next; ++id) {
    const auto m = model.find(id);
    const tombstone_table::tombstone* found = t.find(id);
    REQUIRE((found != nullptr) == (m != model.end()));
    if (found != nullptr) CHECK(found->handles_issued == m->second);
  }
  // Forgotten rows were dropped: fewer than every insert made (12,000 rows of 32 bytes).
  CHECK(t.footprint() < 12000 * 32);
}
