#!/usr/bin/env python3
"""Localization benchmark harness (issue 13). Only metadata lives in the repository (cases.json):
each project's URL, the developer's fix commit (and, when the fix's test came in a separate commit
of the same pull request, `tests_from`), the test and build commands. No project code is stored.

For each case this script
1. clones the project from a local git directory (--mirror DIR/<owner>+<name>/repo, as the `fetch`
   tool leaves them; or, with --allow-network, from the URL),
2. rebuilds the failing state: the fix's parent plus the test-file changes of the fix (or of
   `tests_from`), committed as "the change",
3. finds the tests that fail there (pytest `FAILED` lines; test files that exit non-zero for
   file-level JavaScript runners; GoogleTest `[  FAILED  ]` lines) in a separate copy, and checks
   that they pass once the fix's production changes are applied (a case whose tests do not fail
   before and pass after is reported as skipped, never counted),
4. runs build/<preset>/bench/localize_eval on the untouched failing state; it reports the rank of
   the first file and function the developer's fix touched for coverage, lexical retrieval, their
   combination and the baseline (the change's own files), with time and peak memory beside one
   sandboxed run of the failing tests.
Prints a markdown table (and per-case lines); --json writes everything.

The discovery runs of step 3 execute the pinned projects' tests directly (no sandbox): they are
this benchmark's own inputs, chosen by commit id. Everything flowagent runs in step 4 goes through
its sandbox (bubblewrap), as in a repair.

usage: bench/localize/run.py [--eval build/dev/bench/localize_eval] [--mirror /work/.mirror]
                             [--only ID,...] [--language python|javascript|cpp] [--min-budget-ms N] [--max-budget-ms N]
                             [--json out.json]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def sh(cmd, cwd=None, check=True, env=None, timeout=1800):
    r = subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), capture_output=True, text=True,
                       env=env, timeout=timeout, errors="replace")
    if check and r.returncode != 0:
        raise RuntimeError(f"{cmd}: {r.stdout[-2000:]}{r.stderr[-2000:]}")
    return r


def is_test(path):
    base = os.path.basename(path)
    return bool(re.search(r"(^|/)(tests?|__tests__|spec)/", path) or base.startswith("test_") or
                re.search(r"(_test|\.test|\.spec)\.", base))


def is_code(path):
    return bool(re.search(r"\.(py|js|mjs|cjs|ts|c|cc|cpp|cxx|h|hh|hpp)$", path))


def expand(template, ids):
    """The harness's own {tests} expansion (flowagent's is in src/tools/test_command.cpp)."""
    def q(s):
        return "'" + s.replace("'", "'\\''") + "'"
    out = re.sub(r"\{tests\|([^}]*)\}", lambda m: q(m.group(1).join(ids)), template)
    return out.replace("{tests}", " ".join(q(i) for i in ids))


def case_env(case):
    env = dict(os.environ)
    for k, v in case.get("env", {}).items():
        env[k] = v.replace("$FLOWAGENT", ROOT)
    return env


def prepare(case, mirror, tmp, allow_network, change="tests"):
    """The failing state. change="tests" (the default, this benchmark's): head = the fix's parent plus
    the test files of the fix (or of `tests_from`); returns (repo, base, head, fix, tests, fixed) with
    `fixed` the fix's production code files. change="production" (bench/real_fixes --mode update: a
    commit that changes behaviour on purpose and updates its tests): head = the parent plus every
    non-test file the commit adds, modifies or deletes; `tests` are then all the commit's test files
    (deleted ones too) and `fixed` its non-test files."""
    owner_name = case["repo"].rstrip("/").split("github.com/")[1]
    src = os.path.join(mirror, owner_name.replace("/", "+"), "repo")
    if not os.path.isdir(src):
        if not allow_network:
            raise RuntimeError(f"no mirror at {src} (fetch github:{owner_name}, or pass --allow-network)")
        src = case["repo"]
    repo = os.path.join(tmp, "repo")
    sh(["git", "clone", "-q", "--no-checkout", src, repo])
    fix = sh(["git", "rev-parse", case["fix_commit"]], cwd=repo).stdout.strip()
    tests_from = sh(["git", "rev-parse", case.get("tests_from", fix)], cwd=repo).stdout.strip()
    sh(["git", "checkout", "-q", "--detach", fix + "^"], cwd=repo)
    base = sh(["git", "rev-parse", "HEAD"], cwd=repo).stdout.strip()
    if change == "production":
        changed = sh(["git", "diff", "--name-only", "--no-renames", fix + "^", fix], cwd=repo).stdout.split()
        tests = [f for f in changed if is_test(f)]
        prod = [f for f in changed if not is_test(f)]
        if not tests or not prod:
            raise RuntimeError("the commit does not change both test and non-test files")
        kept = [f for f in prod if sh(["git", "cat-file", "-e", f"{fix}:{f}"], cwd=repo, check=False).returncode == 0]
        if kept:
            sh(["git", "checkout", "-q", fix, "--"] + kept, cwd=repo)
        gone = [f for f in prod if f not in kept]
        if gone:
            sh(["git", "rm", "-q", "--"] + gone, cwd=repo)
        sh(["git", "-c", "user.name=bench", "-c", "user.email=b@x", "commit", "-q", "-m",
            "the change: the commit's production files"], cwd=repo)
        head = sh(["git", "rev-parse", "HEAD"], cwd=repo).stdout.strip()
        return repo, base, head, fix, tests, prod
    changed = sh(["git", "diff", "--name-only", tests_from + "^", tests_from], cwd=repo).stdout.split()
    tests = [f for f in changed if is_test(f)]
    if not tests:
        raise RuntimeError("the fix brings no test file")
    sh(["git", "checkout", "-q", tests_from, "--"] + tests, cwd=repo)
    sh(["git", "-c", "user.name=bench", "-c", "user.email=b@x", "commit", "-q", "-m",
        "the change: the fix's tests"], cwd=repo)
    head = sh(["git", "rev-parse", "HEAD"], cwd=repo).stdout.strip()
    fixed = [f for f in sh(["git", "diff", "--name-only", head, fix], cwd=repo).stdout.split()
             if not is_test(f) and is_code(f)]
    return repo, base, head, fix, tests, fixed


def run_tests(case, cwd, ids):
    cmd = expand(case["test"], ids)
    if case.get("build"):
        cmd = case["build"] + " && " + cmd
    return sh(cmd, cwd=cwd, check=False, env=case_env(case))


def discover(case, tests, cwd):
    """The tests that fail in the failing state, by language."""
    lang = case["language"]
    if lang == "python":
        # "discover": the test files to run when the fix's tests are data (e.g. compliance JSON).
        r = run_tests(case, cwd, case.get("discover", [t for t in tests if t.endswith(".py")]) + ["-rf"])
        return sorted(set(re.findall(r"^FAILED (\S+?)(?: - .*)?$", r.stdout, re.M)))
    if lang == "javascript":  # test files as ids
        return [t for t in tests if is_code(t) and run_tests(case, cwd, [t]).returncode != 0]
    if lang == "cpp":  # GoogleTest: the whole binary, failing tests by name
        r = run_tests(case, cwd, ["*"])
        return sorted(set(re.findall(r"^\[  FAILED  \] (\S+\.\S+) \(", r.stdout, re.M)))
    raise RuntimeError("unknown language " + lang)


def passes_after_fix(case, d, fix, fixed, failing):
    """In the discovery copy (an incremental build for C++): the fix's production files applied."""
    sh(["git", "checkout", "-q", fix, "--"] + fixed, cwd=d)
    return run_tests(case, d, failing).returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", default=os.path.join(ROOT, "build/dev/bench/localize_eval"))
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.json"))
    ap.add_argument("--only", default="")
    ap.add_argument("--language", default="")
    ap.add_argument("--allow-network", action="store_true")
    ap.add_argument("--min-budget-ms", type=int, default=-1,
                    help="the localizer's budget floor (default: CoverageLocalizerOptions' 0: the budget is "
                         "limits.localization_budget (3) x the reference run, nothing more)")
    ap.add_argument("--max-budget-ms", type=int, default=-1,
                    help="the localizer's budget ceiling (default: CoverageLocalizerOptions' 180 s)")
    ap.add_argument("--json")
    ap.add_argument("--report", help="only print the tables of a run's per-case JSON lines (its stderr) or --json file")
    a = ap.parse_args()
    if a.report:
        text = open(a.report).read()
        report(json.loads(text) if text.lstrip().startswith("[") else
               [json.loads(line) for line in text.splitlines() if line.startswith("{")])
        return
    only = [x for x in a.only.split(",") if x]
    results = []
    for case in json.load(open(a.cases)):
        if (only and case["id"] not in only) or (a.language and case["language"] != a.language):
            continue
        with tempfile.TemporaryDirectory(prefix="locbench-") as tmp:
            t0 = time.time()
            try:
                repo, base, head, fix, tests, fixed = prepare(case, a.mirror, tmp, a.allow_network)
                d = os.path.join(tmp, "discover")
                shutil.copytree(repo, d, symlinks=True)
                failing = case.get("failing") or discover(case, tests, d)
                if not failing:
                    raise RuntimeError("no test fails in the failing state")
                if not passes_after_fix(case, d, fix, fixed, failing):
                    raise RuntimeError("the failing tests do not pass with the fix applied")
                shutil.rmtree(d, ignore_errors=True)
                ro = [p.replace("$FLOWAGENT", ROOT) for p in case.get("read_only_paths", [])]
                c = {"root": repo, "repository": repo, "base": base, "head": head, "fix_commit": fix,
                     "test": case["test"], "build": case.get("build", ""), "failing": failing,
                     "query": case.get("query", ""), "change_files": tests, "timeout_seconds": 900,
                     "read_only_paths": ro, "min_budget_ms": a.min_budget_ms,
                     "max_budget_ms": a.max_budget_ms,
                     "env": {k: v.replace("$FLOWAGENT", ROOT) for k, v in case.get("env", {}).items()}}
                cf = os.path.join(tmp, "case.json")
                json.dump(c, open(cf, "w"))
                r = sh([a.eval, cf], timeout=3600)
                res = json.loads(r.stdout)
                res.update(json.loads(sh([a.eval, "--one-run", cf], timeout=3600).stdout))
                res.update({"id": case["id"], "language": case["language"], "failing": failing,
                            "wall_s": round(time.time() - t0, 1)})
                results.append(res)
            except Exception as e:  # a case that cannot be reproduced is reported, not hidden
                results.append({"id": case["id"], "language": case["language"], "skipped": str(e)[:400]})
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    report(results)
    if a.json:
        json.dump(results, open(a.json, "w"), indent=1)


def report(results):
    done = [r for r in results if "skipped" not in r]
    groups = [("all", done)] + [(lang, [r for r in done if r["language"] == lang])
                                for lang in ("python", "javascript", "cpp")]
    print("| cases | ranking | top-1 file | top-3 file | top-5 file | top-1 function | top-3 function | top-5 function |")
    print("|---|---|---|---|---|---|---|---|")
    for name, rs in groups:
        if not rs:
            continue
        with_fn = [r for r in rs if r["fixed_functions"]]
        for k in ("coverage", "lexical", "combined", "baseline"):
            cells = [f"{sum(1 for r in rs if 0 < r[k]['file'] <= n)}/{len(rs)}" for n in (1, 3, 5)]
            cells += [f"{sum(1 for r in with_fn if 0 < r[k]['function'] <= n)}/{len(with_fn)}" for n in (1, 3, 5)]
            print(f"| {name} | {k} | " + " | ".join(cells) + " |")
    print()
    print("| case | failing tests (covered failing/passing) | one run | coverage localization | lexical | largest process, peak RSS: run / coverage | all processes, peak RSS: run / coverage | ranks file/function: coverage, lexical, combined, baseline |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        if "skipped" in r:
            print(f"| {r['id']} | skipped: {r['skipped']} | | | | | | |")
            continue
        rk = ", ".join(f"{r[k]['file'] or '-'}/{r[k]['function'] or '-'}" for k in ("coverage", "lexical", "combined", "baseline"))
        cut = " (cut off)" if r.get("coverage_cut_off") else ""
        print(f"| {r['id']} | {len(r['failing'])} ({r['failing_covered']}/{r['passing_covered']}) | "
              f"{r['one_run_ms'] / 1000:.1f} s | {r['coverage_ms'] / 1000:.1f} s{cut} | {r['lexical_ms'] / 1000:.1f} s | "
              f"{r['max_rss_kb_test_run'] // 1024} / {r['max_rss_kb_coverage'] // 1024} MB | "
              f"{r['max_total_rss_kb_test_run'] // 1024} / {r['max_total_rss_kb_coverage'] // 1024} MB | {rk} |")


if __name__ == "__main__":
    main()
