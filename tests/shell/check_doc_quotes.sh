#!/usr/bin/env bash
# A document's quoted code is the code that is compiled and run. Each
#   <!-- quote: FILE#NAME -->
# line in DOC must be followed by a fenced block whose lines are exactly
# those between `// --8<-- [start:NAME]` and `// --8<-- [end:NAME]` in FILE
# (relative to SOURCE_ROOT; `#` in place of `//` in a script or YAML), less
# their common indentation.
#   usage: check_doc_quotes.sh SOURCE_ROOT DOC
set -euo pipefail
root=${1:?usage: check_doc_quotes.sh SOURCE_ROOT DOC} doc=${2:?usage: check_doc_quotes.sh SOURCE_ROOT DOC}
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
quotes=0
# block FILE NAME: the marked lines, dedented.
block() {
  awk -v name="$2" '
    index($0, "--8<-- [end:" name "]") { inside = 0 }
    inside { lines[n++] = $0 }
    index($0, "--8<-- [start:" name "]") { inside = 1 }
    END {
      indent = -1
      for (i = 0; i < n; i++) {
        if (lines[i] ~ /^[[:space:]]*$/) continue
        match(lines[i], /^ */)
        if (indent < 0 || RLENGTH < indent) indent = RLENGTH
      }
      for (i = 0; i < n; i++) print (length(lines[i]) > indent ? substr(lines[i], indent + 1) : "")
    }' "$1"
}
while IFS=: read -r line spec; do
  quotes=$((quotes + 1))
  file=${spec%%#*} name=${spec#*#}
  if [[ ! -f $file ]] || ! grep -qF -- "--8<-- [start:$name]" "$file"; then
    echo "$doc:$line: quotes $file#$name, which has no such block"
    failures=$((failures + 1))
    continue
  fi
  block "$file" "$name" >"$work/want"
  # The fenced block after the quote line.
  awk -v from="$line" 'NR > from && /^```/ { if (open) exit; open = 1; next } open { print }' "$doc" >"$work/have"
  if ! diff -u "$work/want" "$work/have" >"$work/diff"; then
    echo "$doc:$line: the block differs from $file#$name (- the code, + the document):"
    cat "$work/diff"
    failures=$((failures + 1))
  fi
done < <(grep -n '^<!-- quote: .* -->$' "$doc" | sed -E 's/^([0-9]+):<!-- quote: (.*) -->$/\1:\2/')
((quotes > 0)) || { echo "$doc quotes no code (<!-- quote: FILE#NAME -->)"; exit 1; }
((failures == 0)) && echo "ok: $quotes quotes in $doc match their code"
