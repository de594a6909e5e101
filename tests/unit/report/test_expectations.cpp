// report/expectations.hpp: a run meets its [expect] only if every invariant
// holds except those expected violated or ignored with a reason.

#include <catch2/catch.hpp>

#include "report/expectations.hpp"
#include <twice/scenario/scenario.hpp>

using namespace twice;

namespace {

run_summary summary_of(std::initializer_list<std::pair<const char*, bool>> verdicts) {
  run_summary s;
  for (const auto& [name, held] : verdicts) s.verdicts.push_back({name, held, held ? "fine" : "broke", {}, {}});
  return s;
}

}  // namespace

TEST_CASE("listing some invariants under hold does not excuse a violation of another", "[expect]") {
  // The double refund with `hold = ["every_job_ends"]`: the payment
  // invariant still broke, so the expectations are not met.
  expectations e;
  e.hold = {"every_job_ends"};
  const expectation_result r = evaluate(e, summary_of({{"no_double_payment", false}, {"every_job_ends", true}}));
  CHECK_FALSE(r.met);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0] == "no_double_payment was violated: broke");
}

TEST_CASE("an invariant expected violated must break, and the others must hold", "[expect]") {
  expectations e;
  e.violated = {"no_double_payment"};
  CHECK(evaluate(e, summary_of({{"no_double_payment", false}, {"ledgers_agree", true}})).met);
  const expectation_result held = evaluate(e, summary_of({{"no_double_payment", true}, {"ledgers_agree", true}}));
  CHECK_FALSE(held.met);
  CHECK(held.failures == std::vector<std::string>{"no_double_payment was expected to be violated, but held"});
  const expectation_result other = evaluate(e, summary_of({{"no_double_payment", false}, {"ledgers_agree", false}}));
  CHECK_FALSE(other.met);
  CHECK(other.failures == std::vector<std::string>{"ledgers_agree was violated: broke"});
  CHECK(other.expected_violated == std::vector<std::string>{"no_double_payment"});
}

TEST_CASE("an ignored invariant does not count either way, and its reason is reported", "[expect]") {
  expectations e;
  e.ignore = {{"every_job_ends", "the vendor never recovers in this story"}};
  for (const bool held : {true, false}) {
    const expectation_result r = evaluate(e, summary_of({{"every_job_ends", held}, {"ledgers_agree", true}}));
    CHECK(r.met);
    REQUIRE(r.ignored.size() == 1);
    CHECK(r.ignored[0].held == held);
    CHECK(describe(r.ignored[0]) == std::string("every_job_ends ignored (") + (held ? "held" : "violated") +
                                        "): the vendor never recovers in this story");
  }
  // Ignoring one invariant does not excuse another.
  CHECK_FALSE(evaluate(e, summary_of({{"every_job_ends", false}, {"ledgers_agree", false}})).met);
}

TEST_CASE("an empty [expect] asks every invariant to hold", "[expect]") {
  CHECK(evaluate(expectations{}, summary_of({{"one_effect_per_step", true}})).met);
  CHECK_FALSE(evaluate(expectations{}, summary_of({{"one_effect_per_step", false}})).met);
}

TEST_CASE("a verdict not judged passes neither as held nor as violated", "[expect]") {
  run_summary s = summary_of({{"no_message_lost", true}});
  s.verdicts[0].judged = false;
  s.verdicts[0].detail = "not judged: 3 dead letters still held when the run stopped";
  expectations hold;
  hold.hold = {"no_message_lost"};
  const expectation_result as_held = evaluate(hold, s);
  CHECK_FALSE(as_held.met);
  CHECK(as_held.failures ==
        std::vector<std::string>{"no_message_lost was not judged: 3 dead letters still held when the run stopped"});
  expectations broke;
  broke.violated = {"no_message_lost"};
  CHECK_FALSE(evaluate(broke, s).met);
  // Ignored with a reason, it is reported as not judged.
  expectations ignored;
  ignored.ignore = {{"no_message_lost", "the run is too short for retention"}};
  const expectation_result r = evaluate(ignored, s);
  CHECK(r.met);
  REQUIRE(r.ignored.size() == 1);
  CHECK(describe(r.ignored[0]) == "no_message_lost ignored (unjudged): the run is too short for retention");
}
