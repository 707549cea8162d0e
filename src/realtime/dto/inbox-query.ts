import { KeysetQuery } from '../../common/keyset-query.js';
import { QueryParam } from '../../common/query-params.js';
import { CURSOR_PATTERN, type Cursor, parseCursor } from '../notifications.repository.js';

export class InboxQuery extends KeysetQuery {
  @QueryParam<Cursor>({
    schema: { type: 'string', pattern: CURSOR_PATTERN.source },
    description: "The last event's id.",
    // Without it: from the oldest event kept.
    default: { xid: 0n, id: 0n },
    documentedDefault: undefined,
    means: 'must be the id of an event received (<digits>-<digits>)',
    parse: parseCursor,
  })
  after: Cursor;
}
