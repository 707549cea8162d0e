import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { rankKeySql } from '../src/leaderboards/rules/operators.js';

/** What the period-end measurement found (docs/PERFORMANCE.md, Leaderboards). */
export interface PeriodEndReport {
  participants: number;
  winners: number;
  /** From the moment the period may be closed (its end plus LEADERBOARD_CLOSE_DELAY) until every prize is PAID. */
  seconds: number;
  /** The service's CPU time over those seconds. */
  serviceCpuMs: number;
  /** Checked afterwards: one PAID payout, one AWARD and one unit of the prize per winner, nothing else. */
  paidOnce: boolean;
  payouts: { paid: number; failed: number; pending: number };
  awards: number;
  prizeHolders: number;
  prizeUnits: number;
  loadavg: string;
}

interface Options {
  pool: pg.Pool;
  url: string;
  adminToken: string;
  /** A player who scores first, so that the service opens the period. */
  playerToken: string;
  participants: number;
  winners: number;
  /** The service's LEADERBOARD_CLOSE_DELAY. */
  closeDelayMs: number;
  /** The service's CPU time so far (ms). */
  cpuMs: () => number;
  log: (message: string) => void;
}

const POLL_MS = 100;
const TIMEOUT_MS = 300_000;

export const loadavg = () => readFileSync('/proc/loadavg', 'utf8').trim();

async function post<T>(url: string, token: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `jwt ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * A tournament's end: a board whose first `winners` ranks win one unit of an item, a period of
 * `participants` records (the crowd the leaderboard seed made, written in SQL with the service's own
 * rank keys), then its end moved to the moment the service's worker may close it; timed until every
 * prize is PAID, then checked: each winner paid once (one payout, one AWARD, one unit), nobody else.
 */
export async function measurePeriodEnd(options: Options): Promise<PeriodEndReport> {
  const { pool, url, log } = options;
  const item = await post<{ uid: string }>(`${url}/items`, options.adminToken, { name: `Bench prize ${Date.now()}` });
  const board = await post<{ uid: string }>(`${url}/leaderboards`, options.adminToken, {
    name: `Bench tournament ${Date.now()}`,
    startAt: new Date(Date.now() - 60_000).toISOString(),
    duration: 86_400,
    rewards: [{ rankFrom: 1, rankTo: options.winners, items: [{ itemUid: item.uid, quantity: 1 }] }],
  });
  const first = await post<{ periodUid: string }>(`${url}/leaderboards/${board.uid}/records`, options.playerToken, { score: 1 });
  const period = first.periodUid;
  log(`period end: seeding ${options.participants} participants`);
  const key = rankKeySql({ score: 's.score', subscore: '0', reached: 's.reached', persona: 's.persona', desc: 'true', subDesc: 'true' });
  await pool.query(
    `INSERT INTO leaderboard_records ("leaderboardUid", "periodUid", "personaUid", "userUid", score, subscore, "numScore", reached, "rankKey")
     SELECT $1, $2, s.persona, s.owner, s.score, 0, 1, s.reached, ${key}
     FROM (SELECT p.uid AS persona, p."userUid" AS owner, (random() * 1e9)::bigint AS score, nextval('leaderboard_reached_seq') AS reached
           FROM personas p JOIN users u ON u.uid = p."userUid" WHERE u.subject LIKE 'crowd-%' LIMIT $3) s
     ON CONFLICT ("periodUid", "personaUid") DO NOTHING`,
    [board.uid, period, options.participants - 1],
  );
  const { rows: counted } = await pool.query<{ count: number }>(
    `UPDATE leaderboard_periods SET size = (SELECT count(*) FROM leaderboard_records WHERE "periodUid" = $1) WHERE uid = $1 RETURNING size AS count`,
    [period],
  );
  const participants = counted[0].count;
  // Due now: ended the service's LEADERBOARD_CLOSE_DELAY ago (the wait for late writes is not the payout's time).
  const cpuBefore = options.cpuMs();
  const started = Date.now();
  await pool.query(`UPDATE leaderboard_periods SET "endsAt" = now() - make_interval(secs => $2::float8 / 1000) WHERE uid = $1`, [
    period,
    options.closeDelayMs,
  ]);
  const count = async () =>
    (
      await pool.query<{ paid: number; failed: number; pending: number }>(
        `SELECT count(*) FILTER (WHERE status = 'PAID')::int AS paid, count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
                count(*) FILTER (WHERE status = 'PENDING')::int AS pending
         FROM leaderboard_payouts WHERE "periodUid" = $1`,
        [period],
      )
    ).rows[0];
  let payouts = await count();
  while (payouts.paid + payouts.failed < options.winners) {
    if (Date.now() - started > TIMEOUT_MS) throw new Error(`period end: ${JSON.stringify(payouts)} after ${TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
    payouts = await count();
  }
  const seconds = (Date.now() - started) / 1000;
  const serviceCpuMs = options.cpuMs() - cpuBefore;
  const load = loadavg();
  const { rows: awards } = await pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM transactions WHERE type = 'AWARD' AND "idempotencyKey" LIKE $1`,
    [`leaderboard-prize:${period}:%`],
  );
  const { rows: holdings } = await pool.query<{ holders: number; units: number; winners: number }>(
    `SELECT count(*)::int AS holders, coalesce(sum(i.quantity), 0)::int AS units,
            count(*) FILTER (WHERE r.rank <= $3)::int AS winners
     FROM inventory_items i LEFT JOIN leaderboard_records r ON r."personaUid" = i."personaUid" AND r."periodUid" = $2
     WHERE i."itemUid" = $1`,
    [item.uid, period, options.winners],
  );
  const [held] = holdings;
  const paidOnce =
    payouts.paid === options.winners &&
    awards[0].count === options.winners &&
    held.holders === options.winners &&
    held.units === options.winners &&
    held.winners === options.winners;
  return {
    participants,
    winners: options.winners,
    seconds,
    serviceCpuMs,
    paidOnce,
    payouts,
    awards: awards[0].count,
    prizeHolders: held.holders,
    prizeUnits: held.units,
    loadavg: load,
  };
}
