#!/usr/bin/env bash
# Runs every case under tests/review/cases (or the folders given) and compares each verdict with
# its `expect` file ("status reason"); a case with a `gap` file is a known gap (docs/INTEGRITY.md,
# "Known gaps"): reported, not a failure. Not part of CI: a case takes 20-60 s (real builds and test
# runs). Usage: tests/review/check.sh [CASE_DIR...]; exit 1 when a verdict differs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cases=("$@"); [ ${#cases[@]} -eq 0 ] && cases=("$here"/cases/*/*/)
bad=0
for c in "${cases[@]}"; do
  want=$(cat "$c/expect"); got=$("$here/run.sh" "$c" | sed -n 1p | awk -F' \\| ' '{print $1" "$2}')
  if [ "$got" = "$want" ]; then echo "ok    $(basename "$c"): $got"
  elif [ -f "$c/gap" ]; then echo "gap   $(basename "$c"): got '$got', want '$want' (known: $(cat "$c/gap"))"
  else echo "WRONG $(basename "$c"): got '$got', want '$want'"; bad=1; fi
done
exit $bad
