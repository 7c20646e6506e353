/** Faults for one endpoint: rates are probabilities in 0..1 whose sum must not exceed 1. */
export interface EndpointFaults {
  tooManyRequests?: number;
  limitExceeded?: number;
  serverError?: number;
  timeout?: number;
  /** Rate of 400 face_not_found, as the service answers when its detector misses the face of an image to compare or add. */
  faceNotFound?: number;
  latencyMs?: number;
  seed?: number;
}

/** Faults per endpoint name ('detect_faces', 'token', 'rooms', ...) or '*' for every endpoint. */
export interface FaultConfig {
  [endpoint: string]: EndpointFaults;
}

const RATE_KEYS = ['tooManyRequests', 'limitExceeded', 'serverError', 'timeout', 'faceNotFound'] as const;
const ALL_KEYS = new Set<string>([...RATE_KEYS, 'latencyMs', 'seed']);

/** Largest added latency accepted, so a typo cannot park a test for hours. */
export const MAX_LATENCY_MS = 60_000;

/** Checks a fault configuration and returns a copy; throws a RangeError naming the bad field. */
export function validateFaultConfig(input: unknown): FaultConfig {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new RangeError('fault configuration must be a JSON object keyed by endpoint name');
  }
  const out: FaultConfig = {};
  for (const [endpoint, raw] of Object.entries(input as Record<string, unknown>)) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new RangeError(`faults.${endpoint} must be an object`);
    }
    const rule: EndpointFaults = {};
    let total = 0;
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      if (!ALL_KEYS.has(key)) throw new RangeError(`faults.${endpoint}.${key} is not a known fault setting`);
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new RangeError(`faults.${endpoint}.${key} must be a finite number`);
      }
      if ((RATE_KEYS as readonly string[]).includes(key)) {
        if (value < 0 || value > 1) throw new RangeError(`faults.${endpoint}.${key} must be between 0 and 1`);
        total += value;
      } else if (key === 'latencyMs' && (value < 0 || value > MAX_LATENCY_MS)) {
        throw new RangeError(`faults.${endpoint}.latencyMs must be between 0 and ${MAX_LATENCY_MS}`);
      }
      rule[key as keyof EndpointFaults] = value;
    }
    if (total > 1 + 1e-9) throw new RangeError(`faults.${endpoint}: the error rates add up to ${total}, above 1`);
    out[endpoint] = rule;
  }
  return out;
}
