import { nonFiniteNumberPath } from '../common/json-values.js';

/**
 * What may be stored as skill progress. jsonb keeps numbers as exact decimals of any size, so nothing in
 * the database stops a sum beyond the largest double; but every JSON reader, this service's first, turns
 * such a number into Infinity, which JSON cannot carry: the answer then said `"progress": null`.
 */

/** The largest magnitude a numeric progress may reach: the largest finite double, exactly as JSON writes it. */
export const PROGRESS_LIMIT = Number.MAX_VALUE;

export const MAX_PROGRESS_TEXT = 10_000;
export const MAX_PROGRESS_OBJECT_BYTES = 16 * 1024;

/** Why `value` (the body's `value`) cannot be progress, or undefined when it can. */
export function progressValueProblem(value: unknown): string | undefined {
  // The body parser reads a JSON number such as 1e999 as Infinity, and JSON.stringify would store it as null.
  const beyond = nonFiniteNumberPath(value);
  if (beyond?.length === 0) return `value is a number beyond the finite range (±${PROGRESS_LIMIT})`;
  if (beyond) return `value holds a number beyond the finite range (±${PROGRESS_LIMIT}) at ${beyond.join('.')}`;
  const accepted =
    typeof value === 'number' ||
    (typeof value === 'string' && value.length <= MAX_PROGRESS_TEXT) ||
    typeof value === 'boolean' ||
    (value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Buffer.byteLength(JSON.stringify(value)) <= MAX_PROGRESS_OBJECT_BYTES);
  return accepted
    ? undefined
    : `value must be a finite number, a string (up to ${MAX_PROGRESS_TEXT} characters), a boolean or a JSON object (up to ${MAX_PROGRESS_OBJECT_BYTES} bytes)`;
}

/** Why an add of `value` was refused: its sum would leave the range. */
export const PROGRESS_SUM_OUT_OF_RANGE = `would take the progress beyond ±${PROGRESS_LIMIT}, the largest finite number: nothing was added`;
