#!/usr/bin/env bash
# check_junit.sh TWICE SOURCE_ROOT
#
# The JUnit XML of `twice run`, `explore`, `merge` and `sweep` validates against
# tests/junit/junit.xsd (xmllint, Debian's libxml2-utils), its counts agree
# with its cases, and a failing case says what broke and the command that
# reproduces it.
set -euo pipefail
twice=$(realpath "${1:?usage: check_junit.sh TWICE SOURCE_ROOT}")
root=$(cd "${2:?usage: check_junit.sh TWICE SOURCE_ROOT}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
command -v xmllint >/dev/null || { echo "xmllint missing: scripts/setup.sh installs libxml2-utils"; exit 1; }

# valid FILE: the schema, then the counts (tests, failures, skipped) against the cases.
valid() {
  xmllint --noout --schema "$root/tests/junit/junit.xsd" "$1" 2>"$work/xmllint.txt" ||
    { cat "$work/xmllint.txt"; fail "$1 does not validate against junit.xsd"; return; }
  python3 - "$1" <<'PY' || fail "$1: its counts disagree with its cases"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("./testsuite/testcase")
ok = int(root.get("tests")) == len(cases) and int(root.get("failures")) == len(root.findall("./testsuite/testcase/failure"))
for s in root.findall("testsuite"):
    ok &= int(s.get("tests")) == len(s.findall("testcase"))
    ok &= int(s.get("failures")) == len(s.findall("testcase/failure"))
    ok &= int(s.get("skipped")) == len(s.findall("testcase/skipped"))
sys.exit(0 if ok else 1)
PY
}
# has FILE TEXT: the file holds TEXT.
has() { grep -qF -- "$2" "$1" || fail "$1 lacks: $2"; }

sed 's/key = "stable"/key = "none"/' "$root/scenarios/double_refund_fixed.toml" >bug.toml
status=0
"$twice" run "$root/scenarios/double_refund.toml" "$root/scenarios/retry_400.toml" bug.toml --quiet --junit run.xml \
  >/dev/null || status=$?
((status == 1)) || fail "twice run exited $status, expected 1 (bug.toml fails its expectations)"
valid run.xml
has run.xml '<testsuites name="twice run" tests="54" failures="3" errors="0">'
has run.xml '<testcase name="no_double_payment" classname="double_refund_fixed">'
has run.xml 'message="violated: invoice inv_17 was refunded 5997 cents but asked 1999 cents"'
has run.xml "reproduce: twice run bug.toml --seed 17"
has run.xml '<skipped message="ignored by [expect]: the dead letters wait'

status=0
"$twice" explore bug.toml --runs 30 --out out --junit explore.xml >/dev/null || status=$?
((status == 1)) || fail "twice explore exited $status, expected 1"
valid explore.xml
has explore.xml '<testcase name="no_double_payment" classname="double_refund_fixed">'
has explore.xml 'repro: twice run out/double_refund_fixed-no_double_payment.toml'

for k in 0 1; do "$twice" explore bug.toml --runs 30 --shard $k/2 --out shards >/dev/null; done
status=0
"$twice" merge shards --out out --junit merge.xml >/dev/null || status=$?
((status == 1)) || fail "twice merge exited $status, expected 1"
valid merge.xml
diff <(sed 's/twice merge/twice explore/g' merge.xml) explore.xml >/dev/null ||
  fail "merge.xml says other than explore.xml (beyond the command's name)"

# A sweep: a case per point and invariant, named by the point's values; a
# failure's message gives the command that reruns the point under the
# failing seed, and that command breaks the invariant again.
status=0
"$twice" sweep bug.toml --vary workers.count=1,2 --vary discipline.key=none,stable --seeds 2 --jobs 2 \
  --markdown sweep.md --junit sweep.xml >/dev/null || status=$?
((status == 0)) || fail "twice sweep exited $status, expected 0 (it ran)"
valid sweep.xml
has sweep.xml '<testsuite name="twice sweep double_refund_fixed" '
has sweep.xml '<testcase name="workers.count=1, discipline.key=none: no_double_payment" classname="double_refund_fixed">'
has sweep.xml '<testcase name="workers.count=2, discipline.key=stable: no_double_payment" classname="double_refund_fixed"/>'
has sweep.xml 'message="violated: invoice inv_17 was refunded 5997 cents but asked 1999 cents (in 2 of 2 seeds, first seed 0); reproduce: twice sweep bug.toml --vary workers.count=1 --vary discipline.key=none --seeds 1 --seed 17"'
has sweep.xml 'the sweep also wrote sweep.md (--markdown)'
python3 - "$twice" sweep.xml <<'PY' || fail "a sweep failure's command does not rerun its point to the same verdict"
import json, re, shlex, subprocess, sys, xml.etree.ElementTree as ET
twice, path = sys.argv[1], sys.argv[2]
cases = ET.parse(path).getroot().findall("./testsuite/testcase")
failed = [c for c in cases if c.find("failure") is not None]
assert len(failed) == 4, len(failed)  # no_double_payment and ledgers_agree at both points without the key
for case in failed:
    invariant = case.get("name").rsplit(": ", 1)[1]
    for command in re.findall(r"^reproduce: (twice sweep .*)$", case.find("failure").text, re.M):
        run = subprocess.run([twice] + shlex.split(command)[1:] + ["--json"], capture_output=True, text=True)
        cells = json.loads(run.stdout)["cells"]
        assert len(cells) == 1 and cells[0]["violated_runs"].get(invariant) == 1, (command, cells)
PY

# A file that breaks the schema is caught: the check can fail.
sed 's/<testcase name="expectations"/<testcase/' run.xml >broken.xml
if xmllint --noout --schema "$root/tests/junit/junit.xsd" broken.xml 2>/dev/null; then
  fail "a testcase without a name validated"
fi

((failures == 0)) && echo "ok: twice run, explore, merge and sweep write JUnit XML that validates, with counts that agree"
exit $((failures > 0))
