/** A URL cut at its user info: scheme and `//`, user info (may be empty), the rest from the host on. */
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([\s\S]*)$/i;

/**
 * The camera node's Source with its password credential joined in, at run time only: the password
 * lives in the node's credentials, never in flows.json. A Source that carries its own password (a
 * flow saved before the credential existed) keeps it; a device, a file or no source is left as it is.
 */
export function joinPassword(source: string | undefined, password: string | undefined): string | undefined {
  if (!source || !password) return source;
  const m = URL_PARTS.exec(source);
  if (!m) return source;
  const at = m[2].lastIndexOf('@');
  const user = at < 0 ? '' : m[2].slice(0, at);
  if (user.includes(':')) return source;
  // Percent-encoded as the camera URL's user info is read back (decodeURIComponent).
  return `${m[1]}${user}:${encodeURIComponent(password)}@${m[2].slice(at + 1)}${m[3]}`;
}

/** True when a camera URL carries a password in its user info (rtsp://user:password@host/...). */
export function carriesPassword(source: string | undefined): boolean {
  const m = source ? URL_PARTS.exec(source) : null;
  if (!m) return false;
  const at = m[2].lastIndexOf('@');
  return at >= 0 && m[2].slice(0, at).includes(':');
}
