// Random streams: the generators against known-answer vectors, and the
// derivation contract (same (seed, name) => same stream, names independent).
//
// The expected numbers were computed with an independent Python 3
// implementation of SplitMix64, xoshiro256** and the stream derivation
// (integers masked to 64 bits), not by running this code, so these tests
// check the algorithms rather than echo them. Published vectors are included
// where they exist.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <twice/sim/random.hpp>

using twice::sim::derive_stream_seed;
using twice::sim::random_root;
using twice::sim::random_stream;
using twice::sim::splitmix64;
using twice::sim::xoshiro256ss;

namespace {

std::vector<std::uint64_t> take(random_stream& s, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(s.next_u64());
  return out;
}

}  // namespace

TEST_CASE("splitmix64 matches the reference outputs", "[random]") {
  SECTION("seed 1234567, first five outputs") {
    splitmix64 sm(1234567);
    CHECK(sm.next() == 0x599ed017fb08fc85ULL);
    CHECK(sm.next() == 0x2c73f08458540fa5ULL);
    CHECK(sm.next() == 0x883ebce5a3f27c77ULL);
    CHECK(sm.next() == 0x3fbef740e9177b3fULL);
    CHECK(sm.next() == 0xe3b8346708cb5ecdULL);
  }
  SECTION("seed 0, the widely published first output") {
    splitmix64 sm(0);
    CHECK(sm.next() == 0xe220a8397b1dcdafULL);
  }
}

TEST_CASE("xoshiro256** seeded through splitmix64 matches the reference", "[random]") {
  SECTION("seed 1234567") {
    xoshiro256ss x(1234567);
    CHECK(x.next() == 0x30a3a1c363600467ULL);
    CHECK(x.next() == 0x19405f0f579929caULL);
    CHECK(x.next() == 0x115beaac046ddbd9ULL);
    CHECK(x.next() == 0xeb17caf48f27d7f6ULL);
    CHECK(x.next() == 0xa0c94fe1cce9d136ULL);
  }
  SECTION("seed 0 (splitmix64 avoids the all-zero state)") {
    xoshiro256ss x(0);
    CHECK(x.next() == 0x99ec5f36cb75f2b4ULL);
    CHECK(x.next() == 0xbf6e1f784956452aULL);
    CHECK(x.next() == 0x1a5f849d4933e6e0ULL);
  }
}

TEST_CASE("random_stream is xoshiro256** over its seed", "[random]") {
  random_stream s(1234567);
  CHECK(s.seed() == 1234567);
  CHECK(s.next_u64() == 0x30a3a1c363600467ULL);
  CHECK(s.next_u64() == 0x19405f0f579929caULL);
}

TEST_CASE("named streams of random_root(42) are pinned", "[random]") {
  const random_root root(42);
  CHECK(root.seed() == 42);

  SECTION("vendor") {
    random_stream s = root.stream("vendor");
    CHECK(s.seed() == 0x95c6279a691d8c46ULL);
    CHECK(s.seed() == derive_stream_seed(42, "vendor"));
    CHECK(s.next_u64() == 0x983ef93cfeaa4c3fULL);
    CHECK(s.next_u64() == 0x223585390f72833fULL);
    CHECK(s.next_u64() == 0x2b692296c321401bULL);
  }
  SECTION("worker/0/jitter") {
    random_stream s = root.stream("worker/0/jitter");
    CHECK(s.seed() == 0x60f39e7418036819ULL);
    CHECK(s.next_u64() == 0x466ca954717f9bdcULL);
    CHECK(s.next_u64() == 0x35916c1fd1f523ffULL);
    CHECK(s.next_u64() == 0xd036cb5ea59cad97ULL);
  }
}

TEST_CASE("same (seed, name) gives the same stream", "[random]") {
  const random_root a(42);
  const random_root b(42);
  random_stream s1 = a.stream("vendor");
  random_stream s2 = b.stream("vendor");
  random_stream s3 = a.stream("vendor");
  const auto v1 = take(s1, 1000);
  CHECK(v1 == take(s2, 1000));
  CHECK(v1 == take(s3, 1000));
}

TEST_CASE("different names or roots give different streams", "[random]") {
  const random_root root(42);
  // Names that differ in one character, by a prefix, or are empty.
  const std::vector<std::string> names = {"",         "vendor",    "vendor2",         "Vendor",          "worker/0",
                                          "worker/1", "worker/10", "worker/0/jitter", "worker/1/jitter", "broker"};
  std::vector<std::vector<std::uint64_t>> seqs;
  std::vector<std::uint64_t> seeds;
  for (const auto& n : names) {
    random_stream s = root.stream(n);
    seeds.push_back(s.seed());
    seqs.push_back(take(s, 8));
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = i + 1; j < names.size(); ++j) {
      INFO(names[i] << " vs " << names[j]);
      CHECK(seeds[i] != seeds[j]);
      // Unrelated streams: not even one of the first 8 values in common.
      for (int k = 0; k < 8; ++k) CHECK(seqs[i][static_cast<std::size_t>(k)] != seqs[j][static_cast<std::size_t>(k)]);
    }
  }

  // Neighbouring roots give unrelated streams for the same name.
  random_stream r42 = random_root(42).stream("vendor");
  random_stream r43 = random_root(43).stream("vendor");
  CHECK(r42.seed() != r43.seed());
  CHECK(take(r42, 8) != take(r43, 8));
}

TEST_CASE("adding or drawing from other streams never changes a stream", "[random]") {
  const random_root root(7);
  random_stream alone = root.stream("vendor");
  const auto expected = take(alone, 100);

  // Request and drain other streams first, and interleave draws.
  random_stream w0 = root.stream("worker/0");
  random_stream w1 = root.stream("worker/1");
  take(w0, 500);
  random_stream vendor = root.stream("vendor");
  std::vector<std::uint64_t> got;
  for (int i = 0; i < 100; ++i) {
    got.push_back(vendor.next_u64());
    w1.next_u64();
  }
  CHECK(got == expected);
}

TEST_CASE("copying a stream copies its position", "[random]") {
  random_stream original = random_root(42).stream("vendor");
  take(original, 37);

  random_stream copy = original;  // e.g. cloning a world mid-run
  CHECK(copy.seed() == original.seed());
  const auto from_copy = take(copy, 50);
  const auto from_original = take(original, 50);
  CHECK(from_copy == from_original);

  // Independent afterwards: advancing one does not move the other.
  random_stream copy2 = original;
  copy2.next_u64();
  random_stream copy3 = original;
  CHECK(original.next_u64() == copy3.next_u64());
}
