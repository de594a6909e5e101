#!/usr/bin/env bash
# Every #include in include/twice/ and src/ against the layer order: a file
# may include the headers of its own layer and of the layers its layer
# depends on (directly or through others), never one above or beside it.
# A layer's public headers are include/twice/<layer>/ (included as
# <twice/<layer>/x.hpp>), its private ones and its sources src/<layer>/
# (private headers included as "<layer>/x.hpp", against src/).
#
# Beside the order: a public header includes only public headers and the
# standard library (no private header, no third-party one: an installed
# header must compile with nothing but twice's own); a public header is
# never included as if private; "../" paths are refused; and the core
# (sim and the models) stays free of threads, files and clocks, so it can
# be built for WebAssembly and stays deterministic.
#
#   usage: check_layers.sh SOURCE_ROOT
# Prints one line per violation, file:line first, and exits 1 if any.
set -euo pipefail
root=${1:?usage: check_layers.sh SOURCE_ROOT}

# Each layer's direct dependencies (keep in step with the libraries in
# src/CMakeLists.txt). `twice` is the facade, include/twice/twice.hpp.
declare -A deps=(
  [sim]=""
  [events]="sim"
  [tools]="sim"
  [broker]="events"
  [store]="events"
  [vendors]="tools events"
  [runtime]="tools broker store"
  [handlers]="runtime"
  [faults]="runtime"
  [world]="vendors handlers faults"
  [checks]="world"
  [lint]="world"
  [scenario]="checks lint"
  [report]="scenario"
  [explore]="scenario"
  [cli]="report explore"
  [twice]="cli"
  [testing]="scenario"
)
core="sim events tools broker store vendors runtime handlers faults world"
core_forbidden='^(thread|mutex|shared_mutex|atomic|condition_variable|future|stop_token|semaphore|latch|barrier|fstream|filesystem|iostream|chrono|ctime|time\.h|random|unistd\.h|sys/.*)$'
# What an installed header may not need: the libraries' dependencies are
# linked, never included, by a user of twice.
third_party='^(fmt|toml\+\+|nlohmann|CLI|catch2|rapidcheck|benchmark)/|^(xxhash\.h|rapidcheck\.h)$'
# but include/twice/testing/ is for a user's tests: it builds on their test
# frameworks (twice::testing links rapidcheck).
testing_frameworks='^(catch2|rapidcheck)/|^rapidcheck\.h$'

declare -A allowed=()
closure() {
  local dir=$1 dep
  for dep in ${deps[$dir]}; do
    [[ " ${allowed[$2]} " == *" $dep "* ]] && continue
    allowed[$2]+=" $dep"
    closure "$dep" "$2"
  done
}
for dir in "${!deps[@]}"; do
  allowed[$dir]=" $dir"
  closure "$dir" "$dir"
done

violations=0
violation() {
  echo "$1"
  violations=$((violations + 1))
}

check_order() {  # check_order FILE LINE LAYER TARGET
  local file=$1 line=$2 dir=$3 target=$4 top=${4%%/*}
  if [[ -z ${deps[$top]+set} ]]; then
    violation "$file:$line: $dir includes $target, from $top/, which is no layer (check_layers.sh lists them)"
  elif [[ " ${allowed[$dir]} " != *" $top "* ]]; then
    violation "$file:$line: $dir may not include $target (it may include:${allowed[$dir]})"
  fi
}

check_include() {  # check_include FILE LINE TEXT: FILE relative to the root
  local file=$1 line=$2 text=$3 dir target public=0
  case $file in
    include/twice/twice.hpp) dir=twice public=1 ;;
    include/twice/*) dir=${file#include/twice/} dir=${dir%%/*} public=1 ;;
    *) dir=${file#src/} dir=${dir%%/*} ;;
  esac
  if [[ $text =~ \#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
    target=${BASH_REMATCH[1]}
    if [[ $target == *..* ]]; then
      violation "$file:$line: \"$target\": include by layer (\"world/world_impl.hpp\", <twice/world/world.hpp>), never with \"..\""
    elif ((public)); then
      violation "$file:$line: a public header includes \"$target\": it may include only <twice/...> headers and the standard library"
    elif [[ $target != */* ]]; then
      return  # beside the file: its own directory
    elif [[ -f include/twice/$target ]]; then
      violation "$file:$line: \"$target\" is public: include it as <twice/$target>"
    elif [[ ! -f src/$target && -n ${deps[${target%%/*}]+set} ]]; then
      violation "$file:$line: \"$target\": no such private header (src/$target)"
    else
      check_order "$file" "$line" "$dir" "$target"
    fi
  elif [[ $text =~ \#[[:space:]]*include[[:space:]]*\<twice/([^\>]+)\> ]]; then
    target=${BASH_REMATCH[1]}
    if [[ ! -f include/twice/$target ]]; then
      violation "$file:$line: <twice/$target>: no such public header (a private one is included as \"$target\")"
    elif [[ $target == twice.hpp ]]; then
      violation "$file:$line: the facade <twice/twice.hpp> is for users of twice, never for twice itself"
    else
      check_order "$file" "$line" "$dir" "$target"
    fi
  elif [[ $text =~ \#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
    target=${BASH_REMATCH[1]}
    if [[ " $core " == *" $dir "* && $target =~ $core_forbidden ]]; then
      violation "$file:$line: $dir is in the core (sim and the models), which includes no <$target>: no threads, files or clocks"
    elif ((public)) && [[ $target =~ $third_party ]] && ! [[ $dir == testing && $target =~ $testing_frameworks ]]; then
      violation "$file:$line: a public header includes <$target>: an installed header needs nothing but twice and the standard library"
    fi
  fi
}

cd "$root"
shopt -s nullglob
layer_dirs=()
for path in include/twice/*/ src/*/; do
  path=${path%/}
  if [[ -z ${deps[${path##*/}]+set} || ${path##*/} == twice ]]; then
    violation "$path/: a directory with no place in the layer order (add it to check_layers.sh and src/CMakeLists.txt)"
  else
    layer_dirs+=("$path")
  fi
done
for path in include/twice/*; do
  [[ -d $path || $path == include/twice/twice.hpp ]] ||
    violation "$path: only the facade twice.hpp lives in include/twice/ itself; a layer's header goes in its directory"
done
[[ -f include/twice/twice.hpp ]] && layer_dirs+=(include/twice/twice.hpp)
while IFS=: read -r file line text; do
  check_include "$file" "$line" "$text"
done < <(grep -rHn --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.cc' \
              '^[[:space:]]*#[[:space:]]*include' "${layer_dirs[@]}" | sort -t: -k1,1 -k2,2n)

if ((violations > 0)); then
  echo "$violations include(s) against the layer order" >&2
  exit 1
fi
