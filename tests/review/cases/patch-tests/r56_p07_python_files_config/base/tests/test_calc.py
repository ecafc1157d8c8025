from calc import add


def test_add():
    assert add(20, 30) == 50
    assert add(-1, -2) == -3


def test_neg():
    assert add(-5, -5) == -10


def test_zero():
    assert add(0, 0) == 0
