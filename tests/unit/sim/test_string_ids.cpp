// string_ids (dense ids in order of first appearance, stable through growth)
// and the row_index under it.
#include <catch2/catch.hpp>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <twice/sim/string_ids.hpp>
#include <twice/sim/row_index.hpp>

using twice::sim::string_ids;

TEST_CASE("string_ids hands out ids in order of first appearance and finds them again", "[string_ids]") {
  string_ids ids;
  CHECK(ids.intern("job_2") == 0);
  CHECK(ids.intern("job_1") == 1);
  CHECK(ids.intern("job_2") == 0);
  CHECK(ids.intern("") == 2);  // the empty string is a string like any other
  CHECK(ids.size() == 3);
  CHECK(ids.find("job_1") == 1u);
  CHECK(ids.find("") == 2u);
  CHECK_FALSE(ids.find("job_3").has_value());
  CHECK_FALSE(ids.find("job_").has_value());
  CHECK(ids.name(0) == "job_2");
}

TEST_CASE("string_ids keeps every id through growth, for names differing only in their last bytes", "[string_ids]") {
  std::deque<std::string> names;  // homes that never move
  string_ids ids(4);              // grows many times below
  for (int i = 0; i < 5000; ++i) {
    names.push_back("job_" + std::to_string(i));
    REQUIRE(ids.intern(names.back()) == static_cast<std::uint32_t>(i));
  }
  CHECK(ids.size() == 5000);
  for (int i = 0; i < 5000; ++i) {
    REQUIRE(ids.find("job_" + std::to_string(i)) == static_cast<std::uint32_t>(i));
    REQUIRE(ids.name(static_cast<std::uint32_t>(i)) == names[static_cast<std::size_t>(i)]);
  }
  CHECK_FALSE(ids.find("job_5000").has_value());
}

TEST_CASE("string_ids keeps its own copy of text interned with intern_copy", "[string_ids]") {
  string_ids ids;
  for (int i = 0; i < 20000; ++i) {
    const std::string temporary = "job_" + std::to_string(i);  // gone after each turn
    REQUIRE(ids.intern_copy(temporary) == static_cast<std::uint32_t>(i));
  }
  CHECK(ids.intern_copy("job_7") == 7);
  CHECK(ids.intern_copy("") == 20000);
  CHECK(ids.find("") == 20000u);
  for (int i = 0; i < 20000; i += 997) CHECK(ids.name(static_cast<std::uint32_t>(i)) == "job_" + std::to_string(i));
  const std::string long_id(100000, 'x');  // longer than a block
  CHECK(ids.intern_copy(long_id) == 20001);
  CHECK(ids.name(20001) == long_id);
}

TEST_CASE("row_index finds rows by key through the rows themselves, however often they move", "[string_ids]") {
  // Short keys live inside each std::string, so they move when the vector
  // reallocates: the index holds row numbers, never views.
  std::vector<std::string> rows;
  twice::sim::row_index index;
  auto key_of = [&rows](std::uint32_t r) { return std::string_view(rows[r]); };
  for (std::uint32_t i = 0; i < 3000; ++i) {
    rows.push_back("k" + std::to_string(i));
    REQUIRE_FALSE(index.find(rows.back(), key_of).has_value());
    index.insert(rows.back(), i, key_of);
  }
  CHECK(index.size() == 3000);
  for (std::uint32_t i = 0; i < 3000; ++i) REQUIRE(index.find("k" + std::to_string(i), key_of) == i);
  CHECK_FALSE(index.find("k3000", key_of).has_value());
  CHECK_FALSE(index.find("", key_of).has_value());
}
