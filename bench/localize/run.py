#!/usr/bin/env python3
"""Localization benchmark harness (issue 13). Only metadata lives in the repository (cases.json):
the project's URL, the developer's fix commit and the test command. For each case this script
clones the project from a local git directory (--mirror DIR/<owner>+<name>/repo, or a clone of the
URL), rebuilds the failing state (the fix's parent plus the fix's test-file changes, committed as
"the change"), finds the tests that fail there, and runs build/dev/bench/localize_eval, which
reports the rank of the first fixed file/function for coverage, lexical retrieval, their
combination and the baseline (the change's own files). Prints a markdown table.

usage: bench/localize/run.py [--eval build/dev/bench/localize_eval] [--mirror /work/.mirror] [--json out.json]
"""
import argparse, json, os, re, subprocess, sys, tempfile

def sh(cmd, cwd=None, check=True):
    r = subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{cmd}: {r.stdout}{r.stderr}")
    return r

def is_test(path):
    base = os.path.basename(path)
    return bool(re.search(r"(^|/)(tests?|__tests__|spec)/", path) or base.startswith("test_") or
                re.search(r"(_test|\.test|\.spec)\.", base))

def prepare(case, mirror, tmp):
    owner_name = case["repo"].rstrip("/").split("github.com/")[1]
    src = os.path.join(mirror, owner_name.replace("/", "+"), "repo")
    repo = os.path.join(tmp, "repo")
    sh(["git", "clone", "-q", "--no-checkout", src if os.path.isdir(src) else case["repo"], repo])
    fix = sh(["git", "rev-parse", case["fix_commit"]], cwd=repo).stdout.strip()
    sh(["git", "checkout", "-q", "--detach", fix + "^"], cwd=repo)
    base = sh(["git", "rev-parse", "HEAD"], cwd=repo).stdout.strip()
    changed = sh(["git", "diff", "--name-only", base, fix], cwd=repo).stdout.split()
    tests = [f for f in changed if is_test(f)]
    sh(["git", "checkout", "-q", fix, "--"] + tests, cwd=repo)
    sh(["git", "-c", "user.name=bench", "-c", "user.email=b@x", "commit", "-q", "-m", "the change: the fix's tests"], cwd=repo)
    head = sh(["git", "rev-parse", "HEAD"], cwd=repo).stdout.strip()
    return repo, base, head, fix, tests

def failing_tests(case, repo, tests):
    cmd = case["test"].replace("{tests}", " ".join(t for t in tests if t.endswith(".py")))
    out = sh(cmd + " -rf", cwd=repo, check=False).stdout
    return sorted(set(re.findall(r"^FAILED (\S+?)(?: - .*)?$", out, re.M)))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", default="build/dev/bench/localize_eval")
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--cases", default=os.path.join(os.path.dirname(__file__), "cases.json"))
    ap.add_argument("--json")
    a = ap.parse_args()
    results = []
    for case in json.load(open(a.cases)):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                repo, base, head, fix, tests = prepare(case, a.mirror, tmp)
                failing = case.get("failing") or failing_tests(case, repo, tests)
                if not failing:
                    results.append({"id": case["id"], "skipped": "no test fails in the failing state"}); continue
                c = {"root": repo, "repository": repo, "base": base, "head": head, "fix_commit": fix,
                     "test": case["test"], "build": case.get("build", ""), "failing": failing,
                     "query": case.get("query", ""), "change_files": tests, "timeout_seconds": 600}
                cf = os.path.join(tmp, "case.json")
                json.dump(c, open(cf, "w"))
                r = sh([a.eval, cf])
                res = json.loads(r.stdout)
                res.update({"id": case["id"], "failing": failing})
                results.append(res)
            except Exception as e:  # a case that cannot be reproduced is reported, not hidden
                results.append({"id": case["id"], "skipped": str(e)[:300]})
        print(json.dumps(results[-1]), file=sys.stderr)
    done = [r for r in results if "skipped" not in r]
    print(f"| ranking | top-1 file | top-3 file | top-5 file | top-1 function | top-3 function | top-5 function |  (n = {len(done)})")
    print("|---|---|---|---|---|---|---|")
    for k in ("coverage", "lexical", "combined", "baseline"):
        cells = []
        for what in ("file", "function"):
            for n in (1, 3, 5):
                hit = sum(1 for r in done if 0 < r[k][what] <= n)
                cells.append(f"{hit}/{len(done)}")
        print(f"| {k} | " + " | ".join(cells[:3] + cells[3:]) + " |")
    for r in results:
        if "skipped" in r: print(f"- {r['id']}: skipped ({r['skipped']})")
        else: print(f"- {r['id']}: one run {r['one_run_ms']} ms, coverage {r['coverage_ms']} ms "
                    f"({r['coverage_tool']}, {r['failing_covered']} failing / {r['passing_covered']} passing), "
                    f"lexical {r['lexical_ms']} ms, peak child RSS {r['max_rss_kb_after_coverage']} kB; ranks {r['coverage']} / {r['lexical']} / {r['combined']} / {r['baseline']}")
    if a.json: json.dump(results, open(a.json, "w"), indent=1)

if __name__ == "__main__":
    main()
