#!/usr/bin/env bash
# Installs what twice needs from Debian's packages, only if something is
# missing (a machine that has everything makes no network call), then
# configures the build in ./build. Used by run.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ clang libclang-rt-14-dev cmake make pkg-config
          catch2 librapidcheck-dev libfmt-dev libcli11-dev
          libtomlplusplus-dev nlohmann-json3-dev libxxhash-dev libbenchmark-dev chromium
          clang-format     # one style for the tree (tests/shell/check_format.sh)
          zsh groff-base   # the completion and man-page tests (tests/shell/)
          file dpkg-dev debootstrap  # the .deb: CPack's Depends, and its test's clean root (tests/package/)
          python3 python3-yaml       # the sharding recipes' YAML, parsed as their engines parse it (tests/recipes/)
          libxml2-utils              # xmllint: --junit against the JUnit schema (tests/junit/)
          slurm-wlm munge)           # the single-node cluster of tests/slurm/ (see below)
# slurm-wlm and munge enable system services. Under systemd, munge's starts
# a munged on /run/munge with /etc/munge/munge.key; slurmctld's and slurmd's
# start only once /etc/slurm/slurm.conf exists, which nothing here writes.
# Neither matters: tests/slurm/with_cluster.sh runs its own munged, key and
# socket, its own slurm.conf and free ports, and reads nothing of the
# system's.

# Installs the Debian packages named, those that are missing only.
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}"
  local sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
ensure_packages "${packages[@]}"

# $1: build dir, rest: extra CMake arguments.
configure() {
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
}
