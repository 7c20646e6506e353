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
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
