#!/usr/bin/env bash
# The generated zsh completion parses, and zsh's completion system, given
# its directory in $fpath, picks it up for `twice` from its #compdef line.
# Usage: check_zsh_completion.sh COMPLETION_FILE
set -euo pipefail
file=$(realpath "$1")
zsh -n "$file"
got=$(zsh -fc 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -D; print -r -- ${_comps[twice]}' _ "$(dirname "$file")")
if [[ $got != _twice ]]; then
  echo "FAIL: compinit registered '$got' for twice, expected _twice"
  exit 1
fi
echo "ok: zsh -n passes and compinit binds twice to _twice"
