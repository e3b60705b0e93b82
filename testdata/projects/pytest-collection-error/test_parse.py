"""Tests that never run: parse_helper is not part of the project, so
importing this module fails and pytest reports a collection error instead
of these three tests. With an empty parse_helper.py beside it the import
works and all three are collected (testdata/runners/pytest-collection-error
lists them)."""
import parse_helper  # noqa: F401  (the missing module)


def test_parses_int():
    assert int("7") == 7


def test_parses_float():
    assert float("0.5") == 0.5


class TestParseErrors:
    def test_rejects_letters(self):
        try:
            int("x")
        except ValueError:
            return
        raise AssertionError("int('x') did not raise")
