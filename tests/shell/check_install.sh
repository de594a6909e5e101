#!/usr/bin/env bash
# `cmake --install` into a temporary prefix places the binary, both
# completions and the man page where shells and man look for them.
# Usage: check_install.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
failures=0
for file in bin/twice share/bash-completion/completions/twice share/zsh/site-functions/_twice share/man/man1/twice.1; do
  if [[ -f $prefix/$file ]]; then
    echo "ok: $file"
  else
    echo "FAIL: $file not installed"
    failures=$((failures + 1))
  fi
done
"$prefix/bin/twice" --version | grep -q '^twice ' || { echo "FAIL: the installed twice does not run"; failures=$((failures + 1)); }
((failures == 0))
