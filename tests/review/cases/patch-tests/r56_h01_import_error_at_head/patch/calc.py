def add_numbers(a, b):
    return a + b


# The change renamed add(); callers (and the tests) still use the old name.
add = add_numbers


def add_all(xs):
    total = 0
    for x in xs:
        total = add_numbers(total, x)
    return total
