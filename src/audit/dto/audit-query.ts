import { QueryInteger, QueryParam, QueryPattern, QueryUuid } from '../../common/query-params.js';
import { AUDIT_ID, DEFAULT_AUDIT_PAGE, MAX_ACTION_FILTER, MAX_AUDIT_PAGE, parseActionFilter, parseAuditTime } from '../audit-rules.js';

const AuditTime = (description: string) =>
  QueryParam<Date>({
    schema: { type: 'string', format: 'date-time' },
    description,
    means: 'must be an ISO 8601 date or date-time',
    parse: parseAuditTime,
  });

/** The audit list's query: every filter given must hold. */
export class AuditListQuery {
  @QueryInteger({ min: 1, max: MAX_AUDIT_PAGE, default: DEFAULT_AUDIT_PAGE })
  limit: number;

  @QueryPattern(AUDIT_ID, { means: 'must be the id of an audit entry (digits)', description: 'Entries older than this id.' })
  before?: string;

  @AuditTime('Entries before this time.')
  until?: Date;

  @AuditTime('Entries at or after this time.')
  since?: Date;

  @QueryParam<string>({
    schema: { type: 'string', minLength: 1, maxLength: MAX_ACTION_FILTER, example: 'PUT /items' },
    description: 'Part of the operation, any case.',
    means: `must be 1 to ${MAX_ACTION_FILTER} characters`,
    parse: parseActionFilter,
  })
  action?: string;

  @QueryUuid({ description: 'The record the route named.' })
  targetUid?: string;

  @QueryUuid({ description: "The admin's uid." })
  actorUid?: string;
}
