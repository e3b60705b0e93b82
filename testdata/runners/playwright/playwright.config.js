// No test here opens a browser: only plain Node.js fixtures are used, so no
// browser build has to be installed.
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: '.',
  testMatch: '*.spec.js',
  retries: 1,
  workers: 1,
  reporter: [['list'], ['junit', { outputFile: 'reports/playwright-junit.xml' }]],
  projects: [{ name: 'alpha' }, { name: 'beta' }],
});
