#!/usr/bin/env bash
# Makes the demo repository in DIR: a tiny Python library whose latest change ("Count items with a
# running total") broke test_total; runs the tests the way CI would and writes DIR/request.json.
set -euo pipefail
dir="$1"
rm -rf "$dir"
mkdir -p "$dir/repo"
cd "$dir/repo"
git init -q -b main
export GIT_AUTHOR_NAME="Dana Developer" GIT_AUTHOR_EMAIL="dana@example.com"
export GIT_COMMITTER_NAME="Dana Developer" GIT_COMMITTER_EMAIL="dana@example.com"
export GIT_AUTHOR_DATE="2026-11-30T09:00:00Z" GIT_COMMITTER_DATE="2026-11-30T09:00:00Z"
mkdir -p inventory tests
cat > inventory/__init__.py <<'PY'
PY
cat > inventory/cart.py <<'PY'
def total(items):
    """Sum of price * quantity over the items."""
    return sum(price * qty for price, qty in items)


def count(items):
    """Number of units in the cart."""
    return sum(qty for _, qty in items)
PY
cat > tests/test_cart.py <<'PY'
from inventory.cart import count, total


def test_total():
    assert total([(2, 3), (5, 1)]) == 11


def test_count():
    assert count([(2, 3), (5, 1)]) == 4
PY
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
git add -A && git commit -q -m "Add the cart module"
base=$(git rev-parse HEAD)
cat > inventory/cart.py <<'PY'
def total(items):
    """Sum of price * quantity over the items."""
    running = 0
    for price, qty in items:
        runing += price * qty
    return running


def count(items):
    """Number of units in the cart."""
    return sum(qty for _, qty in items)
PY
git commit -q -am "Compute the cart total with a running sum"
head=$(git rev-parse HEAD)
# What CI saw:
/usr/bin/python3 -m pytest -q -p no:cacheprovider > "$dir/ci-test.log" 2>&1 || true
cat > "$dir/request.json" <<JSON
{
  "schema": "flowagent.repair_request/v1",
  "repository": "$dir/repo",
  "change": {"id": "demo-1", "revision": 1, "base_commit": "$base", "head_commit": "$head",
             "description": "Compute the cart total with a running sum",
             "author": {"name": "Dana Developer", "email": "dana@example.com", "kind": "person"}},
  "failure": {"kind": "test", "failing_tests": ["tests/test_cart.py::test_total"], "logs": ["$dir/ci-test.log"]},
  "commands": {"test": "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}",
               "wider_test": "/usr/bin/python3 -m pytest -q -p no:cacheprovider"},
  "model": {"spec": "openai:gpt-4.1"}
}
JSON
echo "$dir/request.json"
