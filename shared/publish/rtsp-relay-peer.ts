import { readFile } from 'node:fs/promises';
import type net from 'node:net';
import os from 'node:os';

/**
 * Who made a loopback connection: this process's user ('same'), another user ('other'), not found
 * ('unknown': refused as well), or not knowable on this system ('unchecked': no /proc/net/tcp).
 */
export type PeerUser = 'same' | 'other' | 'unknown' | 'unchecked';

/** One row of /proc/net/tcp{,6}: the socket's own end, the far end, its state and owner. */
interface TcpRow {
  local: string;
  remote: string;
  state: string;
  uid: number;
}

// The state column's ESTABLISHED (include/net/tcp_states.h); a socket closed since (TIME_WAIT) shows uid 0.
const ESTABLISHED = '01';

/**
 * Whose process holds the other end of an accepted loopback connection. On Linux the peer's own
 * socket is a row of /proc/net/tcp (or tcp6 for a dual-stack socket) whose local end is our
 * remote end and whose remote end is our local end; its uid column is the user that made it.
 * The row exists before the connection is accepted (the client side is established first).
 */
export async function peerUser(socket: net.Socket): Promise<PeerUser> {
  const uid = process.getuid?.();
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (uid === undefined) return 'unchecked';
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return 'unknown';
  const rows = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((f) => readFile(f, 'latin1').then(parseRows, (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : []))));
  // No /proc/net/tcp at all: not Linux (or /proc not mounted); tcp6 alone is missing where IPv6 is off.
  if (rows[0] === undefined) return 'unchecked';
  const peer = endpoint(remoteAddress, remotePort);
  const us = endpoint(localAddress, localPort);
  const row = rows.flatMap((r) => r ?? []).find((r) => r.local === peer && r.remote === us && r.state === ESTABLISHED);
  if (!row) return 'unknown';
  return row.uid === uid ? 'same' : 'other';
}

function endpoint(address: string, port: number): string {
  return `${address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')}:${port}`;
}

/** The rows of /proc/net/tcp or tcp6, addresses as Node writes them (IPv4-mapped IPv6 as IPv4). */
function parseRows(text: string): TcpRow[] {
  const out: TcpRow[] = [];
  for (const line of text.split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const local = procEndpoint(f[1]);
    const remote = procEndpoint(f[2]);
    const uid = Number(f[7]);
    if (local && remote && Number.isInteger(uid)) out.push({ local, remote, state: f[3], uid });
  }
  return out;
}

/** ADDR:PORT as the kernel prints it: the address as 32-bit words in host byte order, the port in hex. */
function procEndpoint(text: string): string | undefined {
  const [hex, portHex] = text.split(':');
  if (!hex || !portHex || !/^[0-9A-Fa-f]+$/.test(hex) || (hex.length !== 8 && hex.length !== 32)) return undefined;
  const bytes = Buffer.from(hex, 'hex');
  if (os.endianness() === 'LE') for (let i = 0; i < bytes.length; i += 4) bytes.subarray(i, i + 4).reverse();
  const port = parseInt(portHex, 16);
  if (bytes.length === 4) return `${[...bytes].join('.')}:${port}`;
  // Only IPv4-mapped IPv6 (::ffff:a.b.c.d) can reach the relay, which listens on 127.0.0.1.
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `${[...bytes.subarray(12)].join('.')}:${port}`;
  return `[${bytes.toString('hex')}]:${port}`;
}
