import path from 'node:path';

const applied = new Map<string, boolean>();

/** The speed-ups applied to this thread's werift so far (they stay for its lifetime). */
export function appliedSpeedups(): string[] {
  return [...applied].filter(([, done]) => done).map(([name]) => name);
}

/** Changes a speed-up makes to werift, recorded so that a speed-up that fails half way is undone. */
export interface Patcher {
  /** Assigns `target[key] = value`. */
  value(target: object, key: PropertyKey, value: unknown): void;
  /** Defines `key` on `target` with `descriptor`. */
  define(target: object, key: PropertyKey, descriptor: PropertyDescriptor): void;
}

/**
 * Runs a speed-up's `apply` once per thread and remembers whether it took. False when werift's
 * insides are not what it expects, or when applying it threw (werift changed or froze them): what it
 * had changed by then is put back, and werift keeps working as it is, only slower.
 */
export function applyOnce(name: string, apply: (patch: Patcher) => boolean): boolean {
  let done = applied.get(name);
  if (done === undefined) {
    applied.set(name, false);
    const undo: (() => void)[] = [];
    const remember = (target: object, key: PropertyKey): void => {
      const before = Object.getOwnPropertyDescriptor(target, key);
      undo.push(() => (before ? Object.defineProperty(target, key, before) : Reflect.deleteProperty(target, key)));
    };
    const patch: Patcher = {
      value(target, key, value) {
        remember(target, key);
        (target as Record<PropertyKey, unknown>)[key] = value;
      },
      define(target, key, descriptor) {
        remember(target, key);
        Object.defineProperty(target, key, descriptor);
      },
    };
    try {
      done = apply(patch);
    } catch {
      done = false;
    }
    if (!done) {
      for (const step of undo.reverse()) {
        try {
          step();
        } catch {
          // A property werift froze meanwhile: nothing more can be put back.
        }
      }
    }
    applied.set(name, done);
  }
  return done;
}

/** The compiled module of werift's `common` package named `name`, from the CommonJS cache (werift's entry point has loaded it). */
export function weriftCommonModule(name: string): Record<string, unknown> | undefined {
  const file = path.join(path.dirname(require.resolve('werift')), '..', '..', 'common', 'src', `${name}.js`);
  return require.cache[file]?.exports as Record<string, unknown> | undefined;
}
