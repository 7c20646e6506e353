import { parseArgs } from 'node:util';
import { InputError } from '../shared/errors';
import { SERVICE_URLS } from '../shared/service-urls';

/** One flag of a command: its name, the environment variable that also sets it, its value placeholder, its help line. */
export interface Flag {
  name: string;
  /** '' for a flag with no variable (--help). */
  env: string;
  /** The value's placeholder; none for an on/off flag. */
  value?: string;
  help: string;
  /** May be given several times (each value kept). */
  multiple?: boolean;
}

/** The credential flags every command takes, so one set of variables serves a script of several commands. */
export const CREDENTIAL_FLAGS: readonly Flag[] = [
  { name: 'auth-url', env: 'VS_AUTH_URL', value: 'URL', help: `authorization server (default ${SERVICE_URLS.authUrl})` },
  { name: 'vision-url', env: 'VS_VISION_URL', value: 'URL', help: `Visual Recognition API (default ${SERVICE_URLS.visionUrl})` },
  { name: 'sfu-url', env: 'VS_SFU_URL', value: 'URL', help: `Live Streaming API (default ${SERVICE_URLS.sfuUrl})` },
  { name: 'client-id', env: 'VS_CLIENT_ID', value: 'ID', help: 'client id (required); the secret is read from VS_CLIENT_SECRET only' },
];

/** --duration, as every long-running command takes it. */
export const DURATION_FLAG: Flag = { name: 'duration', env: 'VS_DURATION', value: 'SECONDS', help: 'stop after this long and exit 0' };

/**
 * Attempts at the first join of a room (each camera's, for publish) before the command gives up with
 * exit 1, when --join-attempts does not say: with the rejoin backoff (0.5 s doubling, jittered, up to
 * 10 s) and each ticket request's own retries, about half a minute. Once joined, a session rejoins
 * without limit.
 */
export const DEFAULT_JOIN_ATTEMPTS = 5;

/** Most --join-attempts takes: beyond it, a room that cannot be joined would hold the command for many minutes. */
export const MAX_JOIN_ATTEMPTS = 100;

/** --join-attempts, as every command that joins a room takes it. */
export const JOIN_ATTEMPTS_FLAG: Flag = {
  name: 'join-attempts',
  env: 'VS_JOIN_ATTEMPTS',
  value: 'N',
  help: `attempts at joining the room at start before giving up with exit 1 (1..${MAX_JOIN_ATTEMPTS}; default ${DEFAULT_JOIN_ATTEMPTS}); once joined, a lost session is rejoined without limit`,
};

/** --join-attempts (DEFAULT_JOIN_ATTEMPTS when not given): a whole number in 1..MAX_JOIN_ATTEMPTS. */
export function joinAttemptsOf(flags: FlagValues): number {
  const n = numberFlag(flags.get('join-attempts'), 'join-attempts');
  if (n === undefined) return DEFAULT_JOIN_ATTEMPTS;
  if (!Number.isInteger(n) || n < 1 || n > MAX_JOIN_ATTEMPTS) {
    throw new InputError('invalid_input', `--join-attempts must be a whole number from 1 to ${MAX_JOIN_ATTEMPTS}, got ${n}`, { field: 'join-attempts', limit: `1..${MAX_JOIN_ATTEMPTS}` });
  }
  return n;
}

/** --loopback, as every command that joins a room takes it. */
export const LOOPBACK_FLAG: Flag = { name: 'loopback', env: 'VS_LOOPBACK', help: 'WebRTC on 127.0.0.1 only (default: when --sfu-url is on this machine)' };

/** The --help flag. */
export const HELP_FLAG: Flag = { name: 'help', env: '', help: 'show this help' };

/** What a command line gave: each flag's value, falling back to its environment variable. */
export interface FlagValues {
  /** The flag's value (the last one given), else its variable's, else undefined. */
  get(name: string): string | undefined;
  /** Every value of a repeatable flag (else its variable's value as one). */
  all(name: string): string[];
  /** True when an on/off flag is given, or its variable is 1, true, yes or on. */
  on(name: string): boolean;
  /** The flag's value; an InputError naming the flag when there is none. */
  required(name: string): string;
  /** The arguments given besides the flags, in order (only for a command that takes them). */
  args: readonly string[];
}

/**
 * Reads `args` against `flags` (strict: an unknown flag or a stray word is an InputError that names
 * the closest flag), each flag falling back to its environment variable. A command that takes
 * arguments besides its flags names them in `positionals` (IMAGE, IMAGE): at most that many are taken.
 */
export function parseFlags(args: readonly string[], flags: readonly Flag[], env: NodeJS.ProcessEnv, positionals: readonly string[] = []): FlagValues {
  let values: Record<string, string | string[] | boolean | undefined>;
  let words: string[];
  try {
    const parsed = parseArgs({
      args: [...args],
      options: Object.fromEntries(flags.map((f) => [f.name, { type: f.value ? 'string' : 'boolean', ...(f.multiple ? { multiple: true } : {}) }])) as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>,
      strict: true,
      allowPositionals: positionals.length > 0,
    });
    values = parsed.values as typeof values;
    words = parsed.positionals;
  } catch (err) {
    throw unknownFlag(err, flags);
  }
  if (words.length > positionals.length) {
    const word = words[positionals.length];
    throw new InputError('invalid_input', `unexpected argument ${JSON.stringify(word.slice(0, 40))}: this takes ${positionals.join(' ')} and flags (--flag VALUE)`, { field: 'arguments', limit: positionals.join(' ') });
  }
  const flagOf = (name: string): Flag => {
    const f = flags.find((x) => x.name === name);
    if (!f) throw new Error(`no flag --${name}`);
    return f;
  };
  const fromEnv = (name: string): string | undefined => {
    const variable = flagOf(name).env;
    const v = variable ? env[variable] : undefined;
    return v === undefined || v === '' ? undefined : v;
  };
  const get = (name: string): string | undefined => {
    const v = values[name];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && v.length > 0) return v[v.length - 1];
    return fromEnv(name);
  };
  return {
    get,
    all: (name) => {
      const v = values[name];
      if (Array.isArray(v)) return v;
      const one = get(name);
      return one === undefined ? [] : [one];
    },
    on: (name) => values[name] === true || SAYS_ON.test(fromEnv(name) ?? ''),
    required: (name) => {
      const v = get(name);
      if (!v) {
        const variable = flagOf(name).env;
        throw new InputError('invalid_input', `--${name} is required${variable ? ` (or ${variable})` : ''}`, { field: name, limit: 'a value' });
      }
      return v;
    },
    args: words,
  };
}

/** The help lines of a list of flags: `--name VALUE   help [VARIABLE]`. */
export function flagLines(flags: readonly Flag[]): string[] {
  return flags.map((f) => `${`  --${f.name}${f.value ? ` ${f.value}` : ''}`.padEnd(36)} ${f.help}${f.env ? ` [${f.env}]` : ''}`);
}

/** A command's --help: usage, what it does (and examples), its flags with their variables, then the variables read from the environment only. */
export function helpPage(page: { command: string; usage: string; about: readonly string[]; flags: readonly Flag[]; environment?: Readonly<Record<string, string>>; after?: readonly string[] }): string {
  const environment = { VS_CLIENT_SECRET: 'the client secret (never a flag: it would show in ps)', ...page.environment };
  return [
    `Usage: vision-streaming ${page.command} ${page.usage}`,
    '',
    ...page.about,
    '',
    'Options (each may also be set by the environment variable in brackets; a flag wins):',
    ...flagLines(page.flags),
    '',
    'Environment only:',
    ...Object.entries(environment).map(([name, help]) => `  ${name.padEnd(36)} ${help}`),
    '',
    ...(page.after ? [...page.after, ''] : []),
  ].join('\n');
}

/** The client secret, from VS_CLIENT_SECRET only (a flag would show it in ps). */
export function clientSecretOf(env: NodeJS.ProcessEnv): string {
  const secret = env.VS_CLIENT_SECRET;
  if (!secret) throw new InputError('invalid_input', 'the client secret must be given in the environment variable VS_CLIENT_SECRET', { field: 'VS_CLIENT_SECRET', limit: 'a value' });
  return secret;
}

/** The credentials and service addresses the credential flags give. */
export function credentialsOf(flags: FlagValues, env: NodeJS.ProcessEnv): { authUrl: string; visionUrl: string; sfuUrl: string; clientId: string; clientSecret: string } {
  const clientId = flags.required('client-id');
  return {
    authUrl: flags.get('auth-url') ?? SERVICE_URLS.authUrl,
    visionUrl: flags.get('vision-url') ?? SERVICE_URLS.visionUrl,
    sfuUrl: flags.get('sfu-url') ?? SERVICE_URLS.sfuUrl,
    clientId,
    clientSecret: clientSecretOf(env),
  };
}

/** The words a switch's variable (or on|off value) takes for on, and for off. */
const SAYS_ON = /^(1|true|yes|on)$/i;
const SAYS_OFF = /^(0|false|no|off)$/i;

/** A flag's on|off text as a boolean (undefined when not given); an InputError naming --flag when it is neither. */
export function onOffFlag(text: string | undefined, flag: string): boolean | undefined {
  if (text === undefined) return undefined;
  if (!SAYS_ON.test(text) && !SAYS_OFF.test(text)) throw new InputError('invalid_input', `--${flag} takes on or off (got ${JSON.stringify(text.slice(0, 20))})`, { field: flag, limit: 'on|off' });
  return SAYS_ON.test(text);
}

/** A flag's text as a number (undefined when not given); an InputError naming --flag when it is not one. */
export function numberFlag(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InputError('invalid_input', `--${flag} must be a number, got ${JSON.stringify(v.slice(0, 40))}`, { field: flag, limit: 'a number' });
  return n;
}

/** --duration in ms (undefined when not given): a number of seconds > 0. */
export function durationOf(flags: FlagValues): number | undefined {
  const seconds = numberFlag(flags.get('duration'), 'duration');
  if (seconds === undefined) return undefined;
  if (!(seconds > 0)) throw new InputError('invalid_input', '--duration must be a number of seconds > 0', { field: 'duration', limit: '> 0' });
  return seconds * 1000;
}

/** The name among `names` closest to `wrong` (at most a third of its letters off), for "did you mean". */
export function closest(wrong: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(wrong.length / 3)) + 1;
  for (const name of names) {
    const d = editDistance(wrong, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/** parseArgs' refusal as an InputError naming the flag, the closest known one, and where the list is. */
function unknownFlag(err: unknown, flags: readonly Flag[]): InputError {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = /'(-{1,2}[^']*)'/.exec(message)?.[1] ?? '';
    const bare = given.replace(/^-+/, '').split('=')[0];
    const near = closest(bare, flags.map((f) => f.name));
    return new InputError('invalid_input', `unknown flag ${given || bare}${near ? ` (did you mean --${near}?)` : ''}`, { field: bare || 'flag', limit: 'a flag --help lists' });
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const word = /'([^']*)'/.exec(message)?.[1] ?? '';
    return new InputError('invalid_input', `unexpected argument ${JSON.stringify(word.slice(0, 40))}: every value follows its flag (--flag VALUE)`, { field: 'arguments', limit: 'flags only' });
  }
  // A flag given without its value, or a value given to an on/off flag: parseArgs names the flag.
  const flag = /'(--[a-z-]+)/.exec(message)?.[1]?.slice(2) ?? 'flag';
  return new InputError('invalid_input', message.replace(/\s+/g, ' ').slice(0, 200), { field: flag, limit: 'a flag --help lists' });
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}
