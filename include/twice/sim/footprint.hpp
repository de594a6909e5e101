#pragma once
// What a model holds, in bytes, as this build lays it out: the measure the
// memory budget (world_config::memory_budget) is checked against. It is
// computed from what the models hold, never read from the process, so a run
// stops at the same event with or without a profiler, on every build for one
// platform (a 32-bit target lays its containers out smaller).
//
// An estimate, on purpose: a container's own arrays are counted exactly, a
// tree node and a heap block carry fixed overheads, and text inside an
// element is counted by the caller where it can grow without bound.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace twice::sim {

inline constexpr std::uint64_t heap_block_overhead = 16;  // malloc's header and rounding, on average
inline constexpr std::uint64_t tree_node_links = 32;      // a red-black node's three links and its colour

template <class T>
std::uint64_t footprint_of(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

template <class T>
std::uint64_t footprint_of(const std::deque<T>& d) {
  return d.size() * sizeof(T);
}

// A std::map or std::set: a node per element.
template <class Tree>
std::uint64_t tree_footprint(const Tree& t) {
  return t.size() * (sizeof(typename Tree::value_type) + tree_node_links + heap_block_overhead);
}

// The heap block behind a std::string, if its text does not fit inside it.
inline std::uint64_t footprint_of(const std::string& s) {
  return s.capacity() > 15 ? s.capacity() + 1 + heap_block_overhead : 0;
}

}  // namespace twice::sim
