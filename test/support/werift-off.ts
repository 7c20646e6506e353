import { disableWeriftSpeedups } from '../../shared/signaling/werift-speedups';

// The "werift off" project runs its files on werift as published: set before any of the file's
// connections is made (each test file has its own werift, so the rest of the run keeps the speed-ups).
disableWeriftSpeedups();
