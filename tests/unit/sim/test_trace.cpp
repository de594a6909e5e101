#include <twice/sim/trace.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/fnv1a.hpp"

using twice::sim::append_canonical;
using twice::sim::field;
using twice::sim::field_value;
using twice::sim::fnv1a64;
using twice::sim::fnv1a64_offset;
using twice::sim::format_digest;
using twice::sim::instant;
using twice::sim::is_trace_identifier;
using twice::sim::trace_observer;
using twice::sim::trace_record;
using twice::sim::trace_recorder;

namespace {

std::string canonical_line(const trace_record& record) {
  std::string line;
  append_canonical(record, line);
  return line;
}

trace_record make_record(std::int64_t time_us, std::vector<field> fields) {
  return trace_record{instant::from_us(time_us), "actor", "kind", std::move(fields)};
}

// The pinned trace: one record per value type, escapes included.
void record_pinned_trace(trace_recorder& recorder) {
  recorder.record(instant::from_us(0), "broker", "send", {{"message", "m-1"}, {"delay_us", 0}});
  recorder.record(instant::from_us(1'500), "worker/0", "receive",
                  {{"message", "m-1"}, {"receive_count", 1}, {"fresh", true}});
  recorder.record(instant::from_us(31'500), "vendor:pay", "refund",
                  {{"key", "k\"1\\\n"}, {"amount_cents", -250}, {"ok", false}});
}

constexpr const char* pinned_canonical =
    "0 broker send message=\"m-1\" delay_us=0\n"
    "1500 worker/0 receive message=\"m-1\" receive_count=1 fresh=true\n"
    "31500 vendor:pay refund key=\"k\\\"1\\\\\\x0a\" amount_cents=-250 ok=false\n";

struct collecting_observer final : trace_observer {
  std::vector<trace_record> seen;
  void on_record(const trace_record& record) override { seen.push_back(record); }
};

// Logs which observer saw which record, to check the call order.
struct logging_observer final : trace_observer {
  std::string name;
  std::vector<std::string>* log;
  logging_observer(std::string n, std::vector<std::string>* l) : name(std::move(n)), log(l) {}
  void on_record(const trace_record& record) override { log->push_back(name + ":" + record.kind); }
};

}  // namespace

TEST_CASE("canonical line without fields is time, actor, kind", "[trace]") {
  CHECK(canonical_line(make_record(0, {})) == "0 actor kind");
  CHECK(canonical_line(make_record(1'234'567, {})) == "1234567 actor kind");
}

TEST_CASE("canonical line formats integers in decimal", "[trace]") {
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  CHECK(canonical_line(make_record(5, {{"n", 0}})) == "5 actor kind n=0");
  CHECK(canonical_line(make_record(5, {{"n", -42}})) == "5 actor kind n=-42");
  CHECK(canonical_line(make_record(5, {{"n", max}})) == "5 actor kind n=9223372036854775807");
  CHECK(canonical_line(make_record(5, {{"n", min}})) == "5 actor kind n=-9223372036854775808");
}

TEST_CASE("canonical line formats booleans as words", "[trace]") {
  CHECK(canonical_line(make_record(1, {{"a", true}, {"b", false}})) == "1 actor kind a=true b=false");
}

TEST_CASE("canonical line quotes strings and escapes them", "[trace]") {
  SECTION("plain text, spaces and the empty string stay as they are") {
    CHECK(canonical_line(make_record(1, {{"s", "a b=c"}})) == "1 actor kind s=\"a b=c\"");
    CHECK(canonical_line(make_record(1, {{"s", ""}})) == "1 actor kind s=\"\"");
  }
  SECTION("quote and backslash get a backslash") {
    CHECK(canonical_line(make_record(1, {{"s", "say \"hi\""}})) == R"(1 actor kind s="say \"hi\"")");
    CHECK(canonical_line(make_record(1, {{"s", "C:\\tmp"}})) == R"(1 actor kind s="C:\\tmp")");
  }
  SECTION("control bytes and DEL become two lowercase hex digits") {
    const std::string text{'\n', '\t', '\0', '\x1f', '\x1b', '\x7f'};
    CHECK(canonical_line(make_record(1, {{"s", text}})) == R"(1 actor kind s="\x0a\x09\x00\x1f\x1b\x7f")");
  }
  SECTION("bytes from 0x80 up (UTF-8) are copied raw") {
    CHECK(canonical_line(make_record(1, {{"s", "caf\xc3\xa9"}})) == "1 actor kind s=\"caf\xc3\xa9\"");
  }
  SECTION("space, tilde and the printable edges are not escaped") {
    CHECK(canonical_line(make_record(1, {{"s", " ~"}})) == "1 actor kind s=\" ~\"");
  }
}

TEST_CASE("canonical line keeps the given field order", "[trace]") {
  CHECK(canonical_line(make_record(7, {{"z", 1}, {"a", "x"}, {"m", true}})) == "7 actor kind z=1 a=\"x\" m=true");
}

TEST_CASE("append_canonical appends without a newline", "[trace]") {
  std::string out = "prefix|";
  append_canonical(make_record(3, {{"k", 1}}), out);
  CHECK(out == "prefix|3 actor kind k=1");
}

TEST_CASE("identifiers are non-empty and use a small alphabet", "[trace]") {
  CHECK(is_trace_identifier("worker/0"));
  CHECK(is_trace_identifier("vendor:pay.v2_retry-1"));
  CHECK(is_trace_identifier("ABC09"));
  CHECK_FALSE(is_trace_identifier(""));
  CHECK_FALSE(is_trace_identifier("two words"));
  CHECK_FALSE(is_trace_identifier("a=b"));
  CHECK_FALSE(is_trace_identifier("quote\""));
  CHECK_FALSE(is_trace_identifier("new\nline"));
  CHECK_FALSE(is_trace_identifier("caf\xc3\xa9"));
}

TEST_CASE("format_digest prints 16 lowercase zero-padded hex digits", "[trace]") {
  CHECK(format_digest(0) == "0000000000000000");
  CHECK(format_digest(0xab) == "00000000000000ab");
  CHECK(format_digest(0xcbf29ce484222325ULL) == "cbf29ce484222325");
  CHECK(format_digest(UINT64_MAX) == "ffffffffffffffff");
}

TEST_CASE("an empty trace has the FNV offset basis as digest", "[trace]") {
  const trace_recorder recorder;
  CHECK(recorder.size() == 0);
  CHECK(recorder.records().empty());
  CHECK(recorder.canonical().empty());
  CHECK(recorder.digest() == fnv1a64_offset);
  CHECK(format_digest(recorder.digest()) == "cbf29ce484222325");
}

TEST_CASE("the digest is fnv1a64 of the canonical dump", "[trace]") {
  trace_recorder recorder;
  record_pinned_trace(recorder);
  CHECK(recorder.size() == 3);
  CHECK(recorder.canonical() == pinned_canonical);
  CHECK(recorder.digest() == fnv1a64(recorder.canonical()));
}

// Computed by an independent FNV-1a over `pinned_canonical`. If this fails,
// the canonical format changed: every stored digest changes with it, so make
// that a deliberate, reviewed diff.
TEST_CASE("the digest of a fixed trace is pinned", "[trace]") {
  trace_recorder recorder;
  record_pinned_trace(recorder);
  CHECK(format_digest(recorder.digest()) == "e0a131fd8602086e");
}

TEST_CASE("digest_only gives the same digest and size as keep_records", "[trace]") {
  trace_recorder kept;
  trace_recorder digest_only(trace_recorder::retention::digest_only);
  record_pinned_trace(kept);
  record_pinned_trace(digest_only);
  CHECK(digest_only.mode() == trace_recorder::retention::digest_only);
  CHECK(digest_only.size() == kept.size());
  CHECK(digest_only.digest() == kept.digest());
  CHECK(digest_only.canonical().empty());
}

TEST_CASE("a different field order gives a different digest", "[trace]") {
  trace_recorder forward;
  trace_recorder reversed;
  forward.record(instant::from_us(10), "worker/1", "ack", {{"message", "m-1"}, {"ok", true}});
  reversed.record(instant::from_us(10), "worker/1", "ack", {{"ok", true}, {"message", "m-1"}});
  CHECK(forward.digest() != reversed.digest());
}

TEST_CASE("the digest depends on record order, not only on content", "[trace]") {
  trace_recorder first;
  trace_recorder second;
  first.record(instant::from_us(1), "a", "x");
  first.record(instant::from_us(1), "b", "y");
  second.record(instant::from_us(1), "b", "y");
  second.record(instant::from_us(1), "a", "x");
  CHECK(first.digest() != second.digest());
}

TEST_CASE("records may share a time", "[trace]") {
  trace_recorder recorder;
  recorder.record(instant::from_us(5), "a", "x");
  recorder.record(instant::from_us(5), "a", "y");
  REQUIRE(recorder.records().size() == 2);
  CHECK(recorder.records()[0].kind == "x");
  CHECK(recorder.records()[1].kind == "y");
}

TEST_CASE("kept records hold what was recorded", "[trace]") {
  trace_recorder recorder;
  record_pinned_trace(recorder);
  const auto& records = recorder.records();
  REQUIRE(records.size() == 3);
  CHECK(records[1].time == instant::from_us(1'500));
  CHECK(records[1].actor == "worker/0");
  CHECK(records[1].kind == "receive");
  REQUIRE(records[1].fields.size() == 3);
  CHECK(records[1].fields[2].name == "fresh");
  CHECK(records[1].fields[2].value == field_value(true));
}

TEST_CASE("observers see every record in order, in both retention modes", "[trace]") {
  const auto mode = GENERATE(trace_recorder::retention::keep_records, trace_recorder::retention::digest_only);
  trace_recorder recorder(mode);
  collecting_observer observer;
  recorder.add_observer(&observer);
  record_pinned_trace(recorder);

  trace_recorder reference;
  record_pinned_trace(reference);
  CHECK(observer.seen == reference.records());
}

TEST_CASE("observers are called in the order they were added", "[trace]") {
  std::vector<std::string> log;
  logging_observer first("first", &log);
  logging_observer second("second", &log);
  trace_recorder recorder(trace_recorder::retention::digest_only);
  recorder.add_observer(&first);
  recorder.add_observer(&second);
  recorder.record(instant::from_us(1), "a", "x");
  recorder.record(instant::from_us(2), "a", "y");
  CHECK(log == std::vector<std::string>{"first:x", "second:x", "first:y", "second:y"});
}

TEST_CASE("an observer added later sees only later records", "[trace]") {
  trace_recorder recorder;
  recorder.record(instant::from_us(1), "a", "before");
  collecting_observer observer;
  recorder.add_observer(&observer);
  recorder.record(instant::from_us(2), "a", "after");
  REQUIRE(observer.seen.size() == 1);
  CHECK(observer.seen[0].kind == "after");
}

TEST_CASE("find and the typed getters look fields up by name", "[trace]") {
  const trace_record record = make_record(1, {{"count", 3}, {"ok", true}, {"key", "k-1"}, {"zero", 0}});

  SECTION("find returns the value or nullptr") {
    const field_value* count = record.find("count");
    REQUIRE(count != nullptr);
    CHECK(*count == field_value(std::int64_t{3}));
    CHECK(record.find("missing") == nullptr);
    CHECK(record.find("") == nullptr);
  }
  SECTION("a getter of the right type returns the value") {
    CHECK(record.get_int("count") == std::int64_t{3});
    CHECK(record.get_int("zero") == std::int64_t{0});
    CHECK(record.get_bool("ok") == true);
    CHECK(record.get_string("key") == std::string_view("k-1"));
  }
  SECTION("a missing field or a different type gives nullopt") {
    CHECK_FALSE(record.get_int("missing").has_value());
    CHECK_FALSE(record.get_int("ok").has_value());
    CHECK_FALSE(record.get_bool("count").has_value());
    CHECK_FALSE(record.get_string("count").has_value());
    CHECK_FALSE(record.get_bool("key").has_value());
  }
}
