#!/usr/bin/env python3
"""The sharding recipes of docs/explore.md, run as far as this machine allows.

Each recipe (docs/recipes/) is parsed as its engine would parse it (YAML for
Kubernetes, GitHub Actions and GitLab), and its shard and merge commands are
taken from it and run here with the variables the engine would set
(JOB_COMPLETION_INDEX, the matrix value, CI_NODE_INDEX/CI_NODE_TOTAL), on a
scenario with a bug switched on and fewer runs. The merged directory must be
byte for byte what one unsharded `twice explore` writes.

  usage: check_recipes.py TWICE SOURCE_ROOT
"""
import filecmp
import os
import re
import shlex
import subprocess
import sys
import tempfile

import yaml

twice, root = sys.argv[1], sys.argv[2]
recipes = os.path.join(root, "docs", "recipes")
failures = []
RUNS = "40"


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def load_all(name):
    with open(os.path.join(recipes, name)) as f:
        return list(yaml.safe_load_all(f))


def broken_scenario(work):
    """double_refund_fixed.toml with its key switched off, beside the outputs."""
    with open(os.path.join(root, "scenarios", "double_refund_fixed.toml")) as f:
        text = f.read()
    assert 'key = "stable"' in text
    path = os.path.join(work, "double_refund_fixed.toml")
    with open(path, "w") as f:
        f.write(text.replace('key = "stable"', 'key = "none"', 1))
    return path


def localised(words, scenario, results):
    """A recipe's command with this machine's binary, scenario, run count and results folder."""
    out = []
    for i, w in enumerate(words):
        if i == 0 and w == "twice":
            w = twice
        elif w.endswith("double_refund_fixed.toml"):
            w = scenario
        elif i > 0 and words[i - 1] == "--runs":
            w = RUNS
        elif w in ("/results", "results"):
            w = results
        elif w in ("/results/findings", "findings"):
            w = os.path.join(results, "findings")
        out.append(w)
    return out


def run(words, env=None, expect=(0,)):
    full = dict(os.environ)
    for name in ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "CI_NODE_INDEX", "CI_NODE_TOTAL"):
        full.pop(name, None)
    full.update(env or {})
    r = subprocess.run(words, env=full, capture_output=True, text=True)
    if r.returncode not in expect:
        fail("%s exited %d (expected %s):\n%s%s" % (" ".join(words), r.returncode, expect, r.stdout, r.stderr))
    return r


def same_tree(a, b, what):
    names = sorted(set(os.listdir(a)) - {"findings"})
    theirs = sorted(set(os.listdir(b)) - {"findings"})
    if names != theirs:
        fail("%s: files %s, unsharded %s" % (what, theirs, names))
        return
    _, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    if mismatch or errors:
        fail("%s: %s differ from the unsharded run's" % (what, mismatch + errors))


def check_recipe(name, shard_commands, merge_words, work, scenario, whole):
    """Runs every (words, env) shard command, then the merge, and compares with `whole`."""
    results = os.path.join(work, name)
    os.makedirs(results)
    for words, env in shard_commands:
        run(localised(words, scenario, results), env)
    shards = sorted(f for f in os.listdir(results) if f.startswith("shard-"))
    if len(shards) != len(shard_commands):
        fail("%s: %d shard files for %d shards: %s" % (name, len(shards), len(shard_commands), shards))
    merge = localised(merge_words, scenario, results)
    run(merge, expect=(1,))  # the bug switched on: a violation, repro files written
    out = merge[merge.index("--out") + 1]
    same_tree(whole, out, name)
    print("ok: %s: %d shards merged into what the unsharded run writes" % (name, len(shard_commands)))


with tempfile.TemporaryDirectory() as work:
    scenario = broken_scenario(work)
    whole = os.path.join(work, "whole")
    run([twice, "explore", scenario, "--runs", RUNS, "--out", whole], expect=(1,))

    # Kubernetes: an Indexed Job and a merge Job.
    job = load_all("explore-indexed-job.yaml")
    merge_job = load_all("explore-merge-job.yaml")
    if len(job) != 1 or len(merge_job) != 1:
        fail("each Kubernetes recipe holds one document")
    job, merge_job = job[0], merge_job[0]
    spec = job["spec"]
    if (job.get("apiVersion"), job.get("kind"), spec.get("completionMode")) != ("batch/v1", "Job", "Indexed"):
        fail("the explore Job is not a batch/v1 Indexed Job")
    completions = spec["completions"]
    container = spec["template"]["spec"]["containers"][0]
    command = container["command"]
    if command[command.index("--shards") + 1] != str(completions):
        fail("--shards in the Job's command is not its completions (%d)" % completions)
    if spec["template"]["spec"].get("restartPolicy") not in ("Never", "OnFailure"):
        fail("a Job's pods need restartPolicy Never or OnFailure")
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    merge_container = merge_job["spec"]["template"]["spec"]["containers"][0]
    merge_mounts = {m["name"]: m["mountPath"] for m in merge_container["volumeMounts"]}
    if mounts.get("results") != merge_mounts.get("results") or command[command.index("--out") + 1] != mounts["results"]:
        fail("the explore and merge Jobs do not share the results volume at the explore's --out")
    check_recipe("kubernetes", [(command, {"JOB_COMPLETION_INDEX": str(i)}) for i in range(completions)],
                 merge_container["command"], work, scenario, whole)

    # GitHub Actions: a matrix of explicit shards, then a merge job.
    workflow = load_all("explore-github.yml")[0]
    jobs = workflow["jobs"]
    matrix = jobs["explore"]["strategy"]["matrix"]["shard"]
    if jobs["merge"].get("needs") != "explore":
        fail("the GitHub merge job does not need the explore job")
    explore_line = next(s["run"] for s in jobs["explore"]["steps"] if "twice explore" in s.get("run", ""))
    merge_line = next(s["run"] for s in jobs["merge"]["steps"] if "twice merge" in s.get("run", ""))
    commands = []
    for shard in matrix:
        line = re.sub(r"\$\{\{\s*matrix\.shard\s*\}\}", str(shard), explore_line)
        commands.append((shlex.split(line), {}))
    if "--shard %d/%d" % (matrix[-1], len(matrix)) not in re.sub(r"\$\{\{\s*matrix\.shard\s*\}\}", str(matrix[-1]), explore_line):
        fail("the GitHub recipe's --shard K/N does not have N = the matrix's size")
    check_recipe("github", commands, shlex.split(merge_line), work, scenario, whole)

    # GitLab: `parallel: N`, CI_NODE_INDEX from 1.
    pipeline = load_all("explore-gitlab.yml")[0]
    parallel = pipeline["explore"]["parallel"]
    explore_line = next(s for s in pipeline["explore"]["script"] if s.startswith("twice explore"))
    merge_line = next(s for s in pipeline["merge"]["script"] if s.startswith("twice merge"))
    if pipeline["merge"].get("needs") != ["explore"]:
        fail("the GitLab merge job does not need the explore job")
    commands = [(shlex.split(explore_line), {"CI_NODE_INDEX": str(i), "CI_NODE_TOTAL": str(parallel)})
                for i in range(1, parallel + 1)]
    check_recipe("gitlab", commands, shlex.split(merge_line), work, scenario, whole)

if failures:
    print("%d recipe check(s) failed" % len(failures))
    sys.exit(1)
