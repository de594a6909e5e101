#!/usr/bin/env bash
# The generated man page renders without a single groff warning (-ww: all
# of them) and says what `twice --help` says.
# Usage: check_man_page.sh MAN_PAGE TWICE_BINARY
set -euo pipefail
page=$1
twice=$2
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
if [[ -n $warnings ]]; then
  echo "FAIL: groff warns:"
  echo "$warnings"
  exit 1
fi
text=$(groff -man -Tutf8 -ww -P -cbou "$page" 2>&1)
for section in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS "EXIT STATUS"; do
  grep -q "^$section\$" <<< "$text" || { echo "FAIL: no $section section"; exit 1; }
done
# Every command and every option of every command's --help is in the page.
for command in run lint explore sweep demo incident help; do
  grep -q "twice $command \[OPTIONS\]" <<< "$text" || { echo "FAIL: no synopsis of $command"; exit 1; }
  for option in $("$twice" "$command" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "$option" <<< "$text" || { echo "FAIL: $command's $option is not in the page"; exit 1; }
  done
done
echo "ok: the man page renders without warnings and has every command and option"
