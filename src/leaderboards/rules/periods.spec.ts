import { isOpen, periodAt, type Schedule, scheduleProblem } from './periods.js';

const at = (iso: string) => new Date(iso);
const schedule = (overrides: Partial<Schedule> = {}): Schedule => ({
  resetSchedule: null,
  startAt: null,
  endAt: null,
  duration: null,
  dateCreated: at('2026-11-18T10:00:00Z'),
  resetAt: null,
  ...overrides,
});

describe('periods', () => {
  it('a board without a schedule has one period, from its creation, that never closes', () => {
    expect(periodAt(schedule(), at('2027-01-01T00:00:00Z'))).toEqual({
      startsAt: at('2026-11-18T10:00:00Z'),
      endsAt: null,
      nextStartsAt: null,
    });
    expect(periodAt(schedule(), at('2026-11-18T09:59:59Z'))).toBeUndefined();
  });

  it('a weekly reset (Mondays 00:00 UTC) begins a period at each of its times; the first runs from the creation', () => {
    const weekly = schedule({ resetSchedule: '0 0 * * 1' });
    expect(periodAt(weekly, at('2026-11-20T12:00:00Z'))).toEqual({
      startsAt: at('2026-11-18T10:00:00Z'),
      endsAt: at('2026-11-23T00:00:00Z'),
      nextStartsAt: at('2026-11-23T00:00:00Z'),
    });
    // Exactly at the reset, the new period has begun.
    expect(periodAt(weekly, at('2026-11-23T00:00:00Z'))?.startsAt).toEqual(at('2026-11-23T00:00:00Z'));
    expect(periodAt(weekly, at('2026-11-29T23:59:59.999Z'))).toEqual({
      startsAt: at('2026-11-23T00:00:00Z'),
      endsAt: at('2026-11-30T00:00:00Z'),
      nextStartsAt: at('2026-11-30T00:00:00Z'),
    });
  });

  it('a tournament takes scores for its duration after each start, and nothing from its end on', () => {
    const sundays = schedule({
      resetSchedule: '0 18 * * 0',
      startAt: at('2026-11-22T18:00:00Z'),
      endAt: at('2026-12-06T18:00:00Z'),
      duration: 7200,
    });
    const first = periodAt(sundays, at('2026-11-22T19:00:00Z'))!;
    expect(first).toEqual({
      startsAt: at('2026-11-22T18:00:00Z'),
      endsAt: at('2026-11-22T20:00:00Z'),
      nextStartsAt: at('2026-11-29T18:00:00Z'),
    });
    expect(isOpen(first, at('2026-11-22T19:59:59Z'))).toBe(true);
    const later = periodAt(sundays, at('2026-11-25T00:00:00Z'))!;
    expect(later.startsAt).toEqual(at('2026-11-22T18:00:00Z'));
    expect(isOpen(later, at('2026-11-25T00:00:00Z'))).toBe(false);
    // The last start before the end has no next one.
    expect(periodAt(sundays, at('2026-11-29T18:30:00Z'))?.nextStartsAt).toBeNull();
    expect(periodAt(sundays, at('2026-12-06T18:00:00Z'))).toBeUndefined();
    expect(periodAt(sundays, at('2026-11-22T17:00:00Z'))).toBeUndefined();
  });

  it('a one-off tournament without a schedule closes after its duration, or at its end', () => {
    expect(periodAt(schedule({ startAt: at('2026-12-01T00:00:00Z'), duration: 60 }), at('2026-12-01T00:00:30Z'))?.endsAt).toEqual(
      at('2026-12-01T00:01:00Z'),
    );
    expect(periodAt(schedule({ endAt: at('2026-12-01T00:00:00Z') }), at('2026-11-30T00:00:00Z'))?.endsAt).toEqual(
      at('2026-12-01T00:00:00Z'),
    );
  });

  it("an admin's reset begins a period that runs to the schedule's next time; before the reset, the schedule's period holds", () => {
    const weekly = schedule({ resetSchedule: '0 0 * * 1', resetAt: at('2026-11-25T15:00:00Z') });
    expect(periodAt(weekly, at('2026-11-26T00:00:00Z'))).toEqual({
      startsAt: at('2026-11-25T15:00:00Z'),
      endsAt: at('2026-11-30T00:00:00Z'),
      nextStartsAt: at('2026-11-30T00:00:00Z'),
    });
    expect(periodAt(weekly, at('2026-11-25T14:59:59Z'))?.startsAt).toEqual(at('2026-11-23T00:00:00Z'));
    // The schedule's next time begins the next period as usual.
    expect(periodAt(weekly, at('2026-11-30T00:00:00Z'))?.startsAt).toEqual(at('2026-11-30T00:00:00Z'));
    // Without a schedule the new period never closes; with a duration it takes scores that long after the reset.
    expect(periodAt(schedule({ resetAt: at('2026-11-25T15:00:00Z') }), at('2027-01-01T00:00:00Z'))).toEqual({
      startsAt: at('2026-11-25T15:00:00Z'),
      endsAt: null,
      nextStartsAt: null,
    });
    const once = schedule({ startAt: at('2026-11-20T00:00:00Z'), duration: 60, resetAt: at('2026-11-25T15:00:00Z') });
    expect(periodAt(once, at('2026-11-25T15:00:30Z'))?.endsAt).toEqual(at('2026-11-25T15:01:00Z'));
  });

  it('takes second-level schedules and says what is wrong with a bad one', () => {
    expect(periodAt(schedule({ resetSchedule: '*/10 * * * * *' }), at('2026-11-18T10:00:25Z'))?.startsAt).toEqual(
      at('2026-11-18T10:00:20Z'),
    );
    expect(scheduleProblem('0 0 * * 1')).toBeUndefined();
    expect(scheduleProblem('every monday')).toMatch(/parts/);
    expect(scheduleProblem('61 * * * *')).toBeDefined();
  });
});
