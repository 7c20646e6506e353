/**
 * Variables a child process (ffmpeg) may need to start and run: where to find programs and shared
 * libraries, the time zone, the locale, and a temporary directory. Nothing else is passed on: the
 * parent's environment can hold a client secret, a token or a camera URL with its password
 * (VS_CLIENT_SECRET, VS_SOURCE ...), and /proc/PID/environ of a child is readable where its
 * command line is.
 */
const KEPT = ['PATH', 'LD_LIBRARY_PATH', 'TZ', 'LANG', 'LC_ALL', 'TMPDIR', 'SYSTEMROOT', 'WINDIR', 'TEMP', 'TMP'] as const;

/** The environment to give a child process: the few variables of `env` it needs to run, nothing else. */
export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const name of KEPT) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
