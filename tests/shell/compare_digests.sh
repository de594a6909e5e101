#!/usr/bin/env bash
# The determinism check across compilers and build types: two builds of
# `twice` (say gcc release and clang debug) must tell every catalogue
# scenario's story identically, down to the trace digest.
# Usage: compare_digests.sh TWICE_A TWICE_B [SCENARIO.toml...]
#        (default: every scenarios/*.toml of this source tree)
set -euo pipefail
if (($# < 2)); then
  echo "usage: $0 TWICE_A TWICE_B [SCENARIO.toml...]" >&2
  exit 2
fi
first=$(realpath "$1")
second=$(realpath "$2")
shift 2
cd "$(dirname "$0")/../.."
scenarios=("$@")
((${#scenarios[@]})) || scenarios=(scenarios/*.toml)

# One line per scenario: path, exit status, how the run ended, events, digest.
# A run per file, so each line holds exactly one top-level trace_digest.
digests() {
  local twice=$1 scenario json status
  for scenario in "${scenarios[@]}"; do
    status=0
    json=$("$twice" run "$scenario" --json) || status=$?
    if ((status > 1)); then
      echo "$twice run $scenario failed with exit status $status" >&2
      return 1
    fi
    field() { grep -oE "\"$1\":(\"[^\"]*\"|[0-9]+)" <<<"$json" | head -n1 | cut -d: -f2 | tr -d '"'; }
    echo "$scenario exit=$status end=$(field end) events=$(field events) digest=$(field trace_digest)"
  done
}

listing_a=$(mktemp)
listing_b=$(mktemp)
trap 'rm -f "$listing_a" "$listing_b"' EXIT
digests "$first" >"$listing_a"
digests "$second" >"$listing_b"
if grep -q 'digest=$' "$listing_a"; then
  echo "compare_digests: no trace_digest in the JSON output of $first" >&2
  exit 1
fi
if ! diff -u --label "$first" --label "$second" "$listing_a" "$listing_b"; then
  echo "compare_digests: the two builds disagree (lines above)" >&2
  exit 1
fi
echo "digests: ${#scenarios[@]} scenarios, identical under $first and $second"
