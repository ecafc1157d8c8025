import os

import pytest

from calc import add


def test_add():
    assert add(2, 3) == 5


@pytest.mark.skipif(os.environ.get("CI_SKIP_DB") == "1", reason="no database")
def test_add_from_database():
    # needs the team's database (set up by CI)
    assert os.environ["DATABASE_URL"].startswith("postgres://")
    assert add(1, 1) == 2
