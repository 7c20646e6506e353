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
  // Two workers: a third on 2 cores fills the quarter of the run spent waiting on real time, but under
  // that load tests with a window of real time in them (an RTSP camera's pictures in a span, a first
  // join within a duration) missed, a different one in 3 of 7 full runs.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
