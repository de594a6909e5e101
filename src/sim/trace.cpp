#include <twice/sim/trace.hpp>

#include <array>
#include <charconv>
#include <system_error>

#include <twice/sim/check.hpp>
#include "sim/fnv1a.hpp"

namespace twice::sim {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

// One table lookup per byte: identifiers are checked on every record.
constexpr std::array<bool, 256> identifier_chars = [] {
  std::array<bool, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (const char c : {'_', '.', '/', ':', '-'}) t[static_cast<unsigned char>(c)] = true;
  return t;
}();

bool is_identifier_char(char c) { return identifier_chars[static_cast<unsigned char>(c)]; }

// Where a canonical line goes: appended to a string, or folded straight into
// the FNV-1a digest byte by byte (the same bytes in the same order give the
// same digest, without building the line first).
struct string_sink {
  std::string& out;
  void put(char c) { out += c; }
  void put(std::string_view text) { out.append(text); }
};

struct digest_sink {
  std::uint64_t state;
  void put(char c) {
    state ^= static_cast<unsigned char>(c);
    state *= fnv1a64_prime;
  }
  void put(std::string_view text) { state = fnv1a64(text, state); }
};

// std::to_chars, not streams or printf: locale-independent by specification.
template <class Sink>
void put_decimal(std::int64_t value, Sink& out) {
  char buffer[24];  // "-9223372036854775808" is 20 characters
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  TWICE_CHECK(error == std::errc());
  out.put(std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

template <class Sink>
void put_quoted(std::string_view text, Sink& out) {
  out.put('"');
  std::size_t plain_from = 0;  // runs of bytes that need no escape go out in one piece
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    const bool escape = c == '"' || c == '\\' || byte < 0x20 || byte == 0x7f;
    if (!escape) continue;
    out.put(text.substr(plain_from, i - plain_from));
    plain_from = i + 1;
    if (c == '"' || c == '\\') {
      out.put('\\');
      out.put(c);
    } else {
      out.put('\\');
      out.put('x');
      out.put(hex_digits[byte >> 4]);
      out.put(hex_digits[byte & 0xf]);
    }
  }
  out.put(text.substr(plain_from));
  out.put('"');
}

template <class Sink>
void put_value(const field_value& value, Sink& out) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) {
    put_decimal(*integer, out);
  } else if (const auto* flag = std::get_if<bool>(&value)) {
    out.put(*flag ? std::string_view("true") : std::string_view("false"));
  } else {
    put_quoted(std::get<std::string>(value), out);
  }
}

// Quadratic, but records carry a handful of fields; a duplicate would make
// find() ambiguous and the line misleading.
bool has_duplicate_names(const std::vector<field>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    for (std::size_t j = i + 1; j < fields.size(); ++j) {
      if (fields[i].name == fields[j].name) return true;
    }
  }
  return false;
}

template <class Sink>
void put_canonical(const trace_record& record, Sink& out) {
  TWICE_CHECK(is_trace_identifier(record.actor));
  TWICE_CHECK(is_trace_identifier(record.kind));
  TWICE_CHECK(!has_duplicate_names(record.fields));
  put_decimal(record.time.us(), out);
  out.put(' ');
  out.put(record.actor);
  out.put(' ');
  out.put(record.kind);
  for (const field& f : record.fields) {
    TWICE_CHECK(is_trace_identifier(f.name));
    out.put(' ');
    out.put(f.name);
    out.put('=');
    put_value(f.value, out);
  }
}

}  // namespace

const field_value* trace_record::find(std::string_view name) const {
  for (const field& f : fields) {
    if (f.name == name) return &f.value;
  }
  return nullptr;
}

std::optional<std::int64_t> trace_record::get_int(std::string_view name) const {
  const field_value* value = find(name);
  if (value == nullptr) return std::nullopt;
  if (const auto* integer = std::get_if<std::int64_t>(value)) return *integer;
  return std::nullopt;
}

std::optional<bool> trace_record::get_bool(std::string_view name) const {
  const field_value* value = find(name);
  if (value == nullptr) return std::nullopt;
  if (const auto* flag = std::get_if<bool>(value)) return *flag;
  return std::nullopt;
}

std::optional<std::string_view> trace_record::get_string(std::string_view name) const {
  const field_value* value = find(name);
  if (value == nullptr) return std::nullopt;
  if (const auto* text = std::get_if<std::string>(value)) return std::string_view(*text);
  return std::nullopt;
}

bool is_trace_identifier(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!is_identifier_char(c)) return false;
  }
  return true;
}

void append_canonical(const trace_record& record, std::string& out) {
  string_sink sink{out};
  put_canonical(record, sink);
}

std::string format_digest(std::uint64_t digest) {
  std::string text(16, '0');
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t shift = 60 - 4 * i;
    text[i] = hex_digits[(digest >> shift) & 0xf];
  }
  return text;
}

trace_recorder::trace_recorder(retention mode) : retention_(mode), digest_(fnv1a64_offset) {}

void trace_recorder::record(instant time, std::string_view actor, std::string_view kind,
                            std::initializer_list<field_arg> fields) {
  record(time, actor, kind, std::span<const field_arg>(fields.begin(), fields.size()));
}

void trace_recorder::record(instant time, std::string_view actor, std::string_view kind,
                            std::span<const field_arg> fields) {
  TWICE_CHECK(!notifying_);
  if (size_ > 0) TWICE_CHECK(time >= last_time_);

  // assign() rather than construction: under digest_only the scratch record's
  // strings and vector keep their capacity, so steady state allocates nothing.
  trace_record& slot = next_slot();
  slot.time = time;
  slot.actor.assign(actor);
  slot.kind.assign(kind);
  // A place that held a string and now holds a number (or goes unused)
  // gives its buffer to the spares, and a string field takes one from them:
  // records of different layouts reuse buffers rather than allocate anew.
  const bool reuse = retention_ == retention::digest_only;
  auto spare = [this, reuse](field_value& v) {
    if (auto* held = std::get_if<std::string>(&v); held != nullptr && reuse) spare_strings_.push_back(std::move(*held));
  };
  for (std::size_t i = fields.size(); i < slot.fields.size(); ++i) spare(slot.fields[i].value);
  slot.fields.resize(fields.size());
  auto out = slot.fields.begin();
  for (const field_arg& f : fields) {
    out->name = f.name;
    if (const auto* text = std::get_if<std::string_view>(&f.value)) {
      if (auto* held = std::get_if<std::string>(&out->value)) {
        held->assign(*text);  // keeps the buffer
      } else if (!spare_strings_.empty()) {
        out->value = std::move(spare_strings_.back());
        spare_strings_.pop_back();
        std::get<std::string>(out->value).assign(*text);
      } else {
        out->value.emplace<std::string>(*text);
      }
    } else if (const auto* integer = std::get_if<std::int64_t>(&f.value)) {
      spare(out->value);
      out->value = *integer;
    } else {
      spare(out->value);
      out->value = std::get<bool>(f.value);
    }
    ++out;
  }

  fold_into_digest(slot);
  last_time_ = time;
  ++size_;
  notify(slot);
}

void trace_recorder::add_observer(trace_observer* observer) {
  TWICE_CHECK(observer != nullptr);
  TWICE_CHECK(!notifying_);
  observers_.push_back(observer);
}

void trace_recorder::detach_observers() {
  TWICE_CHECK(!notifying_);
  observers_.clear();
}

const std::vector<trace_record>& trace_recorder::records() const {
  TWICE_CHECK(retention_ == retention::keep_records);
  return records_;
}

std::string trace_recorder::canonical() const {
  std::string out;
  for (const trace_record& r : records_) {
    append_canonical(r, out);
    out += '\n';
  }
  return out;
}

trace_record& trace_recorder::next_slot() {
  if (retention_ == retention::digest_only) return scratch_;
  return records_.emplace_back();
}

void trace_recorder::fold_into_digest(const trace_record& record) {
  digest_sink sink{digest_};
  put_canonical(record, sink);
  sink.put('\n');
  digest_ = sink.state;
}

void trace_recorder::notify(const trace_record& record) {
  // Reset even if an observer throws, so the recorder stays usable after a
  // caught failure in a test.
  struct notifying_scope {
    bool& flag;
    explicit notifying_scope(bool& f) : flag(f) { flag = true; }
    ~notifying_scope() { flag = false; }
    notifying_scope(const notifying_scope&) = delete;
    notifying_scope& operator=(const notifying_scope&) = delete;
  } scope(notifying_);
  for (trace_observer* observer : observers_) observer->on_record(record);
}

}  // namespace twice::sim
