def add(a, b):
    return abs(a - b)


def add_all(xs):
    total = 0
    for x in xs:
        total = add(total, x)
    return total
