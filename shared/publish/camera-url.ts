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
  if (typeof value !== 'string') throw new InputError(field, `${field} must be a camera URL, a device or a file path (got a ${typeof value})`, 'rtsp(s)://, http(s)://, /dev/videoN or a file');
  const text = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new InputError(field, `${field} is not a valid URL: ${maskUrl(text)}`, 'rtsp(s)://host/path or http(s)://host/path');
    }
    const scheme = url.protocol.toLowerCase();
    if (!(CAMERA_SCHEMES as readonly string[]).includes(scheme)) {
      throw new InputError(field, `${field} uses the unsupported scheme ${scheme.replace(':', '')}:// (${maskUrl(text)}); use rtsp://, rtsps://, http:// or https://`, 'rtsp, rtsps, http, https');
    }
    if (!url.hostname) throw new InputError(field, `${field} has no host: ${maskUrl(text)}`, 'a host name or address');
    if (scheme === 'rtsp:' || scheme === 'rtsps:') {
      const transport = (options.transport ?? 'tcp').toLowerCase();
      if (transport !== 'tcp' && transport !== 'udp') throw new InputError('transport', `transport must be tcp or udp (got ${JSON.stringify(String(options.transport).slice(0, 20))})`, 'tcp | udp');
      return { kind: 'rtsp', url: text, transport };
    }
    return { kind: 'http', url: text };
  }
  if (/^\/dev\/video\d+$/.test(text)) return { kind: 'v4l2', device: text };
  if (text.startsWith('/dev/')) throw new InputError(field, `${field} names a device that is not a V4L2 video device: ${text}`, '/dev/videoN');
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text)) {
    throw new InputError(field, `${field} is not a camera URL: ${maskUrl(text)}; use rtsp://, rtsps://, http:// or https://`, 'rtsp, rtsps, http, https');
  }
  return { kind: 'file', file: path.resolve(text) };
}

/**
 * A camera URL fit to show: user name kept, password replaced by *** (`rtsp://user:***@host/...`),
 * and secrets in the query (password=, pwd=, token=...) masked too.
 */
export function maskUrl(text: string): string {
  return text
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)([^/@\s:]*):([^/@\s]*)@/gi, '$1$2:***@')
    .replace(/([?&](?:password|passwd|pwd|pass|token|key|secret|auth)=)[^&\s#]*/gi, '$1***');
}

/** Replaces every URL in `text` by its masked form, and any literal secret given (a password ffmpeg may echo). */
export function maskText(text: string, secrets: readonly string[] = []): string {
  let out = maskUrl(text);
  for (const s of secrets) if (s.length >= 1) out = out.split(s).join('***');
  return out;
}

/** The password (and user info) of a URL, percent-decoded and raw, to scrub from tool output. */
export function urlSecrets(text: string): string[] {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:([^/@\s]*)@/i.exec(text);
  if (!m || m[1] === '') return [];
  const raw = m[1];
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // A malformed escape: the raw form is all there is.
  }
  // Very short passwords would mask ordinary words; the URL form is masked anyway.
  return [...new Set([raw, decoded])].filter((s) => s.length >= 4);
}

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
