# Sourced by the tests that run twice under a memory cap of their own
# (runaway_memory.sh, streamed_outputs_memory.sh). Before sourcing: `name`
# (how failures are prefixed) and `sanitized` ("sanitized" leaves the caps
# off: AddressSanitizer's shadow memory reserves terabytes of address space).
# Gives `work` (a folder removed on exit), `failures`, fail and capped.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "$name: $*"
  failures=$((failures + 1))
}

capped() {  # KiB, then the command
  local kib=$1
  shift
  if [[ "$sanitized" == "sanitized" ]]; then
    "$@"
  else
    (ulimit -v "$kib" && "$@")
  fi
}
