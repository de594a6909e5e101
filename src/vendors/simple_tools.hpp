#pragma once
// The tools a slice calls besides the payment vendor: an email provider, an
// LLM call and a fast read. They share one small config and one call flow
// (simple_tool), built on the same far-side machinery as the payment vendor
// (vendors/remote_endpoint.hpp): the same timeouts, outages, latency spikes and
// per-request randomness, and traces under "vendor/<name>".
//
// Call flow: outage window -> 503 unavailable; random 503 -> unavailable;
// otherwise the request executes for the sampled latency (+ spikes open at
// arrival), the tool's effect happens at the end (an email is sent then), and
// the answer reaches the caller unless client_timeout passed first. No key is
// honoured: simple tools have no idempotency layer.
//
// Random draws per request (from the request's own stream, see
// remote_endpoint): unavailable (one bernoulli), then the latency sample.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kernel.hpp"
#include "sim/random.hpp"
#include "sim/task.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"
#include "tools/tool.hpp"
#include "vendors/latency_model.hpp"
#include "vendors/remote_endpoint.hpp"
#include "vendors/server_pool.hpp"

namespace twice {

struct simple_tool_config {
  std::string name;
  latency_model latency;
  std::uint32_t unavailable_ppm = 0;  // 503 before any effect, parts per million
  sim::duration client_timeout = sim::duration::from_s(30);
  sim::duration round_trip = sim::duration::from_ms(10);  // how long a 503 takes to come back
  std::vector<time_window> outages;
  std::vector<latency_spike> latency_spikes;
  server_pool_config pool;  // servers and their queue; none by default (unlimited)
};

// The shared call flow; each tool says what happens when an execution ends.
class simple_tool : public tool {
 public:
  simple_tool(const simple_tool&) = delete;
  simple_tool& operator=(const simple_tool&) = delete;

  std::string_view name() const final { return config_.name; }
  sim::task<tool_result> call(tool_call request) final;

  // Fault injection from outside.
  void add_outage(sim::instant begin, sim::instant end);
  void add_latency_spike(sim::instant begin, sim::instant end, sim::duration extra);

  const simple_tool_config& config() const { return config_; }
  const call_stats& stats() const { return stats_; }
  std::size_t request_records() const { return desk_.records_allocated(); }
  // Bytes the far side holds for requests in flight or waiting (sim/footprint.hpp):
  // a storm's abandoned requests queue here.
  std::uint64_t requests_footprint() const {
    return desk_.records_allocated() * (sizeof(execution) + 64) + pool_.footprint();
  }

 protected:
  // The tool must outlive every run of `k` (kernel callbacks point at it).
  simple_tool(sim::kernel& k, event_log& events, sim::random_stream rng, simple_tool_config config);
  ~simple_tool() override = default;

  // The far side's effect, at the end of an execution; returns the answer.
  virtual tool_result complete(std::uint64_t request_id, const tool_call& request) = 0;
  const remote_endpoint& endpoint() const { return endpoint_; }

 private:
  struct execution {
    std::uint64_t request_id = 0;
    tool_call request;
    sim::duration service;  // its sampled latency; a spike open when it starts adds to it
    sim::instant arrived;
  };

  // Opens the request's answer slot; a server starts it now, or it waits.
  std::uint32_t admit(std::uint64_t request_id, tool_call request, sim::duration latency);
  void start_execution(std::uint32_t slot);
  static void on_execution_done(sim::kernel& k, void* ctx, std::uint64_t slot);
  void finish_execution(std::uint32_t slot);

  simple_tool_config config_;
  call_stats stats_;  // before endpoint_, which keeps a reference to it
  remote_endpoint endpoint_;
  response_desk<execution> desk_;
  server_pool pool_;
  std::vector<server_pool::waiting> dropped_;  // scratch for release()
};

// ---- email -----------------------------------------------------------------

struct sent_email {
  std::string recipient;
  sim::instant sent_at;
  std::uint64_t request_id = 0;
  std::string reference;  // the caller's name for the request (job:step:tool)
};

// Sends every time it is asked: like most email providers it takes no
// idempotency key (accepts_key() == false) and ignores one if given. The
// defence against a duplicate email is a local dedupe record claimed before
// sending (see agent_handler), never the provider. The caller's reference
// travels with the email as metadata and is recorded, not deduplicated on.
class email_provider final : public simple_tool {
 public:
  static simple_tool_config default_config();  // "email", lognormal(p50=150ms, p99=1s)

  email_provider(sim::kernel& k, event_log& events, sim::random_stream rng,
                 simple_tool_config config = default_config());

  bool writes() const override { return true; }
  bool accepts_key() const override { return false; }

  // target = recipient.
  const std::vector<sent_email>& sent() const { return sent_; }
  std::uint64_t sent_count(std::string_view recipient) const;
  // Bytes held (sim/footprint.hpp): every email sent.
  std::uint64_t footprint() const;

 private:
  tool_result complete(std::uint64_t request_id, const tool_call& request) override;

  std::vector<sent_email> sent_;
  std::map<std::string, std::uint64_t, std::less<>> per_recipient_;
};

// ---- model -----------------------------------------------------------------

// An LLM call: read-only and slow (p99 20 s against a 30 s client timeout, so
// a slice holding a lease or a database transaction across it is the
// anti-pattern to show).
class model_tool final : public simple_tool {
 public:
  static simple_tool_config default_config();  // "model", lognormal(p50=4s, p99=20s)

  model_tool(sim::kernel& k, event_log& events, sim::random_stream rng,
             simple_tool_config config = default_config());

  bool writes() const override { return false; }
  bool accepts_key() const override { return false; }

 private:
  tool_result complete(std::uint64_t request_id, const tool_call& request) override;
};

// ---- read ------------------------------------------------------------------

// A fast read (a document, an account): read-only, so running it twice is
// harmless.
class read_tool final : public simple_tool {
 public:
  static simple_tool_config default_config();  // "read", lognormal(p50=5ms, p99=50ms)

  read_tool(sim::kernel& k, event_log& events, sim::random_stream rng,
            simple_tool_config config = default_config());

  bool writes() const override { return false; }
  bool accepts_key() const override { return false; }

 private:
  tool_result complete(std::uint64_t request_id, const tool_call& request) override;
};

}  // namespace twice
