/** Settings both projects share: TypeScript through ts-jest, the node environment, the test folder. */
const common = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
  },
};

/** @type {import('jest').Config} */
module.exports = {
  // Face-model start-up and WebRTC set-up are slow on a 2-core machine; budgets are generous, not
  // asserted. A setting of the whole run: jest does not read it from a project.
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'tests',
      testMatch: ['**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/werift-switch.ts'],
    },
    {
      // The signaling suites and the watcher's end-to-end and receive-worker tests once more on werift
      // as published (the speed-ups off), so that path keeps working: the speed-ups change how media
      // is received and framed, which these cover; the watcher's logic above the frames (presence,
      // strangers, faults, people) is the same on either path and runs once. In the same run as the
      // rest, so that the workers pack both.
      ...common,
      displayName: 'werift off',
      testMatch: [
        '<rootDir>/test/streaming/**/*.test.ts',
        '<rootDir>/test/sandbox-streaming/**/*.test.ts',
        '<rootDir>/test/watch/watcher.test.ts',
        '<rootDir>/test/watch/receive-workers.test.ts',
      ],
      testPathIgnorePatterns: ['/node_modules/', 'werift-speedups'],
      setupFiles: ['<rootDir>/test/support/werift-off.ts'],
    },
  ],
  // Two workers, one a core. Three (half again as many as cores) fill the quarter of the run spent
  // waiting on real time and took it from about 760 s to 570 s on 2 cores, but the WebRTC and live
  // view tests then missed their deadlines in 2 of 3 full runs: not until their timing is loosened.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
