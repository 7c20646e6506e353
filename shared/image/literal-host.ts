/**
 * Private addresses told from a URL's host as written, with no lookup and no Node module, so that
 * the n8n Cloud build (which may use neither) can check the image URLs it downloads through n8n's
 * helper. A name that resolves to such an address is not caught here; the main package's own
 * downloads check the address they connect to (address-guard.ts).
 */

const IPV4_PRIVATE: readonly [number, number][] = [
  [0x00000000, 8], [0x0a000000, 8], [0x64400000, 10], [0x7f000000, 8], [0xa9fe0000, 16], [0xac100000, 12],
  [0xc0000000, 24], [0xc0a80000, 16], [0xc6120000, 15], [0xe0000000, 4], [0xf0000000, 4],
];

/** True for localhost, or a literal IPv4/IPv6 address on a loopback, link-local, private, multicast or reserved range. */
export function isPrivateLiteralHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const v4 = ipv4(host);
  if (v4 !== undefined) return IPV4_PRIVATE.some(([net, bits]) => v4 >>> (32 - bits) === net >>> (32 - bits));
  if (!host.includes(':')) return false;
  // The URL parser writes IPv6 compressed and in hex: an IPv4-mapped address as ::ffff:7f00:1.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) return IPV4_PRIVATE.some(([net, bits]) => ((parseInt(mapped[1], 16) * 0x10000 + parseInt(mapped[2], 16)) >>> (32 - bits)) === net >>> (32 - bits));
  if (host === '::1' || host === '::') return true;
  const first = parseInt(host.split(':')[0] || '0', 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00;
}

/** True when a service address is this machine (loopback or localhost), as a local sandbox is. */
export function isLoopbackServiceUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
    const v4 = ipv4(host);
    return host === 'localhost' || host === '::1' || (v4 !== undefined && v4 >>> 24 === 127);
  } catch {
    return false;
  }
}

function ipv4(host: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}
