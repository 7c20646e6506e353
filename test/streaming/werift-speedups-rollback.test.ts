import { SrtpSession } from 'werift';
import { useKeyObjectsForSrtp } from '../../shared/signaling/werift-speedups';

// A speed-up that fails half way (here werift's cipher has one method that cannot be replaced)
// leaves werift as it was: what it had changed is put back. Each test file loads werift afresh.

test('a speed-up that fails half way is undone', () => {
  const key = Buffer.alloc(16);
  const salt = Buffer.alloc(14);
  const session = new SrtpSession({ keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt }, profile: 0x0001 });
  const cipher = (session as unknown as { remoteContext: { cipher: object } }).remoteContext.cipher;
  const proto = Object.getPrototypeOf(cipher) as Record<string | symbol, unknown>;
  const before = { encryptRtp: proto.encryptRtp, decryptRtp: proto.decryptRtp, encryptRTCP: proto.encryptRTCP, decryptRTCP: proto.decryptRTCP };
  const symbols = Object.getOwnPropertySymbols(proto).length;
  // The third of the four methods it wraps cannot be assigned: the first two were wrapped by then.
  Object.defineProperty(proto, 'encryptRTCP', { value: proto.encryptRTCP, writable: false, configurable: true });
  expect(useKeyObjectsForSrtp()).toBe(false);
  expect({ encryptRtp: proto.encryptRtp, decryptRtp: proto.decryptRtp, encryptRTCP: proto.encryptRTCP, decryptRTCP: proto.decryptRTCP }).toEqual(before);
  expect(Object.getOwnPropertySymbols(proto)).toHaveLength(symbols);
});
