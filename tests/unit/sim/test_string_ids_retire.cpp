// string_ids retiring ids (LIFO reuse, texts given back, a retired id's
// name() stops the run) and row_index::erase under it (backward shifts, no
// tombstones), each against a plain model.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/sim/row_index.hpp>
#include <twice/sim/string_ids.hpp>

using twice::sim::row_index;
using twice::sim::string_ids;

namespace {

// splitmix64: a fixed sequence for the op mixes below, the same on every
// platform (no std::*_distribution).
struct draws {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

// A text of `length` bytes made from `n`: distinct n give distinct texts.
std::string text_of(std::uint64_t n, std::size_t length) {
  std::string s = "t" + std::to_string(n) + ":";
  while (s.size() < length) s += static_cast<char>('a' + (s.size() + n) % 26);
  return s;
}

// Runs `body` in a forked child with stderr captured and SIGABRT at its
// default action; true if it aborted (a TWICE_CHECK failing).
bool aborts_in_child(const std::function<void()>& body, std::string& err) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], 2);
    ::signal(SIGABRT, SIG_DFL);
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    body();
    ::_exit(0);
  }
  ::close(fds[1]);
  char buf[512];
  for (ssize_t n = ::read(fds[0], buf, sizeof buf); n > 0; n = ::read(fds[0], buf, sizeof buf))
    err.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

}  // namespace

TEST_CASE("row_index::erase shifts back across the table's end, and every other row is still found", "[string_ids]") {
  // Keys chosen by their home slot in a 16-slot table: three whose home is
  // the last slot (they wrap to 0 and 1) and one whose home is slot 0.
  std::vector<std::string> rows;
  std::vector<std::string> home_last, home_first;
  for (int i = 0; home_last.size() < 3 || home_first.empty(); ++i) {
    const std::string k = "k" + std::to_string(i);
    const std::uint64_t slot = row_index::hash(k) & 15;
    if (slot == 15 && home_last.size() < 3) home_last.push_back(k);
    if (slot == 0 && home_first.empty()) home_first.push_back(k);
  }
  rows = {home_last[0], home_last[1], home_last[2], home_first[0]};
  auto key_of = [&rows](std::uint32_t r) { return std::string_view(rows[r]); };
  auto hash_of = [&rows](std::uint32_t r) { return row_index::hash(rows[r]); };
  for (const int first_erased : {0, 1, 2, 3}) {
    INFO("erasing row " << first_erased << " first");
    row_index index;  // 16 slots: four rows never make it grow
    REQUIRE(index.capacity() == 16);
    for (std::uint32_t r = 0; r < rows.size(); ++r) index.insert(rows[r], hash_of(r), r, key_of, hash_of);
    index.erase(static_cast<std::uint32_t>(first_erased), hash_of(static_cast<std::uint32_t>(first_erased)), hash_of);
    CHECK(index.size() == 3);
    CHECK(index.capacity() == 16);
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
      if (static_cast<int>(r) == first_erased)
        CHECK_FALSE(index.find(rows[r], key_of).has_value());
      else
        CHECK(index.find(rows[r], key_of) == r);
    }
    // The rest erased one by one, in another order, leave an empty table.
    for (std::uint32_t r = static_cast<std::uint32_t>(rows.size()); r-- > 0;) {
      if (static_cast<int>(r) == first_erased) continue;
      index.erase(r, hash_of(r), hash_of);
      for (std::uint32_t o = 0; o < r; ++o)
        if (static_cast<int>(o) != first_erased) CHECK(index.find(rows[o], key_of) == o);
    }
    CHECK(index.size() == 0);
    for (const std::string& k : rows) CHECK_FALSE(index.find(k, key_of).has_value());
  }
}

TEST_CASE("string_ids with retirement agrees with a std::map model over a long random mix of operations",
          "[string_ids]") {
  // A small live set in a table that starts at 16 slots: probe runs wrap
  // around its end, erasures shift rows back, and it grows after erasures.
  for (const bool keep : {false, true}) {
    INFO("keep_hashes " << keep);
    string_ids ids = keep ? string_ids(string_ids::keep_hashes) : string_ids();
    std::map<std::string, std::uint32_t> model;  // live text -> id
    std::vector<std::uint32_t> retired;          // the model's free list, most recent last
    std::vector<std::string> ever;               // every text interned, to look up retired ones too
    draws d{20261207};
    std::uint64_t next_text = 0;
    std::size_t grew_after_retire = 0;
    bool retired_any = false;
    std::size_t bound = 8;  // the live set's target size; raised in steps so the table grows mid-run
    for (int op = 0; op < 200000; ++op) {
      if (op % 40000 == 39999) bound *= 4;
      const std::size_t roll = d.below(100);
      if (roll < 45 || model.empty()) {  // a new text, or one seen before (live or retired)
        std::string text;
        if (!ever.empty() && d.below(3) == 0)
          text = ever[d.below(ever.size())];
        else
          text = text_of(next_text++, 1 + d.below(90));
        const auto before = ids.size();
        const std::uint32_t id = d.below(2) == 0 ? ids.intern_copy(text) : ids.intern_copy(std::string(text));
        if (const auto it = model.find(text); it != model.end()) {
          REQUIRE(id == it->second);
        } else {
          if (!retired.empty()) {
            REQUIRE(id == retired.back());  // LIFO
            retired.pop_back();
          } else {
            REQUIRE(id == before);  // a fresh id, the next one
          }
          model.emplace(text, id);
          ever.push_back(text);
          if (retired_any && ids.size() > before) ++grew_after_retire;
        }
        REQUIRE(ids.name(id) == text);
      } else if (roll < 45 + 40 * std::min<std::size_t>(model.size(), bound) / bound && !model.empty()) {
        auto it = model.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(d.below(model.size())));
        ids.retire(it->second);
        REQUIRE_FALSE(ids.live(it->second));
        retired.push_back(it->second);
        model.erase(it);
        retired_any = true;
      } else {  // a lookup of any text ever seen: found exactly when live
        const std::string& text = ever[d.below(ever.size())];
        const auto it = model.find(text);
        const std::optional<std::uint32_t> found = ids.find(text);
        if (it == model.end())
          REQUIRE_FALSE(found.has_value());
        else
          REQUIRE(found == it->second);
      }
      REQUIRE(ids.live_count() == model.size());
    }
    // Every live text found, with its text and (kept) hash; every retired one not.
    for (const auto& [text, id] : model) {
      REQUIRE(ids.find(text) == id);
      REQUIRE(ids.name(id) == text);
      if (keep) REQUIRE(ids.hash(id) == row_index::hash(text));
    }
    for (const std::uint32_t id : retired) CHECK_FALSE(ids.live(id));
    CHECK(ids.size() == model.size() + retired.size());
    CHECK(grew_after_retire > 0);  // new ids past the high-water mark after retirements
  }
}

TEST_CASE("string_ids reuses retired ids last in, first out, each with its new text", "[string_ids]") {
  string_ids ids;
  for (int i = 0; i < 5; ++i) REQUIRE(ids.intern_copy("job_" + std::to_string(i)) == static_cast<std::uint32_t>(i));
  ids.retire(1);
  ids.retire(3);
  CHECK(ids.live_count() == 3);
  CHECK_FALSE(ids.find("job_1").has_value());
  CHECK_FALSE(ids.find("job_3").has_value());
  CHECK(ids.intern_copy("job_4") == 4);  // a live text keeps its id
  CHECK(ids.intern_copy("email_a") == 3);
  CHECK(ids.intern_copy("a much longer text than any before it, past the sixty-four bytes of a small slot") == 1);
  CHECK(ids.intern_copy("job_1") == 5);  // its old id is taken: a fresh one
  CHECK(ids.name(3) == "email_a");
  CHECK(ids.name(1) == "a much longer text than any before it, past the sixty-four bytes of a small slot");
  CHECK(ids.find("email_a") == 3u);
  CHECK(ids.size() == 6);
  // A view interned (not copied) is retired without its text being touched.
  const std::string kept = "held by the caller";
  const std::uint32_t view = ids.intern(kept);
  ids.retire(view);
  CHECK(kept == "held by the caller");
  CHECK(ids.intern_copy("job_3") == view);
}

TEST_CASE("string_ids: the name of a retired id stops the run", "[string_ids]") {
  std::string err;
  const bool aborted = aborts_in_child(
      [] {
        string_ids ids;
        const std::uint32_t id = ids.intern_copy("gen_7");
        ids.retire(id);
        volatile std::size_t sink = ids.name(id).size();
        (void)sink;
      },
      err);
  CHECK(aborted);
  CHECK(err.starts_with("twice: kernel check failed: live(id)"));
  // Retiring it twice too.
  err.clear();
  CHECK(aborts_in_child(
      [] {
        string_ids ids;
        ids.retire(ids.intern_copy("gen_7"));
        ids.retire(0);
      },
      err));
}

TEST_CASE("string_ids holds as many bytes after a million intern/retire cycles as after the first ten thousand",
          "[string_ids]") {
  // A bounded live set (1,000 names of 1 to 100 bytes: every size class and
  // long texts) turned over a million times.
  string_ids ids(string_ids::keep_hashes);
  std::vector<std::uint32_t> live;
  draws d{41};
  std::uint64_t n = 0;
  for (; live.size() < 1000; ++n) live.push_back(ids.intern_copy(text_of(n, 1 + d.below(100))));
  std::uint64_t warm = 0;
  std::size_t warm_ids = 0;
  for (int cycle = 1; cycle <= 1'000'000; ++cycle) {
    const std::size_t victim = d.below(live.size());
    ids.retire(live[victim]);
    live[victim] = ids.intern_copy(text_of(n++, 1 + d.below(100)));
    if (cycle == 10'000) {
      warm = ids.footprint();
      warm_ids = ids.size();
    }
  }
  CHECK(ids.live_count() == 1000);
  CHECK(ids.size() == warm_ids);  // no id past the live set's: every new name took a retired id
  CHECK(ids.size() == 1000);
  INFO("footprint after 10,000 cycles " << warm << " B, after 1,000,000 " << ids.footprint() << " B");
  CHECK(ids.footprint() <= warm + warm / 4);
  for (std::size_t i = 0; i < live.size(); i += 97) CHECK(ids.find(ids.name(live[i])) == live[i]);
}
