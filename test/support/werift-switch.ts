import { disableWeriftSpeedups } from '../../shared/signaling/werift-speedups';

// VS_WERIFT_SPEEDUPS=0 runs a test file on werift as published (CI runs the signaling and watcher
// suites once that way): set before any of the file's connections is made.
if (process.env.VS_WERIFT_SPEEDUPS === '0') disableWeriftSpeedups();
