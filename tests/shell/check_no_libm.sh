#!/usr/bin/env bash
# No libm function whose result is not exactly specified may reach the
# schedule: exp, log, pow, the trigonometric functions and the rest differ in
# the last bit between libm versions and CPUs, so a draw computed with one
# would make the trace digest depend on the machine (sim/fp_math.hpp has the
# in-house exp and log). sqrt (correctly rounded by IEEE 754) and the exact
# operations (llround, floor, frexp, ...) are allowed.
# Usage: check_no_libm.sh STATIC_LIBRARY...
set -euo pipefail
inexact='(exp|exp2|expm1|log|log2|log10|log1p|logb|pow|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|cbrt|hypot|erf|erfc|tgamma|lgamma|sincos)[fl]?'
status=0
for lib in "$@"; do
  # Undefined symbols, one line per object: "lib.a:object.o:   U name". A
  # library nm cannot read fails the check (set -e) rather than passing it.
  symbols=$(nm -u -A "$lib")
  if found=$(grep -E "[[:space:]]U (__)?${inexact}(_finite)?$" <<<"$symbols"); then
    echo "libm calls in $(basename "$lib"):"
    echo "$found"
    status=1
  fi
done
[ $status -eq 0 ] && echo "no libm calls in: $(for l in "$@"; do basename "$l"; done | tr '\n' ' ')"
exit $status
