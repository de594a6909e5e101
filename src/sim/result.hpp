#pragma once
// A value or a user-facing error message. Programmer errors assert
// (TWICE_CHECK); errors caused by user input (a bad duration, a malformed
// scenario) are values of this type so callers can locate and report them.

#include <optional>
#include <string>
#include <utility>

#include <twice/sim/check.hpp>

namespace twice::sim {

template <class T>
class result {
 public:
  static result success(T value) { return result(std::move(value), {}); }
  static result failure(std::string message) {
    TWICE_CHECK(!message.empty());
    return result(std::nullopt, std::move(message));
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const {
    TWICE_CHECK(ok());
    return *value_;
  }
  const std::string& error() const {
    TWICE_CHECK(!ok());
    return error_;
  }

 private:
  result(std::optional<T> value, std::string error) : value_(std::move(value)), error_(std::move(error)) {}
  std::optional<T> value_;
  std::string error_;
};

}  // namespace twice::sim
