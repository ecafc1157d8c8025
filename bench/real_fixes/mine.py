#!/usr/bin/env python3
"""Mine real-fix cases from a project's history for bench/real_fixes/run.py (and bench/localize).

For each repository (a local mirror, /work/.mirror/<owner>+<name>/repo) it walks the non-merge
commits, newest first (--max-commits), and keeps the commits that change both test files and
production code files (bench/localize/run.py's is_test / is_code), at most --max-files files and
--max-lines changed lines, whose test files all still exist after the commit. Each such commit gets
a per-language test command template:
- python: `[PYTHONPATH=src[:DEPS]] /usr/bin/python3 -m pytest -q -p no:cacheprovider -o addopts= {tests}`
  (PYTHONPATH=src when the commit has a src/ layout, so that the tests import the repository's own
  code, as bench/localize's semver cases do; DEPS = --python-deps, a directory of the test
  dependencies /usr/bin/python3 lacks, mounted read-only in flowagent's sandbox);
- javascript (a package.json naming tape): the tape command of bench/localize/cases.json.
Then the candidate is reproduced with bench/localize/run.py's own prepare / discover /
passes_after_fix (imported, as bench/real_fixes/run.py does): the tests that fail at the failing
state (the fix's parent + the fix's test files) must pass with the developer's production files.
With --flip-subset, a python case whose failing tests do not all pass with the fix is kept with an
explicit "failing" list: the tests that fail before and pass after (the others fail both ways, e.g.
a missing dependency); the case's "what" says so.

--mode update mines test updates instead (bench/real_fixes/run.py --mode update): commits whose
production change makes some of their old tests fail. The candidates are the same commits (a
deleted test file allowed; at least one changed test file must exist at the parent); the failing
state is the parent plus the commit's non-test files, the failing tests those of the commit's test
files at the parent that fail there, and the developer's updated test files must make them pass
(run.py's failing_state / passes_with: the same reproduction, --flip-subset included). Cases get
"mode": "update".

Reproducible cases (id <repo-short>-<sha7>) go to --out, in cases.json's format; every candidate's
fate (kept, or why not) goes to --log as JSON lines.

usage: bench/real_fixes/mine.py [--mode fix|update] [--repo owner/name ...] [--mirror /work/.mirror] [--max-commits 200]
                                [--max-files 30] [--max-lines 600] [--repo-seconds 900]
                                [--test-seconds 300] [--python-deps DIR] [--flip-subset]
                                [--out cases.json] [--log mine.jsonl]
"""
import argparse, importlib.util, json, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

_spec = importlib.util.spec_from_file_location("real_fixes_run", os.path.join(HERE, "run.py"))
rf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rf)
loc = rf.loc  # bench/localize/run.py, the one module both use (main() caps its sh)

DEFAULT_REPOS = ["pallets/click", "pallets/flask", "pallets/itsdangerous", "python-semver/python-semver",
                 "jmespath/jmespath.py", "minimistjs/minimist", "juliangruber/balanced-match"]
PYTEST = "/usr/bin/python3 -m pytest -q -p no:cacheprovider -o addopts= {tests}"
TAPE = {"test": "node $FLOWAGENT_TAPE/tape/bin/tape {tests}",
        "read_only_paths": ["$FLOWAGENT/third_party/tape/node_modules"],
        "env": {"NODE_PATH": "$FLOWAGENT/third_party/tape/node_modules",
                "FLOWAGENT_TAPE": "$FLOWAGENT/third_party/tape/node_modules"}}


def git(repo, *args, check=True):
    r = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, errors="replace")
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr[-500:]}")
    return r


def exists(repo, sha, path):
    return git(repo, "cat-file", "-e", f"{sha}:{path}", check=False).returncode == 0


def short_name(owner_name):
    name = owner_name.split("/")[1].lower()
    return {"jmespath.py": "jmespath", "python-semver": "semver"}.get(name, name.replace(".", "-"))


def changes(repo, sha):
    """[(status, path, added+deleted lines)] of a commit against its first parent."""
    status = {}
    for line in git(repo, "show", "--format=", "--name-status", "--no-renames", sha).stdout.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            status[parts[-1]] = parts[0][0]
    out = []
    for line in git(repo, "show", "--format=", "--numstat", "--no-renames", sha).stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            n = sum(int(x) for x in parts[:2] if x.isdigit())
            out.append((status.get(parts[2], "M"), parts[2], n))
    return out


def language_of(repo, sha):
    if exists(repo, sha, "package.json"):
        pkg = git(repo, "show", f"{sha}:package.json", check=False).stdout
        return "javascript" if re.search(r'"tape"\s*:', pkg) else "javascript-no-tape"
    if any(exists(repo, sha, f) for f in ("pyproject.toml", "setup.py", "setup.cfg")):
        return "python"
    if exists(repo, sha, "go.mod"):
        return "go"
    return "unknown"


def case_for(owner_name, repo, sha, lang, a):
    case = {"id": f"{short_name(owner_name)}-{sha[:7]}", "language": lang,
            "repo": f"https://github.com/{owner_name}", "fix_commit": sha[:7],
            "what": git(repo, "log", "-1", "--format=%s", sha).stdout.strip()[:120]}
    if a.mode != "fix":
        case["mode"] = a.mode
    if lang == "python":
        path, deps = [], a.python_deps
        if deps and (deps + os.sep).startswith(ROOT + os.sep):
            # as mined_cases.json: named through the case's env, the checkout's path as $FLOWAGENT
            deps = "$FLOWAGENT" + deps[len(ROOT):]
        if exists(repo, sha, "src"):
            path.append("src")
            if deps:
                path.append("$FLOWAGENT_PYDEPS" if deps.startswith("$FLOWAGENT/") else deps)
        case["test"] = (f"PYTHONPATH={':'.join(path)} " if path else "") + PYTEST
        if path and deps:
            case["read_only_paths"] = [deps]
            if deps.startswith("$FLOWAGENT/"):
                case["env"] = {"FLOWAGENT_PYDEPS": deps}
    else:
        case.update(json.loads(json.dumps(TAPE)))
    return case


def candidates(owner_name, repo, a, log):
    """Commits that change test files and production code files, within the size limits."""
    shas = git(repo, "log", "--no-merges", "--format=%H", "-n", str(a.max_commits), "HEAD").stdout.split()
    for sha in shas:
        ch = changes(repo, sha)
        tests = [p for s, p, n in ch if loc.is_test(p)]
        code = [p for s, p, n in ch if not loc.is_test(p) and loc.is_code(p)]
        lines = sum(n for s, p, n in ch)
        why = None
        if not tests or not code:
            continue  # not a fix with tests: not logged (most commits)
        if git(repo, "rev-parse", "-q", "--verify", sha + "^", check=False).returncode != 0:
            why = "the root commit: no parent to fail on"
        elif len(ch) > a.max_files or lines > a.max_lines:
            why = f"too large: {len(ch)} files, {lines} lines"
        elif a.mode == "fix" and any(s == "D" for s, p, n in ch if loc.is_test(p)):
            why = "the commit deletes a test file (the failing state cannot take it)"
        elif a.mode == "update":
            tests = [p for s, p, n in ch if loc.is_test(p) and s != "A"]  # the old tests that can fail
            if not tests:
                why = "the commit only adds test files: no old test can fail"
        lang = language_of(repo, sha)
        if not why and lang not in ("python", "javascript"):
            why = f"language {lang}: no test command template"
        if not why and lang == "python" and not any(p.endswith(".py") for p in tests):
            why = "no python test file among the " + ("changed" if a.mode == "fix" else "modified or deleted") + " tests"
        if why:
            log({"repo": owner_name, "sha": sha[:7], "kept": False, "why": why})
            continue
        yield sha, lang


def reproduce(case, a, tmp):
    """bench/localize's reproduction (run.py's failing_state / passes_with, by the case's mode);
    returns (failing, note) or raises with why not. Update mode: the failing tests must also pass at
    the parent (run.py's fail_at_base; --flip-subset drops those that do not)."""
    mode = case.get("mode", "fix")
    repo, base, head, fix, tests, fixed = rf.failing_state(case, mode, a.mirror, tmp, False)
    failing, note = select(case, a, tmp, mode, repo, fix, tests, fixed)
    if mode != "update":
        return failing, note
    bad = rf.fail_at_base(case, repo, base, tmp, failing)
    if not bad:
        return failing, note
    if not (a.flip_subset and case["language"] == "python" and len(bad) < len(failing)):
        raise RuntimeError(rf.at_base_reason(bad, failing))
    kept = [t for t in failing if t not in bad]
    return kept, "; ".join(x for x in (note, f"{len(bad)} of {len(failing)} fail at the parent too, dropped") if x)


def select(case, a, tmp, mode, repo, fix, tests, fixed):
    """The failing tests of the failing state that the developer's files make pass: (failing, note)."""
    d = os.path.join(tmp, "discover")
    shutil.copytree(repo, d, symlinks=True)
    before = os.path.join(tmp, "before")  # an untouched failing state, for --flip-subset
    shutil.copytree(repo, before, symlinks=True)
    failing = loc.discover(case, tests, d)
    if not failing:
        r = loc.run_tests(case, d, [t for t in tests if t.endswith(".py")] + ["-rf"]) \
            if case["language"] == "python" else None
        tail = (r.stdout.strip().splitlines() or [""])[-1][:200] if r is not None else ""
        raise RuntimeError("no test fails in the failing state" + (f" (pytest: {tail})" if tail else ""))
    if rf.passes_with(case, mode, d, fix, fixed, failing):
        if case["language"] != "python":
            return failing, ""
        # flowagent runs the failing tests by id: they must fail so at the failing state, too.
        alone = set(re.findall(r"^FAILED (\S+?)(?: - .*)?$", loc.run_tests(case, before, failing + ["-rf"]).stdout, re.M))
        if set(failing) <= alone:
            return failing, ""
        if not (a.flip_subset and alone & set(failing)):
            raise RuntimeError(f"{len(set(failing) - alone)} of the {len(failing)} failing tests pass when run by id "
                               "at the failing state (they fail only in their whole file)")
        kept = [t for t in failing if t in alone]
        return kept, f"{len(kept)} of {len(failing)} failing tests fail when run by id; the others only in their file"
    if not (a.flip_subset and case["language"] == "python"):
        raise RuntimeError(rf.not_passing(mode, f"{len(failing)} failing"))
    # The same selection before and after (a test can fail in its whole file and pass alone, e.g.
    # through a shared cache): the tests that fail without the fix and pass with it, then checked
    # again as the case will run them.
    failed = set(re.findall(r"^FAILED (\S+?)(?: - .*)?$", loc.run_tests(case, before, failing + ["-rf"]).stdout, re.M))
    # update mode: the tests that still exist after the update, run by file (pytest stops on an id
    # the updated files no longer have: a renamed or deleted test)
    sel = failing if mode == "fix" else \
        sorted({t.split("::")[0] for t in failing if os.path.exists(os.path.join(d, t.split("::")[0]))})
    passed = set(re.findall(r"^PASSED (\S+)", loc.run_tests(case, d, sel + ["-rA"]).stdout, re.M)) if sel else set()
    flip = [t for t in failing if t in failed and t in passed]
    if not flip:
        raise RuntimeError(rf.not_passing(mode, f"none of {len(failing)} flips"))
    still = set(re.findall(r"^FAILED (\S+?)(?: - .*)?$", loc.run_tests(case, before, flip + ["-rf"]).stdout, re.M))
    if not set(flip) <= still or loc.run_tests(case, d, flip).returncode != 0:
        raise RuntimeError(f"the {len(flip)} tests that flip in the selection of {len(failing)} do not flip alone")
    return flip, f"{len(flip)} of {len(failing)} failing tests pass with the " + \
        ("fix; the others fail both ways" if mode == "fix" else "updated tests; the others do not pass with them")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=rf.MODES, default="fix",
                    help="fix: the fix's tests fail at its parent (default); update: the commit's old tests "
                         "fail with its production change and its updated tests pass (cases get \"mode\": \"update\")")
    ap.add_argument("--repo", action="append", help="owner/name (repeatable); default: " + ", ".join(DEFAULT_REPOS))
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--max-commits", type=int, default=200)
    ap.add_argument("--max-files", type=int, default=30)
    ap.add_argument("--max-lines", type=int, default=600)
    ap.add_argument("--max-cases", type=int, default=0, help="per repository, 0: no cap")
    ap.add_argument("--repo-seconds", type=int, default=900, help="cap on one repository's reproduction time")
    ap.add_argument("--test-seconds", type=int, default=300, help="cap on one test or git command")
    ap.add_argument("--python-deps", default="", help="a directory of test dependencies (added to PYTHONPATH "
                    "after src, and a read-only sandbox path)")
    ap.add_argument("--flip-subset", action="store_true")
    ap.add_argument("--out", default="mined-cases.json")
    ap.add_argument("--log", default="mined-log.jsonl")
    a = ap.parse_args()
    if a.python_deps:
        a.python_deps = os.path.abspath(a.python_deps)

    sh = loc.sh  # every command of the reproduction under --test-seconds

    def capped(cmd, cwd=None, check=True, env=None, timeout=None):
        return sh(cmd, cwd=cwd, check=check, env=env, timeout=min(timeout or a.test_seconds, a.test_seconds))
    loc.sh = capped

    logf = open(a.log, "w")

    def log(rec):
        logf.write(json.dumps(rec) + "\n")
        logf.flush()
        print(json.dumps(rec), file=sys.stderr, flush=True)

    cases = []
    for owner_name in a.repo or DEFAULT_REPOS:
        repo = os.path.join(a.mirror, owner_name.replace("/", "+"), "repo")
        if not os.path.isdir(repo):
            log({"repo": owner_name, "kept": False, "why": f"no mirror at {repo}"})
            continue
        t0, kept = time.time(), 0
        for sha, lang in candidates(owner_name, repo, a, log):
            if time.time() - t0 > a.repo_seconds:
                log({"repo": owner_name, "sha": sha[:7], "kept": False, "why": "not tried: the repository's time cap"})
                continue
            if a.max_cases and kept >= a.max_cases:
                break
            case = case_for(owner_name, repo, sha, lang, a)
            t1 = time.time()
            with tempfile.TemporaryDirectory(prefix="mine-") as tmp:
                try:
                    failing, note = reproduce(case, a, tmp)
                except subprocess.TimeoutExpired as e:
                    log({"repo": owner_name, "sha": sha[:7], "kept": False,
                         "why": f"timed out after {a.test_seconds} s: {str(e.cmd)[:150]}"})
                    continue
                except Exception as e:
                    log({"repo": owner_name, "sha": sha[:7], "kept": False, "why": str(e)[:400],
                         "seconds": round(time.time() - t1, 1)})
                    continue
            if note:
                case["failing"] = failing
                case["what"] += f" [{note}]"
            cases.append(case)
            kept += 1
            log({"repo": owner_name, "sha": sha[:7], "kept": True, "id": case["id"], "failing": failing,
                 "note": note, "seconds": round(time.time() - t1, 1)})
            with open(a.out, "w") as fh:
                json.dump(cases, fh, indent=1)
        log({"repo": owner_name, "summary": True, "kept": kept, "seconds": round(time.time() - t0, 1)})
    with open(a.out, "w") as fh:
        json.dump(cases, fh, indent=1)
    print(f"{len(cases)} reproducible cases written to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
