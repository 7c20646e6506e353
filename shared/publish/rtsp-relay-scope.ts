/**
 * The request URIs the relay forwards (with the camera's credentials): the configured stream and
 * what the camera itself names for it. A URI is in scope when it is the stream's URI (with or
 * without its query), or one of those followed by `/` and a path without `.`/`..` segments (how
 * ffmpeg makes a track's control URL from a relative `a=control`), or a URL the camera's answer to
 * the stream's DESCRIBE names: its Content-Base and Content-Location (as prefixes too) and the
 * SDP's absolute `a=control` URLs. `OPTIONS *` is in scope; anything else is answered 404 by the
 * relay and never reaches the camera.
 */
export class StreamScope {
  /** URIs that are in scope, and prefixes of those under them; all normalised. */
  readonly #exact = new Set<string>();
  readonly #bases = new Set<string>();

  /** `streamUri`: the configured stream as the camera sees it (scheme://host[:port]/path?query, no user info). */
  constructor(streamUri: string) {
    this.#addBase(streamUri);
    const q = streamUri.indexOf('?');
    if (q >= 0) this.#addBase(streamUri.slice(0, q));
  }

  /** True when a request for `uri` (as the camera sees it) may go to the camera. */
  allows(method: string, uri: string): boolean {
    if (uri === '*') return method.toUpperCase() === 'OPTIONS';
    const n = normalise(uri);
    if (n === undefined) return false;
    if (this.#exact.has(n)) return true;
    for (const base of this.#bases) {
      if (n === base) return true;
      const prefix = base.endsWith('/') ? base : `${base}/`;
      if (n.startsWith(prefix) && !hasDotSegment(n.slice(prefix.length))) return true;
    }
    return false;
  }

  /** Takes in the URLs a camera's 2xx answer to a DESCRIBE in scope names (Content-Base, Content-Location, the SDP's control URLs). */
  learn(headers: readonly [string, string][], body: Buffer): void {
    for (const [name, value] of headers) if (/^content-(base|location)$/i.test(name)) this.#addBase(value.trim());
    for (const m of body.toString('latin1').matchAll(/^a=control:[ \t]*(\S+)/gim)) {
      // A relative control is resolved by the client against the bases above: already in scope.
      if (/^rtsps?:\/\//i.test(m[1])) this.#exact.add(normalise(m[1]) ?? '');
    }
    this.#exact.delete('');
  }

  #addBase(uri: string): void {
    const n = normalise(uri);
    if (n === undefined) return;
    this.#bases.add(n.length > 1 && n.endsWith('/') && !n.endsWith('//') ? n.slice(0, -1) : n);
  }
}

/** scheme://authority in lower case, user info dropped; the rest as written. Undefined for what is not an rtsp(s) URL. */
function normalise(uri: string): string | undefined {
  const m = /^(rtsps?:\/\/)([^/?#]*)(.*)$/i.exec(uri);
  if (!m) return undefined;
  const host = m[2].slice(m[2].lastIndexOf('@') + 1);
  return `${m[1]}${host}`.toLowerCase() + m[3];
}

/** A `.` or `..` path segment, written plainly or percent-encoded: a camera would resolve it out of the stream's path. */
function hasDotSegment(rest: string): boolean {
  const path = rest.split(/[?#]/)[0];
  return path.split(/\/|\\|%2f|%5c/i).some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}
