import { badRequest } from './errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './list-query.js';

/**
 * The query of a route read page by page from a position (the inbox's `after`, the audit's `before`):
 * that position, if given and well-formed, and `limit`. Anything else is a 400 naming the parameter.
 */
export function keysetQuery(
  query: Record<string, unknown>,
  position: { name: string; pattern: RegExp; means: string },
): { position: string | undefined; limit: number } {
  const unknown = Object.keys(query).find((name) => name !== position.name && name !== 'limit');
  if (unknown !== undefined)
    throw badRequest(`unknown query parameter "${unknown}": this route takes ${position.name} and limit`, [
      { field: unknown, message: 'not a parameter of this route' },
    ]);
  const { [position.name]: value, limit } = query;
  if (value !== undefined && (typeof value !== 'string' || !position.pattern.test(value)))
    throw badRequest(`${position.name} must be ${position.means}`, [{ field: position.name, message: `not ${position.means}` }]);
  const count = limit === undefined ? DEFAULT_LIMIT : typeof limit === 'string' && /^\d{1,4}$/.test(limit) ? Number(limit) : NaN;
  if (!(count >= 1 && count <= MAX_LIMIT))
    throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`, [{ field: 'limit', message: `must be 1 to ${MAX_LIMIT}` }]);
  return { position: value, limit: count };
}
