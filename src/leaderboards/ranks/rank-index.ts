import type { RankChange } from './change-cursor.js';

/** A consistent moment of a rank structure, for a page cursor: the log's changes applied then. */
export interface RankMoment {
  after: number;
  awaited: number[];
}

/** Whether the change `seq` was applied at `moment`. */
export function appliedAt(moment: RankMoment, seq: number): boolean {
  return seq <= moment.after && !moment.awaited.includes(seq);
}

/** Where a written key stands, read at one moment: what the write's events are made of. */
export interface StandingRead {
  /** Ranked records in the period. */
  size: number;
  /** Whether the record's previous key is still ranked. */
  present: boolean;
  /** The rank the new key holds or would hold (1 + the keys before it); 0 without a new key. */
  rank: number;
  /** The previous key's rank, when present; 0 otherwise. */
  oldRank: number;
  /** The key at rank `top` (the one a new entry into the first places pushes out), if there is one. */
  atTop: string | undefined;
}

/**
 * The ranks of the open periods, as the rules ask for them. Two stores implement it: the in-process
 * tree (InProcessRankIndex) and Redis sorted sets shared by every instance (RedisRankIndex), and
 * FailoverRankIndex, the one the rules are given, answers from whichever can (Redis when REDIS_URL is
 * set and it answers, the tree otherwise). Each read is answered at one moment, after catching up with
 * every change committed before it was asked (on any instance), so that every instance answers the
 * same ranks. Keys are rank keys (rules/operators.ts): their byte order is the rank order.
 *
 * An abstract class rather than an interface: Nest injects by it (an interface leaves nothing at run time).
 */
export abstract class RankIndex {
  /** Applies every change committed before the call. */
  abstract catchUp(): Promise<void>;
  /** The rank each key holds or would hold, and the period's ranked records. */
  abstract ranks(period: string, keys: string[]): Promise<{ size: number; ranks: number[] }>;
  /**
   * Up to `limit` keys around `key` (it included, whether ranked now or not), half before where the
   * ranks allow, and the rank of the first.
   */
  abstract around(period: string, key: string, limit: number): Promise<{ keys: string[]; firstRank: number; size: number }>;
  /** Up to `count` keys after `after` (from the first when undefined), with the moment they were read at. */
  abstract page(period: string, after: string | undefined, count: number): Promise<{ keys: string[]; size: number; moment: RankMoment }>;
  /**
   * Where `key` stands beside `oldKey` and the first `top` places, as the structure is now: inside a
   * write, so it neither catches up nor waits for a structure to be built (a build waits for the
   * writes under way); undefined when no structure can answer at once.
   */
  abstract standing(period: string, key: string | null, oldKey: string | null, top: number): Promise<StandingRead | undefined>;
}

/**
 * The standing a structure would answer just before a write, from the other records of the period
 * counted in the write's transaction (which no longer sees the record's old key, and sees its new
 * one): the old key, if any, is still ranked then.
 */
export function standingBeforeWrite(
  others: { size: number; before: number; beforeOld: number; first: string[] },
  key: string | null,
  oldKey: string | null,
  top: number,
): StandingRead {
  const present = oldKey !== null;
  const first = present ? [...others.first, oldKey].sort().slice(0, top) : others.first;
  return {
    size: others.size + (present ? 1 : 0),
    present,
    rank: key === null ? 0 : others.before + 1 + (present && oldKey < key ? 1 : 0),
    oldRank: present ? others.beforeOld + 1 : 0,
    atTop: top > 0 ? first[top - 1] : undefined,
  };
}

/**
 * A page of keys as it stood at an earlier moment, from what is read now (up to `count + extra` keys
 * after `after`, and the ranked records) and the changes made since that moment, every one of them
 * applied in what was read: a key such a change added was not there then, a key it removed was. What
 * it answers is the page of `count` keys after `after`, and the ranked records, of that moment; or, when
 * more keys were added since than `extra` left room for (the page read may end too early), how many
 * extra keys to read it again with.
 */
export function pageAtMoment(
  now: { keys: string[]; size: number },
  since: ReadonlyArray<Pick<RankChange, 'removed' | 'added'>>,
  after: string | undefined,
  count: number,
  extra: number,
): { keys: string[]; size: number } | { readAgainWith: number } {
  const delta = new Map<string, number>();
  for (const { removed, added } of since) {
    if (removed !== null) delta.set(removed, (delta.get(removed) ?? 0) + 1);
    if (added !== null) delta.set(added, (delta.get(added) ?? 0) - 1);
  }
  const added = new Set([...delta].filter(([, net]) => net < 0).map(([key]) => key));
  if (added.size > extra && now.keys.length === count + extra) return { readAgainWith: added.size * 2 };
  const then = [...delta].filter(([key, net]) => net > 0 && (after === undefined || key > after)).map(([key]) => key);
  const keys = [...now.keys.filter((key) => !added.has(key)), ...then].sort().slice(0, count);
  return { keys, size: now.size + [...delta.values()].reduce((sum, net) => sum + Math.sign(net), 0) };
}
