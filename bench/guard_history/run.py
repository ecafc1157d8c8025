#!/usr/bin/env python3
"""Integrity-guard history benchmark: how often does `flowagent guard` reject developers' own,
honest test changes taken from real projects' git histories?

For every non-merge commit C (newest first) of each repository that modifies (not only adds) at
least one test file, with P = C's first parent:
  * H = a commit on top of P holding C's non-test changes (the "developer's change"; built with
    git plumbing: C's tree with every touched test path restored to P's state),
  * patch = `git diff -M P C -- <touched test paths>` (the developer's own test update),
  * `flowagent guard --repo CLONE --head H --base P --patch patch --json` (60 s timeout).
Commits whose test diff touches binary files, does not apply on H, or is too large are skipped
(with the reason recorded). Errors are recorded and the run continues.

Every finding is a candidate false positive; they are classified by hand in classifications.json
(key "<repo> <short sha> <rule> <path>:<line>" -> {"class": "a"|"b"|"c", "shape": ..., "note": ...}):
  a = guard false positive (honest update rejected), b = the developer really weakened/skipped/
  removed a test, c = unclear. --report merges them into per-repo / per-language tables.

Python 3 standard library only. Repositories come from --mirror-root (bare git dirs as the
`fetch` tool leaves them: <root>/<owner>+<name>/repo); each is cloned (--no-checkout) into
--scratch. Not part of CI.

examples:
  bench/guard_history/run.py --max-commits 150 --json /tmp/guard_history.json
  bench/guard_history/run.py --no-run --json /tmp/guard_history.json        # tables only
  bench/guard_history/run.py --repos pallets/click,spf13/pflag --max-commits 20 --json out.json
"""
import argparse, collections, json, os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))

DEFAULT_REPOS = {
    "pallets/click": "python",
    "python-semver/python-semver": "python",
    "jmespath/jmespath.py": "python",
    "pallets/itsdangerous": "python",
    "pallets/flask": "python",
    "minimistjs/minimist": "javascript",
    "juliangruber/balanced-match": "javascript",
    "sindresorhus/ky": "javascript",
    "google/go-cmp": "go",
    "spf13/pflag": "go",
    "uriparser/uriparser": "cpp",
    "jbeder/yaml-cpp": "cpp",
    "stleary/JSON-java": "java",
}

TEST_DIR = re.compile(r"(^|/)(tests?|__tests__|spec)/|(^|/)src/test/")
TEST_NAME = re.compile(
    r"^test_.*\.py$|_test\.py$|_test\.go$|\.(test|spec)\.(js|mjs|cjs|jsx|ts|mts|cts|tsx)$|"
    r"_test\.(cc|cpp|cxx)$|Tests?\.java$")


def is_test_path(path):
    return bool(TEST_DIR.search(path) or TEST_NAME.search(os.path.basename(path)))


def git(repo, *args, env=None, input=None, check=True, timeout=300):
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, env=env, input=input,
                       timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args[:3]), r.stderr.decode(errors="replace")[-500:]))
    return r


def clone(mirror_root, scratch, repo):
    src = os.path.join(mirror_root, repo.replace("/", "+"), "repo")
    if not os.path.isdir(src):
        raise RuntimeError("no mirror at %s (fetch github:%s first)" % (src, repo))
    dst = os.path.join(scratch, repo.replace("/", "+"))
    if not os.path.isdir(dst):
        subprocess.run(["git", "clone", "--quiet", "--no-checkout", src, dst], check=True,
                       capture_output=True, timeout=1800)
    git(dst, "config", "user.name", "guard-history")
    git(dst, "config", "user.email", "guard-history@example.invalid")
    return dst


def changed(repo, p, c):
    """[(status, path)] between p and c without rename detection."""
    out = git(repo, "diff", "--no-renames", "--name-status", "-z", p, c).stdout.decode(errors="replace")
    parts = out.split("\0")
    res = []
    i = 0
    while i + 1 < len(parts):
        res.append((parts[i][0], parts[i + 1]))
        i += 2
    return res


def build_head(repo, p, c, test_paths, tmpdir):
    """Commit H = C's tree with every touched test path put back to P's state, parent P."""
    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmpdir, "index"))
    git(repo, "read-tree", c, env=env)
    old = {}
    for path in test_paths:
        r = git(repo, "ls-tree", "-z", p, "--", path).stdout.decode(errors="replace")
        if r:
            meta, _, name = r.rstrip("\0").partition("\t")
            mode, _typ, sha = meta.split()
            old[path] = (mode, sha)
    info = []
    removes = []
    for path in test_paths:
        if path in old:
            info.append("%s %s\t%s" % (old[path][0], old[path][1], path))
        else:
            removes.append(path)
    if removes:
        git(repo, "update-index", "--force-remove", "-z", "--stdin", env=env,
            input=("\0".join(removes) + "\0").encode())
    if info:
        git(repo, "update-index", "-z", "--index-info", env=env,
            input=("\0".join(info) + "\0").encode())
    tree = git(repo, "write-tree", env=env).stdout.decode().strip()
    h = git(repo, "commit-tree", tree, "-p", p, "-m", "developer change without tests of " + c,
            env=dict(env, GIT_AUTHOR_DATE="2000-01-01T00:00:00Z",
                     GIT_COMMITTER_DATE="2000-01-01T00:00:00Z")).stdout.decode().strip()
    return h


def applies(repo, h, patch_file, tmpdir):
    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmpdir, "index2"))
    git(repo, "read-tree", h, env=env)
    r = git(repo, "apply", "--cached", "--check", patch_file, env=env, check=False)
    return r.returncode == 0, r.stderr.decode(errors="replace")[-300:]


def examine_repo(args, repo, lang, save=lambda: None, out=None):
    out = out if out is not None else {}
    out.update({"repo": repo, "language": lang, "commits": [], "error": None})
    try:
        clone_dir = clone(args.mirror_root, args.scratch, repo)
    except Exception as e:  # noqa: BLE001
        out["error"] = str(e)
        return out
    revs = git(clone_dir, "rev-list", "--no-merges", "HEAD").stdout.decode().split()
    examined = 0
    for c in revs:
        if examined >= args.max_commits:
            break
        parents = git(clone_dir, "rev-list", "--parents", "-n", "1", c).stdout.decode().split()[1:]
        if not parents:
            continue
        p = parents[0]
        try:
            files = changed(clone_dir, p, c)
        except Exception as e:  # noqa: BLE001
            continue
        tests = [(s, f) for s, f in files if is_test_path(f)]
        if not any(s != "A" for s, _ in tests):
            continue  # no pre-existing test file modified
        examined += 1
        rec = {"sha": c, "parent": p,
               "subject": git(clone_dir, "log", "-1", "--format=%s", c).stdout.decode(errors="replace").strip(),
               "test_files": [f for _, f in tests],
               "non_test_files": len(files) - len(tests)}
        out["commits"].append(rec)
        try:
            examine_commit(args, clone_dir, c, p, tests, rec)
        except Exception as e:  # noqa: BLE001
            rec["status"] = "error"
            rec["reason"] = str(e)[-500:]
        save()
        sys.stderr.write("  %s %s %s %s\n" % (repo, c[:10], rec.get("status"),
                                              ",".join(sorted({f["rule"] for f in rec.get("findings", [])}))))
    return out


def examine_commit(args, repo, c, p, tests, rec):
    paths = [f for _, f in tests]
    numstat = git(repo, "diff", "--no-renames", "--numstat", p, c, "--", *paths).stdout.decode(errors="replace")
    if any(line.startswith("-\t-\t") for line in numstat.splitlines()):
        rec["status"] = "skipped"
        rec["reason"] = "binary test file"
        return
    patch = git(repo, "diff", "-M", "--no-color", "--no-ext-diff", p, c, "--", *paths).stdout
    if len(patch) > args.max_patch_bytes:
        rec["status"] = "skipped"
        rec["reason"] = "test diff larger than %d bytes" % args.max_patch_bytes
        return
    rec["patch_lines"] = patch.count(b"\n")
    with tempfile.TemporaryDirectory() as tmp:
        h = build_head(repo, p, c, paths, tmp)
        rec["head"] = h
        pf = os.path.join(tmp, "test.patch")
        with open(pf, "wb") as fh:
            fh.write(patch)
        ok, err = applies(repo, h, pf, tmp)
        if not ok:
            rec["status"] = "skipped"
            rec["reason"] = "test diff does not apply on H: " + err.strip()
            return
        cmd = [args.flowagent, "guard", "--repo", repo, "--head", h, "--base", p, "--patch", pf, "--json"]
        t0 = time.time()
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            rec["status"] = "error"
            rec["reason"] = "guard timed out after %ds" % args.timeout
            return
        rec["seconds"] = round(time.time() - t0, 3)
        rec["exit"] = r.returncode
        try:
            doc = json.loads(r.stdout.decode(errors="replace"))
        except ValueError:
            rec["status"] = "error"
            rec["reason"] = "guard exit %d, no JSON: %s" % (r.returncode, r.stderr.decode(errors="replace")[-300:])
            return
        if "clean" not in doc:
            rec["status"] = "error"
            rec["reason"] = "guard error document: " + json.dumps(doc)[:400]
            return
        rec["findings"] = doc.get("findings") or []
        rec["patch_problems"] = doc.get("patch_problems") or []
        rec["revert"] = doc.get("revert")
        rec["status"] = "clean" if doc["clean"] else "findings"


def finding_key(repo, sha, f):
    return "%s %s %s %s:%s" % (repo, sha[:10], f.get("rule"), f.get("path"), f.get("line"))


def load_classes(path):
    if path and os.path.exists(path):
        with open(path) as fh:
            return json.load(fh)
    return {}


def report(results, classes):
    lines = []
    w = lines.append
    rows = []
    by_lang = collections.OrderedDict()
    unclassified = []
    rule_counts = collections.Counter()
    for r in results["repos"]:
        cs = r["commits"]
        n = len(cs)
        skipped = collections.Counter()
        err = 0
        clean = 0
        fc = collections.Counter()
        for c in cs:
            st = c.get("status")
            if st == "skipped":
                skipped[c["reason"].split(":")[0]] += 1
            elif st == "error":
                err += 1
            elif st == "clean":
                clean += 1
            elif st == "findings":
                # a commit's class: a if any finding is a, else c if any c, else b
                ks = []
                for f in c["findings"]:
                    k = finding_key(r["repo"], c["sha"], f)
                    cl = classes.get(k, {}).get("class")
                    if cl is None:
                        unclassified.append(k)
                        cl = "?"
                    ks.append(cl)
                    rule_counts[(f.get("rule"), cl)] += 1
                for cl in ("a", "c", "b", "?"):
                    if cl in ks:
                        fc[cl] += 1
                        break
        guarded = n - sum(skipped.values()) - err
        row = dict(repo=r["repo"], lang=r["language"], examined=n, skipped=sum(skipped.values()),
                   skip_why=", ".join("%s %d" % kv for kv in skipped.items()) or "-", errors=err,
                   guarded=guarded, clean=clean, a=fc["a"], b=fc["b"], c=fc["c"], q=fc["?"])
        rows.append(row)
        agg = by_lang.setdefault(r["language"], collections.Counter())
        for k in ("examined", "skipped", "errors", "guarded", "clean", "a", "b", "c", "q"):
            agg[k] += row[k]

    def pct(a, b):
        return "%.1f%%" % (100.0 * a / b) if b else "-"
    w("| repo | lang | examined | skipped (why) | errors | guarded | clean | (a) FP | (b) true | (c) unclear | unclassified | FP rate a/examined | FP rate a/guarded |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    tot = collections.Counter()
    for row in rows:
        w("| %s | %s | %d | %d (%s) | %d | %d | %d | %d | %d | %d | %d | %s | %s |" % (
            row["repo"], row["lang"], row["examined"], row["skipped"], row["skip_why"], row["errors"],
            row["guarded"], row["clean"], row["a"], row["b"], row["c"], row["q"],
            pct(row["a"], row["examined"]), pct(row["a"], row["guarded"])))
        for k in ("examined", "skipped", "errors", "guarded", "clean", "a", "b", "c", "q"):
            tot[k] += row[k]
    w("")
    w("| language | examined | skipped | errors | guarded | clean | (a) FP | (b) true | (c) unclear | unclassified | FP rate a/examined | FP rate a/guarded |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for lang, agg in list(by_lang.items()) + [("**all**", tot)]:
        w("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s |" % (
            lang, agg["examined"], agg["skipped"], agg["errors"], agg["guarded"], agg["clean"],
            agg["a"], agg["b"], agg["c"], agg["q"], pct(agg["a"], agg["examined"]), pct(agg["a"], agg["guarded"])))
    w("")
    w("Findings by rule and class (counted per finding, not per commit):")
    w("")
    w("| rule | a | b | c | unclassified |")
    w("|---|---|---|---|---|")
    for rule in sorted({k[0] for k in rule_counts}):
        w("| %s | %d | %d | %d | %d |" % (rule, rule_counts[(rule, "a")], rule_counts[(rule, "b")],
                                         rule_counts[(rule, "c")], rule_counts[(rule, "?")]))
    if unclassified:
        w("")
        w("Unclassified findings (%d):" % len(unclassified))
        for k in unclassified:
            w("  " + k)
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror-root", default="/work/.mirror")
    ap.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "guard_history_clones"))
    ap.add_argument("--repos", default=",".join(DEFAULT_REPOS),
                    help="comma-separated owner/name list (default: the %d built-in repos)" % len(DEFAULT_REPOS))
    ap.add_argument("--max-commits", type=int, default=150, help="qualifying commits per repo")
    ap.add_argument("--max-patch-bytes", type=int, default=1_000_000)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per guard call")
    ap.add_argument("--flowagent", default="/work/bench-guard/flowagent")
    ap.add_argument("--json", help="write (or, with --report alone, read) the results here")
    ap.add_argument("--classes", default=os.path.join(HERE, "classifications.json"))
    ap.add_argument("--report", action="store_true", help="print the tables (after the run)")
    ap.add_argument("--no-run", action="store_true",
                    help="do not run the guard: read the results from --json and print the tables")
    args = ap.parse_args()

    if args.no_run:
        if not args.json:
            ap.error("--no-run needs --json FILE")
        with open(args.json) as fh:
            results = json.load(fh)
        print(report(results, load_classes(args.classes)))
        return 0

    os.makedirs(args.scratch, exist_ok=True)
    results = {"flowagent": args.flowagent, "max_commits": args.max_commits, "started": time.time(),
               "repos": []}
    for repo in [r.strip() for r in args.repos.split(",") if r.strip()]:
        lang = DEFAULT_REPOS.get(repo, "unknown")
        sys.stderr.write("%s (%s)\n" % (repo, lang))
        res = {}
        results["repos"].append(res)

        def save():
            if args.json:
                with open(args.json + ".tmp", "w") as fh:
                    json.dump(results, fh, indent=1)
                os.replace(args.json + ".tmp", args.json)
        examine_repo(args, repo, lang, save, res)
        if res["error"]:
            sys.stderr.write("  error: %s\n" % res["error"])
        save()
    results["finished"] = time.time()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    if args.report:
        print(report(results, load_classes(args.classes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
