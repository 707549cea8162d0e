import type { Criterion, Primitive, Statistic } from '../tickets/ticket.entity.js';
import { compare } from '../tickets/ticket-rules.js';

/**
 * How tickets are matched (docs/CONTRACT.md section 7), as pure functions over plain tickets so that the
 * rules are unit-tested without a database. The worker (matchmaker.service.ts) feeds them the waiting
 * tickets it has locked and writes the result.
 */
export interface WaitingTicket {
  uid: string;
  hostUid: string;
  numTeams: number;
  teamSize: number;
  users: string[];
  criteria: Criterion[];
  statistics: Statistic[];
}

export type Weights = Readonly<Record<string, number>>;

/** A match: numTeams teams of whole tickets, every seat filled. */
export interface Match<T extends WaitingTicket = WaitingTicket> {
  /** The oldest ticket of the match, whose host hosts the session. */
  anchor: T;
  teams: T[][];
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
  const byName = new Map<string, Criterion[]>();
  for (const criterion of criteria) byName.set(criterion.name, [...(byName.get(criterion.name) ?? []), criterion]);
  for (const [name, alternatives] of byName) {
    const statistic = statistics.find((candidate) => candidate.name === name);
    if (!statistic || !alternatives.some((criterion) => inRange(statistic.value, criterion))) return false;
  }
  return true;
}

/** Two tickets can share a session: same shape, and each one's criteria hold for the other. */
export function compatible(a: WaitingTicket, b: WaitingTicket): boolean {
  return (
    a.numTeams === b.numTeams && a.teamSize === b.teamSize && satisfies(a.criteria, b.statistics) && satisfies(b.criteria, a.statistics)
  );
}

/**
 * How far apart two tickets are: the weighted sum of the differences of the statistics both have
 * (numbers by their difference, other values 0 when equal and 1 when not). Weights default to 1.
 */
export function distance(a: WaitingTicket, b: WaitingTicket, weights: Weights): number {
  let total = 0;
  for (const statistic of a.statistics) {
    const other = b.statistics.find((candidate) => candidate.name === statistic.name);
    if (!other) continue;
    const weight = weights[statistic.name] ?? 1;
    if (typeof statistic.value === 'number' && typeof other.value === 'number') {
      total += weight * Math.abs(statistic.value - other.value);
    } else if (statistic.value !== other.value) {
      total += weight;
    }
  }
  return total;
}

/** The candidates for `anchor`'s match, closest first (ties: the order given, oldest first). */
export function rankCandidates<T extends WaitingTicket>(anchor: T, pool: T[], weights: Weights): T[] {
  return pool
    .filter((ticket) => ticket !== anchor && compatible(anchor, ticket))
    .map((ticket, order) => ({ ticket, order, distance: distance(anchor, ticket, weights) }))
    .sort((left, right) => left.distance - right.distance || left.order - right.order)
    .map(({ ticket }) => ticket);
}

/**
 * Fills a session around `anchor` with the closest compatible tickets: each must suit every ticket
 * already chosen, share no user with them, and fit on one team (the fullest team it fits, so that
 * room stays together for bigger parties). Undefined when the seats cannot all be filled.
 */
export function planMatch<T extends WaitingTicket>(anchor: T, pool: T[], weights: Weights): Match<T> | undefined {
  const teams: T[][] = Array.from({ length: anchor.numTeams }, () => []);
  const load = (team: T[]) => team.reduce((seats, ticket) => seats + ticket.users.length, 0);
  const seats = anchor.numTeams * anchor.teamSize;
  const chosen: T[] = [];
  let filled = 0;

  const place = (ticket: T): boolean => {
    const fitting = teams.filter((team) => load(team) + ticket.users.length <= anchor.teamSize);
    if (fitting.length === 0) return false;
    const fullest = fitting.reduce((best, team) => (load(team) > load(best) ? team : best));
    fullest.push(ticket);
    chosen.push(ticket);
    filled += ticket.users.length;
    return true;
  };

  if (!place(anchor)) return undefined;
  for (const candidate of rankCandidates(anchor, pool, weights)) {
    if (filled === seats) break;
    const suitsAll = chosen.every((member) => compatible(member, candidate));
    const sharesUser = chosen.some((member) => member.users.some((user) => candidate.users.includes(user)));
    if (suitsAll && !sharesUser) place(candidate);
  }
  return filled === seats ? { anchor, teams } : undefined;
}

/**
 * Every match that can be made from `tickets` (given oldest first): the oldest waiting ticket is
 * served first, and a ticket is used at most once.
 */
export function findMatches<T extends WaitingTicket>(tickets: T[], weights: Weights): Array<Match<T>> {
  const matches: Array<Match<T>> = [];
  let pool = [...tickets];
  for (const anchor of tickets) {
    if (!pool.includes(anchor)) continue;
    const match = planMatch(anchor, pool, weights);
    if (!match) continue;
    const used = new Set(match.teams.flat());
    pool = pool.filter((ticket) => !used.has(ticket));
    matches.push(match);
  }
  return matches;
}
