#pragma once
// exp and log for the simulator's draws, computed from IEEE 754 basic
// operations only (+ - * / on doubles, compares, and exact bit moves through
// std::bit_cast): no libm, no long double, no fused multiply-add. Basic
// operations round identically on every conforming machine, so these
// functions return the same bits on any compiler, library and CPU; libm's
// exp and log are not specified to the last bit (glibc's differ between
// versions, and between its FMA and non-FMA code paths on one x86-64 build).
//
// Requirements that the build states and the known-answer tests in
// tests/unit/sim/test_fp_math.cpp catch if broken: round-to-nearest-even (the default
// mode; nothing in the simulator changes it), no excess precision
// (FLT_EVAL_METHOD == 0, asserted at compile time: x87 builds are refused),
// and no contraction of a * b + c into an FMA (-ffp-contract=off in the
// top-level CMakeLists.txt; an FMA would make the error-free products below
// come out differently).
//
// Accuracy: both functions are within 1 ulp of the exact result over their
// whole domain. Measured against a 64-bit-mantissa reference on 20 million
// inputs per range, the worst errors are 0.53 ulp for exp with a normal
// result, 0.76 ulp for exp with a subnormal result (rounded twice, once to
// 53 bits and once to the subnormal's fewer; the simulator clamps such
// values to zero anyway) and 0.56 ulp for log; tests/unit/sim/test_fp_math.cpp
// asserts < 0.6 (< 1 for subnormal results). Neither they nor glibc's
// (about 0.51 ulp) are correctly rounded, so near rounding midpoints the two
// disagree by one ulp: for about 0.25% of exp arguments and 0.3-0.4% of log
// arguments in the ranges the simulator uses, never by more.
//
// There is no log1p: the one caller that needed it (exponential inversion)
// takes log(1 - u) for u = k * 2^-53, where 1 - u is exact, so log1p(-u)
// and log(1 - u) are the same number.

namespace twice::sim::fp_math {

// e^x. exp(NaN) = NaN, exp(+inf) = +inf, exp(-inf) = +0; overflows to +inf
// for x > 709.782712893384 (where e^x passes the largest double) and
// underflows to subnormals, then to +0 below about -745.13.
double exp(double x);

// Natural logarithm. log(NaN) = NaN, log(x) = NaN for every x < 0
// (including -inf), log(+0) = log(-0) = -inf, log(+inf) = +inf,
// log(1) = +0; subnormal arguments are handled like any other.
double log(double x);

}  // namespace twice::sim::fp_math
