#!/usr/bin/env python3
"""Real-fix delivery benchmark: does flowagent DELIVER the developers' own, real fixes?

It reuses bench/localize's cases (cases.json) and its functions (prepare, discover,
passes_after_fix: imported, not copied). For each case it
1. rebuilds the failing state: the fix's parent (base) plus the fix's test files committed as
   "the change" (head),
2. finds the tests that fail there and checks that the developer's fix makes them pass, in a separate
   copy (a case where they do not is reported as skipped, with why, and never counted),
3. puts the developer's fixed production files (their content at the fix commit; deleted files in an
   `rm` list) into a patch directory and runs `flowagent repair` through the whole pipeline against
   tests/review/model.py, a scripted OpenAI-compatible model on loopback whose first reply writes
   exactly those files: every candidate is the developer's own fix, so every case should end
   `fixed` / `validated`,
4. records status, reason, message, evidence kind, the runs' purposes, wall time and whether the
   delivered patch touches exactly the developer's files.
Prints a markdown table and "delivered N of M reproducible"; --json writes everything.

--mode update (or a case's "mode": "update", as mine.py --mode update writes them) measures the
other honest fix, a test update: the developer's commit changes behaviour on purpose, so old tests
fail. The failing state is the commit's parent plus its PRODUCTION (non-test) files as "the change";
the failing tests are those of the commit's test files, as they are at the parent, that fail there
and pass at the parent itself; the developer's updated test files must make them pass (else skipped); the scripted model writes
exactly the commit's test files (deletions in `rm`), and the delivered patch should touch exactly those.

The discovery runs of step 2 execute the pinned projects' tests directly (no sandbox), as in
bench/localize. Everything flowagent runs goes through its sandbox (bubblewrap).

usage: bench/real_fixes/run.py [--flowagent BIN] [--mirror /work/.mirror] [--only ID,...] [--mode fix|update]
                               [--language python,javascript,cpp] [--timeout-seconds N]
                               [--trajectory-dir DIR] [--keep DIR] [--json out.json]
"""
import argparse, importlib.util, json, os, re, shutil, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "tests", "review", "model.py")

_spec = importlib.util.spec_from_file_location("localize_run", os.path.join(ROOT, "bench", "localize", "run.py"))
loc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(loc)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_model(patch_dir):
    port = free_port()
    p = subprocess.Popen([sys.executable, MODEL, str(port), patch_dir],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return p, port
        except OSError:
            if p.poll() is not None:
                raise RuntimeError("the scripted model did not start")
            time.sleep(0.05)
    p.kill()
    raise RuntimeError("the scripted model does not listen")


MODES = ("fix", "update")


def exists(repo, sha, path):
    return loc.sh(["git", "cat-file", "-e", f"{sha}:{path}"], cwd=repo, check=False).returncode == 0


def failing_state(case, mode, mirror, tmp, allow_network):
    """The failing state of a case: (repo, base, head, fix, tests, developer_files).
    fix: head = the fix's parent + the fix's test files; `tests` those test files; the developer's
    files are the fix's production code files (bench/localize's prepare).
    update: head = the commit's parent + its non-test files; `tests` the commit's test files that
    the parent has (their old versions, which should fail at head); the developer's files are all
    the commit's test files (added, modified, deleted)."""
    if mode == "fix":
        repo, base, head, fix, tests, fixed = loc.prepare(case, mirror, tmp, allow_network)
        if not fixed:
            raise RuntimeError("the fix changes no production code file")
        return repo, base, head, fix, tests, fixed
    if mode != "update":
        raise RuntimeError("unknown mode " + mode)
    repo, base, head, fix, tests, prod = loc.prepare(case, mirror, tmp, allow_network, change="production")
    if not any(loc.is_code(f) for f in prod):
        raise RuntimeError("the commit changes no production code file")
    old = [t for t in tests if exists(repo, base, t)]
    if not old:
        raise RuntimeError("the commit only adds test files: no old test can fail")
    return repo, base, head, fix, old, tests


def passes_with(case, mode, d, fix, files, failing):
    """In the discovery copy: the developer's files (at the fix commit; deleted ones removed) applied,
    do the failing tests pass? fix mode: bench/localize's passes_after_fix."""
    if mode == "fix":
        return loc.passes_after_fix(case, d, fix, files, failing)
    kept = [f for f in files if exists(d, fix, f)]
    if kept:
        loc.sh(["git", "checkout", "-q", fix, "--"] + kept, cwd=d)
    gone = [f for f in files if f not in kept and os.path.lexists(os.path.join(d, f))]
    if gone:
        loc.sh(["git", "rm", "-q", "--"] + gone, cwd=d)
    return loc.run_tests(case, d, failing).returncode == 0


def fail_at_base(case, repo, base, tmp, failing):
    """update mode: the failing tests that fail at the parent too (the old tests on the old code): not
    the change's doing (e.g. a dependency newer than the commit), so no test update the change asks for."""
    b = os.path.join(tmp, "base")
    shutil.copytree(repo, b, symlinks=True)
    try:
        loc.sh(["git", "checkout", "-q", "--detach", base], cwd=b)
        if case["language"] != "python":  # test files as ids
            return [t for t in failing if loc.run_tests(case, b, [t]).returncode != 0]
        r = loc.run_tests(case, b, failing + ["-rf"])
        if r.returncode == 0:
            return []
        failed = set(re.findall(r"^FAILED (\S+?)(?: - .*)?$", r.stdout, re.M))
        return [t for t in failing if t in failed] if failed else list(failing)
    finally:
        shutil.rmtree(b, ignore_errors=True)


def at_base_reason(bad, failing):
    return (f"{len(bad)} of the {len(failing)} failing tests fail at the parent too (old tests, old code; "
            f"not the change's doing): {', '.join(bad[:3])}")


def not_passing(mode, n=None):
    what = "with the fix applied" if mode == "fix" else "with the developer's updated test files"
    return f"the failing tests do not pass {what}" + (f" ({n})" if n is not None else "")


def write_patch(repo, fix, fixed, tmp):
    """The developer's files at the fix commit (fix mode: production files, update mode: test files),
    under tmp/patch; deletions in tmp/rm."""
    patch_dir, deleted = os.path.join(tmp, "patch"), []
    os.makedirs(patch_dir)
    for f in fixed:
        r = loc.sh(["git", "cat-file", "-e", f"{fix}:{f}"], cwd=repo, check=False)
        if r.returncode != 0:
            deleted.append(f)
            continue
        out = os.path.join(patch_dir, f)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        blob = subprocess.run(["git", "show", f"{fix}:{f}"], cwd=repo, capture_output=True, check=True).stdout
        with open(out, "wb") as fh:
            fh.write(blob)
    if deleted:
        with open(os.path.join(tmp, "rm"), "w") as fh:
            fh.write("\n".join(deleted) + "\n")
    return patch_dir


def expand_env(text, env):
    """$VAR / ${VAR} of the case's env, expanded here: the sandbox passes only an allow-list
    (src/workspace/process.cpp default_env_allowlist: NODE_PATH yes, FLOWAGENT_TAPE no)."""
    for k, v in env.items():
        text = re.sub(r"\$(\{" + re.escape(k) + r"\}|" + re.escape(k) + r"\b)", lambda m: v, text)
    return text


def tape_failing_sections(out):
    """tape's `# name` sections holding a `not ok` point (flowagent's reading of TAP: sections are tests)."""
    failing, section = [], None
    for line in out.splitlines():
        if line.startswith("# "):
            section = line[2:].strip()
        elif line.startswith("not ok") and "# TODO" not in line and "# SKIP" not in line:
            if section is not None and section not in failing:
                failing.append(section)
    return failing


def patch_files(patch):
    return sorted(set(m.group(2) for m in re.finditer(r"^diff --git a/(\S+) b/(\S+)$", patch or "", re.M)))


def run_case(case, a, tmp):
    t0 = time.time()
    mode = case.get("mode") or a.mode
    repo, base, head, fix, tests, fixed = failing_state(case, mode, a.mirror, tmp, a.allow_network)
    d = os.path.join(tmp, "discover")
    shutil.copytree(repo, d, symlinks=True)
    failing = case.get("failing") or loc.discover(case, tests, d)
    if not failing:
        raise RuntimeError("no test fails in the failing state")
    test_template, check_ids = case["test"], failing
    if a.tape_ids == "names" and "tape" in test_template and "{tests" in test_template:
        # The TAP sections (tape's test names) that fail in the failing files; the command runs
        # those files (no placeholder: flowagent cannot select a tape test by name).
        failing = tape_failing_sections(loc.run_tests(case, d, check_ids).stdout)
        test_template = loc.expand(test_template, check_ids)
        if not failing:
            raise RuntimeError("no TAP section fails in the failing files")
    if not passes_with(case, mode, d, fix, fixed, check_ids):
        raise RuntimeError(not_passing(mode))
    if mode == "update":
        bad = fail_at_base(case, repo, base, tmp, check_ids)
        if bad:
            raise RuntimeError(at_base_reason(bad, check_ids))
    shutil.rmtree(d, ignore_errors=True)
    prep_s = time.time() - t0

    patch_dir = write_patch(repo, fix, fixed, tmp)
    cenv = {k: v.replace("$FLOWAGENT", ROOT) for k, v in case.get("env", {}).items()}
    env = dict(os.environ, **cenv, OPENAI_API_KEY="x")
    cmd = [a.flowagent, "repair", "--repo", repo, "--base", base, "--head", head,
           "--test", expand_env(test_template, cenv)]
    if case.get("build"):
        cmd += ["--build", expand_env(case["build"], cenv)]
    for f in failing:
        cmd += ["--failing", f]
    for p in case.get("read_only_paths", []):
        cmd += ["--sandbox-ro", p.replace("$FLOWAGENT", ROOT)]
    cmd += ["--timeout-seconds", str(a.timeout_seconds), "--json", "--quiet"]
    if a.trajectory_dir:
        tdir = os.path.join(os.path.abspath(a.trajectory_dir), case["id"])
        os.makedirs(tdir, exist_ok=True)
        cmd += ["--trajectory-dir", tdir]
    model, port = start_model(patch_dir)
    t1 = time.time()
    try:
        cmd += ["--model", "openai-compatible:m", "--base-url", f"http://127.0.0.1:{port}/v1",
                "--trust-model-origin", f"http://127.0.0.1:{port}", "--api-key-env", "OPENAI_API_KEY"]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, errors="replace",
                           timeout=a.timeout_seconds + 300)
    finally:
        model.kill()
        model.wait()
    repair_s = time.time() - t1
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        with open(os.path.join(a.keep, case["id"] + ".json"), "w") as fh:
            fh.write(r.stdout)
    try:
        res = json.loads(r.stdout)
    except ValueError:
        return {"mode": mode, "status": "no result", "reason": f"exit {r.returncode}", "message": r.stderr[-300:],
                "failing": failing, "developer_files": fixed, "wall_s": round(time.time() - t0, 1),
                "repair_s": round(repair_s, 1)}
    if res.get("schema") == "flowagent.cli_error/v1":  # refused before any job ran
        err = res.get("error") or {}
        return {"mode": mode, "status": "cli_error", "reason": err.get("code"), "message": (err.get("message") or "")[:300],
                "failing": failing, "developer_files": fixed, "wall_s": round(time.time() - t0, 1),
                "repair_s": round(repair_s, 1)}
    ev = res.get("evidence") or {}
    delivered = patch_files(res.get("patch"))
    return {"mode": mode, "status": res.get("status"), "reason": res.get("reason"),
            "message": (res.get("message") or "")[:300], "evidence_kind": ev.get("kind", ""),
            "assertion_check": ev.get("assertion_check", ""),
            "tests": [(t.get("id"), t.get("outcome")) for t in ev.get("tests", [])],
            "runs": [x.get("purpose") for x in ev.get("runs", [])],
            "failing": failing, "developer_files": fixed, "patch_files": delivered,
            "exact_files": (delivered == sorted(fixed)) if res.get("status") == "fixed" else None,
            "prepare_s": round(prep_s, 1), "repair_s": round(repair_s, 1),
            "wall_s": round(time.time() - t0, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flowagent", default=os.path.join(ROOT, "build/dev/src/flowagent"))
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--cases", default=os.path.join(ROOT, "bench", "localize", "cases.json"))
    ap.add_argument("--only", default="")
    ap.add_argument("--mode", choices=MODES, default="fix",
                    help="fix: the developer's production files fix the failing state of the fix's tests "
                         "(default); update: the developer's test files update the tests that the commit's "
                         "production change makes fail. A case's own \"mode\" wins")
    ap.add_argument("--language", default="")
    ap.add_argument("--allow-network", action="store_true")
    ap.add_argument("--timeout-seconds", type=int, default=1800, help="flowagent repair --timeout-seconds")
    ap.add_argument("--trajectory-dir", help="pass --trajectory-dir DIR/<case> to flowagent")
    ap.add_argument("--keep", help="write each case's repair_result JSON as DIR/<case>.json")
    ap.add_argument("--tape-ids", choices=("files", "names"), default="files",
                    help="tape cases: the failing test files as ids with the case's {tests} template "
                         "(default, as bench/localize), or the failing TAP sections (test names) as ids "
                         "with the command running the failing files")
    ap.add_argument("--json")
    ap.add_argument("--report", help="only print the table of a --json file")
    a = ap.parse_args()
    if a.report:
        report(json.load(open(a.report)))
        return
    a.flowagent = os.path.abspath(a.flowagent)
    only = [x for x in a.only.split(",") if x]
    results = []
    for case in json.load(open(a.cases)):
        if (only and case["id"] not in only) or (a.language and case["language"] not in a.language.split(",")):
            continue
        with tempfile.TemporaryDirectory(prefix="realfix-") as tmp:
            try:
                res = run_case(case, a, tmp)
            except Exception as e:  # a case that cannot be reproduced is reported, not counted
                res = {"mode": case.get("mode") or a.mode, "skipped": str(e)[:400]}
        res = {"id": case["id"], "language": case["language"], **res}
        results.append(res)
        print(json.dumps(res), file=sys.stderr, flush=True)
        if a.json:
            json.dump(results, open(a.json, "w"), indent=1)
    report(results)


def report(results):
    def name(r):  # update-mode cases are marked; fix mode (older JSON files have no "mode") is not
        return r["id"] + (" (update)" if r.get("mode", "fix") == "update" else "")
    print("| case | language | failing tests | status | reason | seconds | patch = developer's files |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        if "skipped" in r:
            print(f"| {name(r)} | {r['language']} | | skipped: {r['skipped'][:120]} | | | |")
            continue
        same = {True: "yes", False: "NO: " + ", ".join(r.get("patch_files") or [])}.get(r.get("exact_files"), "")
        print(f"| {name(r)} | {r['language']} | {len(r['failing'])} | {r['status']} | {r['reason']} | "
              f"{r.get('repair_s', '')} | {same} |")
    done = [r for r in results if "skipped" not in r]
    ok = [r for r in done if r["status"] == "fixed"]
    print()
    print(f"delivered {len(ok)} of {len(done)} reproducible"
          f" ({len(results) - len(done)} skipped; the delivered patch touches exactly the developer's files in "
          f"{sum(1 for r in ok if r.get('exact_files'))} of {len(ok)})")
    groups = [(lang, lambda r, lang=lang: r["language"] == lang) for lang in ("python", "javascript", "cpp")]
    if len({r.get("mode", "fix") for r in results}) > 1:
        groups += [(f"mode {m}", lambda r, m=m: r.get("mode", "fix") == m) for m in MODES]
    for label, keep in groups:
        ld = [r for r in done if keep(r)]
        if ld:
            print(f"- {label}: delivered {sum(1 for r in ld if r['status'] == 'fixed')} of {len(ld)}")


if __name__ == "__main__":
    main()
