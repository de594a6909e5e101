#include <twice/checks/invariants.hpp>

#include <algorithm>
#include <deque>
#include <cstdint>
#include <optional>
#include <fmt/core.h>

#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include <twice/checks/invariant.hpp>
#include <twice/runtime/retry_policy.hpp>
#include <twice/sim/checked.hpp>
#include "sim/duration_text.hpp"
#include <twice/sim/footprint.hpp>
#include <twice/world/tenant_waits.hpp>
#include <twice/world/world.hpp>

namespace twice {

namespace {
using namespace invariant_name;
using namespace check_text;
constexpr std::string_view one_row_per_key = one_ledger_row_per_key;
constexpr std::string_view leases_exclusive = leases_exclusive_or_absorbed;

// 4xx other than 409 (key in use: retry later) and 429 (rate limited).
bool non_retryable_status(std::int64_t status) { return status >= 400 && status < 500 && status != 409 && status != 429; }

std::string money(std::int64_t cents) { return fmt::format("{} cents", cents); }

// The final pass's tables are keyed by dense ids (string_ids), not sorted
// strings: at a million jobs, sorting a table of string views costs twenty
// million compares, each a cache miss into a row somewhere on the heap. Only
// what is found wrong, a handful of keys in a bad run, is sorted, so the
// report lists it in the ascending order a reader (and the goldens) expect.
using sv = std::string_view;

// Sums of cents, checked: what the jobs ask is bounded in a loaded scenario
// (1000000 jobs x 1000 steps x 99999999 cents < 10^17) but not in a world
// built in C++, and the ledgers' rows are bounded only by the event budget
// (a job without a key may refund again on every delivery).
void add_cents(std::int64_t& total, std::int64_t cents) {
  total = sim::checked_add(total, cents, "a ledger or invoice total in the invariants overflows int64 cents");
}

// Ids in ascending order of their strings (`names.name(id)`).
template <class Names>
std::vector<std::uint32_t> sorted_by_name(std::vector<std::uint32_t> ids, const Names& names) {
  std::sort(ids.begin(), ids.end(), [&names](std::uint32_t a, std::uint32_t b) { return names.name(a) < names.name(b); });
  return ids;
}

// The keys with more than one row in a ledger of `rows` rows, in ascending
// order, each with its rows' positions in ledger order. `key_of(i)` is row
// i's key as a name of the run's table, if it has a key.
template <class KeyOf>
std::vector<std::pair<sv, std::vector<std::size_t>>> repeated_keys(std::size_t rows, const name_table& names,
                                                                   KeyOf key_of) {
  std::vector<std::uint32_t> rows_of_key(names.size(), 0);
  for (std::size_t i = 0; i < rows; ++i)
    if (const std::optional<ev::name_id> key = key_of(i)) ++rows_of_key[*key];
  std::vector<std::uint32_t> repeated;
  for (std::uint32_t id = 0; id < rows_of_key.size(); ++id)
    if (rows_of_key[id] > 1) repeated.push_back(id);
  std::sort(repeated.begin(), repeated.end(),
            [&names](std::uint32_t a, std::uint32_t b) { return names.text(a) < names.text(b); });
  std::vector<std::pair<sv, std::vector<std::size_t>>> out;
  std::map<std::uint32_t, std::size_t> place;  // key -> its entry in `out`
  for (const std::uint32_t id : repeated) {
    place.emplace(id, out.size());
    out.emplace_back(names.text(id), std::vector<std::size_t>{});
  }
  for (std::size_t i = 0; i < rows && !place.empty(); ++i)
    if (const std::optional<ev::name_id> key = key_of(i))
      if (const auto it = place.find(*key); it != place.end()) out[it->second].second.push_back(i);
  return out;
}

// Dense ids for texts, nearly all of them names the run already has: those
// are found by name (4 bytes a name) and viewed in the name table; the few
// the run never named (the invoice of a job that never ran) are copied.
// Ids follow first sight; views stay valid as long as the name table.
class text_ids {
 public:
  explicit text_ids(const name_table& names) : names_(names), by_name_(names.size(), none) {}
  std::uint32_t intern(sv text) {
    if (const std::optional<ev::name_id> name = names_.find(text)) return intern_name(*name);
    const std::uint32_t extra = extra_.intern_copy(text);
    if (extra == by_extra_.size()) by_extra_.push_back(add(extra_.name(extra)));
    return by_extra_[extra];
  }
  std::uint32_t intern_name(ev::name_id name) {
    std::uint32_t& id = by_name_.at(name);
    if (id == none) id = add(names_.text(name));
    return id;
  }
  std::optional<std::uint32_t> find(sv text) const {
    if (const std::optional<ev::name_id> name = names_.find(text); name && by_name_[*name] != none)
      return by_name_[*name];
    if (const std::optional<std::uint32_t> extra = extra_.find(text)) return by_extra_[*extra];
    return std::nullopt;
  }
  sv name(std::uint32_t id) const { return texts_[id]; }
  std::size_t size() const { return texts_.size(); }

 private:
  static constexpr std::uint32_t none = UINT32_MAX;
  std::uint32_t add(sv text) {
    texts_.push_back(text);
    return static_cast<std::uint32_t>(texts_.size() - 1);
  }
  const name_table& names_;
  std::vector<std::uint32_t> by_name_;  // name -> id, or none
  sim::string_ids extra_;
  std::vector<std::uint32_t> by_extra_;
  std::vector<sv> texts_;
};

// Per invoice: what the jobs asked, what the vendor paid, and the last job
// to name it (its owner).
struct invoice_book {
  explicit invoice_book(const name_table& names) : ids(names), owner_names(names) {}
  std::uint32_t intern(sv invoice) { return grow(ids.intern(invoice)); }
  std::uint32_t intern_name(ev::name_id invoice) { return grow(ids.intern_name(invoice)); }
  std::int64_t paid_for(sv invoice) const { return at_or_zero(paid, invoice); }
  std::int64_t asked_for(sv invoice) const { return at_or_zero(asked, invoice); }

  // A generated job's spec lives only while it is walked: its id is kept
  // as a name (or a copy).
  void set_owner(std::uint32_t invoice, sv job) { owner[invoice] = owner_names.name(owner_names.intern(job)); }

  text_ids ids;
  std::vector<std::int64_t> asked, paid;
  std::vector<std::optional<sv>> owner;  // views of owner_names
  text_ids owner_names;

 private:
  std::uint32_t grow(std::uint32_t id) {
    if (id == asked.size()) {
      asked.push_back(0);
      paid.push_back(0);
      owner.emplace_back();
    }
    return id;
  }
  std::int64_t at_or_zero(const std::vector<std::int64_t>& column, sv invoice) const {
    const auto id = ids.find(invoice);
    return id ? column[*id] : 0;
  }
};
}  // namespace

std::vector<std::string_view> invariant_names() {
  std::vector<std::string_view> names(invariant_name::all.begin(), invariant_name::all.end());
  const std::vector<std::string_view> registered = registry::registered_invariant_names();
  names.insert(names.end(), registered.begin(), registered.end());
  return names;
}

std::string_view verdict_word(const verdict& v) { return !v.held ? "VIOLATED" : v.judged ? "held" : "UNJUDGED"; }

bool is_invariant_name(std::string_view name) {
  const auto& names = invariant_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string describe(const sim::trace_record& r) {
  std::string line;
  sim::append_canonical(r, line);
  return clock(r.time) + " " + line.substr(line.find(' ') + 1);
}

invariant_checker::invariant_checker(check_options options, const world_config& config)
    : options_(options),
      attempt_limit_(config.runtime.retry.maximum_attempts),
      counts_failures_(config.runtime.count_attempts == attempt_counting::at_failure),
      alarms_(config.alarms) {
  for (std::string_view name : invariant_name::all) logs_[std::string(name)];
}

invariant_checker::violation_log& invariant_checker::log_of(std::string_view invariant) {
  auto it = logs_.find(invariant);
  TWICE_CHECK(it != logs_.end());
  return it->second;
}

void invariant_checker::count_violation(violation_log& log, sim::instant at) {
  ++log.count;
  if (!log.first || at < *log.first) log.first = at;
}

bool invariant_checker::worth_keeping(const violation_log& log, sim::instant at) const {
  if (options_.evidence_max == 0) return false;
  return log.evidence.size() < options_.evidence_max || at < log.evidence.back().first;
}

// Lines stay in time order (after any of the same time): the final pass
// finds some violations after later ones were noted while streaming.
void invariant_checker::keep(violation_log& log, sim::instant at, std::string line) {
  const auto later = std::upper_bound(log.evidence.begin(), log.evidence.end(), at,
                                      [](sim::instant t, const auto& kept) { return t < kept.first; });
  log.evidence.emplace(later, at, std::move(line));
  if (log.evidence.size() > options_.evidence_max) log.evidence.pop_back();
}

std::string invariant_checker::describe(const ev::event& e) const {
  TWICE_CHECK(names_ != nullptr);
  return twice::describe(as_record(e, *names_));
}

void invariant_checker::note(std::string_view invariant, const ev::event& e, std::string_view why) {
  violation_log& log = log_of(invariant);
  count_violation(log, e.at);
  // Described only when kept: a bug may break an invariant on every delivery.
  if (worth_keeping(log, e.at)) keep(log, e.at, describe(e) + "  <- " + std::string(why));
}

void invariant_checker::on_event(const ev::event& e, const name_table& names) {
  names_ = &names;
  if (const auto* call = std::get_if<ev::tool_call>(&e.body)) return on_tool_call(e, *call);
  if (const auto* start = std::get_if<ev::attempt_start>(&e.body)) return on_attempt_start(e, *start);
  if (const auto* end = std::get_if<ev::slice_end>(&e.body)) return on_slice_end(e, *end);
  if (const auto* b = std::get_if<ev::backoff>(&e.body)) return on_backoff(e, *b);
  if (const auto* stop = std::get_if<ev::stop>(&e.body)) {
    // Whoever ends the drain, Kubernetes' SIGKILL at the grace period or
    // the runtime's own shutdown timeout (Sidekiq's -t), the slice it
    // finds running is killed mid-step.
    if (stop->in_flight && stop->why == ev::stop_reason::grace_period_expired)
      note(drain_kills_nothing, e, "the grace period ended with a slice in flight");
    if (stop->in_flight && stop->why == ev::stop_reason::shutdown_timeout)
      note(drain_kills_nothing, e, "the runtime's own shutdown timeout ended the drain with a slice in flight");
    if (stop->in_flight && stop->why == ev::stop_reason::shutdown)
      jobs_[job_id(stop->job)].cut = true;  // the run's end, not the world, stopped it
    else if (stop->in_flight)
      note_release(stop->job, e);
    return;
  }
  if (const auto* sent = std::get_if<ev::effect_done>(&e.body)) return on_effect_done(e, *sent);
  if (const auto* done = std::get_if<ev::job_done>(&e.body)) return on_job_ended(done->job, e.at);
  if (const auto* failed = std::get_if<ev::job_failed>(&e.body)) return on_job_ended(failed->job);
  if (const auto* dead = std::get_if<ev::dead_letter>(&e.body)) {
    releases_.erase(job_id(dead->job));  // its message waits in the dead-letter queue, or nowhere by design
    return;
  }
  if (const auto* send = std::get_if<ev::send>(&e.body)) {
    jobs_[job_id(send->body)].sent = true;
    return;
  }
  if (const auto* produced = std::get_if<ev::produced>(&e.body)) {
    jobs_[job_id(produced->body)].sent = true;
    return;
  }
  if (const auto* deleted = std::get_if<ev::message_delete>(&e.body)) {
    if (deleted->applied) note_release(deleted->body, e);
    return;
  }
  if (const auto* lost = std::get_if<ev::lost_with_process>(&e.body)) return note_release(lost->body, e);
  if (const auto* back = std::get_if<ev::pushed_back>(&e.body)) {
    jobs_[job_id(back->body)].rerun_owed = true;
    return;
  }
  if (const auto* rescued = std::get_if<ev::orphan_recovered>(&e.body)) {
    jobs_[job_id(rescued->body)].rerun_owed = true;
    return;
  }
  if (const auto* crash = std::get_if<ev::crash>(&e.body)) {
    if (crash->in_flight) note_release(crash->job, e);
    return;
  }
  if (const auto* gone = std::get_if<ev::retention_expired>(&e.body)) return on_retention_expired(e, *gone);
  if (const auto* q = std::get_if<ev::queue_sample>(&e.body)) return on_queue_sample(e, *q);
  // The redrive runbook moves each dead letter back once per redrive, after
  // granting its job the attempts again.
  if (const auto* moved = std::get_if<ev::moved_out>(&e.body)) {
    ++redriven_[job_id(moved->body)];
    return;
  }
  if (const auto* wait = std::get_if<ev::pool_wait>(&e.body))
    if (wait->waited > options_.stall_bound)
      return note(database_not_stalled, e,
                  fmt::format("waited {} for a connection, longer than {}", sim::format_duration(wait->waited),
                              sim::format_duration(options_.stall_bound)));
}

// A job's watch holds its open slices (a handful; dropped once none is
// open), and a step's effect reference is ~48 bytes of text.
std::uint64_t invariant_checker::footprint() const {
  return jobs_.size() * (sizeof(job_watch) + sizeof(slice_span)) + sim::footprint_of(job_of_name_) +
         sim::tree_footprint(releases_) + releases_.size() * 2 * sizeof(ev::event) + sim::tree_footprint(expired_) +
         sim::tree_footprint(timed_out_) + timed_out_.size() * 48 +
         sim::tree_footprint(envelopes_) + envelope_points_ * sizeof(envelope_point) + sim::tree_footprint(heard_) +
         sim::tree_footprint(effects_) + effects_.size() * 48;
}

std::uint32_t invariant_checker::job_id(ev::name_id job) {
  if (job >= job_of_name_.size()) job_of_name_.resize(std::max<std::size_t>(job + 1, 2 * job_of_name_.size()), no_job);
  std::uint32_t& id = job_of_name_[job];
  if (id == no_job) {
    TWICE_CHECK(jobs_.size() < no_job);
    id = static_cast<std::uint32_t>(jobs_.size());
    jobs_.emplace_back().name = job;
  }
  return id;
}

const invariant_checker::job_watch* invariant_checker::watch_of(std::string_view job) const {
  const std::optional<ev::name_id> name = names_ == nullptr ? std::nullopt : names_->find(job);
  if (!name || *name >= job_of_name_.size() || job_of_name_[*name] == no_job) return nullptr;
  return &jobs_[job_of_name_[*name]];
}

// A worker's tool call (the relay's sends are no slice of a job, so its
// relay_tool_call events are not watched here).
void invariant_checker::on_tool_call(const ev::event& e, const ev::tool_call& call) {
  const std::int64_t step = call.step;
  const bool new_write = call.new_write;
  const std::int64_t status = call.status;
  // A write that timed out may still take effect at the far side: a job
  // marked done after that is the known price of at most once, not a job
  // that skipped a call still running (done_jobs_had_effects).
  if (status == 0) {
    const std::string reference =
        fmt::format("{}:step_{}:{}", names_->text(call.job), step, names_->text(call.tool));
    timed_out_.emplace(reference, e.at);  // the first timeout stays
  }
  if (!new_write && !non_retryable_status(status)) return;
  const std::uint32_t id = job_id(call.job);
  job_watch& jw = jobs_[id];
  if (non_retryable_status(status)) {
    std::string error = fmt::format("{} {}", status, names_->text(call.error));
    std::vector<heard_answer>& answers = heard_[id];
    auto heard = std::find_if(answers.begin(), answers.end(), [&](const heard_answer& h) { return h.actor == e.actor; });
    if (heard == answers.end()) heard = answers.insert(answers.end(), heard_answer{e.actor, {}, {}});
    heard->error = std::move(error);
    heard->record = describe(e);
  }
  if (!new_write) return;
  // The slice this write belongs to: the open one of this actor for this job.
  auto& spans = jw.slices;
  slice_span* mine = nullptr;
  for (auto it = spans.rbegin(); it != spans.rend(); ++it)
    if (it->actor_name == e.actor && !it->end) {
      mine = &*it;
      break;
    }
  if (mine == nullptr) return;
  auto write_of = [step](const slice_span& s) {
    return std::find_if(s.new_writes.begin(), s.new_writes.end(), [step](const step_write& w) { return w.step == step; });
  };
  if (write_of(*mine) == mine->new_writes.end()) mine->new_writes.push_back({step, e.at});
  for (const slice_span& other : spans) {
    if (&other == mine) continue;
    const auto earlier = write_of(other);
    if (earlier == other.new_writes.end()) continue;
    const bool overlapped = !other.end || *other.end > mine->start;
    if (!overlapped) continue;
    note(leases_exclusive, e, overlap_why(step, other, earlier->at, mine->start));
    break;  // one line per write, however many slices it overlapped
  }
}

// The other slice may have ended (acked, even) before this write: what the
// two slices share is time, which is what the line says, never that the
// other one still held the job.
std::string invariant_checker::overlap_why(std::int64_t step, const slice_span& other, sim::instant other_wrote,
                                           sim::instant mine_started) {
  const sim::instant from = std::max(other.start, mine_started);
  const std::string overlap = other.end ? fmt::format("overlapped this one from {} to {}", clock(from), clock(*other.end))
                                        : fmt::format("still runs, overlapping this one since {}", clock(from));
  return fmt::format("a second new write for step {}: {} (attempt {}) wrote it at {} in a slice that {}", step,
                     other.actor, other.attempt, clock(other_wrote), overlap);
}

// An open job, as its row and the trace tell it. The row's counter is what
// the runtime says; the attempts the trace saw start are what happened, and
// a runtime that resets its counter makes the two differ.
std::string invariant_checker::open_job_line(const world& w, std::string_view job) const {
  const auto row = w.db().find_job(job);
  const job_watch* watch = watch_of(job);
  const std::uint64_t started = watch != nullptr ? watch->attempts_started : 0;
  std::string line = fmt::format("{} is {} after {}", job, row ? to_string(row->status) : "not yet enqueued",
                                 count_of(started, "attempt", "attempts"));
  if (row && row->attempts != started) line += fmt::format(" (its row's attempt counter says {})", row->attempts);
  if (row && !row->last_error.empty()) line += ", last error " + row->last_error;
  return line;
}

std::vector<verdict> invariant_checker::finish(const world& w, const world_result& result) {
  check_envelopes();
  // Final state: the two ledgers and the jobs. Both ledgers keep their
  // texts as names of the run's table, and the tables here are keyed by
  // those names (a job's spec, which may be generated and gone after its
  // walk, is looked up by name too); lines of evidence are formatted only
  // for what is found wrong.
  const name_table& names = w.events().names();
  const ledger_table& local_ledger = w.db().ledger();
  // Per tool that moves money (the refund tool, a charge of the scenario's
  // own): its ledger, and what the story's steps asked of each target.
  struct money_book {
    money_book(sv name, const refund_ledger& l, const name_table& names) : step_name(name), ledger(&l), targets(names) {}
    sv step_name;  // "refund", "charge"
    const refund_ledger* ledger;
    invoice_book targets;
  };
  std::deque<money_book> books;  // (an invoice_book does not move)
  for (const world::money_tool& m : w.money_tools()) books.emplace_back(m.name, m.tool->ledger(), names);
  auto book_of = [&books](sv tool) -> money_book* {
    for (money_book& b : books)
      if (b.step_name == tool) return &b;
    return nullptr;
  };
  for_each_job(w.config(), [&](const job_spec& job) {
    for (const step_spec& step : job.steps)
      if (money_book* b = book_of(step.tool)) {
        const std::uint32_t id = b->targets.intern(step.target);
        add_cents(b->targets.asked[id], step.amount_cents);
        b->targets.set_owner(id, job.id);  // the last job to name a target owns it
      }
  });
  for (money_book& b : books)
    for (std::size_t i = 0; i < b.ledger->size(); ++i) {
      const refund_ledger::row& r = b.ledger->raw(i);
      add_cents(b.targets.paid[b.targets.intern_name(r.invoice)], r.amount_cents);
    }

  auto vendor_line = [](const money_book& b, const vendor_refund& v) {
    return fmt::format("{} vendor {} {} {} {} key={}", clock(v.committed_at), b.step_name, v.id, v.invoice,
                       money(v.amount_cents), v.idempotency_key.value_or("(none)"));
  };
  auto local_line = [](const ledger_row& l) {
    return fmt::format("{} ledger row {} {} key={} ref={}", clock(l.at), l.job_id, money(l.amount_cents), l.key,
                       l.vendor_ref);
  };
  // "invoice inv_17 was refunded 3998 cents", "acct_1 was charged ...".
  auto moved = [](const money_book& b, sv target, std::int64_t cents) {
    return b.step_name == "refund" ? fmt::format("invoice {} was refunded {}", target, money(cents))
                                   : fmt::format("{} had {} from {}", target, money(cents), b.step_name);
  };

  std::vector<verdict> out;
  // Streaming verdicts: the detail says what broke and, when the evidence
  // cannot show every violation, how many there were.
  auto streaming = [&](std::string_view name, std::string held_detail, std::string violated_detail) {
    const violation_log& log = logs_.at(std::string(name));
    verdict v{std::string(name), log.count == 0, std::move(held_detail), {}, log.first};
    if (v.held) return v;
    v.detail = std::move(violated_detail);
    if (log.count > log.evidence.size()) v.detail += fmt::format(" ({} in all, {} shown)", log.count, log.evidence.size());
    for (const auto& [at, line] : log.evidence) v.evidence.push_back(line);
    return v;
  };

  // The final pass's verdicts: the detail names the first thing found wrong
  // (in the order the evidence lists them) and counts the rest.
  {
    verdict v{std::string(one_row_per_key), true, "every idempotency key has at most one row in each ledger", {}, {}};
    std::size_t repeated_count = 0;
    auto report = [&](const auto& ledger, const auto& key_of, const auto& line_of, std::string_view name) {
      for (const auto& [key, rows] : repeated_keys(ledger.size(), names, key_of)) {
        if (v.held) v.detail = fmt::format("key {} has {} rows in {}", key, rows.size(), name);
        v.held = false;
        ++repeated_count;
        for (const std::size_t row : rows)
          if (v.evidence.size() < options_.evidence_max) v.evidence.push_back(line_of(ledger[row]));
      }
    };
    // An empty key is no key in our ledger (SQL NULL); the vendor tells a
    // request without a key from one with an empty key.
    report(
        local_ledger,
        [&](std::size_t i) {
          const ev::name_id key = local_ledger.raw(i).key;
          return key == 0 ? std::nullopt : std::optional<ev::name_id>(key);
        },
        local_line, "our ledger");
    for (const money_book& b : books)
      report(
          *b.ledger,
          [&](std::size_t i) {
            const refund_ledger::row& r = b.ledger->raw(i);
            return r.has_key ? std::optional<ev::name_id>(r.key) : std::nullopt;
          },
          [&](const vendor_refund& r) { return vendor_line(b, r); },
          b.step_name == "refund" ? std::string("the vendor's ledger") : "the ledger of " + std::string(b.step_name));
    if (repeated_count > 1) v.detail += and_more(repeated_count - 1, "repeated key", "repeated keys");
    out.push_back(std::move(v));
  }
  // The money tools this world uses (a step calls it or it holds a row): the
  // money verdicts speak of these, not of refunds in a world without any.
  std::vector<const money_book*> used;
  for (const money_book& b : books)
    if (b.ledger->size() > 0 || !b.targets.asked.empty()) used.push_back(&b);
  const bool only_refunds = used.size() == 1 && used[0]->step_name == "refund";
  {
    verdict v{std::string(no_double_payment), true,
              used.empty()   ? std::string("no tool moves money: nothing could be paid twice")
              : only_refunds ? std::string("no invoice was refunded more than its jobs asked for")
                             : "no target was paid more than its jobs asked for",
              {}, {}};
    std::size_t overpaid_count = 0;
    bool only_invoices = true;  // the refund tool's targets are invoices; another's are its own
    for (const money_book& b : books) {
      std::vector<std::uint32_t> overpaid;
      for (std::uint32_t id = 0; id < b.targets.paid.size(); ++id)
        if (b.targets.paid[id] > b.targets.asked[id]) overpaid.push_back(id);
      overpaid = sorted_by_name(std::move(overpaid), b.targets.ids);
      overpaid_count += overpaid.size();
      if (!overpaid.empty() && b.step_name != "refund") only_invoices = false;
      for (const std::uint32_t id : overpaid) {
        const sv target = b.targets.ids.name(id);
        if (v.held)
          v.detail = fmt::format("{} but asked {}", moved(b, target, b.targets.paid[id]), money(b.targets.asked[id]));
        v.held = false;
        for (std::size_t i = 0; i < b.ledger->size() && v.evidence.size() < options_.evidence_max; ++i)
          if (names.text(b.ledger->raw(i).invoice) == target) v.evidence.push_back(vendor_line(b, (*b.ledger)[i]));
      }
    }
    if (overpaid_count > 1)
      v.detail += only_invoices ? and_more(overpaid_count - 1, "overpaid invoice", "overpaid invoices")
                                : and_more(overpaid_count - 1, "overpaid target", "overpaid targets");
    out.push_back(std::move(v));
  }
  {
    // Whose ledger ours is held against: the payment vendor's, a money tool's
    // of the scenario's own, or every far side's at once.
    const std::string theirs_name = used.size() != 1 ? std::string("the far sides'")
                                    : only_refunds   ? std::string("the vendor's")
                                                     : "the " + std::string(used[0]->step_name) + " tool's";
    verdict v{std::string(ledgers_agree), true,
              used.empty() ? std::string("no tool moves money: there is no far side's ledger to hold ours against")
                            : fmt::format("for every job, our ledger and {} hold the same total", theirs_name),
              {}, {}};
    // Every job either ledger names, each once. A vendor refund of an invoice
    // no job names counts against a job of its own, "(unknown invoice inv_9)".
    text_ids jobs(names);
    std::vector<std::int64_t> ours, theirs;
    auto job_id = [&](sv job) {
      const std::uint32_t id = jobs.intern(job);
      if (id == ours.size()) {
        ours.push_back(0);
        theirs.push_back(0);
      }
      return id;
    };
    for (money_book& b : books) {
      std::map<std::uint32_t, std::uint32_t> unknown_job_of_invoice;
      for (std::size_t i = 0; i < b.ledger->size(); ++i) {
        const refund_ledger::row& r = b.ledger->raw(i);
        const std::uint32_t invoice = b.targets.intern_name(r.invoice);
        std::uint32_t job = 0;
        if (const auto& owner = b.targets.owner[invoice]) {
          job = job_id(*owner);
        } else {
          auto [it, fresh] = unknown_job_of_invoice.emplace(invoice, 0);
          if (fresh)  // copied: no name
            it->second = job_id(b.step_name == "refund" ? "(unknown invoice " + std::string(names.text(r.invoice)) + ")"
                                                        : "(unknown " + std::string(b.step_name) + " target " +
                                                              std::string(names.text(r.invoice)) + ")");
          job = it->second;
        }
        add_cents(theirs[job], r.amount_cents);
      }
    }
    for (std::size_t i = 0; i < local_ledger.size(); ++i) {
      const ledger_table::row& l = local_ledger.raw(i);
      add_cents(ours[job_id(names.text(l.job))], l.amount_cents);
    }
    std::vector<std::uint32_t> disagree;
    for (std::uint32_t id = 0; id < ours.size(); ++id)
      if (ours[id] != theirs[id]) disagree.push_back(id);
    disagree = sorted_by_name(std::move(disagree), jobs);
    for (const std::uint32_t id : disagree) {
      const sv job = jobs.name(id);
      if (v.held)
        v.detail = fmt::format("{}: our ledger {}, {} {}", job, money(ours[id]), theirs_name, money(theirs[id])) +
                   and_more(disagree.size() - 1, "job", "jobs");
      v.held = false;
      if (v.evidence.size() < options_.evidence_max)
        v.evidence.push_back(fmt::format("{}: local {} vs vendor {}", job, money(ours[id]), money(theirs[id])));
    }
    out.push_back(std::move(v));
  }
  {
    verdict v{std::string(every_job_ends), result.all_jobs_ended, "every job ended: done, failed or dead-lettered", {}, {}};
    if (!v.held) {
      std::vector<std::string> open;  // in id order
      w.jobs().for_each_end([&open](sv job, job_end end) {
        if (end == job_end::open) open.emplace_back(job);
      });
      std::sort(open.begin(), open.end());
      for (std::size_t i = 0; i < open.size() && i < options_.evidence_max; ++i)
        v.evidence.push_back(open_job_line(w, open[i]));
      v.detail = fmt::format("the run stopped ({}) at {} with {} still open", sim::to_string(result.reason),
                             clock(result.now), count_of(open.size(), "job", "jobs"));
    }
    out.push_back(std::move(v));
  }
  {
    const std::optional<std::string> unjudged = lost_messages(w, result);
    verdict v = streaming(no_message_lost,
                          "no message was lost before its job was processed (deleted by retention, lost with the "
                          "process that held it, or acked before it ran)",
                          "a message was lost before its job was processed");
    if (unjudged) {
      v.judged = false;
      v.detail = *unjudged;
    }
    out.push_back(std::move(v));
  }
  {
    std::string bounds;
    if (alarms_.oldest_message_age)
      bounds = "its oldest message younger than " + sim::format_duration(*alarms_.oldest_message_age);
    if (alarms_.backlog)
      bounds += fmt::format("{}at most {} messages visible", bounds.empty() ? "" : " and ", *alarms_.backlog);
    out.push_back(streaming(backlog_within_bound,
                            bounds.empty() ? std::string("no alarm set on the job queue ([alarms])")
                                           : "every sample of the job queue found " + bounds,
                            "a sample of the job queue set off an alarm"));
  }
  out.push_back(streaming(backoff_within_cap, "every backoff stayed under its cap and the envelope never fell",
                          "a backoff broke its cap or its envelope fell"));
  out.push_back(streaming(no_retry_of_non_retryable, "no job was retried after a non-retryable (4xx) answer",
                          "a job was retried after a non-retryable answer"));
  out.push_back(streaming(attempts_monotonic, "each job's attempt numbers only went up",
                          "a job's attempt counter repeated or went backwards"));
  out.push_back(streaming(attempts_within_limit,
                          attempt_limit_ == 0
                              ? std::string("retry.maximum_attempts is unlimited")
                              : fmt::format("no job started more attempts than retry.maximum_attempts = {}", attempt_limit_),
                          "a job started more attempts than retry.maximum_attempts allows"));
  out.push_back(streaming(leases_exclusive, "no two overlapping slices of a job both made a new write",
                          "two slices of one job overlapped and both wrote"));
  out.push_back(streaming(drain_kills_nothing, "no drain ended with a slice in flight",
                          "a drain ended with a slice in flight, killed mid-step"));
  out.push_back(streaming(database_not_stalled,
                          "no transaction waited longer than " + sim::format_duration(options_.stall_bound) +
                              " for a connection",
                          "a transaction waited too long for a connection: the pool was exhausted"));
  {
    // The other half of exactly once: a job reported done must have had its
    // effect. Catches the refund lost by checkpointing before the call.
    verdict v{std::string(done_jobs_paid_in_full), true,
              used.empty()   ? std::string("no tool moves money: no job has a money step to pay")
              : only_refunds ? std::string("every job that ended done was refunded in full")
                             : "every job that ended done had each money step in full",
              {}, {}};
    std::size_t unpaid_jobs = 0;
    for_each_job(w.config(), [&](const job_spec& job) {
      if (w.jobs().end_of(job.id) != job_end::done) return;
      bool unpaid = false;
      for (const step_spec& step : job.steps) {
        const money_book* b = book_of(step.tool);
        if (b == nullptr) continue;
        const std::int64_t paid = b->targets.paid_for(step.target);
        const std::int64_t asked = b->targets.asked_for(step.target);
        if (paid >= asked) continue;
        if (v.held)
          v.detail = fmt::format("{} ended done but {} of {}", job.id, moved(*b, step.target, paid), money(asked));
        v.held = false;
        unpaid = true;
        if (v.evidence.size() < options_.evidence_max)
          v.evidence.push_back(fmt::format("{}: done; vendor {}s for {}: {} of {}", job.id, b->step_name, step.target,
                                           money(paid), money(asked)));
      }
      if (unpaid) ++unpaid_jobs;
    });
    if (unpaid_jobs > 1) v.detail += and_more(unpaid_jobs - 1, "job", "jobs");
    out.push_back(std::move(v));
  }
  out.push_back(streaming(one_effect_per_step, "no job step had its write tool's effect twice",
                          "a job step had its effect twice (an email sent twice, a file uploaded twice ...)"));
  out.push_back(effects_of_done_jobs(w));
  out.push_back(tenants_served(w, result));
  return out;
}

}  // namespace twice
