const assert = require('node:assert');

let flakyAttempts = 0;

describe('calc', function () {
  it('adds numbers', function () {
    assert.strictEqual(1 + 1, 2);
  });

  it('fails with a message', function () {
    assert.strictEqual(4, 3, 'total mismatch: want 3 got 4');
  });

  it('leaks fake secrets in its failure', function () {
    assert.fail(
      'login failed for https://ci:password=hunter2-not-real@example.invalid ' +
        'headers Authorization: Bearer abc.def.ghi key AKIAIOSFODNN7EXAMPLE',
    );
  });

  it('throws outside an assertion', function () {
    const cfg = undefined;
    return cfg.port;
  });

  it.skip('is skipped', function () {});

  it('is pending without a body');

  describe('outer', function () {
    it('passes in outer', function () {});

    describe('inner', function () {
      it('passes in inner', function () {});

      it('fails in inner', function () {
        assert.deepStrictEqual([1, 2], [1, 3]);
      });
    });
  });

  describe('retries', function () {
    this.retries(2);

    it('flaky passes on the second attempt', function () {
      flakyAttempts += 1;
      assert.ok(flakyAttempts > 1, 'first attempt fails on purpose');
    });
  });

  describe('broken hook', function () {
    beforeEach(function () {
      throw new Error('setup could not open the resource');
    });

    it('never runs because of its hook', function () {});
  });

  it('größe 名前 ✓', function () {});

  it('a::b > c › d', function () {});
});
