import pg from 'pg';

/** PostgreSQL's type id of timestamptz. */
const TIMESTAMPTZ = 1184;

const ZERO = 48;

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar (month 1-12), by Howard Hinnant's
 * days_from_civil: plain arithmetic, where Date.UTC cost most of a parse.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const shifted = month <= 2 ? year - 1 : year;
  const era = Math.floor(shifted / 400);
  const yearOfEra = shifted - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

/** The number written by the digits of text[from, to), or NaN if any is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let index = from; index < to; index++) {
    const digit = text.charCodeAt(index) - ZERO;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A timestamptz as PostgreSQL writes it in text (`2026-11-26 10:19:42.123+00`, DateStyle ISO): the
 * shape of every date the service stores (years 1000-9999, a zone offset of hours and maybe minutes).
 * Read by hand because pg's own parser (postgres-date, regular expressions and parseFloat) was a
 * measured share of a list page, two dates a record (docs/PERFORMANCE.md); any other shape (BC,
 * infinity, a five-digit year, an offset with seconds) goes to that parser, so the result is the same.
 */
export function parseTimestamptz(text: string): Date {
  const length = text.length;
  if (
    length >= 22 &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 32 &&
    text.charCodeAt(13) === 58 &&
    text.charCodeAt(16) === 58
  ) {
    let milliseconds = 0;
    let at = 19;
    if (text.charCodeAt(at) === 46) {
      let scale = 100;
      for (at++; at < length; at++) {
        const digit = text.charCodeAt(at) - ZERO;
        if (digit < 0 || digit > 9) break;
        milliseconds += digit * scale;
        scale /= 10;
      }
      milliseconds = Math.trunc(milliseconds);
    }
    const sign = text.charCodeAt(at);
    const zoneLength = length - at;
    if ((sign === 43 || sign === 45) && (zoneLength === 3 || (zoneLength === 6 && text.charCodeAt(at + 3) === 58))) {
      const offsetMinutes = digits(text, at + 1, at + 3) * 60 + (zoneLength === 6 ? digits(text, at + 4, at + 6) : 0);
      const year = digits(text, 0, 4);
      const days = daysFromCivil(year, digits(text, 5, 7), digits(text, 8, 10));
      const seconds = digits(text, 11, 13) * 3600 + digits(text, 14, 16) * 60 + digits(text, 17, 19);
      const utc = (days * 86_400 + seconds - (sign === 43 ? 1 : -1) * offsetMinutes * 60) * 1000 + milliseconds;
      if (year >= 1000 && !Number.isNaN(utc)) return new Date(utc);
    }
  }
  return fallback(text);
}

const pgTypeParser = pg.types.getTypeParser as (oid: number, format?: 'text' | 'binary') => unknown;

const fallback = pgTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date;

/** pg's type parsers with parseTimestamptz for timestamptz: the `types` of the service's pools. */
export const SERVICE_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ && format !== 'binary' ? parseTimestamptz : pgTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};
