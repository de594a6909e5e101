#!/usr/bin/env python3
"""--guide coverage against plain swarm, on every catalogue scenario.

For each scenario, both modes explore RUNS runs with the same root seed and
`--json`; each run's row carries the situations it reached (a bitmask). A
mode's score for a scenario is the number of runs it took to reach every
situation that either mode reached (RUNS + 1 when it never did). The figures
are counts of runs, not times: they do not drift with a loaded machine.

  usage: bench/guide_coverage.py TWICE SOURCE_ROOT [RUNS]
"""
import json
import os
import subprocess
import sys

twice, root = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 1000


def explore(path, guide):
    r = subprocess.run([twice, "explore", path, "--runs", str(runs), "--jobs", "2", "--guide", guide, "--json"],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return None
    return json.loads(r.stdout)


def first_complete(rows, target):
    """Runs until the union of reached situations covers `target` (runs + 1: never)."""
    seen = 0
    for n, row in enumerate(rows, 1):
        seen |= row[3]
        if seen & target == target:
            return n
    return runs + 1


totals = {"none": 0, "coverage": 0}
wins = {"none": 0, "coverage": 0}
print("%-42s %6s %9s %9s" % ("scenario", "reach", "plain", "guided"))
for name in sorted(os.listdir(os.path.join(root, "scenarios"))):
    if not name.endswith(".toml"):
        continue
    results = {g: explore(os.path.join(root, "scenarios", name), g) for g in ("none", "coverage")}
    if any(r is None for r in results.values()):
        continue
    union = 0
    for r in results.values():
        for row in r["runs"]:
            union |= row[3]
    if union == 0:
        continue
    score = {g: first_complete(results[g]["runs"], union) for g in results}
    for g in score:
        totals[g] += score[g]
    if score["none"] != score["coverage"]:
        wins[min(score, key=score.get)] += 1
    print("%-42s %6d %9d %9d" % (name, bin(union).count("1"), score["none"], score["coverage"]))
print("total runs to reach every situation: plain %d, guided %d (ratio %.2f); fewer runs: plain %d scenarios, guided %d"
      % (totals["none"], totals["coverage"], totals["coverage"] / max(1, totals["none"]), wins["none"], wins["coverage"]))
