import { registerDecorator } from 'class-validator';

/**
 * What JSON values a client sends may hold, wherever the service stores them (storage objects, skill
 * progress, leaderboard and record metadata), and how a DTO declares such a field.
 */

/** Why a field's value is refused (`must be a JSON object`), or undefined when it is taken. */
export type JsonValueProblem = (value: unknown) => string | undefined;

/** The name of the class-validator metadata that marks a JSON field: the validation pipe looks it up. */
export const JSON_VALUE = 'jsonValue';

/**
 * A field that holds JSON as the client sent it. The validation pipe checks it with `problem` before the
 * body becomes its DTO and passes the parsed value through as it is: class-transformer would copy it
 * node by node (a megabyte of `{}` cost seconds) and class-validator has nothing to add to it.
 * `problem` sees the value unless the field's @IsOptional() or @IsOmittable() lets it be left out.
 */
export function JsonValue(problem: JsonValueProblem): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: JSON_VALUE,
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [problem],
      // Checked already (RequestValidationPipe): by the time class-validator runs, the field holds a placeholder.
      validator: { validate: () => true },
    });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What jsonb refuses in a string or a key (as PostgreSQL refuses U+0000 in any text). */
const unstorableText = (text: string) => text.includes('\u0000') || LONE_SURROGATE.test(text);

/**
 * Why a parsed JSON value cannot be stored as it was sent, naming where (`at score.best`; nothing when it
 * is the value itself), or undefined: a number beyond the finite range (JSON.parse reads 1e999 as
 * Infinity, which JSON.stringify would write as null), or a string or key jsonb refuses (U+0000, or half
 * of a surrogate pair). Breadth first without recursion, stopping at the first problem; the body parser
 * has bounded the values it visits.
 */
export function storableJsonProblem(value: unknown): string | undefined {
  // Each value visited, with where it is: the index of its holder's entry and its key (the path is only spelled out for a problem).
  const seen: Array<{ value: unknown; holder: number; key: string }> = [{ value, holder: -1, key: '' }];
  const where = (entry: number) => {
    const keys: string[] = [];
    for (let at = entry; at > 0; at = seen[at].holder) keys.unshift(seen[at].key);
    return keys.length > 0 ? ` at ${keys.join('.')}` : '';
  };
  for (let entry = 0; entry < seen.length; entry++) {
    const current = seen[entry].value;
    if (typeof current === 'number' && !Number.isFinite(current)) return `holds a number beyond the finite range${where(entry)}`;
    if (typeof current === 'string' && unstorableText(current)) {
      return `holds a text that cannot be stored (U+0000, or half of a surrogate pair)${where(entry)}`;
    }
    if (current === null || typeof current !== 'object') continue;
    for (const [key, inner] of Object.entries(current)) {
      if (unstorableText(key)) return `holds a key that cannot be stored (U+0000, or half of a surrogate pair)${where(entry)}`;
      seen.push({ value: inner, holder: entry, key });
    }
  }
  return undefined;
}

/** A plain JSON object, not an array or null. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Why `value` is not a storable JSON object of at most `bytes` bytes (compact, UTF-8), or undefined. */
export function smallJsonObjectProblem(value: unknown, bytes: number): string | undefined {
  if (!isJsonObject(value)) return `must be a JSON object of at most ${bytes} bytes`;
  const problem = storableJsonProblem(value);
  if (problem) return problem;
  return Buffer.byteLength(JSON.stringify(value)) <= bytes ? undefined : `must be a JSON object of at most ${bytes} bytes`;
}
