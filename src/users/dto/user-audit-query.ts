import { KeysetQuery } from '../../common/keyset-query.js';
import { QueryPattern } from '../../common/query-params.js';

/** The id of an audit entry, as `before` takes it. */
const AUDIT_ID = /^[0-9]{1,18}$/;

export class UserAuditQuery extends KeysetQuery {
  @QueryPattern(AUDIT_ID, { means: 'must be the id of an audit entry (digits)', description: 'Entries older than this id.' })
  before?: string;
}
