import { KeysetQuery } from '../../common/keyset-query.js';
import { QueryPattern, QueryUuid } from '../../common/query-params.js';

/** A ledger entry's sequence, as `before` takes it. */
const LEDGER_SEQUENCE = /^[0-9]{1,18}$/;

export class LedgerQuery extends KeysetQuery {
  @QueryPattern(LEDGER_SEQUENCE, {
    means: 'must be the sequence of a ledger entry (digits)',
    description: 'Entries older than this sequence.',
  })
  before?: string;

  @QueryUuid({ required: true })
  personaUid: string;
}
