import pg from 'pg';
import { parseTimestamptz, SERVICE_TYPES } from './timestamptz.js';

const pgParser = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | number | null;

/** The same instant as pg's own parser gives (or the same value where that one gives no date). */
function expectSameAsPg(text: string): void {
  const ours: unknown = parseTimestamptz(text);
  const theirs = pgParser(text);
  if (theirs instanceof Date) expect([text, (ours as Date).getTime()]).toEqual([text, theirs.getTime()]);
  else expect([text, ours]).toEqual([text, theirs]);
}

describe('parseTimestamptz', () => {
  it('reads the dates PostgreSQL writes as pg does, to the millisecond', () => {
    expect(parseTimestamptz('2026-11-26 10:19:42.123+00').toISOString()).toBe('2026-11-26T10:19:42.123Z');
    expect(parseTimestamptz('2026-11-26 10:19:42.1+00').toISOString()).toBe('2026-11-26T10:19:42.100Z');
    expect(parseTimestamptz('2026-11-26 10:19:42+00').toISOString()).toBe('2026-11-26T10:19:42.000Z');
    expect(parseTimestamptz('2026-11-26 12:19:42.5+02').toISOString()).toBe('2026-11-26T10:19:42.500Z');
    expect(parseTimestamptz('2026-11-26 04:49:42.999999-05:30').toISOString()).toBe('2026-11-26T10:19:42.999Z');
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const two = (value: number) => String(value).padStart(2, '0');
    const zones = ['+00', '-05', '+05:30', '-03:30', '+14', '-12', '+00:45'];
    for (let index = 0; index < 20_000; index++) {
      const fraction = String(random(1_000_000)).padStart(6, '0').slice(0, random(7)).replace(/0+$/, '');
      const text =
        `${1000 + random(9000)}-${two(1 + random(12))}-${two(1 + random(28))} ` +
        `${two(random(24))}:${two(random(60))}:${two(random(60))}${fraction ? `.${fraction}` : ''}${zones[random(zones.length)]}`;
      expectSameAsPg(text);
    }
  });

  it('leaves every other shape to pg, with the same result', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '0044-03-15 12:00:00+00 BC',
      '0099-01-01 00:00:00+00',
      '0999-12-31 23:59:59.999+00',
      '12345-01-01 00:00:00+00',
      '2026-11-26 10:19:42+05:30:15',
      '2026-11-26 10:19:42Z',
      '2026-11-26',
    ]) {
      expectSameAsPg(text);
    }
  });

  it('is the text parser of timestamptz in the service pools, and pg’s own for every other type', () => {
    expect(SERVICE_TYPES.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    expect(SERVICE_TYPES.getTypeParser(1114, 'text')).toBe(pg.types.getTypeParser(1114, 'text'));
    expect(SERVICE_TYPES.getTypeParser(3802, 'text')).toBe(pg.types.getTypeParser(3802, 'text'));
  });
});
