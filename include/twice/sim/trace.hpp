#pragma once
// Trace records and their canonical text form. A world's run is a stream of
// typed events (src/events/): its outputs (timeline, JSON lines, reports)
// read the events as these records, and its digest is computed from the
// events' binary encoding (src/events/event_digest.hpp). The recorder below
// is the bare kernel's own (the kernel demo and kernel tests): it keeps
// records and folds their canonical text into an FNV-1a digest.
//
// Canonical line (one per record, the only thing the digest sees):
//
//   <time_us> <actor> <kind>[ <name>=<value>]...
//
//   * time_us: the record's instant in microseconds, decimal ("-" if negative);
//   * actor, kind and field names: non-empty, only [A-Za-z0-9_./:-]. They are
//     programmer-chosen identifiers, so anything else is a kernel check
//     failure, not a user error (see is_trace_identifier for checking input
//     before it becomes an actor name). Field names are unique per record;
//   * fields appear in the order given to record(): order is part of the line;
//   * values: int64 as decimal; bool as `true` / `false`; string in double
//     quotes, where `"` is written `\"`, `\` is written `\\`, and every byte
//     below 0x20 or equal to 0x7f is written `\xNN` (two lowercase hex
//     digits). All other bytes (UTF-8 included) are copied as they are.
//   A line therefore never contains a raw newline, and spaces separate tokens
//   unambiguously except inside quoted strings.
//
// Digest (recompute it from a canonical dump with any FNV-1a implementation):
//
//   digest = FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3)
//            over the bytes of  line_1 "\n" line_2 "\n" ... line_n "\n"
//
// i.e. exactly fnv1a64(recorder.canonical()). It is folded in incrementally as
// records arrive, so digest_only runs never store records; an empty trace's
// digest is the offset basis. format_digest prints it as 16 lowercase hex
// digits. Changing anything above changes every pinned digest: do it on
// purpose, in its own commit.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <twice/sim/time.hpp>

namespace twice::sim {

// A field value. Pass std::int64_t-convertible integers without narrowing
// (cast unsigned or size_t values), and strings as std::string or literals.
using field_value = std::variant<std::int64_t, bool, std::string>;

// One named value of a record. `name` must have static storage (a string
// literal): kept records hold the view, not a copy, because names are a small
// fixed vocabulary and copying them per record would be pure waste.
struct field {
  std::string_view name;
  field_value value;
  friend bool operator==(const field&, const field&) = default;
};

// What record() takes: a field whose string value is a view. The recorder
// copies it once, into its own record (reusing that record's buffers under
// digest_only); building a std::string per argument cost an allocation for
// every value over 15 bytes (job ids, keys) on every record. A view of a
// temporary is fine: it lives until the record() call returns.
using field_arg_value = std::variant<std::int64_t, bool, std::string_view>;
struct field_arg {
  std::string_view name;  // static storage, as for field
  field_arg_value value;
};

struct trace_record {
  instant time;
  std::string actor;
  std::string kind;
  std::vector<field> fields;

  // The value of the field called `name`, or nullptr if there is none.
  const field_value* find(std::string_view name) const;
  // The value if the field exists and holds that type, else nullopt. The
  // string view points into this record.
  std::optional<std::int64_t> get_int(std::string_view name) const;
  std::optional<bool> get_bool(std::string_view name) const;
  std::optional<std::string_view> get_string(std::string_view name) const;

  friend bool operator==(const trace_record&, const trace_record&) = default;
};

// Sees every record as it is made (invariant checkers, report writers).
class trace_observer {
 public:
  virtual ~trace_observer() = default;
  virtual void on_record(const trace_record&) = 0;
};

class trace_recorder {
 public:
  // keep_records: keep every record (tests, reports, canonical dumps).
  // digest_only: keep nothing but the digest and the count, so a run of
  // millions of events (property tests) costs no memory per record;
  // observers still see every record.
  enum class retention { keep_records, digest_only };

  explicit trace_recorder(retention = retention::keep_records);
  trace_recorder(const trace_recorder&) = delete;
  trace_recorder& operator=(const trace_recorder&) = delete;

  // Appends one record. Checks: time is not before the previous record's;
  // actor, kind and field names are identifiers; field names are unique.
  // Must not be called from inside an observer (records stay in order).
  void record(instant time, std::string_view actor, std::string_view kind,
              std::initializer_list<field_arg> fields = {});
  void record(instant time, std::string_view actor, std::string_view kind, std::span<const field_arg> fields);

  // Not owned; must outlive the recorder's use. Observers are called
  // synchronously, in the order added, once per record, in record order.
  // Must not be called from inside an observer.
  void add_observer(trace_observer* observer);
  // Nobody sees later records (a world tearing down after its run: the
  // observers that watched the run may already be gone).
  void detach_observers();

  std::uint64_t digest() const { return digest_; }
  std::size_t size() const { return size_; }
  retention mode() const { return retention_; }

  // Checks that the retention is keep_records.
  const std::vector<trace_record>& records() const;

  // Every kept record's canonical line, each followed by '\n' (empty under
  // digest_only, which keeps none). fnv1a64(canonical()) == digest() when
  // records are kept.
  std::string canonical() const;

 private:
  trace_record& next_slot();
  void fold_into_digest(const trace_record& record);
  void notify(const trace_record& record);

  retention retention_;
  std::uint64_t digest_;
  std::size_t size_ = 0;
  instant last_time_;
  bool notifying_ = false;
  std::vector<trace_record> records_;  // keep_records only
  trace_record scratch_;               // digest_only: reused, no per-record allocation
  // digest_only: the scratch fields' string buffers while their places hold
  // numbers (records differ in layout), kept for the next string field.
  std::vector<std::string> spare_strings_;
  std::vector<trace_observer*> observers_;
};

// True if `text` may be an actor, kind or field name: non-empty, only
// [A-Za-z0-9_./:-].
bool is_trace_identifier(std::string_view text);

// Appends the record's canonical line (no trailing newline) to `out`. Checks
// the identifier rules above.
void append_canonical(const trace_record& record, std::string& out);

// 16 lowercase hex digits, zero-padded: "cbf29ce484222325".
std::string format_digest(std::uint64_t digest);

}  // namespace twice::sim
