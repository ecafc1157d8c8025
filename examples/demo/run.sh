#!/usr/bin/env bash
# The README's main command: a whole repair on a fresh machine. It installs the dependencies,
# builds flowagent, makes a small repository whose latest change broke a test, and repairs it.
#
# The model's side of the conversation is a RECORDED SESSION (examples/demo/session.jsonl, made
# by record.sh with a scripted model), replayed offline; everything else is real: the isolated
# worktree, the tools, the test runs, validation, the patch and the summary. To use a live model:
#   scripts/flowagent.sh repair --request build/demo/request.json --model openai:gpt-4.1
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
"$root/scripts/install-deps.sh" >&2
"$here/make_repo.sh" "$root/build/demo" >/dev/null
exec "$root/scripts/flowagent.sh" repair --request "$root/build/demo/request.json" \
  --model "replay:$here/session.jsonl" "$@"
