import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

describe('math', () => {
  test('adds', () => {
    assert.equal(1 + 1, 2);
  });

  test('multiplies wrongly', () => {
    assert.equal(2 * 3, 7, 'product of 2 and 3');
  });

  test('skipped', { skip: 'not on this platform' }, () => {
    assert.fail('never runs');
  });

  test('todo that passes', { todo: 'tighten the bound' }, () => {
    assert.ok(true);
  });

  test('todo that fails', { todo: 'division by zero is not handled yet' }, () => {
    assert.equal(1 / 0, 0);
  });
});

test('top-level pass', () => {
  assert.ok('x'.length === 1);
});

test('throws', () => {
  throw new TypeError('cannot read property of undefined');
});
