import { lookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Code of the error a download to a refused address fails with. */
export const PRIVATE_ADDRESS_CODE = 'EPRIVATEADDRESS';

/** Environment variable that lets every download of the process reach private addresses (1, true, yes, on). */
export const ALLOW_PRIVATE_ENV = 'VS_ALLOW_PRIVATE_IMAGE_URLS';

/**
 * Addresses an image download does not reach by default: this machine (loopback, unspecified),
 * link-local (cloud metadata services live there), private networks (RFC 1918, unique local,
 * carrier-grade NAT), and multicast or reserved ranges.
 */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(net, prefix, 'ipv6');

/** True for an address in a loopback, link-local, private, multicast or reserved range (IPv4-mapped IPv6 as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  const family = isIP(bare);
  if (family === 0) return false;
  return PRIVATE.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** True when a service address is on this machine (loopback or localhost), as the sandbox is: then local image URLs are expected too. */
export function isLocalServiceUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || (isIP(host) !== 0 && (host === '::1' || /^127\./.test(host)));
  } catch {
    return false;
  }
}

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
