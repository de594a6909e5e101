// fp_math properties (sim/fp_math.hpp): exp and log are monotone, including
// on neighbouring doubles, and exp(log(x)) comes back to x within the error
// that log's rounding makes exp amplify. The exact-bit and error-bound
// checks are in tests/unit/sim/test_fp_math.cpp.

#include <rapidcheck/catch.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <twice/sim/fp_math.hpp>

namespace fm = twice::sim::fp_math;

namespace {

constexpr std::uint64_t largest_finite_bits = 0x7fef'ffff'ffff'ffffULL;
constexpr std::uint64_t smallest_normal_bits = 0x0010'0000'0000'0000ULL;

// Positive finite doubles from bit patterns in [lo, largest finite]: every
// exponent about equally likely.
rc::Gen<double> positive_from_bits(std::uint64_t lo) {
  return rc::gen::map(rc::gen::inRange<std::uint64_t>(lo, largest_finite_bits + 1),
                      [](std::uint64_t bits) { return std::bit_cast<double>(bits); });
}

// Positive finite doubles, subnormals included.
rc::Gen<double> any_positive() { return positive_from_bits(1); }

// Any finite double.
rc::Gen<double> any_finite() {
  return rc::gen::map(rc::gen::pair(any_positive(), rc::gen::arbitrary<bool>()),
                      [](const std::pair<double, bool>& p) { return p.second ? -p.first : p.first; });
}

// Arguments where exp is neither 0 nor +inf nor 1 for every value.
rc::Gen<double> exp_argument() {
  return rc::gen::oneOf(rc::gen::map(rc::gen::inRange<std::int64_t>(-746'000'000, 710'000'000),
                                     [](std::int64_t n) { return static_cast<double>(n) * 1e-6; }),
                        any_finite());
}

std::uint64_t ulps_apart(double a, double b) {
  const auto x = std::bit_cast<std::int64_t>(a);  // both positive here: bit order is value order
  const auto y = std::bit_cast<std::int64_t>(b);
  return x > y ? static_cast<std::uint64_t>(x - y) : static_cast<std::uint64_t>(y - x);
}

}  // namespace

TEST_CASE("fp_math properties", "[fp_math]") {
  rc::prop("exp is monotone", [] {
    auto [x, y] = std::pair{*exp_argument(), *exp_argument()};
    if (y < x) std::swap(x, y);
    RC_ASSERT(fm::exp(x) <= fm::exp(y));
  });

  rc::prop("exp is monotone on neighbouring doubles", [] {
    const double x = *exp_argument();
    RC_ASSERT(fm::exp(x) <= fm::exp(std::nextafter(x, std::numeric_limits<double>::infinity())));
  });

  rc::prop("log is monotone", [] {
    auto [x, y] = std::pair{*any_positive(), *any_positive()};
    if (y < x) std::swap(x, y);
    RC_ASSERT(fm::log(x) <= fm::log(y));
  });

  rc::prop("log is monotone on neighbouring doubles", [] {
    const double x = *any_positive();
    RC_ASSERT(fm::log(x) <= fm::log(std::nextafter(x, std::numeric_limits<double>::infinity())));
  });

  rc::prop("exp(log(x)) is x within the amplified rounding of log", [] {
    // log(x) is off by < 0.6 ulp, i.e. by < 0.6 * 2^-52 * |log x| absolutely;
    // exp turns that into the same relative error of x, up to 1.2 |log x|
    // ulps of x, plus its own < 0.6 ulp. Normal x only: for subnormal x a
    // relative error is many ulps of the few significant bits left.
    const double x = *positive_from_bits(smallest_normal_bits);
    const double l = fm::log(x);
    const double bound = 2.0 + 1.2 * std::fabs(l);
    RC_ASSERT(static_cast<double>(ulps_apart(fm::exp(l), x)) <= bound);
  });
}
