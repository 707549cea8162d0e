/**
 * A list answer is at most LIST_MAX_BYTES of records: a page that would pass it ends early, and says
 * where the next one starts (`X-Next-Skip`, sent by sendRecordHeaders), so that a client pages on by
 * that header, or while it receives `limit` records. The mark rides on the array itself, unseen by
 * JSON, so that services and controllers pass a page through as the plain list it is.
 */
const NEXT_SKIP = Symbol('nextSkip');

/** The page was cut by the byte budget: the next one starts at `nextSkip`. */
export function markCut<T>(records: T[], nextSkip: number): T[] {
  Object.defineProperty(records, NEXT_SKIP, { value: nextSkip });
  return records;
}

/** Where the page after this answer starts, when the byte budget cut it. */
export function nextSkipOf(payload: unknown): number | undefined {
  return Array.isArray(payload) ? (payload as { [NEXT_SKIP]?: number })[NEXT_SKIP] : undefined;
}

/** A page mapped to what clients see, keeping its mark. */
export function mapPage<T, U>(records: T[], map: (record: T) => U): U[] {
  const next = nextSkipOf(records);
  const mapped = records.map(map);
  return next === undefined ? mapped : markCut(mapped, next);
}
