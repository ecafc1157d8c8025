#!/usr/bin/env bash
# Re-records examples/demo/session.jsonl against the scripted model (run after changing prompts).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$root/build/demo"
"$here/make_repo.sh" "$work" >/dev/null
rm -f "$here/session.jsonl" "$work/port"
python3 "$here/scripted_model.py" "$work/port" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
"$root/scripts/flowagent.sh" repair --request "$work/request.json" \
  --model openai-compatible:scripted-engineer --base-url "http://127.0.0.1:$(cat "$work/port")/v1" \
  --record "$here/session.jsonl" --quiet
echo "recorded $(wc -l < "$here/session.jsonl") model calls into $here/session.jsonl"
