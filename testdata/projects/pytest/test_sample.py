"""A small pytest suite with one test of each outcome, for the end-to-end
tests of testresults run. STATE_DIR names a folder where the retried test
keeps how often it ran."""
import os

import pytest


def test_passes():
    assert 1 + 1 == 2


def test_fails():
    assert "expected" == "actual"


@pytest.fixture
def broken():
    raise RuntimeError("the fixture broke")


def test_errors(broken):
    pass


@pytest.mark.skip(reason="not on this machine")
def test_skipped():
    pass


@pytest.mark.flaky(reruns=2)
def test_retried():
    marker = os.path.join(os.environ["STATE_DIR"], "pytest-retried")
    if not os.path.exists(marker):
        open(marker, "w").close()
        pytest.fail("fails on its first attempt only")
