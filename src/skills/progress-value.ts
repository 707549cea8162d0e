import { isJsonObject, storableJsonProblem } from '../common/json-values.js';

/**
 * What may be stored as skill progress. jsonb keeps numbers as exact decimals of any size, so nothing in
 * the database stops a sum beyond the largest double; but every JSON reader, this service's first, turns
 * such a number into Infinity, which JSON cannot carry: the answer then said `"progress": null`.
 */

/** The largest magnitude a numeric progress may reach: the largest finite double, exactly as JSON writes it. */
export const PROGRESS_LIMIT = Number.MAX_VALUE;

export const MAX_PROGRESS_TEXT = 10_000;
export const MAX_PROGRESS_OBJECT_BYTES = 16 * 1024;

const SHAPES = `must be a finite number, a string (up to ${MAX_PROGRESS_TEXT} characters), a boolean or a JSON object (up to ${MAX_PROGRESS_OBJECT_BYTES} bytes)`;

/** Why `value` (the body's `value`) cannot be progress, or undefined when it can (worded after the field's name). */
export function progressValueProblem(value: unknown): string | undefined {
  // The body parser reads a JSON number such as 1e999 as Infinity, and JSON.stringify would store it as null.
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `is a number beyond the finite range (±${PROGRESS_LIMIT})`;
  if (typeof value === 'boolean') return undefined;
  if (!(typeof value === 'string' && value.length <= MAX_PROGRESS_TEXT) && !isJsonObject(value)) return SHAPES;
  const problem = storableJsonProblem(value);
  if (problem) return problem.replace('finite range', `finite range (±${PROGRESS_LIMIT})`);
  return typeof value === 'string' || Buffer.byteLength(JSON.stringify(value)) <= MAX_PROGRESS_OBJECT_BYTES ? undefined : SHAPES;
}

/** Why an add of `value` was refused: its sum would leave the range. */
export const PROGRESS_SUM_OUT_OF_RANGE = `would take the progress beyond ±${PROGRESS_LIMIT}, the largest finite number: nothing was added`;
