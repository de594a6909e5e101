#include "checks/invariants.hpp"

#include <algorithm>
#include <fmt/core.h>

#include "runtime/retry_policy.hpp"
#include "scenario/invariant_names.hpp"
#include "sim/checked.hpp"
#include "sim/duration_text.hpp"
#include "world/world.hpp"

namespace twice {

namespace {
using namespace invariant_name;
constexpr std::string_view one_row_per_key = one_ledger_row_per_key;
constexpr std::string_view leases_exclusive = leases_exclusive_or_absorbed;

std::string clock(sim::instant t) { return fmt::format("{}.{:06}s", t.us() / 1'000'000, t.us() % 1'000'000); }

bool is_worker(const sim::trace_record& r) { return r.actor.starts_with("worker/") || r.actor == "relay"; }

// 4xx other than 409 (key in use: retry later) and 429 (rate limited).
bool non_retryable_status(std::int64_t status) { return status >= 400 && status < 500 && status != 409 && status != 429; }

std::string money(std::int64_t cents) { return fmt::format("{} cents", cents); }

// The final pass's tables, as sorted vectors rather than maps: at a million
// jobs a map node per job and per key cost a few hundred bytes a job, on top
// of the world, at the moment memory peaks. Built by appending, sealed once by
// a stable sort (equal keys keep their order of appearance), then read.
using sv = std::string_view;

// Sums of cents by key, checked: what the jobs ask is bounded in a loaded
// scenario (1000000 jobs x 1000 steps x 99999999 cents < 10^17) but not in a
// world built in C++, and the ledgers' rows are bounded only by the event
// budget (a job without a key may refund again on every delivery).
class totals {
 public:
  void reserve(std::size_t n) { entries_.reserve(n); }
  void add(sv key, std::int64_t cents) { entries_.emplace_back(key, cents); }
  void seal() {
    std::stable_sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t out = 0;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (out > 0 && entries_[out - 1].first == entries_[i].first)
        entries_[out - 1].second = sim::checked_add(entries_[out - 1].second, entries_[i].second,
                                                    "a ledger or invoice total in the invariants overflows int64 cents");
      else
        entries_[out++] = entries_[i];
    }
    entries_.resize(out);
  }
  const std::pair<sv, std::int64_t>* find(sv key) const {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                     [](const auto& e, sv k) { return e.first < k; });
    return it != entries_.end() && it->first == key ? &*it : nullptr;
  }
  std::int64_t at_or_zero(sv key) const {
    const auto* e = find(key);
    return e == nullptr ? 0 : e->second;
  }
  const std::vector<std::pair<sv, std::int64_t>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<sv, std::int64_t>> entries_;
};

// Rows by idempotency key: after seal(), each key's rows are adjacent, in
// ledger order, keys in ascending order.
template <class Row>
class rows_by_key {
 public:
  void reserve(std::size_t n) { entries_.reserve(n); }
  void add(sv key, const Row& row) { entries_.emplace_back(key, &row); }
  void seal() {
    std::stable_sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  // f(key, first, last) for every key, [first, last) its rows.
  template <class F>
  void for_each_key(F f) const {
    for (auto first = entries_.begin(); first != entries_.end();) {
      auto last = first;
      while (last != entries_.end() && last->first == first->first) ++last;
      f(first->first, first, last);
      first = last;
    }
  }

 private:
  std::vector<std::pair<sv, const Row*>> entries_;
};
}  // namespace

const std::vector<std::string_view>& invariant_names() {
  static const std::vector<std::string_view> names(invariant_name::all.begin(), invariant_name::all.end());
  return names;
}

bool is_invariant_name(std::string_view name) {
  const auto& names = invariant_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string describe(const sim::trace_record& r) {
  std::string line;
  sim::append_canonical(r, line);
  return clock(r.time) + " " + line.substr(line.find(' ') + 1);
}

invariant_checker::invariant_checker(check_options options) : options_(options) {
  for (std::string_view name : invariant_names()) logs_[std::string(name)];
}

void invariant_checker::note(std::string_view invariant, const sim::trace_record& r, std::string_view why) {
  auto it = logs_.find(invariant);
  TWICE_CHECK(it != logs_.end());
  violation_log& log = it->second;
  if (!log.violated) log.first = r.time;
  log.violated = true;
  if (log.evidence.size() < options_.evidence_max) log.evidence.push_back(describe(r) + "  <- " + std::string(why));
}

void invariant_checker::on_record(const sim::trace_record& r) {
  // string_view comparisons: the length is compared first, and every record passes here.
  const std::string_view kind = r.kind;
  if (kind == "tool_call" && is_worker(r)) return on_tool_call(r);
  if (kind == "attempt_start") return on_attempt_start(r);
  if (kind == "slice_end") return on_slice_end(r);
  if (kind == "backoff") return on_backoff(r);
  if (kind == "stop" && r.get_bool("in_flight") == true && r.get_string("why") == "grace period expired")
    return note(drain_kills_nothing, r, "the grace period ended with a slice in flight");
  if (kind == "sent" && std::string_view(r.actor) == "vendor/email") return on_email_sent(r);
  if (kind == "pool_wait" && r.get_int("waited_us").value_or(0) > options_.stall_bound.us())
    return note(database_not_stalled, r, "waited for a connection longer than " + sim::format_duration(options_.stall_bound));
}

invariant_checker::job_watch& invariant_checker::watch(std::string_view job) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) it = jobs_.emplace(std::string(job), job_watch{}).first;
  return it->second;
}

void invariant_checker::on_tool_call(const sim::trace_record& r) {
  const std::string_view job = r.get_string("job").value_or("");
  const std::int64_t step = r.get_int("step").value_or(0);
  const bool new_write = r.get_bool("new_write") == true;
  const std::int64_t status = r.get_int("status").value_or(0);
  if (!new_write && !non_retryable_status(status)) return;
  job_watch& jw = watch(job);
  if (non_retryable_status(status)) {
    std::string error = fmt::format("{} {}", status, r.get_string("error").value_or(""));
    auto heard = std::find_if(jw.heard.begin(), jw.heard.end(), [&](const heard_answer& h) { return h.actor == r.actor; });
    if (heard == jw.heard.end()) heard = jw.heard.insert(jw.heard.end(), heard_answer{r.actor, {}, {}});
    heard->error = std::move(error);
    heard->record = describe(r);
  }
  if (!new_write) return;
  // The slice this write belongs to: the open one of this actor for this job.
  auto& spans = jw.slices;
  slice_span* mine = nullptr;
  for (auto it = spans.rbegin(); it != spans.rend(); ++it)
    if (it->actor == r.actor && !it->end) {
      mine = &*it;
      break;
    }
  if (mine == nullptr) return;  // the relay's sends are not slices
  auto wrote = [step](const slice_span& s) {
    return std::find(s.new_write_steps.begin(), s.new_write_steps.end(), step) != s.new_write_steps.end();
  };
  if (!wrote(*mine)) mine->new_write_steps.push_back(step);
  for (const slice_span& other : spans) {
    if (&other == mine || !wrote(other)) continue;
    const bool overlapped = !other.end || *other.end > mine->start;
    if (!overlapped) continue;
    note(leases_exclusive, r,
         fmt::format("a second new write for step {} while {} (attempt {}) held the same job", step, other.actor,
                     other.attempt));
    break;  // one line per write, however many slices it overlapped
  }
}

// Email providers take no key, so the provider's own log is the truth: a
// second email for one step is a duplicate the customer sees, whoever sent
// it (a replayed slice, an overlapping worker, the outbox relay).
void invariant_checker::on_email_sent(const sim::trace_record& r) {
  const std::string reference(r.get_string("reference").value_or(""));
  if (reference.empty()) return;  // not sent on a job's behalf
  const std::uint32_t count = ++emails_sent_[reference];
  if (count > 1) note(one_email_per_step, r, fmt::format("email number {} for {}", count, reference));
}

void invariant_checker::on_attempt_start(const sim::trace_record& r) {
  job_watch& jw = watch(r.get_string("job").value_or(""));
  const std::int64_t attempt = r.get_int("attempt").value_or(0);
  if (jw.last_attempt && attempt <= *jw.last_attempt)
    note(attempts_monotonic, r, fmt::format("attempt {} after attempt {}", attempt, *jw.last_attempt));
  jw.last_attempt = attempt;
  auto start = std::find_if(jw.start_index.begin(), jw.start_index.end(), [&](const auto& p) { return p.first == attempt; });
  if (start == jw.start_index.end())
    jw.start_index.emplace_back(attempt, starts_++);
  else
    start->second = starts_++;
  // This slice has heard nothing yet.
  std::erase_if(jw.heard, [&](const heard_answer& h) { return h.actor == r.actor; });
  jw.slices.push_back(slice_span{r.actor, attempt, r.time, std::nullopt, {}});
}

void invariant_checker::on_slice_end(const sim::trace_record& r) {
  job_watch& jw = watch(r.get_string("job").value_or(""));
  auto& spans = jw.slices;
  for (auto it = spans.rbegin(); it != spans.rend(); ++it)
    if (it->actor == r.actor && !it->end) {
      it->end = r.time;
      break;
    }
  // With no slice of this job open, every span so far ended at or before
  // now, and any later slice starts at or after now: none can overlap it
  // (overlap is end > start). Nor will a closed slice record another
  // backoff, so the attempts' places go too. A finished job then keeps only
  // its last attempt, not a span per delivery for the rest of the run.
  const bool any_open = std::any_of(spans.begin(), spans.end(), [](const slice_span& s) { return !s.end; });
  if (any_open) return;
  std::vector<slice_span>().swap(spans);
  std::vector<std::pair<std::int64_t, std::uint64_t>>().swap(jw.start_index);
}

void invariant_checker::on_backoff(const sim::trace_record& r) {
  job_watch& jw = watch(r.get_string("job").value_or(""));
  // A retry is a decision: the slice that heard the 4xx schedules another
  // attempt because of it. (A slice that crashed, or raised an error of its
  // own, before the failure was recorded is redelivered or retried for that
  // reason and asks again: that is at-least-once, not a retry of the 4xx.)
  const auto heard = std::find_if(jw.heard.begin(), jw.heard.end(), [&](const heard_answer& h) { return h.actor == r.actor; });
  if (heard != jw.heard.end() && r.get_string("error") == heard->error)
    note(no_retry_of_non_retryable, r, "a retry scheduled after a non-retryable answer: " + heard->record);
  const std::int64_t delay = r.get_int("delay_us").value_or(0);
  const std::int64_t cap = r.get_int("cap_us").value_or(0);
  const std::int64_t floor = r.get_int("retry_after_us").value_or(0);
  const std::int64_t envelope = r.get_int("envelope_us").value_or(0);
  if (cap >= uncapped_ceiling.us())
    note(backoff_within_cap, r, "no maximum interval is configured: the delay grows without bound");
  else if (delay > std::max(cap, floor))
    note(backoff_within_cap, r, "the delay is above the cap");
  const std::int64_t attempt = r.get_int("attempt").value_or(0);
  const auto start = std::find_if(jw.start_index.begin(), jw.start_index.end(), [&](const auto& p) { return p.first == attempt; });
  if (start != jw.start_index.end()) jw.envelopes.push_back({start->second, envelope, r.time, describe(r)});
}

// The envelope must not fall from one attempt to the next, in the order the
// attempts started (overlapping slices may record their backoffs out of
// order; a counter reset starts a later attempt from the bottom again).
void invariant_checker::check_envelopes() {
  for (auto& [job, jw] : jobs_) {
    auto& points = jw.envelopes;
    std::stable_sort(points.begin(), points.end(),
                     [](const envelope_point& a, const envelope_point& b) { return a.start_index < b.start_index; });
    for (std::size_t i = 1; i < points.size(); ++i) {
      if (points[i].envelope_us >= points[i - 1].envelope_us) continue;
      violation_log& log = logs_.at(std::string(backoff_within_cap));
      if (!log.violated || points[i].at < *log.first) log.first = points[i].at;
      log.violated = true;
      if (log.evidence.size() < options_.evidence_max)
        log.evidence.push_back(points[i].record + fmt::format("  <- the envelope fell from {}us to {}us",
                                                              points[i - 1].envelope_us, points[i].envelope_us));
    }
  }
}

std::vector<verdict> invariant_checker::finish(world& w, const world_result& result) {
  check_envelopes();
  // Final state: the two ledgers and the jobs. Keys view strings the world
  // owns (its job specs and both ledgers), which outlive this call; lines of
  // evidence are formatted only for what is found wrong.
  std::vector<std::pair<sv, sv>> job_of_invoice;  // the last job to name an invoice owns it
  totals asked_by_invoice;
  for (const job_spec& job : w.config().jobs)
    for (const step_spec& step : job.steps)
      if (step.tool == "refund") {
        job_of_invoice.emplace_back(step.target, job.id);
        asked_by_invoice.add(step.target, step.amount_cents);
      }
  std::stable_sort(job_of_invoice.begin(), job_of_invoice.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  asked_by_invoice.seal();
  auto job_of = [&job_of_invoice](sv invoice) -> std::optional<sv> {
    auto it = std::upper_bound(job_of_invoice.begin(), job_of_invoice.end(), invoice,
                               [](sv k, const auto& e) { return k < e.first; });
    if (it == job_of_invoice.begin() || std::prev(it)->first != invoice) return std::nullopt;
    return std::prev(it)->second;
  };
  totals vendor_by_job, local_by_job, vendor_by_invoice;
  std::map<std::string, std::int64_t, std::less<>> vendor_by_unknown_invoice;  // "(unknown invoice inv_9)"
  rows_by_key<vendor_refund> vendor_rows_by_key;
  rows_by_key<ledger_row> local_rows_by_key;
  // Exact sizes up front: at a million jobs, doubling growth would hold up
  // to twice what the tables need at the moment memory peaks.
  const std::size_t vendor_rows = w.payments().ledger().size();
  const std::size_t local_rows = w.db().ledger().size();
  vendor_by_job.reserve(vendor_rows);
  vendor_by_invoice.reserve(vendor_rows);
  vendor_rows_by_key.reserve(vendor_rows);
  local_by_job.reserve(local_rows);
  local_rows_by_key.reserve(local_rows);
  for (const vendor_refund& v : w.payments().ledger()) {
    vendor_by_invoice.add(v.invoice, v.amount_cents);
    if (const auto job = job_of(v.invoice))
      vendor_by_job.add(*job, v.amount_cents);
    else {
      std::int64_t& total = vendor_by_unknown_invoice["(unknown invoice " + v.invoice + ")"];
      total = sim::checked_add(total, v.amount_cents, "a ledger or invoice total in the invariants overflows int64 cents");
    }
    if (v.idempotency_key) vendor_rows_by_key.add(*v.idempotency_key, v);
  }
  for (const auto& [label, cents] : vendor_by_unknown_invoice) vendor_by_job.add(label, cents);
  for (const ledger_row& l : w.db().ledger()) {
    local_by_job.add(l.job_id, l.amount_cents);
    if (!l.key.empty()) local_rows_by_key.add(l.key, l);
  }
  for (totals* t : {&vendor_by_job, &local_by_job, &vendor_by_invoice}) t->seal();
  vendor_rows_by_key.seal();
  local_rows_by_key.seal();
  auto vendor_line = [](const vendor_refund& v) {
    return fmt::format("{} vendor refund {} {} {} key={}", clock(v.committed_at), v.id, v.invoice, money(v.amount_cents),
                       v.idempotency_key.value_or("(none)"));
  };
  auto local_line = [](const ledger_row& l) {
    return fmt::format("{} ledger row {} {} key={} ref={}", clock(l.at), l.job_id, money(l.amount_cents), l.key,
                       l.vendor_ref);
  };

  std::vector<verdict> out;
  auto streaming = [&](std::string_view name, std::string held_detail, std::string violated_detail) {
    const violation_log& log = logs_.at(std::string(name));
    verdict v{std::string(name), !log.violated, log.violated ? violated_detail : held_detail, log.evidence, log.first};
    return v;
  };

  {
    verdict v{std::string(one_row_per_key), true, "every idempotency key has at most one row in each ledger", {}, {}};
    auto check_rows = [&](const auto& rows, const auto& line_of) {
      rows.for_each_key([&](sv key, auto first, auto last) {
        const auto count = last - first;
        if (count < 2) return;
        v.held = false;
        v.detail = fmt::format("key {} has {} rows", key, count);
        for (auto row = first; row != last; ++row)
          if (v.evidence.size() < options_.evidence_max) v.evidence.push_back(line_of(*row->second));
      });
    };
    check_rows(local_rows_by_key, local_line);
    check_rows(vendor_rows_by_key, vendor_line);
    out.push_back(std::move(v));
  }
  {
    verdict v{std::string(no_double_payment), true, "no invoice was refunded more than its jobs asked for", {}, {}};
    for (const auto& [invoice, paid] : vendor_by_invoice.entries()) {
      const std::int64_t limit = asked_by_invoice.at_or_zero(invoice);
      if (paid <= limit) continue;
      v.held = false;
      v.detail = fmt::format("invoice {} was refunded {} but asked {}", invoice, money(paid), money(limit));
      for (const vendor_refund& r : w.payments().ledger())
        if (r.invoice == invoice && v.evidence.size() < options_.evidence_max) v.evidence.push_back(vendor_line(r));
    }
    out.push_back(std::move(v));
  }
  {
    verdict v{std::string(ledgers_agree), true, "for every job, our ledger and the vendor's hold the same total", {}, {}};
    std::vector<sv> jobs;  // every job either ledger names, once, in order
    for (const totals* t : {&vendor_by_job, &local_by_job})
      for (const auto& [job, total] : t->entries()) jobs.push_back(job);
    std::sort(jobs.begin(), jobs.end());
    jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
    for (const sv job : jobs) {
      const std::int64_t ours = local_by_job.at_or_zero(job);
      const std::int64_t theirs = vendor_by_job.at_or_zero(job);
      if (ours == theirs) continue;
      if (v.held) v.detail = fmt::format("{}: our ledger {}, the vendor's {}", job, money(ours), money(theirs));
      v.held = false;
      if (v.evidence.size() < options_.evidence_max)
        v.evidence.push_back(fmt::format("{}: local {} vs vendor {}", job, money(ours), money(theirs)));
    }
    out.push_back(std::move(v));
  }
  {
    verdict v{std::string(every_job_ends), result.all_jobs_ended, "every job ended: done, failed or dead-lettered", {}, {}};
    if (!v.held) {
      v.detail = fmt::format("the run stopped ({}) at {} with jobs still open", sim::to_string(result.reason),
                             clock(result.now));
      for (const auto& [job, end] : w.job_ends())
        if (end == job_end::open && v.evidence.size() < options_.evidence_max) {
          const auto row = w.db().find_job(job);
          v.evidence.push_back(fmt::format("{} is {} after {} attempts{}", job, row ? to_string(row->status) : "unknown",
                                           row ? row->attempts : 0,
                                           row && !row->last_error.empty() ? ", last error " + row->last_error : ""));
        }
    }
    out.push_back(std::move(v));
  }
  out.push_back(streaming(backoff_within_cap, "every backoff stayed under its cap and the envelope never fell",
                          "a backoff broke its cap or its envelope fell"));
  out.push_back(streaming(no_retry_of_non_retryable, "no job was retried after a non-retryable (4xx) answer",
                          "a job was retried after a non-retryable answer"));
  out.push_back(streaming(attempts_monotonic, "each job's attempt numbers only went up",
                          "a job's attempt counter went backwards"));
  out.push_back(streaming(leases_exclusive, "no two overlapping slices of a job both made a new write",
                          "two slices of one job overlapped and both wrote"));
  out.push_back(streaming(drain_kills_nothing, "no drain ended with a slice in flight",
                          "a drain's grace period killed a slice in flight"));
  out.push_back(streaming(database_not_stalled,
                          "no transaction waited longer than " + sim::format_duration(options_.stall_bound) +
                              " for a connection",
                          "a transaction waited too long for a connection: the pool was exhausted"));
  {
    // The other half of exactly once: a job reported done must have had its
    // effect. Catches the refund lost by checkpointing before the call.
    verdict v{std::string(done_jobs_paid_in_full), true, "every job that ended done was refunded in full", {}, {}};
    for (const job_spec& job : w.config().jobs) {
      if (w.job_ends().at(job.id) != job_end::done) continue;
      for (const step_spec& step : job.steps) {
        if (step.tool != "refund") continue;
        const std::int64_t paid = vendor_by_invoice.at_or_zero(step.target);
        const std::int64_t asked = asked_by_invoice.at_or_zero(step.target);
        if (paid >= asked) continue;
        if (v.held)
          v.detail = fmt::format("{} ended done but invoice {} was refunded {} of {}", job.id, step.target, money(paid),
                                 money(asked));
        v.held = false;
        if (v.evidence.size() < options_.evidence_max)
          v.evidence.push_back(fmt::format("{}: done; vendor refunds for {}: {}", job.id, step.target, money(paid)));
      }
    }
    out.push_back(std::move(v));
  }
  out.push_back(streaming(one_email_per_step, "no job step emailed its recipient more than once",
                          "a job step sent the same email twice"));
  return out;
}

}  // namespace twice
