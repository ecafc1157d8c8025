#!/usr/bin/env bash
# The sandbox attack suite (tests/unit/sandbox_attack_test.cpp, docs/SECURITY.md): runs it as the
# current user and, when that is root, again as a throwaway unprivileged user. The kernel treats
# uid 0 differently (RLIMIT_NPROC does not bind it, so the sandbox bounds processes with a pids
# cgroup; bwrap keeps capabilities unless dropped; DAC checks pass), so both paths must hold.
#
# usage: scripts/attack-suite.sh [TEST_BINARY]   (default: build/dev/tests/flowagent_tests)
# FA_ATTACK_UNPRIVILEGED_ONLY=1 skips the run as the current user (CI: its test run just did that).
# The binary, the flowagent CLI it calls and their directories must be readable by other users
# (the default build tree is).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(realpath "${1:-$root/build/dev/tests/flowagent_tests}")"
filter="${FA_ATTACK_FILTER:-SandboxAttack.*:GitAttack.*:Secrets.*:Process.*}"

if [ "${FA_ATTACK_UNPRIVILEGED_ONLY:-0}" = "1" ]; then
  echo "attack-suite: the run as $(id -un) is left to the caller (FA_ATTACK_UNPRIVILEGED_ONLY=1)"
else
  echo "attack-suite: as $(id -un) (uid $(id -u))"
  "$bin" --gtest_filter="$filter"
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "attack-suite: not root; the unprivileged run above is the only one"
  exit 0
fi

user="fa-attack-$$"
work="$(mktemp -d /tmp/fa-attack-XXXXXX)"
cleanup() {
  userdel "$user" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
useradd --system --no-create-home --home-dir "$work" --shell /usr/sbin/nologin "$user"
chown "$user:" "$work"
uid="$(id -u "$user")"
gid="$(id -g "$user")"
if ! setpriv --reuid="$uid" --regid="$gid" --clear-groups test -x "$bin"; then
  echo "attack-suite: $user cannot execute $bin; make the build tree readable by other users" >&2
  exit 1
fi
echo "attack-suite: as $user (uid $uid), unprivileged"
cd "$work"
# A clean environment: nothing of root's (keys, tokens) reaches the unprivileged run.
setpriv --reuid="$uid" --regid="$gid" --clear-groups --reset-env \
  env HOME="$work" TMPDIR=/tmp PATH=/usr/local/bin:/usr/bin:/bin \
  "$bin" --gtest_filter="$filter"
