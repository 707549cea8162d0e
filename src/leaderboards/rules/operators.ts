/**
 * How a submission changes a record, and how records are ordered: the rules the record statement
 * applies in SQL (LeaderboardRecordsRepository.submit), written out here as pure functions with their
 * unit tests; test/leaderboards.e2e-spec.ts checks that the statement agrees with them.
 */
export const SORT_ORDERS = ['DESC', 'ASC'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];
export const OPERATORS = ['BEST', 'SET', 'INCREMENT', 'DECREMENT'] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Ordering {
  sortOrder: SortOrder;
  operator: Operator;
  subscoreSortOrder: SortOrder;
  subscoreOperator: Operator;
}

export interface Scored {
  score: bigint;
  subscore: bigint;
}

/** Whether `a` ranks before `b` in `order` (DESC: the higher is better). */
const better = (a: bigint, b: bigint, order: SortOrder) => (order === 'DESC' ? a > b : a < b);

function applyOne(operator: Operator, order: SortOrder, stored: bigint, submitted: bigint): bigint {
  switch (operator) {
    case 'BEST':
      return better(submitted, stored, order) ? submitted : stored;
    case 'SET':
      return submitted;
    case 'INCREMENT':
      return stored + submitted;
    case 'DECREMENT':
      return stored - submitted;
  }
}

/**
 * The record after a submission. A first submission counts from 0 (INCREMENT gives the score,
 * DECREMENT its opposite; BEST and SET take it). When both operators are BEST the pair is kept
 * whole: the submission replaces score and subscore if its score is better, or equal with a better
 * subscore (each by its own sort order), so the subscore always belongs to the score shown. Otherwise
 * each operator applies to its own number. Whether the result fits 64 bits is the statement's to say.
 */
export function applySubmission(ordering: Ordering, stored: Scored | undefined, submitted: Scored): Scored {
  if (stored === undefined) {
    const first = (operator: Operator, value: bigint) => (operator === 'DECREMENT' ? -value : value);
    return { score: first(ordering.operator, submitted.score), subscore: first(ordering.subscoreOperator, submitted.subscore) };
  }
  if (ordering.operator === 'BEST' && ordering.subscoreOperator === 'BEST') {
    const improves =
      better(submitted.score, stored.score, ordering.sortOrder) ||
      (submitted.score === stored.score && better(submitted.subscore, stored.subscore, ordering.subscoreSortOrder));
    return improves ? { ...submitted } : { ...stored };
  }
  return {
    score: applyOne(ordering.operator, ordering.sortOrder, stored.score, submitted.score),
    subscore: applyOne(ordering.subscoreOperator, ordering.subscoreSortOrder, stored.subscore, submitted.subscore),
  };
}

/** A ranked record: its numbers, and when it reached them (a sequence number: earlier ranks first among equals). */
export interface RankedEntry extends Scored {
  reached: bigint;
  personaUid: string;
}

const SIGN = 1n << 63n;
const hex16 = (value: bigint) => value.toString(16).padStart(16, '0');
/** A 64-bit integer as 16 hex digits whose text order is the order `order` ranks it in (offset binary, complemented for DESC). */
const orderedHex = (value: bigint, order: SortOrder) => {
  const offset = value + SIGN;
  return hex16(order === 'ASC' ? offset : (1n << 64n) - 1n - offset);
};

/**
 * The rank key of a record: text whose byte order is the board's rank order, so that one sorted set of
 * keys answers every rank (a Redis sorted set read by lexical range, or the in-process tree): the score
 * and the subscore each as 16 hex digits in their sort order, the time the record reached them (who
 * reached it first ranks first), and the persona's uid (32 hex digits), which makes every key unique
 * and tells whose it is. The record statement computes the same text in SQL (rankKeySql).
 */
export function rankKey(ordering: Pick<Ordering, 'sortOrder' | 'subscoreSortOrder'>, entry: RankedEntry): string {
  return (
    orderedHex(entry.score, ordering.sortOrder) +
    orderedHex(entry.subscore, ordering.subscoreSortOrder) +
    hex16(entry.reached) +
    entry.personaUid.replaceAll('-', '').toLowerCase()
  );
}

/** The persona a rank key belongs to. */
export function personaOfKey(key: string): string {
  const hex = key.slice(48);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const fromOrderedHex = (text: string, order: SortOrder) => {
  const raw = BigInt(`0x${text}`);
  return (order === 'ASC' ? raw : (1n << 64n) - 1n - raw) - SIGN;
};

/** The numbers a rank key holds (what a page of an earlier moment shows). */
export function entryOfKey(ordering: Pick<Ordering, 'sortOrder' | 'subscoreSortOrder'>, key: string): RankedEntry {
  return {
    score: fromOrderedHex(key.slice(0, 16), ordering.sortOrder),
    subscore: fromOrderedHex(key.slice(16, 32), ordering.subscoreSortOrder),
    reached: BigInt(`0x${key.slice(32, 48)}`),
    personaUid: personaOfKey(key),
  };
}

/**
 * SQL computing rankKey() from bigint expressions, for the statement that writes records; `desc` and
 * `subDesc` are boolean SQL expressions (the board's sort orders). `#` is XOR: flipping the sign bit is
 * the offset binary, and flipping every other bit as well complements it; to_hex writes a negative
 * bigint as its 16 two's-complement digits.
 */
export function rankKeySql(p: {
  score: string;
  subscore: string;
  reached: string;
  persona: string;
  desc: string;
  subDesc: string;
}): string {
  const ordered = (value: string, desc: string) =>
    `lpad(to_hex(${value} # CASE WHEN ${desc} THEN x'7fffffffffffffff'::bigint ELSE x'8000000000000000'::bigint END), 16, '0')`;
  return `(${ordered(p.score, p.desc)} || ${ordered(p.subscore, p.subDesc)} || lpad(to_hex(${p.reached}), 16, '0') || replace(${p.persona}::text, '-', ''))`;
}
