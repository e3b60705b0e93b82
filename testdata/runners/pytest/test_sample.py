"""A tiny pytest project whose reports exercise every outcome the parser reads."""

import pytest

import calc

_attempts = {"flaky": 0}


def test_adds():
    assert calc.add(1, 1) == 2


def test_strings():
    assert "ab".upper() == "AB"


def test_failure_with_message():
    expected, got = 3, 4
    assert got == expected, "total mismatch: want 3 got 4"


def test_failure_leaks_secrets():
    detail = (
        "login failed for https://ci:password=hunter2-not-real@example.invalid "
        "headers Authorization: Bearer abc.def.ghi key AKIAIOSFODNN7EXAMPLE"
    )
    assert False, detail


@pytest.fixture
def broken_resource():
    raise RuntimeError("fixture could not open the resource")


def test_error_in_setup(broken_resource):
    assert broken_resource


def test_exception_in_body():
    {}["missing"]


@pytest.mark.skip(reason="not supported on this platform")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known bug 123")
def test_expected_failure():
    assert 0 == 1


@pytest.mark.xfail(reason="known bug 456, fixed meanwhile")
def test_unexpected_pass():
    assert True


@pytest.mark.flaky(reruns=2)
def test_flaky_passes_on_retry():
    _attempts["flaky"] += 1
    assert _attempts["flaky"] >= 2, "first attempt fails on purpose"


@pytest.mark.flaky(reruns=1)
def test_always_fails_with_retry():
    assert False, "fails on every attempt"


class TestOuter:
    def test_in_outer(self):
        assert True

    class TestInner:
        def test_in_inner(self):
            assert True

        def test_inner_fails(self):
            assert [1, 2] == [1, 3], "nested comparison"


def test_naïve_größe_名前():
    assert "größe".upper() == "GRÖSSE"


@pytest.mark.parametrize("sep", ["a::b", "x > y", "p › q"])
def test_separator_ids(sep):
    assert sep
