#!/usr/bin/env bash
# The installed API stays what a user needs: the world's concrete models,
# listed in tests/layers/private_models.txt with the private header each
# lives in, are defined there and nowhere under include/twice/ (a public
# header may forward-declare one). A listed class whose header is gone, or
# that its header no longer defines, is an error too, so the list stays true.
#   usage: check_public_headers.sh SOURCE_ROOT
set -euo pipefail
root=${1:?usage: check_public_headers.sh SOURCE_ROOT}
cd "$root"
list=tests/layers/private_models.txt
failures=0
fail() { echo "$1"; failures=$((failures + 1)); }
# A definition (not a forward declaration): "class NAME" or "struct NAME",
# maybe final, maybe with bases, then "{" on the line or on one that follows.
definitions() {  # definitions NAME FILE...: file:line:text of each
  grep -HnE "^[[:space:]]*(class|struct)[[:space:]]+$1([[:space:]]+final)?([[:space:]]*:[^;]*)?[[:space:]]*(\{.*)?$" "${@:2}" || true
}
mapfile -d '' public < <(find include/twice -name '*.hpp' -print0 | sort -z)
while read -r name home _; do
  [[ -z $name || $name == \#* ]] && continue
  if [[ ! -f $home ]]; then
    fail "$list: $name: $home does not exist"
  elif [[ -z $(definitions "$name" "$home") ]]; then
    fail "$list: $name: $home does not define it"
  fi
  while IFS=: read -r file line _; do
    [[ -n $file ]] && fail "$file:$line: defines $name, a concrete model: it belongs in $home ($list)"
  done < <(definitions "$name" "${public[@]}")
done <"$list"
((failures == 0))
