def add_numbers(a, b):
    return a + b


def add_all(xs):
    total = 0
    for x in xs:
        total = add_numbers(total, x)
    return total
