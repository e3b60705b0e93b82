// A small jest suite with one test of each outcome, for the end-to-end
// tests of testresults run. STATE_DIR names a folder where the retried test
// keeps how often it ran.
const fs = require('fs');
const path = require('path');

jest.retryTimes(2);

test('passes', () => {
  expect(1 + 1).toBe(2);
});

test('fails', () => {
  expect('actual').toBe('expected');
});

test.skip('skipped', () => {});

test('retried', () => {
  const marker = path.join(process.env.STATE_DIR, 'jest-retried');
  if (!fs.existsSync(marker)) {
    fs.writeFileSync(marker, '');
    throw new Error('fails on its first attempt only');
  }
});
