#include <twice/sim/fp_math.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cfloat>
#include <cstdint>
#include <limits>

// Excess precision (x87 evaluating doubles in 80 bits) would round every
// step below differently from SSE2, NEON or any other IEEE double unit.
static_assert(FLT_EVAL_METHOD == 0, "twice needs doubles evaluated in double precision (FLT_EVAL_METHOD == 0)");
static_assert(std::numeric_limits<double>::is_iec559, "twice needs IEEE 754 binary64 doubles");

namespace twice::sim::fp_math {

namespace {

// std::bit_cast where the standard library has it; the libc++ of Debian's
// emscripten 3.1.6 (scripts/web.sh) does not, and clang's builtin is what
// it would call.
template <class To, class From>
constexpr To bits_as(const From& from) noexcept {
#if defined(__cpp_lib_bit_cast)
  return std::bit_cast<To>(from);
#else
  return __builtin_bit_cast(To, from);
#endif
}

// Method and sources.
//
// Both functions reduce the argument so that a short polynomial applies
// (Cody and Waite, "Software Manual for the Elementary Functions", 1980:
// x = k*ln2 + r with ln2 split into a part whose multiples are exact and a
// correction), and finish in double-double arithmetic so that the only
// sizeable error is the final rounding of a sum whose tail is known to
// about 2^-60 relative. The error-free transformations are the classical
// ones (Knuth, TAOCP vol. 2, 4.2.2, for two_sum; Dekker, "A floating-point
// technique for extending the available precision", 1971, for fast_two_sum
// and the split product), as presented in Muller et al., "Handbook of
// Floating-Point Arithmetic", ch. 4. The logarithm's reduction to
// s = f / (2 + f) and the identity log(1+f) = f - f^2/2 + s*(f^2/2 + R)
// follow fdlibm's e_log.c (Sun Microsystems, 1993). The polynomials are
// plain Taylor series (coefficients 1/n! and 2/(2n+1), rounded once at
// compile time), taken far enough that truncation is below 2^-62 relative on
// the reduced range: longer than a minimax fit, but every coefficient can
// be checked by eye.

struct double_double {
  double hi;
  double lo;  // hi + lo is the exact value; |lo| <= ulp(hi) / 2
};

// a + b exactly, any magnitudes (Knuth's TwoSum, 6 operations).
double_double two_sum(double a, double b) {
  const double s = a + b;
  const double b_virtual = s - a;
  const double a_virtual = s - b_virtual;
  return {s, (a - a_virtual) + (b - b_virtual)};
}

// a + b exactly when |a| >= |b| (Dekker's FastTwoSum, 3 operations).
double_double fast_two_sum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}

// Veltkamp's split: a = hi + lo with each half fitting in 26 bits, so that
// products of halves are exact. Valid for |a| < 2^995 (callers pass values
// below 1).
double_double split(double a) {
  constexpr double splitter = 134217729.0;  // 2^27 + 1
  const double c = splitter * a;
  const double hi = c - (c - a);
  return {hi, a - hi};
}

// a * b exactly (Dekker's product, no FMA), barring underflow of the tail.
double_double two_prod(double a, double b) {
  const double p = a * b;
  const double_double as = split(a);
  const double_double bs = split(b);
  const double err = ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo;
  return {p, err};
}

// n / d to about 2^-104 relative, for d = d.hi + d.lo exactly: the quotient
// rounded, plus the rounded quotient of its exact residual.
double_double quotient(double n, double_double d) {
  const double q = n / d.hi;
  const double_double p = two_prod(q, d.hi);
  const double residual = ((n - p.hi) - p.lo) - q * d.lo;
  return {q, residual / d.hi};
}

// 2^n for -1022 <= n <= 1023, by building the exponent field.
double pow2(int n) { return bits_as<double>(static_cast<std::uint64_t>(n + 1023) << 52); }

// ln 2 = ln2_hi + ln2_lo + O(2^-102). ln2_hi is ln 2 rounded to 42
// significant bits, so k * ln2_hi is exact for |k| < 2^11 (every k either
// function produces); ln2_lo is the rest, rounded to double. Derived with
// mpmath at 300 bits: hi = nint(ln2 * 2^42) / 2^42, lo = double(ln2 - hi).
constexpr double ln2_hi = 0x1.62e42fefa3800p-1;
constexpr double ln2_lo = 0x1.ef35793c76730p-45;
constexpr double inv_ln2 = 0x1.71547652b82fep+0;  // 1 / ln 2 rounded; only chooses k

constexpr double infinity = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------- exp ----

constexpr double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }  // exact up to 22!

// 1/n! for n = 0..15, each the correctly rounded quotient (IEEE division,
// folded at compile time).
constexpr std::array<double, 16> inverse_factorials = [] {
  std::array<double, 16> c{};
  for (int n = 0; n < 16; ++n) c[static_cast<std::size_t>(n)] = 1.0 / factorial(n);
  return c;
}();

// q(r) = sum_{n=3}^{15} r^(n-3) / n!, so that e^r = 1 + r + r^2/2 + r^3 q(r).
// For |r| <= 0.3466 the first omitted term, r^16/16!, is below 2^-68.
double exp_cubic_factor(double r) {
  double q = inverse_factorials[15];
  for (std::size_t n = 14; n >= 3; --n) q = inverse_factorials[n] + r * q;  // Horner
  return q;
}

// e^(r_hi + r_lo) for |r_hi| <= 0.35, |r_lo| <= 2^-40 |r_hi| or tiny, as
// y in [0.70, 1.42] with error about 0.5 ulp: 1 + r + r^2/2 is summed
// exactly (r^2 by two_prod), leaving a tail of size < 0.009 whose error is
// ~2^-59; then one rounding.
double exp_reduced(double r_hi, double r_lo) {
  const double_double sq = two_prod(r_hi, r_hi);
  const double half_sq = 0.5 * sq.hi;  // exact halvings
  const double half_sq_err = 0.5 * sq.lo;
  const double_double a = fast_two_sum(1.0, r_hi);      // |r_hi| < 1
  const double_double b = fast_two_sum(a.hi, half_sq);  // a.hi >= 0.65 > half_sq
  const double cubic = r_hi * sq.hi * exp_cubic_factor(r_hi);
  // e^(r_hi + r_lo) = e^r_hi * (1 + r_lo + ...) ~ e^r_hi + r_lo * (1 + r_hi).
  const double tail = ((cubic + half_sq_err) + (a.lo + b.lo)) + r_lo * (1.0 + r_hi);
  return b.hi + tail;
}

// y * 2^k for y in [0.70, 1.42] and -1075 <= k <= 1024, with one rounding:
// the product is exact unless it overflows or is subnormal, and then the
// last multiplication is the only inexact step.
double scale_by_pow2(double y, int k) {
  if (k > 1023) return y * pow2(1023) * 2.0;           // k == 1024: may overflow to +inf
  if (k < -1000) return y * pow2(k + 64) * pow2(-64);  // first product exact, second rounds
  return y * pow2(k);
}

// ---------------------------------------------------------------- log ----

// R(z) = sum_{n=1}^{10} 2 z^n / (2n + 1), so that for s = f / (2 + f),
// log(1 + f) = log((1 + s) / (1 - s)) = 2s + s R(s^2). With s^2 <= 0.0295
// the first omitted term, relative to 2s, is below 2^-60.
constexpr std::array<double, 11> log_series_coefficients = [] {
  std::array<double, 11> c{};  // c[0] unused
  for (int n = 1; n <= 10; ++n) c[static_cast<std::size_t>(n)] = 2.0 / (2 * n + 1);
  return c;
}();

double log_series(double z) {
  double r = log_series_coefficients[10];
  for (std::size_t n = 9; n >= 1; --n) r = log_series_coefficients[n] + z * r;  // Horner
  return z * r;
}

// A positive, finite, nonzero x as 2^k * m with m in [sqrt(2)/2, sqrt(2)).
struct reduced_log_arg {
  int k;
  double m;
};

reduced_log_arg reduce_log_arg(double x) {
  constexpr std::uint64_t fraction_mask = (std::uint64_t{1} << 52) - 1;
  constexpr std::uint64_t exponent_of_one = std::uint64_t{1023} << 52;
  int k = 0;
  std::uint64_t bits = bits_as<std::uint64_t>(x);
  if (bits <= fraction_mask) {  // subnormal: scale into the normal range first (exact)
    bits = bits_as<std::uint64_t>(x * 0x1p54);
    k = -54;
  }
  k += static_cast<int>(bits >> 52) - 1023;
  double m = bits_as<double>((bits & fraction_mask) | exponent_of_one);  // [1, 2)
  if (m > 0x1.6a09e667f3bcdp+0) {                                        // sqrt(2) rounded; any nearby cut would do
    m *= 0.5;                                                            // exact
    k += 1;
  }
  return {k, m};
}

}  // namespace

double exp(double x) {
  if (x != x) return x;            // NaN
  if (x > 709.8) return infinity;  // e^709.79 > DBL_MAX; also +inf
  if (x < -745.2) return 0.0;      // e^-745.2 < 2^-1075, half the least subnormal; also -inf
  // k = round(x / ln2), by the round-to-nearest of adding 1.5 * 2^52 (exact
  // for |x / ln2| < 2^51). Any integer near x / ln2 works; this one keeps
  // |r| <= ln2 / 2 (plus a hair).
  constexpr double shifter = 0x1.8p52;
  const double kd = (x * inv_ln2 + shifter) - shifter;
  const int k = static_cast<int>(kd);  // |k| <= 1075, exact conversion
  // r = x - k ln2. x - k*ln2_hi is exact: both operands are multiples of
  // 2^-54 (or of ulp(x), if larger) and the difference is below 1/2.
  const double r_hi_exact = x - kd * ln2_hi;
  const double_double r = two_sum(r_hi_exact, -(kd * ln2_lo));
  return scale_by_pow2(exp_reduced(r.hi, r.lo), k);
}

double log(double x) {
  if (x != x) return x;                                          // NaN
  if (x < 0.0) return std::numeric_limits<double>::quiet_NaN();  // includes -inf
  if (x == 0.0) return -infinity;                                // +0 and -0
  if (x == infinity) return infinity;
  const reduced_log_arg a = reduce_log_arg(x);
  const double f = a.m - 1.0;  // exact (Sterbenz: m in [1/2, 2])
  const double_double s = quotient(f, fast_two_sum(2.0, f));
  const double r = log_series(s.hi * s.hi);
  // log(1 + f) = 2s + s R, and 2s = f - s f = f - f^2/2 + s f^2/2 because
  // s (2 + f) = f. So
  //   log x = k ln2_hi + f - f^2/2 + s (f^2/2 + R) + k ln2_lo,
  // and the four large terms (k ln2_hi, f, f^2/2 and the product, below 0.019)
  // are summed exactly; what is left is tiny, so the final rounding is the
  // only error of size (the inexact sum f^2/2 + R costs < 0.02 ulp).
  // s.lo enters through the derivative of s (f^2/2 + R(s^2)) in s, which is
  // f^2/2 + 3R to first order (R ~ 2 s^2 / 3).
  const double_double half_f_sq = [&] {
    const double_double sq = two_prod(f, f);  // |f| >= 2^-53 or 0: no underflow
    return double_double{0.5 * sq.hi, 0.5 * sq.lo};
  }();
  const double_double product = two_prod(s.hi, half_f_sq.hi + r);
  const double kd = static_cast<double>(a.k);
  const double_double u = two_sum(kd * ln2_hi, f);  // kd * ln2_hi exact
  const double_double v = two_sum(u.hi, -half_f_sq.hi);
  const double_double w = two_sum(v.hi, product.hi);
  const double tiny = (s.lo * (half_f_sq.hi + 3.0 * r) + product.lo) + (kd * ln2_lo - half_f_sq.lo);
  return w.hi + (((u.lo + v.lo) + w.lo) + tiny);
}

}  // namespace twice::sim::fp_math
