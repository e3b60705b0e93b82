def test_old():
    assert 1 + 1 == 2
