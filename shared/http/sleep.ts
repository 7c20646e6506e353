import type { Sleep } from './retry';

/**
 * Resolves after `ms`, or as soon as one of `signals` fires (the caller then checks which). The
 * timer is kept referenced: a script whose only pending work is a retry must not exit.
 */
export const sleep: Sleep = (ms, ...signals) => {
  const watched = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (ms <= 0 || watched.some((signal) => signal.aborted)) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      for (const signal of watched) signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    for (const signal of watched) signal.addEventListener('abort', wake, { once: true });
  });
};
