#!/usr/bin/env bash
# The generated bash completion, sourced into a fresh bash and driven the
# way readline drives it (COMP_WORDS, COMP_CWORD, then the function that
# `complete -p twice` names).
# Usage: check_bash_completion.sh COMPLETION_FILE
set -euo pipefail
script=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/sub"
touch "$work/a.toml" "$work/b.txt"

# $1: the command line up to the cursor; a trailing space means a new, empty word.
complete_line() {
  (cd "$work" && bash --norc --noprofile -c '
    source "$0"
    spec=$(complete -p twice)
    function=${spec#*-F }
    function=${function%% *}
    read -ra COMP_WORDS <<< "$1"
    [[ $1 == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=$1
    COMP_POINT=${#1}
    COMPREPLY=()
    "$function" twice "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"' "$script" "$1")
}

failures=0
expect() {  # $1: line, $2: the completions expected, space-separated and sorted
  local got
  got=$(complete_line "$1")
  if [[ $got != "$2" ]]; then
    echo "FAIL: '$1' completes to '$got', expected '$2'"
    failures=$((failures + 1))
  else
    echo "ok: '$1' -> '$got'"
  fi
}

expect "twice r" "run"
expect "twice run --re" "--report"
expect "twice run --check" "--check-determinism"
expect "twice e" "explore"
expect "twice help ex" "explore"
expect "twice run " "a.toml sub"             # scenario files and directories, not b.txt
expect "twice run --report " "a.toml b.txt sub"  # any file
expect "twice run --seed " ""                # a number: nothing to offer
expect "twice explore --out " "sub"
expect "twice explore --t" "--time-limit"
expect "twice incident --f" "--fixed"
((failures == 0))
