from calc import add


def test_neg():
    assert add(-1, -2) == -3
