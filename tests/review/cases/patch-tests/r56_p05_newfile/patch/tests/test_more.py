from calc import add


def test_add_negatives():
    assert add(-1, -2) == -3
