import type { DataOf, EventDeclarations } from '../realtime/events.js';
import { LeaderboardPeriodEnded, LeaderboardRankLost, LeaderboardRecordChange } from './dto/leaderboard-record.dto.js';

/** The events leaderboards/ sends (docs/REALTIME.md). */
export const LEADERBOARD_EVENTS = {
  'leaderboard.record_updated': { data: LeaderboardRecordChange },
  'leaderboard.rank_lost': { data: LeaderboardRankLost },
  'leaderboard.period_ended': { data: LeaderboardPeriodEnded },
} as const satisfies EventDeclarations;

declare module '../realtime/events.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declarations above, by type
  interface EventMap extends DataOf<typeof LEADERBOARD_EVENTS> {}
}
