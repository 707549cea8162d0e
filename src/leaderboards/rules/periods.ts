import { Cron } from 'croner';

/**
 * When a board's periods begin and close (pure: the time is an argument, so tests use a fake clock).
 * A board's first period begins at its `startAt`, or when it was created; a `resetSchedule` (cron, in
 * UTC: five fields, or six with seconds first) begins a new one at each of its times after that. A
 * period closes, its ranks become final and its prizes are paid, at the earliest of: `duration`
 * seconds after it began (a tournament that runs two hours every Sunday), the next reset, and the
 * board's `endAt`. Nothing begins at or after `endAt`. An admin's reset (`resetAt`) begins a period
 * too, as a time of the schedule would: the one then open ends there, and the next runs to the
 * schedule's next time (or for `duration` seconds, or to `endAt`).
 */
export interface Schedule {
  resetSchedule: string | null;
  startAt: Date | null;
  endAt: Date | null;
  /** Seconds a period takes scores, from its beginning. */
  duration: number | null;
  dateCreated: Date;
  /** When an admin last reset the board. */
  resetAt: Date | null;
}

export interface PeriodWindow {
  startsAt: Date;
  /** When it closes (null: never, a board without reset, end or duration). */
  endsAt: Date | null;
  /** When the next period begins (null: none planned). */
  nextStartsAt: Date | null;
}

const schedules = new Map<string, Cron>();

function cronOf(pattern: string): Cron {
  let cron = schedules.get(pattern);
  if (!cron) {
    cron = new Cron(pattern, { timezone: 'Etc/UTC', paused: true, mode: '5-or-6-parts' });
    // Patterns come from admins' boards: a few dozen, but a bound keeps a mistake from growing it.
    if (schedules.size > 10_000) schedules.clear();
    schedules.set(pattern, cron);
  }
  return cron;
}

/** Why `pattern` is not a schedule this service takes, or undefined when it is. */
export function scheduleProblem(pattern: string): string | undefined {
  try {
    const next = cronOf(pattern).nextRun(new Date());
    return next ? undefined : 'never fires';
  } catch (error) {
    return (error as Error).message.replace(/^CronPattern: /, '');
  }
}

/** The period that holds `at`, or undefined before the board's first one and from its end on. */
export function periodAt(schedule: Schedule, at: Date): PeriodWindow | undefined {
  const origin = schedule.startAt ?? schedule.dateCreated;
  if (at < origin || (schedule.endAt && at >= schedule.endAt)) return undefined;
  let startsAt = origin;
  let nextStartsAt: Date | null = null;
  if (schedule.resetSchedule) {
    const cron = cronOf(schedule.resetSchedule);
    const [previous] = cron.previousRuns(1, new Date(at.getTime() + 1));
    if (previous && previous > origin) startsAt = previous;
    nextStartsAt = cron.nextRun(at);
    if (nextStartsAt && schedule.endAt && nextStartsAt >= schedule.endAt) nextStartsAt = null;
  }
  if (schedule.resetAt && schedule.resetAt <= at && schedule.resetAt > startsAt) startsAt = schedule.resetAt;
  const closes = [
    schedule.duration === null ? null : new Date(startsAt.getTime() + schedule.duration * 1000),
    nextStartsAt,
    schedule.endAt,
  ].filter((time): time is Date => time !== null);
  const endsAt = closes.length > 0 ? new Date(Math.min(...closes.map((time) => time.getTime()))) : null;
  return { startsAt, endsAt, nextStartsAt };
}

/** Whether a period still takes scores at `at`. */
export const isOpen = (period: Pick<PeriodWindow, 'endsAt'>, at: Date) => period.endsAt === null || at < period.endsAt;
