#!/usr/bin/env bash
# `cmake --install` into a temporary prefix places the binary, both
# completions and the man page where shells and man look for them, and the
# library: public headers, static libraries and the CMake package.
# Usage: check_install.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
failures=0
files=(bin/twice share/bash-completion/completions/twice share/zsh/site-functions/_twice share/man/man1/twice.1
       include/twice/twice.hpp include/twice/world/world.hpp include/twice/cli/main.hpp
       lib/cmake/twice/twiceConfig.cmake lib/cmake/twice/twiceConfigVersion.cmake lib/cmake/twice/twiceTargets.cmake)
for lib in sim models checks lint scenario report explore cli app; do
  files+=("lib/libtwice_$lib.a")
done
for file in "${files[@]}"; do
  if [[ -f $prefix/$file ]]; then
    echo "ok: $file"
  else
    echo "FAIL: $file not installed"
    failures=$((failures + 1))
  fi
done
# Private headers stay in the source tree.
if [[ -e $prefix/include/twice/cli/app.hpp ]] || grep -rn '#[[:space:]]*include[[:space:]]*"' "$prefix/include/twice"; then
  echo "FAIL: a private header is installed, or an installed header includes one"
  failures=$((failures + 1))
fi
"$prefix/bin/twice" --version | grep -q '^twice ' || { echo "FAIL: the installed twice does not run"; failures=$((failures + 1)); }
((failures == 0))
