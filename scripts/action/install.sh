#!/usr/bin/env bash
# The action's install step. With TWICE_DEB: apt installs the .deb (its
# Depends from the runner's archive). TWICE_INSTALL_MODE=extract unpacks it
# under $RUNNER_TEMP instead (no root, the host's libraries: the local test
# uses it). Without TWICE_DEB: the README's setup builds `twice` from
# TWICE_SOURCE and installs it under $RUNNER_TEMP. Either way the directory
# of `twice` goes on $GITHUB_PATH for the steps after.
set -euo pipefail
: "${RUNNER_TEMP:?the temporary directory of the runner}" "${GITHUB_PATH:?the PATH file of the runner}"
mode=${TWICE_INSTALL_MODE:-apt}
if [[ -n ${TWICE_DEB:-} ]]; then
  [[ -f $TWICE_DEB ]] || { echo "twice: no .deb at $TWICE_DEB" >&2; exit 2; }
  deb=$(cd "$(dirname "$TWICE_DEB")" && pwd)/$(basename "$TWICE_DEB")
  if [[ $mode == apt ]]; then
    sudo_cmd=()
    [[ $(id -u) == 0 ]] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$deb"
    bin=/usr/bin
  else
    dpkg-deb -x "$deb" "$RUNNER_TEMP/twice-root"
    bin=$RUNNER_TEMP/twice-root/usr/bin
  fi
else
  source=${TWICE_SOURCE:?the source of the action, github.action_path}
  (cd "$source" && source scripts/setup.sh && configure build-action -DCMAKE_BUILD_TYPE=Release -DTWICE_BUILD_TESTS=OFF &&
     cmake --build build-action -j"$(nproc)" --target twice twice_shell_files &&
     cmake --install build-action --prefix "$RUNNER_TEMP/twice-prefix" >/dev/null)
  bin=$RUNNER_TEMP/twice-prefix/bin
fi
"$bin/twice" --version
echo "$bin" >>"$GITHUB_PATH"
