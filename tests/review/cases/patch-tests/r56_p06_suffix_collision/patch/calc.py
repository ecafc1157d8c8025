def add(a, b):
    if a >= 0 and b >= 0:
        return a + b
    return abs(a - b)


def add_all(xs):
    total = 0
    for x in xs:
        total = add(total, x)
    return total
