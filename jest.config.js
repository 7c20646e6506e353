/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
  },
  // Face-model start-up and WebRTC set-up are slow on a 2-core machine; budgets are generous, not asserted.
  testTimeout: 60000,
  setupFiles: ['<rootDir>/test/support/werift-switch.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  // Half again as many workers as cores: about a quarter of the suite's time is spent waiting on real
  // time (durations, cooldowns, backoffs, a camera's next frame), and a third worker on 2 cores fills it.
  maxWorkers: Math.min(6, Math.ceil(require('node:os').availableParallelism() * 1.5)),
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
