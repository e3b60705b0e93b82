import os

HERE = os.path.dirname(os.path.abspath(__file__))


def bump(name):
    """Counts the calls of a test in a file beside it (ignored by git, so
    the tree stays the same): COUNTER_DIR, when set, holds it instead."""
    path = os.path.join(os.environ.get("COUNTER_DIR", HERE), name + ".count")
    n = 0
    if os.path.exists(path):
        with open(path) as f:
            n = int(f.read() or "0")
    n += 1
    with open(path, "w") as f:
        f.write(str(n))
    return n


def test_new_flaky():
    # Fails on every third call: the pair's two patch runs pass, the
    # third run fails.
    assert bump("flaky") % 3 != 0


def test_new_stable():
    assert "abc".upper() == "ABC"
