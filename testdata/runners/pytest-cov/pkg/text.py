# String helpers.


def shout(s):
    return s.upper() + "!"


def initials(name):
    parts = name.split()
    if not parts:
        return ""
    return "".join(p[0].upper() for p in parts)


def unused(x):
    y = x * 2
    return y + 1
