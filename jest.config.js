/** What every test file runs with, in both projects below. */
const files = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
  },
};

/** @type {import('jest').Config} */
module.exports = {
  // Face-model start-up and WebRTC set-up are slow on a 2-core machine; budgets are generous, not asserted.
  testTimeout: 60000,
  globalSetup: '<rootDir>/test/support/global-setup.js',
  // Two workers: a third on 2 cores fills the quarter of the run spent waiting on real time, but under
  // that load tests with a window of real time in them (an RTSP camera's pictures in a span, a first
  // join within a duration) missed, a different one in 3 of 7 full runs.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  projects: [
    {
      ...files,
      displayName: 'tests',
      testMatch: ['**/*.test.ts'],
    },
    {
      // The signaling suites and the watcher's end-to-end test once more on werift as published (the
      // speed-ups off), so that path keeps working: the speed-ups change how media is received and
      // framed, which these cover; the watcher's logic above the frames (presence, strangers, faults,
      // people) is the same on either path and runs once. In the same run as the rest, their files
      // share the workers' time with the files that wait on real time.
      ...files,
      displayName: 'werift-off',
      testMatch: [
        '<rootDir>/test/streaming/**/*.test.ts',
        '<rootDir>/test/sandbox-streaming/**/*.test.ts',
        '<rootDir>/test/watch/watcher.test.ts',
        '<rootDir>/test/watch/receive-workers.test.ts',
      ],
      // The speed-ups' own tests turn them on and off themselves.
      testPathIgnorePatterns: ['/node_modules/', 'werift-speedups'],
      setupFiles: ['<rootDir>/test/support/werift-off.ts'],
    },
  ],
};
