#!/usr/bin/env bash
# Runs one review case through the whole repair pipeline (the CLI, a scripted model on loopback that
# writes the case's patch) and prints "status | reason | message" and the runs' purposes.
# Usage: tests/review/run.sh CASE_DIR   (env FA_BIN: the flowagent binary; default build/dev's)
# A case: base/ (the repository before the developer's change), head/ (files the change wrote),
# patch/ (files the model writes), rm (paths it deletes, optional), failing (test ids), cmd (test
# command, optional; default go test with a private build cache; $FLOWAGENT in it names this
# checkout, whose third_party/ the sandbox shows read-only: the vendored tape and jest), expect
# ("status reason").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$1" && pwd)
bin=${FA_BIN:-$here/../../build/dev/src/flowagent}
d=$(mktemp -d /tmp/fa_review_XXXX)
port=$((20000 + RANDOM % 20000))
python3 "$here/model.py" "$port" "$src/patch" & mp=$!
trap 'kill $mp 2>/dev/null || true; rm -rf "$d" "$d.gocache" "$d.json" "$d.err"' EXIT
cd "$d"; git init -q; git config user.email review@example.com; git config user.name review
cp -r "$src/base/." .; git add -A; git commit -qm base; base=$(git rev-parse HEAD)
if [ -d "$src/head" ]; then cp -r "$src/head/." .; fi
git add -A; git commit -qm "the change" --allow-empty; head=$(git rev-parse HEAD)
cmd="GOCACHE=$d.gocache GOFLAGS=-mod=mod go test ./... -run {tests||}"
if [ -f "$src/cmd" ]; then cmd=$(cat "$src/cmd"); fi
root=$(cd "$here/../.." && pwd); cmd=${cmd//\$FLOWAGENT/$root}
fails=(); for f in $(cat "$src/failing"); do fails+=(--failing "$f"); done
sleep 0.3
OPENAI_API_KEY=x "$bin" repair --repo "$d" --base "$base" --head "$head" --test "$cmd" "${fails[@]}" \
  --model openai-compatible:m --base-url "http://127.0.0.1:$port/v1" --trust-model-origin "http://127.0.0.1:$port" \
  --api-key-env OPENAI_API_KEY --sandbox-ro "$root/third_party" --json --quiet > "$d.json" 2> "$d.err" || true
python3 - "$d.json" "$d.err" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print('NO RESULT', open(sys.argv[2]).read()[-1500:]); sys.exit()
print(r.get('status'), '|', r.get('reason'), '|', (r.get('message') or '')[:400])
print('runs:', [x.get('purpose') for x in r.get('evidence', {}).get('runs', [])])
PY
