#!/usr/bin/env bash
# The Debian package, as a user installs it: `cpack -G DEB` builds
# twice_<version>_<arch>.deb; its fields (Depends from dpkg-shlibdeps) and
# contents are checked; then it is installed into a clean Debian root that
# `debootstrap --variant=minbase` makes, apt resolving its Depends from the
# archive (a wrong or missing one fails here), and the installed twice must
# give a catalogue scenario the build's own digest. Without root or
# debootstrap (or with TWICE_DEB_ROOT=dpkg) it installs with
# `dpkg --root` into an empty root instead, on the host's libraries, and
# says so. Either way examples/points is built against the package's CMake
# package and run.
#   usage: check_deb.sh BUILD_DIR SOURCE_DIR CXX_COMPILER
# TWICE_DEBIAN_MIRROR overrides the archive (default http://deb.debian.org/debian).
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) cxx=$3
mirror=${TWICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
bootstrap_pid=
# debootstrap mounts proc (and maybe sys) inside the root it makes: stop it
# by PID, unmount whatever is left under $work, and only then remove it,
# never crossing into another file system.
cleanup() {
  if [[ -n $bootstrap_pid ]] && kill -0 "$bootstrap_pid" 2>/dev/null; then
    kill -- "-$bootstrap_pid" 2>/dev/null || kill "$bootstrap_pid" 2>/dev/null || true
    wait "$bootstrap_pid" 2>/dev/null || true
  fi
  local mount
  while read -r mount; do
    umount -l "$mount" 2>/dev/null || true
  done < <(awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r)
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

version=$("$build/twice" --version | awk '{ print $2 }')
arch=$(dpkg --print-architecture)
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; echo "FAIL: cpack"; exit 1; }
deb=$work/out/twice_${version}_${arch}.deb
[[ -f $deb ]] || { ls "$work/out"; echo "FAIL: no $deb"; exit 1; }

field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == twice ]] || fail "Package is $(field Package)"
[[ $(field Version) == "$version" ]] || fail "Version is $(field Version), twice --version says $version"
[[ $(field Architecture) == "$arch" ]] || fail "Architecture is $(field Architecture)"
# Exactly the packages of the libraries usr/bin/twice needs (dpkg -S on its NEEDED).
depends=$(field Depends)
depends_names=" $(sed 's/ *([^)]*)//g; s/,//g' <<<"$depends") "
for package in libc6 libfmt9 libgcc-s1 libstdc++6 libtomlplusplus3 libxxhash0; do
  [[ $depends_names == *" $package "* ]] || fail "Depends has no $package: $depends"
done
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for file in ./usr/bin/twice ./usr/include/twice/twice.hpp ./usr/include/twice/world/world.hpp ./usr/lib/libtwice_sim.a \
            ./usr/lib/libtwice_app.a ./usr/lib/cmake/twice/twiceConfig.cmake ./usr/lib/cmake/twice/twiceTargets.cmake \
            ./usr/share/man/man1/twice.1 ./usr/share/bash-completion/completions/twice \
            ./usr/share/zsh/vendor-completions/_twice; do
  grep -qx "$file" <<<"$contents" || fail "the package has no $file"
done
grep -qx './usr/include/twice/cli/app.hpp' <<<"$contents" && fail "the package has a private header (cli/app.hpp)"

scenario=$source/scenarios/double_refund.toml
expected=$("$build/twice" run --quiet "$scenario" | grep -o 'trace digest [0-9a-f]*')
root=$work/root
mode=${TWICE_DEB_ROOT:-debootstrap}
if [[ $mode == debootstrap ]] && { [[ $(id -u) != 0 ]] || ! command -v debootstrap >/dev/null; }; then
  echo "note: no root or no debootstrap here: installing with dpkg --root instead"
  mode=dpkg
fi
if [[ $mode == debootstrap ]]; then
  release=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  setsid debootstrap --variant=minbase "$release" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 &
  bootstrap_pid=$!
  wait "$bootstrap_pid" || { tail -20 "$work/debootstrap.log"; echo "FAIL: debootstrap $release from $mirror"; exit 1; }
  bootstrap_pid=
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp "$deb" "$scenario" "$root/tmp/"
  in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
  in_root apt-get update -qq >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; echo "FAIL: apt-get update in the root"; exit 1; }
  in_root apt-get install -y -qq --no-install-recommends "/tmp/${deb##*/}" >>"$work/apt.log" 2>&1 ||
    { cat "$work/apt.log"; echo "FAIL: apt cannot install the package in a clean Debian root"; exit 1; }
  installed=/usr/bin/twice
  got=$(in_root twice run --quiet /tmp/double_refund.toml | grep -o 'trace digest [0-9a-f]*' || true)
  in_root twice --version | grep -qx "twice $version" || fail "twice --version in the root"
  in_root man -w twice >/dev/null 2>&1 || [[ -f $root/usr/share/man/man1/twice.1 ]] || fail "no man page in the root"
  # The library part, for examples/points below, as the package laid it out.
  dpkg-deb -x "$deb" "$work/unpacked"
  prefix=$work/unpacked/usr
else
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
  touch "$root/var/lib/dpkg/status"
  # The Depends are the host's, not in the empty root: only the package's own files are checked here.
  dpkg --root="$root" --force-depends --force-not-root --log=/dev/null -i "$deb" >"$work/dpkg.log" 2>&1 ||
    { cat "$work/dpkg.log"; echo "FAIL: dpkg --root -i"; exit 1; }
  dpkg --root="$root" -s twice | grep -qx 'Status: install ok installed' || fail "dpkg --root does not list twice as installed"
  installed=$root/usr/bin/twice
  got=$("$installed" run --quiet "$scenario" | grep -o 'trace digest [0-9a-f]*' || true)
  "$installed" --version | grep -qx "twice $version" || fail "the installed twice --version"
  prefix=$root/usr
fi
[[ -n $expected && $got == "$expected" ]] || fail "the installed $installed gives '$got', the build '$expected'"
bash "$source/tests/install/check_example.sh" "$build" "$source" "$cxx" "$prefix" || fail "examples/points against the package"
((failures == 0)) && echo "ok: $deb installed ($mode) and run: $expected"
