#pragma once
// What one run of `twice explore` changes in the scenario: its world seed,
// the values [explore.vary] draws from their ranges, and (in swarm mode) the
// fault kinds it keeps. A run is a pure function of (root seed, run index):
// everything it draws comes from the named stream "explore.run.<index>" of
// the root seed, in a fixed order (the world seed, 63 bits, then each range in key
// order, then one coin per fault kind in name order). No wall clock, no
// shared state: runs can be planned on any thread, in any order.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <twice/explore/run_genes.hpp>
#include "scenario/document.hpp"
#include <twice/scenario/explore_spec.hpp>
#include <twice/sim/random.hpp>

namespace twice::explore {

using scenario_detail::doc_node;

// The fault kinds present in a document, sorted by name:
//   fault:<point>:<action>   [[fault]] rules ("fault:after_tool:crash")
//   crash                    [[crash]]
//   deploy:<strategy>        [[deploy]] ("deploy:rolling_kill")
//   queue_fault:<kind>       [[queue_fault]] ("queue_fault:lose_delete")
//   vendor.outage, vendor.latency_spike, tools.<tool>.outage, tools.<tool>.latency_spike
//   vendor.error_rates.<name>, tools.<tool>.error_rates.unavailable   (when not zero)
std::vector<std::string> fault_kinds(const doc_node& root);

// The kind of one item of [[fault]], [[crash]], [[deploy]] or [[queue_fault]].
std::string fault_kind_of(std::string_view array, const doc_node& item);

// Removes every fault of one kind.
void remove_fault_kind(doc_node& root, std::string_view kind);

// The value a range drew, as the scenario file writes it.
doc_node value_node(explore_value kind, std::int64_t v);
// "12s", "0.25", "3"
std::string value_text(explore_value kind, std::int64_t v);
// Writes a value at its key path (a latency's `fixed` replaces the whole
// latency table). False when the path cannot be written.
bool apply_node(doc_node& root, const std::string& path, doc_node value);
// The same for a drawn value.
bool apply_value(doc_node& root, const std::string& path, explore_value kind, std::int64_t v);

// Sets the top-level seed (as a string of digits above 2^63 - 1, as the format allows).
void set_seed(doc_node& root, std::uint64_t seed);

struct run_plan {
  std::size_t index = 0;
  std::uint64_t world_seed = 0;
  std::vector<std::pair<std::string, std::string>> drawn;  // key path -> value text, in file order
  std::vector<std::string> kinds_kept;                     // the fault kinds this run kept
  std::vector<std::string> kinds_dropped;                  // swarm: the ones it left out
  doc_node doc;                                            // the concrete scenario the run loads
};

// `base` is the scenario without its [explore] table.
run_plan plan_run(const doc_node& base, const explore_spec& spec, std::uint64_t root_seed, std::size_t index);
// The same from genes drawn elsewhere (a guided run's). A fault kind present
// in the document that the genes do not name is kept.
run_plan plan_from_genes(const doc_node& base, const explore_spec& spec, const run_genes& genes, std::size_t index);
// The genes plan_run draws for run `index`.
run_genes draw_genes(const doc_node& base, const explore_spec& spec, std::uint64_t root_seed, std::size_t index);
// A near variant of `parent`: a new world seed always; each range redrawn,
// and each fault kind's coin flipped, with probability 1/4; drawn from `rng`.
run_genes mutate_genes(const doc_node& base, const explore_spec& spec, const run_genes& parent,
                       sim::random_stream& rng);

}  // namespace twice::explore
