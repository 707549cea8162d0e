import { DEFAULT_LIMIT, MAX_LIMIT } from './list-query.js';
import { QueryInteger } from './query-params.js';

/**
 * The query of a route read page by page from a position (the inbox's `after`, the audit's `before`):
 * each route's DTO extends this with its position, so that `limit` comes first, as the document has
 * always listed it.
 */
export class KeysetQuery {
  @QueryInteger({ min: 1, max: MAX_LIMIT, default: DEFAULT_LIMIT })
  limit: number;
}
