import { lookup } from 'node:dns';
import { isPrivateAddress } from './private-address';

/** Code of the error a download to a refused address fails with. */
export const PRIVATE_ADDRESS_CODE = 'EPRIVATEADDRESS';

export { isLocalServiceUrl, isPrivateAddress } from './private-address';

/** Environment variable that lets every download of the process reach private addresses (1, true, yes, on). */
export const ALLOW_PRIVATE_ENV = 'VS_ALLOW_PRIVATE_IMAGE_URLS';

/** Whether VS_ALLOW_PRIVATE_IMAGE_URLS turns the check off for the whole process. */
export function privateAllowedByEnvironment(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes|on)$/i.test(env[ALLOW_PRIVATE_ENV]?.trim() ?? '');
}

/** The error a refused address fails the connection with. */
export function privateAddressError(): NodeJS.ErrnoException {
  return Object.assign(new Error('the address is on a loopback, link-local or private network'), { code: PRIVATE_ADDRESS_CODE });
}

/**
 * A lookup for undici's DNS interceptor that fails when any address of the host is private: the
 * connection then goes to the address checked here, never to one a second lookup might give.
 */
export function guardedLookup(origin: URL, _options: unknown, callback: (err: NodeJS.ErrnoException | null, addresses: { address: string; family: 4 | 6; ttl: number }[]) => void): void {
  lookup(origin.hostname, { all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) return callback(privateAddressError(), []);
    callback(null, addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4, ttl: 0 })));
  });
}
