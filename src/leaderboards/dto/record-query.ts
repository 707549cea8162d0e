import { badRequest } from '../../common/errors.js';
import { LIMITS } from '../../common/limits.js';
import { MAX_CURSOR_LENGTH } from '../page-cursor.js';
import type { PeriodChoice } from '../leaderboard-records.service.js';
import { UUID } from '../../common/validators.js';

/** The query of a read of records: each route takes some of these, and anything else is a 400 naming it. */
export interface RecordQuery {
  limit: number;
  period: PeriodChoice;
  cursor?: string;
  personaUids?: string[];
  /** Rows passed over, on the routes that page by skip (a period's prizes, a persona's boards). */
  skip: number;
}

export const DEFAULT_RECORDS = 20;
/** The furthest a skip goes: a period pays at most this many ranks (LIMITS.leaderboardRewardRank). */
export const MAX_SKIP = LIMITS.leaderboardRewardRank;
export const PERIOD_PATTERN = '^(?:current|previous|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$';

export function readRecordQuery(query: Record<string, unknown>, takes: ReadonlyArray<keyof RecordQuery>): RecordQuery {
  const fail = (field: string, message: string) => badRequest(`${field} ${message}`, [{ field, message }]);
  for (const [name, value] of Object.entries(query)) {
    if (!(takes as readonly string[]).includes(name)) throw fail(name, `is not a parameter of this route (it takes ${takes.join(', ')})`);
    if (typeof value !== 'string') throw fail(name, 'is given more than once');
  }
  const { limit, period, cursor, personaUids, skip } = query as Record<string, string | undefined>;
  const count = limit === undefined ? DEFAULT_RECORDS : /^\d{1,3}$/.test(limit) ? Number(limit) : NaN;
  if (!(count >= 1 && count <= LIMITS.leaderboardPage)) throw fail('limit', `must be an integer from 1 to ${LIMITS.leaderboardPage}`);
  const passed = skip === undefined ? 0 : /^\d{1,6}$/.test(skip) ? Number(skip) : NaN;
  if (!(passed >= 0 && passed <= MAX_SKIP)) throw fail('skip', `must be an integer from 0 to ${MAX_SKIP}`);
  if (period !== undefined && !new RegExp(PERIOD_PATTERN).test(period)) throw fail('period', 'must be current, previous or a period uid');
  if (cursor !== undefined && (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH))
    throw fail('cursor', 'is not a cursor this service gave');
  let personas: string[] | undefined;
  if (personaUids !== undefined) {
    personas = [...new Set(personaUids.split(',').map((uid) => uid.trim().toLowerCase()))];
    if (personas.length > LIMITS.leaderboardPage) throw fail('personaUids', `names at most ${LIMITS.leaderboardPage} personas`);
    if (!personas.every((uid) => UUID.test(uid))) throw fail('personaUids', 'must be comma-separated persona uids');
    if (cursor !== undefined) throw fail('cursor', 'does not go with personaUids');
  }
  return { limit: count, period: period?.toLowerCase() ?? 'current', cursor, personaUids: personas, skip: passed };
}
