import pytest
from calc import add


def test_add():
    got = add(2, 3)
    if got is None:
        pytest.fail("no result")
    elif got != 5:
        pytest.fail(f"expected 5, got {got!r}")
    if add(-1, 1) != 0:
        pytest.fail("add(-1, 1)")
