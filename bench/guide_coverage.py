#!/usr/bin/env python3
"""--guide coverage against plain swarm, on every catalogue scenario.

For each scenario and each root seed, both modes explore RUNS runs with
`--seed S --json`; each run's row carries the situations it reached (a
bitmask). A mode's score for a (scenario, seed) is the number of runs it
took to reach every situation that either mode reached with that seed
(RUNS + 1 when it never did). One root seed is one draw of luck: the table
sums each scenario's scores over SEEDS root seeds (default 1..20). The
figures are counts of runs, not times: they do not drift with a loaded
machine.

A scenario of more than MAX_JOBS jobs (default 50: the 15 of 300 to 10,000
jobs) is left out: 40 explorations of 1,000 runs of it take an hour.

  usage: bench/guide_coverage.py TWICE SOURCE_ROOT [RUNS] [SEEDS] [MAX_JOBS]
  SEEDS: a count n (root seeds 1..n); 0 uses each file's own seed.
"""
import json
import os
import subprocess
import sys
import tempfile

twice, root = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
seed_count = int(sys.argv[4]) if len(sys.argv) > 4 else 20
seeds = list(range(1, seed_count + 1)) if seed_count > 0 else [None]
max_jobs = int(sys.argv[5]) if len(sys.argv) > 5 else 50


def job_count(path):
    r = subprocess.run([twice, "run", path, "--json"], capture_output=True, text=True)
    return json.loads(r.stdout.splitlines()[0])["jobs"]["total"] if r.stdout else 0


def explore(path, guide, seed):
    # Only the runs' rows count here: one shrink candidate (the least there
    # is) and the repro files in a folder of their own, thrown away.
    out = tempfile.mkdtemp(prefix="twice-guide-")
    cmd = [twice, "explore", path, "--runs", str(runs), "--jobs", "2", "--guide", guide, "--json",
           "--shrink-runs", "1", "--out", out]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    subprocess.run(["rm", "-rf", out])
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
ties = 0
too_big = 0
print("%-42s %9s %9s   (runs to reach every situation, summed over %d root seeds)" % ("scenario", "plain", "guided",
                                                                                        len(seeds)))
for name in sorted(os.listdir(os.path.join(root, "scenarios"))):
    if not name.endswith(".toml"):
        continue
    if job_count(os.path.join(root, "scenarios", name)) > max_jobs:
        too_big += 1
        continue
    score = {"none": 0, "coverage": 0}
    reached_any = False
    for seed in seeds:
        results = {g: explore(os.path.join(root, "scenarios", name), g, seed) for g in ("none", "coverage")}
        if any(r is None for r in results.values()):
            break
        union = 0
        for r in results.values():
            for row in r["runs"]:
                union |= row[3]
        if union == 0:
            continue
        reached_any = True
        for g in score:
            score[g] += first_complete(results[g]["runs"], union)
    if not reached_any:
        continue
    for g in score:
        totals[g] += score[g]
    if score["none"] != score["coverage"]:
        wins[min(score, key=score.get)] += 1
        print("%-42s %9d %9d" % (name, score["none"], score["coverage"]))
    else:
        ties += 1
print("(%d more scenarios: the same count both ways; %d of more than %d jobs left out)" % (ties, too_big, max_jobs))
print("total runs to reach every situation: plain %d, guided %d (ratio %.2f); fewer runs: plain %d scenarios, guided %d"
      % (totals["none"], totals["coverage"], totals["coverage"] / max(1, totals["none"]), wins["none"], wins["coverage"]))
