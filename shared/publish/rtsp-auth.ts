import { createHash, randomBytes } from 'node:crypto';

/** A camera's user name and password, percent-decoded. */
export interface RtspCredentials {
  user: string;
  password: string;
}

/** One challenge of a WWW-Authenticate header: its scheme (lower case) and parameters (names lower case). */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * Reads WWW-Authenticate header values (RFC 7235): each value may hold several challenges, each a
 * scheme followed by name=value or name="quoted value" parameters separated by commas.
 */
export function parseChallenges(values: readonly string[]): AuthChallenge[] {
  const out: AuthChallenge[] = [];
  for (const value of values) {
    const re = /\s*,?\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*)))?/gy;
    let current: AuthChallenge | undefined;
    let m: RegExpExecArray | null;
    while (re.lastIndex < value.length && (m = re.exec(value)) !== null) {
      if (m[0].trim() === '') break;
      const isParam = m[2] !== undefined || m[3] !== undefined;
      if (isParam && current) current.params[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
      else if (!isParam) {
        // A bare token starts a new challenge; a token68 (Basic's realm-less form) is read as a scheme with no parameters.
        current = { scheme: m[1].toLowerCase(), params: {} };
        out.push(current);
      }
    }
  }
  return out;
}

/** The challenge to answer: Digest with MD5 first (the password never crosses the wire), else Basic; undefined when none is supported. */
export function pickChallenge(challenges: readonly AuthChallenge[]): AuthChallenge | undefined {
  const digest = challenges.find((c) => c.scheme === 'digest' && (c.params.algorithm ?? 'MD5').toUpperCase() === 'MD5' && c.params.nonce !== undefined);
  return digest ?? challenges.find((c) => c.scheme === 'basic');
}

/** The inputs of a Digest response (RFC 2617 section 3.2.2, MD5). */
export interface DigestInput extends RtspCredentials {
  realm: string;
  nonce: string;
  method: string;
  uri: string;
  /** 'auth' or absent (the RFC 2069 form). */
  qop?: 'auth';
  /** Nonce count, 8 hex digits; with qop only. */
  nc?: string;
  cnonce?: string;
}

/** The request-digest of RFC 2617: MD5(HA1:nonce[:nc:cnonce:qop]:HA2). */
export function digestResponse(d: DigestInput): string {
  const ha1 = md5(`${d.user}:${d.realm}:${d.password}`);
  const ha2 = md5(`${d.method}:${d.uri}`);
  return d.qop ? md5(`${ha1}:${d.nonce}:${d.nc}:${d.cnonce}:${d.qop}:${ha2}`) : md5(`${ha1}:${d.nonce}:${ha2}`);
}

/**
 * Builds the Authorization header of every request after a challenge: Basic, or Digest MD5 with
 * or without qop=auth (a fresh cnonce and the next nonce count each time, RFC 7616 section 3.4).
 */
export class RtspAuthorizer {
  readonly #credentials: RtspCredentials;
  readonly #challenge: AuthChallenge;
  readonly #cnonce: () => string;
  #count = 0;

  constructor(credentials: RtspCredentials, challenge: AuthChallenge, cnonce: () => string = () => randomBytes(8).toString('hex')) {
    this.#credentials = credentials;
    this.#challenge = challenge;
    this.#cnonce = cnonce;
  }

  /** The Authorization header value for one request. */
  header(method: string, uri: string): string {
    const { user, password } = this.#credentials;
    const p = this.#challenge.params;
    if (this.#challenge.scheme === 'basic') return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
    const realm = p.realm ?? '';
    const nonce = p.nonce ?? '';
    const qops = (p.qop ?? '').split(',').map((q) => q.trim().toLowerCase());
    const parts = [`username="${quote(user)}"`, `realm="${quote(realm)}"`, `nonce="${quote(nonce)}"`, `uri="${quote(uri)}"`];
    if (qops.includes('auth')) {
      const nc = (++this.#count).toString(16).padStart(8, '0');
      const cnonce = this.#cnonce();
      parts.push(`response="${digestResponse({ user, password, realm, nonce, method, uri, qop: 'auth', nc, cnonce })}"`, 'qop=auth', `nc=${nc}`, `cnonce="${cnonce}"`);
    } else {
      parts.push(`response="${digestResponse({ user, password, realm, nonce, method, uri })}"`);
    }
    if (p.opaque !== undefined) parts.push(`opaque="${quote(p.opaque)}"`);
    if (p.algorithm !== undefined) parts.push(`algorithm=${p.algorithm}`);
    return `Digest ${parts.join(', ')}`;
  }
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

function quote(text: string): string {
  return text.replace(/["\\]/g, '\\$&');
}
