import { RtpHeader } from 'werift';
import { disableWeriftSpeedups, speedUpWerift, weriftSpeedupsStatus } from '../../shared/signaling/werift-speedups';

// Turned off (the command line's VS_WERIFT_SPEEDUPS=0): werift runs as published. Each test file
// loads werift afresh, so nothing applied elsewhere reaches this one.

test('switched off, no speed-up is applied and the status says why', () => {
  const deserialize = RtpHeader.deSerialize;
  disableWeriftSpeedups();
  expect(Object.values(speedUpWerift()).every((applied) => applied === false)).toBe(true);
  expect(weriftSpeedupsStatus()).toMatchObject({ enabled: false, reason: 'turned off', version: expect.any(String) });
  expect(RtpHeader.deSerialize).toBe(deserialize);
});
