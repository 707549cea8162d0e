/**
 * Scores and subscores are 64-bit signed integers (PostgreSQL `bigint`), negative ones included. JSON
 * numbers are exact only up to 2^53 - 1, so a client sends and receives a larger one as a decimal
 * string: answers carry a number where it is exact and a string beyond (docs/GUIDE.md, Leaderboards).
 */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** What a client may send: a safe integer, or a decimal string of an int64. */
export type Int64Input = number | string;
/** What an answer carries: a number when exact, else a decimal string. */
export type Int64Json = number | string;

const DECIMAL = /^-?(?:0|[1-9]\d{0,18})$/;

/** The value as a bigint, or undefined when it is not an int64 a client may send (floats, NaN, unsafe numbers). */
export function parseInt64(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value !== 'string' || !DECIMAL.test(value)) return undefined;
  const parsed = BigInt(value);
  return parsed >= INT64_MIN && parsed <= INT64_MAX ? parsed : undefined;
}

/** Why `value` is not an int64, for a 400's message. */
export function int64Problem(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value))
    return 'is past 2^53 - 1, where JSON numbers lose digits: send it as a string of digits';
  if (typeof value === 'number') return 'must be an integer';
  return `must be an integer from ${INT64_MIN} to ${INT64_MAX} (a number, or a string of digits beyond 2^53)`;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A stored bigint (pg answers it as a string) as JSON: a number when exact, else the decimal string. */
export function int64Json(value: bigint | string | number): Int64Json;
export function int64Json(value: bigint | string | number | null): Int64Json | null;
export function int64Json(value: bigint | string | number | null): Int64Json | null {
  if (value === null) return null;
  const big = BigInt(value);
  return big >= -SAFE && big <= SAFE ? Number(big) : big.toString();
}

/** The OpenAPI schema of a 64-bit score, in answers and bodies. */
export const INT64_SCHEMA = {
  oneOf: [
    { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    {
      type: 'string',
      pattern: DECIMAL.source,
      maxLength: String(INT64_MIN).length,
      description: 'Beyond 2^53 - 1: the decimal digits of a 64-bit integer.',
    },
  ],
} as const;
