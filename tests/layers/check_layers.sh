#!/usr/bin/env bash
# Every #include in sim/ and src/ against the layer order: a file may include
# the headers of its own directory and of the directories its directory
# depends on (directly or through others), never one above or beside it.
#
# The build enforces most of this by itself (each layer's library sees only
# its own and its dependencies' headers: twice_layer_headers in the top-level
# CMakeLists.txt). This also catches what the build cannot: a header that no
# .cpp of its own layer compiles, the order among the models' directories
# (one library, twice_models), and "../" paths. The core (sim/ and the
# models) also stays free of threads, files and clocks, so it can be built
# for WebAssembly and stays deterministic.
#
#   usage: check_layers.sh SOURCE_ROOT
# Prints one line per violation, file:line first, and exits 1 if any.
set -euo pipefail
root=${1:?usage: check_layers.sh SOURCE_ROOT}

# Each directory's direct dependencies (keep in step with the libraries in
# src/CMakeLists.txt: cli -> report, explore -> scenario -> checks, lint ->
# the models -> sim).
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
)
# Headers a directory may include from a directory above it: small leaves
# of shared names (enums and their text) that live with the model owning
# them. Each may include only system headers and sim/, so no file-level
# cycle can go through one.
declare -A shared_leaves=()
core="sim events tools broker store vendors runtime handlers faults world"
# System headers the core must not include: threads, files, clocks, and
# the standard library's unspecified random distributions.
core_forbidden='^(thread|mutex|shared_mutex|atomic|condition_variable|future|stop_token|semaphore|latch|barrier|fstream|filesystem|iostream|chrono|ctime|time\.h|random|unistd\.h|sys/.*)$'

# What a directory may include: itself and the closure of its dependencies.
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

check_include() {  # check_include FILE LINE TEXT: FILE relative to the root
  local file=$1 line=$2 text=$3 dir target top
  dir=${file#src/}
  dir=${dir%%/*}
  if [[ $text =~ \#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
    target=${BASH_REMATCH[1]}
    if [[ $target == *..* ]]; then
      violation "$file:$line: \"$target\": include by layer directory (\"world/world.hpp\"), never with \"..\""
      return
    fi
    [[ $target == */* ]] || return  # beside the file: its own directory
    top=${target%%/*}
    if [[ -z ${deps[$top]+set} ]]; then
      violation "$file:$line: $dir includes $target, from $top/, which is no layer (check_layers.sh lists them)"
    elif [[ " ${allowed[$dir]} " != *" $top "* && " ${shared_leaves[$dir]:-} " != *" $target "* ]]; then
      violation "$file:$line: $dir may not include $target (it may include:${allowed[$dir]})"
    fi
  elif [[ $text =~ \#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
    target=${BASH_REMATCH[1]}
    if [[ " $core " == *" $dir "* && $target =~ $core_forbidden ]]; then
      violation "$file:$line: $dir is in the core (sim/ and the models), which includes no <$target>: no threads, files or clocks"
    fi
  fi
}

cd "$root"
for leaf in ${shared_leaves[@]+"${shared_leaves[@]}"}; do
  [[ -f src/$leaf ]] || { violation "src/$leaf: a shared leaf (check_layers.sh) that is not there"; continue; }
  while IFS=: read -r line text; do
    [[ $text =~ \#[[:space:]]*include[[:space:]]*\"([^\"]+)\" && ${BASH_REMATCH[1]} != sim/* ]] &&
      violation "src/$leaf:$line: a shared leaf (check_layers.sh) includes ${BASH_REMATCH[1]}: it may include only sim/ and system headers"
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "src/$leaf" || true)
done
shopt -s nullglob
layer_dirs=()
for path in sim src/*/; do
  path=${path%/}
  if [[ -z ${deps[${path##*/}]+set} ]]; then
    violation "$path/: a directory with no place in the layer order (add it to check_layers.sh and src/CMakeLists.txt)"
  else
    layer_dirs+=("$path")
  fi
done
while IFS=: read -r file line text; do
  check_include "$file" "$line" "$text"
done < <(grep -rn --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.cc' \
              '^[[:space:]]*#[[:space:]]*include' "${layer_dirs[@]}" | sort -t: -k1,1 -k2,2n)

if ((violations > 0)); then
  echo "$violations include(s) against the layer order" >&2
  exit 1
fi
