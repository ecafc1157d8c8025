#!/usr/bin/env python3
"""Print the findings of a run.py result file with the test-diff hunks around each finding, to
classify them by hand (classifications.json). Python 3 stdlib only.

usage: bench/guard_history/show.py RESULTS.json [--repo owner/name] [--rule R] [--unclassified]
       [--scratch DIR] [--context N]
"""
import argparse, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402


def hunks(diff_text):
    """[(old_path, new_path, old_start, old_len, new_start, new_len, lines)]"""
    out = []
    old = new = None
    cur = None
    for line in diff_text.splitlines():
        if line.startswith("diff --git "):
            cur = None
            continue
        if line.startswith("--- "):
            old = line[4:].removeprefix("a/")
            continue
        if line.startswith("+++ "):
            new = line[4:].removeprefix("b/")
            continue
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
        if m:
            cur = [old, new, int(m.group(1)), int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1), [line]]
            out.append(cur)
        elif cur is not None:
            cur[6].append(line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--repo")
    ap.add_argument("--rule")
    ap.add_argument("--unclassified", action="store_true")
    ap.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "guard_history_clones"))
    ap.add_argument("--classes", default=os.path.join(HERE, "classifications.json"))
    ap.add_argument("--context", type=int, default=25, help="lines of a hunk shown either side of the finding")
    args = ap.parse_args()
    res = json.load(open(args.results))
    classes = run.load_classes(args.classes)
    for r in res["repos"]:
        if args.repo and r["repo"] != args.repo:
            continue
        clone = os.path.join(args.scratch, r["repo"].replace("/", "+"))
        for c in r["commits"]:
            fs = c.get("findings") or []
            if args.rule:
                fs = [f for f in fs if f["rule"] == args.rule]
            if args.unclassified:
                fs = [f for f in fs if run.finding_key(r["repo"], c["sha"], f) not in classes]
            if not fs:
                continue
            diff = subprocess.run(["git", "-C", clone, "diff", "-M", c["parent"], c["sha"], "--", *c["test_files"]],
                                  capture_output=True, text=True, errors="replace").stdout
            hs = hunks(diff)
            print("=" * 100)
            print("%s %s %s" % (r["repo"], c["sha"][:10], c["subject"]))
            stat = subprocess.run(["git", "-C", clone, "diff", "--stat=120", c["parent"], c["sha"]],
                                  capture_output=True, text=True, errors="replace").stdout
            print(stat.rstrip()[-1500:])
            for f in fs:
                print("--- FINDING %s" % run.finding_key(r["repo"], c["sha"], f))
                print("    " + f["message"])
                line = f.get("line") or 0
                shown = 0
                for h in hs:
                    if f["path"] not in (h[0], h[1]):
                        continue
                    if line and not (h[4] - args.context <= line <= h[4] + h[5] + args.context or
                                     h[2] - args.context <= line <= h[2] + h[3] + args.context):
                        continue
                    body = h[6]
                    print("\n".join(body[:120]))
                    if len(body) > 120:
                        print("    ... (%d more lines)" % (len(body) - 120))
                    shown += 1
                    if shown >= 3:
                        break
                if not shown:
                    print("    (no hunk near line %s of %s)" % (line, f["path"]))


if __name__ == "__main__":
    main()
