import pytest
from calc import add


def test_add():
    got = add(2, 3)
    if (
        got != 5
        or add(1, 1) != 2
    ):
        pytest.fail(f"add(2, 3) = {got}")
