import type { DataOf, EventDeclarations } from '../realtime/events.js';
import { AchievementUnlock } from './achievement-unlock.entity.js';

/** The events achievements/ sends (docs/REALTIME.md). */
export const ACHIEVEMENT_EVENTS = {
  'achievement.unlocked': { data: AchievementUnlock },
} as const satisfies EventDeclarations;

declare module '../realtime/events.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declarations above, by type
  interface EventMap extends DataOf<typeof ACHIEVEMENT_EVENTS> {}
}
