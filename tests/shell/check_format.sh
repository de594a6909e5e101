#!/usr/bin/env bash
# Every C++ file git tracks is as .clang-format has it: prints each file that
# is not (with clang-format's own diagnostics), exits 1 if any.
#   usage: check_format.sh SOURCE_ROOT
set -euo pipefail
root=${1:?usage: check_format.sh SOURCE_ROOT}
cd "$root"
command -v clang-format >/dev/null || { echo "clang-format is not installed (scripts/setup.sh installs it)"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
((${#files[@]})) || { echo "no C++ files found under $root"; exit 1; }
clang-format --dry-run --Werror "${files[@]}"
