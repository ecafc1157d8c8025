#!/usr/bin/env bash
# The C ABI of libflowagent_c against the committed baseline (capi/abi/flowagent_c.abi, abidw output
# restricted to the types the public headers declare). Fails on any incompatible change (a removed
# or changed function, a changed struct layout or enum value); additions pass and are listed.
#   tests/check_abi.sh LIB HEADERS_DIR GENERATED_HEADERS_DIR            check
#   tests/check_abi.sh --write LIB HEADERS_DIR GENERATED_HEADERS_DIR    refresh the baseline (a release
#                                                                       that means to change the ABI; bump
#                                                                       FLOWAGENT_ABI_VERSION with it)
# Needs a build with debug information (the dev preset). Exit 77 (skipped) without abigail-tools,
# unless FLOWAGENT_NO_SKIP=1 (CI), where a missing tool fails.
set -uo pipefail
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
lib="$1" headers="$2" generated="$3"
baseline="$(cd "$(dirname "$0")/.." && pwd)/capi/abi/flowagent_c.abi"
if ! command -v abidiff >/dev/null || ! command -v abidw >/dev/null; then
  echo "check_abi: abigail-tools (abidw, abidiff) not installed"
  [ "${FLOWAGENT_NO_SKIP:-}" = "1" ] && exit 1
  exit 77
fi
if [ "$write" = 1 ]; then
  abidw --exported-interfaces-only --headers-dir "$headers" --headers-dir "$generated" --drop-private-types --no-corpus-path \
        --no-comp-dir-path --no-show-locs --out-file "$baseline" "$lib" || exit 1
  echo "check_abi: wrote $baseline"
  exit 0
fi
abidiff --exported-interfaces-only --headers-dir2 "$headers" --headers-dir2 "$generated" --drop-private-types --no-show-locs \
        "$baseline" "$lib"
rc=$?
# abidiff's status is a bit mask: 1 error, 2 usage error, 4 ABI change, 8 incompatible ABI change.
if (( rc & 11 )); then
  echo "check_abi: INCOMPATIBLE change to the C ABI of $lib (status $rc) against $baseline" >&2
  exit 1
fi
if (( rc & 4 )); then echo "check_abi: compatible additions (see above); refresh the baseline when releasing"; fi
echo "check_abi: no incompatible change"
exit 0
