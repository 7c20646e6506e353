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
      // Once more on werift as published (the speed-ups off), so that our code keeps working on it.
      // The speed-ups (shared/signaling/werift-speedups) change only werift's own RTP/RTCP path:
      // SRTP keys, header parsing and cloning, its Events, the codec lookup per packet, the RTCP loop,
      // and the NACK loop's end; each is checked against werift's own in werift-speedups.test.ts, and
      // the receive workers' following of the setting in werift-speedups-setting.test.ts. What runs
      // here is what crosses that path end to end, each kind of media once: publisher -> SFU ->
      // viewer for VP8 and H264 with PLI, late joins, update renegotiation and files (media), a track
      // whose m-line goes inactive and back, which is when werift resyncs its codecs (renegotiation),
      // and the watcher over a receive worker, one decoder (watcher.test.ts runs the rest only with
      // the speed-ups on). The other signaling suites test our signaling, rooms and the sandbox,
      // which the speed-ups do not touch, and run once.
      ...files,
      displayName: 'werift-off',
      testMatch: [
        '<rootDir>/test/streaming/media.test.ts',
        '<rootDir>/test/streaming/renegotiation.test.ts',
        '<rootDir>/test/watch/watcher.test.ts',
      ],
      setupFiles: ['<rootDir>/test/support/werift-off.ts'],
    },
  ],
};
