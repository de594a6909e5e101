#pragma once
// An iterator over a table whose rows are made when read (`table[i]`
// returns a value, not a reference): compact tables that keep ids and
// numbers and rebuild a row of strings for a reader. Input-iterator
// operations only, which is what range-for and the one-pass algorithms use.

#include <cstddef>
#include <iterator>

namespace twice::sim {

template <class Table, class Value>
class value_iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Value;

  value_iterator(const Table* table, std::size_t at) : table_(table), at_(at) {}
  Value operator*() const { return (*table_)[at_]; }
  value_iterator& operator++() {
    ++at_;
    return *this;
  }
  value_iterator operator++(int) {
    value_iterator before = *this;
    ++at_;
    return before;
  }
  friend bool operator==(const value_iterator&, const value_iterator&) = default;

 private:
  const Table* table_;
  std::size_t at_;
};

}  // namespace twice::sim
