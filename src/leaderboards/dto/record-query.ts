import { LIMITS } from '../../common/limits.js';
import { QueryInteger, QueryParam, refuse } from '../../common/query-params.js';
import { UUID } from '../../common/validators.js';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../common/signed-cursors.js';
import type { PeriodChoice } from '../leaderboard-records.service.js';

export const DEFAULT_RECORDS = 20;
/** The furthest a skip goes: a period pays at most this many ranks (LIMITS.leaderboardRewardRank). */
export const MAX_SKIP = LIMITS.leaderboardRewardRank;
/** Characters of `personaUids`: a hundred uids, their commas and some spaces. */
const PERSONA_UIDS_LENGTH = 3800;
const CURSOR = new RegExp(CURSOR_PATTERN);
const PERIOD = /^(?:current|previous|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

const Limit = () => QueryInteger({ min: 1, max: LIMITS.leaderboardPage, default: DEFAULT_RECORDS });

const Period = () =>
  QueryParam<PeriodChoice>({
    schema: { type: 'string', pattern: PERIOD.source },
    description:
      '`current` (default: the period that holds now, or the last one), `previous`, or a period uid (GET /leaderboards/{id}/periods).',
    default: 'current',
    means: 'must be current, previous or a period uid',
    parse: (text) => (PERIOD.test(text) ? text.toLowerCase() : undefined),
  });

/** The query of the routes that page by skip (a period's prizes, a persona's boards). */
export class SkipPageQuery {
  @QueryInteger({ min: 0, max: MAX_SKIP, default: 0 })
  skip: number;

  @Limit()
  limit: number;
}

/** The query of the routes that read one period's records. */
export class PeriodQuery {
  @Period()
  period: PeriodChoice;
}

/** The query of the records around a persona. */
export class AroundQuery extends PeriodQuery {
  @Limit()
  limit: number;
}

/** The query of a page of records in rank order, or of a friends list. */
export class RecordsQuery {
  @QueryParam<string[]>({
    schema: { type: 'string', maxLength: PERSONA_UIDS_LENGTH },
    description: `Comma-separated persona uids (at most ${LIMITS.leaderboardPage}): their records, in rank order.`,
    means: 'must be comma-separated persona uids',
    parse: (text) => {
      if (text.length > PERSONA_UIDS_LENGTH) return refuse(`is longer than ${PERSONA_UIDS_LENGTH} characters`);
      const uids = [...new Set(text.split(',').map((uid) => uid.trim().toLowerCase()))];
      if (uids.length > LIMITS.leaderboardPage) return refuse(`names at most ${LIMITS.leaderboardPage} personas`);
      return uids.every((uid) => UUID.test(uid)) ? uids : undefined;
    },
  })
  personaUids?: string[];

  @Period()
  period: PeriodChoice;

  @QueryParam<string>({
    schema: { type: 'string', pattern: CURSOR_PATTERN, maxLength: MAX_CURSOR_LENGTH },
    description: "The previous page's `X-Next-Cursor`.",
    means: 'is not a cursor this service gave',
    parse: (text, query) => {
      if (query.personaUids !== undefined) return refuse('does not go with personaUids');
      return text.length <= MAX_CURSOR_LENGTH && CURSOR.test(text) ? text : undefined;
    },
  })
  cursor?: string;

  @Limit()
  limit: number;
}
