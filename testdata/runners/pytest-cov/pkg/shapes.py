# Areas of a few shapes; the tests leave some branches unrun.


def area(kind, a, b=None):
    if kind == "square":
        return a * a
    if kind == "rect":
        return a * b
    if kind == "circle":
        return 3.14159 * a * a
    raise ValueError("unknown shape: " + kind)


def perimeter(kind, a, b=None):
    if kind == "square":
        return 4 * a
    return 2 * (a + b)
