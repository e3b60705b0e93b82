const { test, expect } = require('@playwright/test');

test('adds numbers', () => {
  expect(1 + 1).toBe(2);
});

test('fails with a message', () => {
  expect({ total: 4 }, 'totals differ').toEqual({ total: 3 });
});

test('leaks fake secrets in its failure', () => {
  const detail =
    'login failed for https://ci:password=hunter2-not-real@example.invalid ' +
    'headers Authorization: Bearer abc.def.ghi key AKIAIOSFODNN7EXAMPLE';
  expect(detail).toBe('ok');
});

test('throws outside an assertion', () => {
  const cfg = undefined;
  return cfg.port;
});

test('is skipped', () => {
  test.skip(true, 'not supported on this platform');
});

test.fixme('is to be fixed', () => {});

test('is expected to fail', () => {
  test.fail(true, 'known bug 123');
  expect(1).toBe(2);
});

test('fails only in project beta', () => {
  expect(test.info().project.name).toBe('alpha');
});

test.describe('outer', () => {
  test('passes in outer', () => {});

  test.describe('inner', () => {
    test('passes in inner', () => {});

    test('fails in inner', () => {
      expect([1, 2]).toEqual([1, 3]);
    });
  });
});

// Retries run in a fresh worker, so the attempt number comes from testInfo.
test('flaky passes on the retry', () => {
  expect(test.info().retry, 'first attempt fails on purpose').toBeGreaterThan(0);
});

test('größe 名前 ✓', () => {});

test('a::b > c › d', () => {});
