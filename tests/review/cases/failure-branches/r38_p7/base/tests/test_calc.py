from calc import add


def test_add():
    for a, b, want in [(2, 2, 4), (2, 3, 5)]:
        got = add(a, b)
        assert got == want
