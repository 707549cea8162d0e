import type { Criterion, Primitive, Statistic } from '../tickets/ticket.entity.js';
import { compare } from '../tickets/ticket-rules.js';
import type { Relaxation } from '../config/environment.schema.js';

/**
 * How tickets are matched (docs/CONTRACT.md section 7, and the launch-day rules of the README's
 * "Sessions and matchmaking"), as pure functions over plain tickets so that the rules are unit-tested
 * without a database. The worker (matchmaker.service.ts) feeds them the waiting tickets it has locked,
 * the open sessions that want backfill, and the time of the pass, and writes the result.
 */
export interface WaitingTicket {
  uid: string;
  hostUid: string;
  numTeams: number;
  teamSize: number;
  users: string[];
  criteria: Criterion[];
  statistics: Statistic[];
  /** When the ticket began to wait; without it, criteria are never relaxed. */
  dateCreated?: Date;
}

export type Weights = Readonly<Record<string, number>>;

/**
 * How criteria widen with waiting time, so that nobody waits forever for a perfect match: every
 * `everySeconds`, a numeric range grows by `stepPercent` of its width (half on each side), up to
 * `maxPercent`. Exact values, one-sided bounds and non-numeric criteria are hard requirements and
 * never relax.
 */
export interface PassOptions {
  weights?: Weights;
  /** The time of the pass (epoch ms): waiting times, and so relaxation, are measured to it. */
  now?: number;
  relaxation?: Relaxation;
}

/** A match: numTeams teams of whole tickets, every seat filled. */
export interface Match<T extends WaitingTicket = WaitingTicket> {
  /** The oldest ticket of the match, whose host hosts the session. */
  anchor: T;
  teams: T[][];
}

/** A session with open seats whose host asked the matchmaker to fill them (`backfill: true`). */
export interface OpenSession {
  uid: string;
  numTeams: number;
  teamSize: number;
  users: string[];
  teams: Array<{ id: number; members: string[] }>;
  /** The tickets matched into it before: newcomers must suit them as they suit each other. */
  tickets: WaitingTicket[];
}

/** Tickets seated in an open session, each on the team (by id) it joins. */
export interface Backfill<T extends WaitingTicket = WaitingTicket> {
  session: OpenSession;
  seats: Array<{ ticket: T; teamId: number }>;
}

/** A value lies in a criterion's inclusive range; only values of the bounds' type can. */
export function inRange(value: Primitive, criterion: Criterion): boolean {
  const { minValue, maxValue } = criterion;
  if (minValue !== undefined && (typeof minValue !== typeof value || compare(value, minValue) < 0)) return false;
  if (maxValue !== undefined && (typeof maxValue !== typeof value || compare(value, maxValue) > 0)) return false;
  return true;
}

/** Criteria of one name are OR-ed, criteria of different names AND-ed; a missing statistic fails. */
export function satisfies(criteria: Criterion[], statistics: Statistic[]): boolean {
  return satisfiesGrouped(groupCriteria(criteria), statisticMap(statistics));
}

/** Two tickets can share a session: same shape, and each one's criteria hold for the other. */
export function compatible(a: WaitingTicket, b: WaitingTicket): boolean {
  return fits(prepare(a, 0, {}), prepare(b, 0, {}));
}

/** The fraction of a range's width by which it has grown after waiting `waitedMs` (0 without relaxation). */
export function widening(waitedMs: number, relaxation: Relaxation | undefined): number {
  if (!relaxation || waitedMs <= 0) return 0;
  const steps = Math.floor(waitedMs / (relaxation.everySeconds * 1000));
  return Math.min(steps * relaxation.stepPercent, relaxation.maxPercent) / 100;
}

/** A criterion as it stands after its range grew by `fraction` of its width (half on each side). */
export function relax(criterion: Criterion, fraction: number): Criterion {
  const { minValue, maxValue } = criterion;
  if (fraction <= 0 || typeof minValue !== 'number' || typeof maxValue !== 'number' || maxValue <= minValue) return criterion;
  const by = ((maxValue - minValue) * fraction) / 2;
  return { ...criterion, minValue: minValue - by, maxValue: maxValue + by };
}

/** A ticket's criteria as they stand at `now`. */
export function criteriaAt(ticket: WaitingTicket, now: number, relaxation: Relaxation | undefined): Criterion[] {
  const fraction = ticket.dateCreated ? widening(now - ticket.dateCreated.getTime(), relaxation) : 0;
  return fraction === 0 ? ticket.criteria : ticket.criteria.map((criterion) => relax(criterion, fraction));
}

/**
 * How far apart two tickets are: the weighted sum of the differences of the statistics both have
 * (numbers by their difference, other values 0 when equal and 1 when not). Weights default to 1.
 */
export function distance(a: WaitingTicket, b: WaitingTicket, weights: Weights): number {
  return statisticDistance(statisticMap(a.statistics), statisticMap(b.statistics), weights);
}

/** The candidates for `anchor`'s match, closest first (ties: the order given, oldest first). */
export function rankCandidates<T extends WaitingTicket>(anchor: T, pool: T[], weights: Weights): T[] {
  const pass = new Pass(pool.includes(anchor) ? pool : [anchor, ...pool], [], { weights });
  return [...pass.ranked(pass.prepared(anchor))].map((candidate) => candidate.ticket);
}

/**
 * Fills a session around `anchor` with the closest compatible tickets: each must suit every ticket
 * already chosen, share no user with them, and fit on one team (the fullest team it fits, so that
 * room stays together for bigger parties). Undefined when the seats cannot all be filled.
 */
export function planMatch<T extends WaitingTicket>(anchor: T, pool: T[], weights: Weights): Match<T> | undefined {
  const pass = new Pass(pool.includes(anchor) ? pool : [anchor, ...pool], [], { weights });
  return pass.match(pass.prepared(anchor));
}

/**
 * Every match that can be made from `tickets` (given oldest first): the oldest waiting ticket is
 * served first, and a ticket, or a user, is used at most once.
 */
export function findMatches<T extends WaitingTicket>(tickets: T[], weights: Weights, options: PassOptions = {}): Array<Match<T>> {
  return planPass(tickets, [], { ...options, weights }).matches;
}

/**
 * One matchmaking pass: first the open sessions that want backfill take the compatible tickets they
 * have room for (oldest session first), then new matches are made from the rest.
 */
export function planPass<T extends WaitingTicket>(
  tickets: T[],
  sessions: Array<OpenSession>,
  options: PassOptions = {},
): { backfills: Array<Backfill<T>>; matches: Array<Match<T>> } {
  const pass = new Pass(
    tickets,
    sessions.flatMap((session) => session.tickets),
    options,
  );
  const backfills = sessions.map((session) => pass.backfill(session)).filter((backfill) => backfill.seats.length > 0);
  return { backfills, matches: pass.matchAll() };
}

/** A ticket as one pass sees it: criteria relaxed to the pass's time, grouped by name, statistics by name. */
interface Prepared<T extends WaitingTicket = WaitingTicket> {
  ticket: T;
  /** Age order within the pass: ties in distance go to the older. */
  order: number;
  shape: string;
  criteria: Map<string, Criterion[]>;
  statistics: Map<string, Primitive>;
  /** The criterion that narrows the candidates best (a single numeric range), if any. */
  key: { name: string; min: number; max: number } | undefined;
}

function prepare<T extends WaitingTicket>(ticket: T, order: number, options: PassOptions): Prepared<T> {
  const criteria = groupCriteria(criteriaAt(ticket, options.now ?? Date.now(), options.relaxation));
  let key: Prepared['key'];
  for (const [name, alternatives] of criteria) {
    const [only] = alternatives;
    if (alternatives.length !== 1 || typeof only.minValue !== 'number' || typeof only.maxValue !== 'number') continue;
    if (!key || only.maxValue - only.minValue < key.max - key.min) key = { name, min: only.minValue, max: only.maxValue };
  }
  return {
    ticket,
    order,
    shape: `${ticket.numTeams}x${ticket.teamSize}`,
    criteria,
    statistics: statisticMap(ticket.statistics),
    key,
  };
}

function groupCriteria(criteria: Criterion[]): Map<string, Criterion[]> {
  const byName = new Map<string, Criterion[]>();
  for (const criterion of criteria) {
    const alternatives = byName.get(criterion.name);
    if (alternatives) alternatives.push(criterion);
    else byName.set(criterion.name, [criterion]);
  }
  return byName;
}

function statisticMap(statistics: Statistic[]): Map<string, Primitive> {
  return new Map(statistics.map((statistic) => [statistic.name, statistic.value]));
}

function satisfiesGrouped(criteria: Map<string, Criterion[]>, statistics: Map<string, Primitive>): boolean {
  for (const [name, alternatives] of criteria) {
    const value = statistics.get(name);
    if (value === undefined || !alternatives.some((criterion) => inRange(value, criterion))) return false;
  }
  return true;
}

function fits(a: Prepared, b: Prepared): boolean {
  return a.shape === b.shape && satisfiesGrouped(a.criteria, b.statistics) && satisfiesGrouped(b.criteria, a.statistics);
}

function statisticDistance(a: Map<string, Primitive>, b: Map<string, Primitive>, weights: Weights): number {
  let total = 0;
  for (const [name, value] of a) {
    const other = b.get(name);
    if (other === undefined) continue;
    const weight = weights[name] ?? 1;
    if (typeof value === 'number' && typeof other === 'number') total += weight * Math.abs(value - other);
    else if (value !== other) total += weight;
  }
  return total;
}

const seatsTaken = <T extends WaitingTicket>(team: T[]) => team.reduce((seats, ticket) => seats + ticket.users.length, 0);

/**
 * The state of one pass: the prepared tickets, an index of them by shape and by the values of the
 * statistics criteria name (so that a ticket's candidates are found by binary search, not by trying
 * every waiting ticket), and what has been used already.
 */
class Pass<T extends WaitingTicket> {
  private readonly pool: Array<Prepared<T>>;
  private readonly byTicket = new Map<WaitingTicket, Prepared>();
  private readonly byShape = new Map<string, Array<Prepared<T>>>();
  private readonly sortedBy = new Map<string, Array<{ value: number; candidate: Prepared<T> }>>();
  private readonly usedTickets = new Set<Prepared<T>>();
  private readonly usedUsers = new Set<string>();
  private readonly weights: Weights;

  /** `seated`: tickets already in sessions, prepared alike so that newcomers are checked against them. */
  constructor(
    tickets: T[],
    seated: WaitingTicket[],
    private readonly options: PassOptions,
  ) {
    this.weights = options.weights ?? {};
    this.pool = tickets.map((ticket, order) => prepare(ticket, order, options));
    for (const candidate of this.pool) {
      this.byTicket.set(candidate.ticket, candidate);
      const shaped = this.byShape.get(candidate.shape);
      if (shaped) shaped.push(candidate);
      else this.byShape.set(candidate.shape, [candidate]);
    }
    for (const ticket of seated) if (!this.byTicket.has(ticket)) this.byTicket.set(ticket, prepare(ticket, -1, options));
  }

  prepared<U extends WaitingTicket>(ticket: U): Prepared<U> {
    return this.byTicket.get(ticket) as Prepared<U>;
  }

  /**
   * The unused tickets that suit `anchor` (and it them), closest first, the older first on a tie,
   * produced lazily: a match of two takes one candidate, not a sort of every ticket in range. Tickets
   * are visited outward from the anchor's value of its key statistic; the weighted difference in that
   * statistic alone is a lower bound of the distance, so a candidate is produced as soon as no ticket
   * not yet visited can be closer.
   */
  *ranked(anchor: Prepared): Generator<Prepared<T>> {
    const waiting = new CandidateHeap<Prepared<T>>();
    for (const { candidate, bound } of this.visit(anchor)) {
      while (waiting.size > 0 && waiting.peek().distance < bound) yield waiting.pop().item;
      if (candidate === anchor || this.usedTickets.has(candidate) || !fits(anchor, candidate)) continue;
      waiting.push(candidate, statisticDistance(anchor.statistics, candidate.statistics, this.weights), candidate.order);
    }
    while (waiting.size > 0) yield waiting.pop().item;
  }

  match(anchor: Prepared<T>): Match<T> | undefined {
    const { numTeams, teamSize } = anchor.ticket;
    const teams: T[][] = Array.from({ length: numTeams }, () => []);
    const chosen: Array<Prepared<T>> = [];
    const users = new Set<string>();
    let filled = 0;
    const place = (candidate: Prepared<T>): boolean => {
      const { ticket } = candidate;
      if (ticket.users.some((user) => users.has(user) || this.usedUsers.has(user))) return false;
      if (!chosen.every((member) => fits(member, candidate))) return false;
      const team = fullestFitting(teams, ticket.users.length, teamSize);
      if (!team) return false;
      team.push(ticket);
      chosen.push(candidate);
      ticket.users.forEach((user) => users.add(user));
      filled += ticket.users.length;
      return true;
    };

    if (!place(anchor)) return undefined;
    for (const candidate of this.ranked(anchor)) {
      if (filled === numTeams * teamSize) break;
      place(candidate);
    }
    if (filled !== numTeams * teamSize) return undefined;
    this.use(chosen);
    return { anchor: anchor.ticket, teams };
  }

  /** Every match of the unused tickets, the oldest ticket served first. */
  matchAll(): Array<Match<T>> {
    const matches: Array<Match<T>> = [];
    for (const anchor of this.pool) {
      if (this.usedTickets.has(anchor)) continue;
      const match = this.match(anchor);
      if (match) matches.push(match);
    }
    return matches;
  }

  /**
   * Seats compatible unused tickets in `session`'s open seats: closest to the session's first ticket
   * first (oldest first when it has none), each suiting every ticket in the session and those seated
   * before it, sharing no user with its members, on the fullest team with room for the whole party.
   */
  backfill(session: OpenSession): Backfill<T> {
    const members = session.tickets.map((ticket) => this.prepared(ticket));
    const shape = `${session.numTeams}x${session.teamSize}`;
    const anchor = members[0];
    const candidates = anchor
      ? this.ranked(anchor)
      : (this.byShape.get(shape) ?? []).filter((candidate) => !this.usedTickets.has(candidate));
    const teams = session.teams.map((team) => ({ id: team.id, load: team.members.length }));
    const present = new Set(session.users);
    const seats: Backfill<T>['seats'] = [];
    const chosen: Prepared[] = [...members];
    for (const candidate of candidates) {
      const { ticket } = candidate;
      if (candidate.shape !== shape || !chosen.every((member) => fits(member, candidate))) continue;
      if (ticket.users.some((user) => present.has(user) || this.usedUsers.has(user))) continue;
      const fitting = teams.filter((team) => team.load + ticket.users.length <= session.teamSize);
      if (fitting.length === 0) continue;
      const team = fitting.reduce((best, next) => (next.load > best.load ? next : best));
      team.load += ticket.users.length;
      ticket.users.forEach((user) => present.add(user));
      chosen.push(candidate);
      seats.push({ ticket, teamId: team.id });
      this.use([candidate]);
      if (teams.every((next) => next.load >= session.teamSize)) break;
    }
    return { session, seats };
  }

  private use(chosen: Array<Prepared<T>>): void {
    for (const candidate of chosen) {
      this.usedTickets.add(candidate);
      candidate.ticket.users.forEach((user) => this.usedUsers.add(user));
    }
  }

  /**
   * The tickets that may suit `anchor`, each with a lower bound of the distance of every ticket visited
   * after it: its shape, narrowed to its key criterion's range and visited outward from its own value
   * when it has one (bound: the weighted difference in that statistic); otherwise all (bound 0).
   */
  private *visit(anchor: Prepared): Generator<{ candidate: Prepared<T>; bound: number }> {
    const shaped = this.byShape.get(anchor.shape) ?? [];
    const own = anchor.key && anchor.statistics.get(anchor.key.name);
    if (!anchor.key || typeof own !== 'number') {
      for (const candidate of shaped) yield { candidate, bound: 0 };
      return;
    }
    const { name, min, max } = anchor.key;
    const weight = this.weights[name] ?? 1;
    const sorted = this.sorted(anchor.shape, name, shaped);
    const first = lowerBound(sorted, min);
    let right = lowerBound(sorted, own);
    let left = right - 1;
    for (;;) {
      const leftGap = left >= first ? own - sorted[left].value : Infinity;
      const rightGap = right < sorted.length && sorted[right].value <= max ? sorted[right].value - own : Infinity;
      if (leftGap === Infinity && rightGap === Infinity) return;
      const entry = leftGap <= rightGap ? sorted[left--] : sorted[right++];
      yield { candidate: entry.candidate, bound: weight * Math.min(leftGap, rightGap) };
    }
  }

  /** The tickets of a shape with a numeric statistic `name`, by its value (built once per pass). */
  private sorted(shape: string, name: string, shaped: Array<Prepared<T>>): Array<{ value: number; candidate: Prepared<T> }> {
    const key = `${shape}\u0000${name}`;
    let sorted = this.sortedBy.get(key);
    if (!sorted) {
      sorted = [];
      for (const candidate of shaped) {
        const value = candidate.statistics.get(name);
        if (typeof value === 'number') sorted.push({ value, candidate });
      }
      sorted.sort((left, right) => left.value - right.value || left.candidate.order - right.candidate.order);
      this.sortedBy.set(key, sorted);
    }
    return sorted;
  }
}

/** The first position in `sorted` whose value is at least `value`. */
function lowerBound(sorted: Array<{ value: number }>, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle].value < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A binary min-heap of candidates by (distance, age order). */
class CandidateHeap<I> {
  private readonly entries: Array<{ item: I; distance: number; order: number }> = [];

  get size(): number {
    return this.entries.length;
  }

  peek(): { item: I; distance: number; order: number } {
    return this.entries[0];
  }

  push(item: I, distance: number, order: number): void {
    const entries = this.entries;
    entries.push({ item, distance, order });
    for (let index = entries.length - 1; index > 0;) {
      const parent = (index - 1) >> 1;
      if (!this.before(index, parent)) break;
      [entries[index], entries[parent]] = [entries[parent], entries[index]];
      index = parent;
    }
  }

  pop(): { item: I; distance: number; order: number } {
    const entries = this.entries;
    const top = entries[0];
    const last = entries.pop()!;
    if (entries.length > 0) {
      entries[0] = last;
      for (let index = 0; ;) {
        const [left, right] = [2 * index + 1, 2 * index + 2];
        let smallest = index;
        if (left < entries.length && this.before(left, smallest)) smallest = left;
        if (right < entries.length && this.before(right, smallest)) smallest = right;
        if (smallest === index) break;
        [entries[index], entries[smallest]] = [entries[smallest], entries[index]];
        index = smallest;
      }
    }
    return top;
  }

  private before(a: number, b: number): boolean {
    const [left, right] = [this.entries[a], this.entries[b]];
    return left.distance < right.distance || (left.distance === right.distance && left.order < right.order);
  }
}

/** The fullest team that still has room for `size` more players (room stays together for bigger parties). */
function fullestFitting<T extends WaitingTicket>(teams: T[][], size: number, teamSize: number): T[] | undefined {
  let best: T[] | undefined;
  for (const team of teams) {
    const load = seatsTaken(team);
    if (load + size <= teamSize && (!best || load > seatsTaken(best))) best = team;
  }
  return best;
}
