import path from 'node:path';
import { InputError } from '../errors';

/** Where a camera's pictures come from. */
export type CameraInput =
  /** An RTSP/RTSPS camera; TCP unless told otherwise (most cameras drop UDP behind NAT or firewalls). */
  | { kind: 'rtsp'; url: string; transport: 'tcp' | 'udp' }
  /** An HTTP camera: an MJPEG stream (multipart/x-mixed-replace) or a JPEG/PNG snapshot, told apart by its answer. */
  | { kind: 'http'; url: string }
  /** A V4L2 device such as /dev/video0 (USB webcams). */
  | { kind: 'v4l2'; device: string }
  /** A video file, looped. */
  | { kind: 'file'; file: string }
  /** JPEG or PNG images pushed by the host. */
  | { kind: 'push' };

/** Schemes a camera URL may use. */
export const CAMERA_SCHEMES = ['rtsp:', 'rtsps:', 'http:', 'https:'] as const;

/**
 * Reads a camera source: an rtsp(s):// or http(s):// URL, a /dev/videoN device, or a file path.
 * An empty or missing value means images pushed by the host. Throws an InputError naming `field`.
 */
export function parseCameraSource(value: unknown, options: { field?: string; transport?: string } = {}): CameraInput {
  const field = options.field ?? 'source';
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return { kind: 'push' };
  if (typeof value !== 'string') throw new InputError('invalid_input', `${field} must be a camera URL, a device or a file path (got a ${typeof value})`, { field, limit: 'rtsp(s)://, http(s)://, /dev/videoN or a file' });
  const text = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    // Checked on the raw value: trim() would drop a trailing CR/LF, and URL parsing strips tabs and newlines silently.
    refuseUnsafeCharacters(value, field);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new InputError('invalid_input', `${field} is not a valid URL: ${maskUrl(text)}`, { field, limit: 'rtsp(s)://host/path or http(s)://host/path' });
    }
    const scheme = url.protocol.toLowerCase();
    if (!(CAMERA_SCHEMES as readonly string[]).includes(scheme)) {
      throw new InputError('invalid_input', `${field} uses the unsupported scheme ${scheme.replace(':', '')}:// (${maskUrl(text)}); use rtsp://, rtsps://, http:// or https://`, { field, limit: 'rtsp, rtsps, http, https' });
    }
    if (!url.hostname) throw new InputError('invalid_input', `${field} has no host: ${maskUrl(text)}`, { field, limit: 'a host name or address' });
    if (scheme === 'rtsp:' || scheme === 'rtsps:') {
      const transport = (options.transport ?? 'tcp').toLowerCase();
      if (transport !== 'tcp' && transport !== 'udp') throw new InputError('invalid_input', `transport must be tcp or udp (got ${JSON.stringify(String(options.transport).slice(0, 20))})`, { field: 'transport', limit: 'tcp | udp' });
      return { kind: 'rtsp', url: text, transport };
    }
    return { kind: 'http', url: text };
  }
  if (/^\/dev\/video\d+$/.test(text)) return { kind: 'v4l2', device: text };
  if (text.startsWith('/dev/')) throw new InputError('invalid_input', `${field} names a device that is not a V4L2 video device: ${text}`, { field, limit: '/dev/videoN' });
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text)) {
    throw new InputError('invalid_input', `${field} is not a camera URL: ${maskUrl(text)}; use rtsp://, rtsps://, http:// or https://`, { field, limit: 'rtsp, rtsps, http, https' });
  }
  return { kind: 'file', file: path.resolve(text) };
}

/**
 * A camera URL fit to show: the user info (everything before the last `@` of the authority) hidden,
 * the user name kept when a password follows it (`rtsp://user:***@host/...`, a lone user info may be
 * a token: `rtsp://***@host/...`), and secrets in the query (password=, pwd=, token=...) masked too.
 */
export function maskUrl(text: string): string {
  return text.replace(USER_INFO, (_all, scheme: string, info: string) => `${scheme}${maskUserInfo(info)}@`).replace(/([?&](?:password|passwd|pwd|pass|token|key|secret|auth)=)[^&\s#]*/gi, '$1***');
}

/** Replaces every URL in `text` by its masked form, and any literal secret given (a password ffmpeg may echo). */
export function maskText(text: string, secrets: readonly string[] = []): string {
  let out = maskUrl(text);
  // Longest first: a shorter secret inside a longer one would leave the rest of the longer one shown.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (s.length >= 1) out = out.split(s).join('***');
  return out;
}

/** The password of a URL, raw and percent-decoded, to scrub from any text shown. */
export function urlSecrets(text: string): string[] {
  const info = userInfo(text);
  const colon = info?.indexOf(':') ?? -1;
  if (info === undefined || colon < 0 || colon === info.length - 1) return [];
  const raw = info.slice(colon + 1);
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // A malformed escape: the raw form is all there is.
  }
  // Very short passwords would mask ordinary words; the URL form is masked anyway.
  return [...new Set([raw, decoded])].filter((s) => s.length >= 4);
}

/** The raw user info of a URL (before the last `@` of its authority), or undefined when it has none. */
export function userInfo(text: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\s]*)@/i.exec(text);
  return m ? m[1] : undefined;
}

// Scheme, then the user info: the authority ends at the first / ? # (or blank) after ://, and the
// greedy match runs to its last @ (a password may hold a raw @).
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^/?#\s]*)@/gi;

function maskUserInfo(info: string): string {
  const colon = info.indexOf(':');
  return colon < 0 ? '***' : `${info.slice(0, colon)}:***`;
}

/** Refuses a camera URL holding a control character (C0, DEL, C1) or a blank: it would reach the camera's requests as it is. */
function refuseUnsafeCharacters(value: string, field: string): void {
  // eslint-disable-next-line no-control-regex
  const m = /[\u0000-\u001f\u007f-\u009f\s]/.exec(value);
  if (!m) return;
  const code = m[0].charCodeAt(0);
  const name = CONTROL_NAMES[code] ?? (code === 0x20 ? 'a space' : `the character U+${code.toString(16).toUpperCase().padStart(4, '0')}`);
  throw new InputError('invalid_input', `${field} must not contain spaces or control characters (CR, LF, TAB, NUL, ...): found ${name} at position ${m.index + 1}`, { field, limit: 'no spaces or control characters' });
}

const CONTROL_NAMES: Record<number, string> = { 0: 'NUL', 9: 'TAB', 10: 'LF', 13: 'CR', 0x7f: 'DEL' };

/** A short name of a source for status lines, masked. */
export function describeInput(input: CameraInput): string {
  switch (input.kind) {
    case 'rtsp':
    case 'http':
      return maskUrl(input.url);
    case 'v4l2':
      return input.device;
    case 'file':
      return input.file;
    case 'push':
      return 'pushed images';
  }
}
