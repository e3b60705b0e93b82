const { add } = require('./calc');

let flakyAttempts = 0;

test('adds numbers', () => {
  expect(add(1, 1)).toBe(2);
});

test('fails with a message', () => {
  expect({ total: 4 }).toEqual({ total: 3 });
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

test.skip('is skipped', () => {});

test.todo('is still to do');

describe('outer', () => {
  test('passes in outer', () => {});

  describe('inner', () => {
    test('passes in inner', () => {});

    test('fails in inner', () => {
      expect([1, 2]).toEqual([1, 3]);
    });
  });
});

describe('retries', () => {
  jest.retryTimes(2);

  test('flaky passes on the second attempt', () => {
    flakyAttempts += 1;
    expect(flakyAttempts).toBeGreaterThan(1);
  });
});

test('größe 名前 ✓', () => {});

test('a::b > c › d', () => {});
