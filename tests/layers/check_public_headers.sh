#!/usr/bin/env bash
# The installed API stays what a user needs. tests/layers/public_pending.txt
# lists the headers that are public today only because a contract header
# still includes them (each exposes a concrete model), each with the
# contract headers that include it. Every other header under include/twice/
# is the contract: it may include a pending header only where that line
# names it. The list only shrinks: a listed header that is no longer public,
# or a listed includer that no longer includes it, is an error too, so each
# fix removes its words (the issue is done when the file is empty).
#   usage: check_public_headers.sh SOURCE_ROOT
set -euo pipefail
root=${1:?usage: check_public_headers.sh SOURCE_ROOT}
cd "$root"
list=tests/layers/public_pending.txt
failures=0
fail() { echo "$1"; failures=$((failures + 1)); }
declare -A pending=() allowed=()
while read -r name includers; do
  includers=${includers%%#*}
  [[ -z $name || $name == \#* ]] && continue
  pending[$name]=1
  [[ -f include/twice/$name ]] || fail "$list: $name is no longer public: remove its line"
  for includer in $includers; do
    allowed[$includer>$name]=1
    grep -Eq "^[[:space:]]*#[[:space:]]*include[[:space:]]*<twice/$name>" "include/twice/$includer" 2>/dev/null ||
      fail "$list: $includer no longer includes $name: remove it from the line"
  done
done <"$list"
while IFS= read -r header; do
  name=${header#include/twice/}
  [[ -n ${pending[$name]+set} ]] && continue
  while IFS=: read -r line text; do
    [[ $text =~ \<twice/([^\>]+)\> ]] || continue
    target=${BASH_REMATCH[1]}
    if [[ -n ${pending[$target]+set} && -z ${allowed[$name>$target]+set} ]]; then
      fail "$header:$line: includes <twice/$target>, which exposes a concrete model ($list)"
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$header" || true)
done < <(find include/twice -name '*.hpp' | sort)
((failures == 0))
