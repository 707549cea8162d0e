import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordRepository, type Transaction } from '../database/record.repository.js';
import { type Placeholders, type Statement, statement } from '../database/statement.js';
import { EventOutbox, type WritingParameters, writingCtes, type WrittenEvents } from '../realtime/event-outbox.js';
import type { RewardTier } from './leaderboard.entity.js';
import { LeaderboardPeriod } from './leaderboard-period.entity.js';
import type { PeriodWindow } from './rules/periods.js';

/** A period due to close, with what its close needs of its board. */
export interface DuePeriod {
  uid: string;
  leaderboardUid: string;
  startsAt: Date;
  endsAt: Date;
  rewards: RewardTier[];
}

interface CloseParameters extends WritingParameters {
  period: string;
  board: string;
  rewards: string;
}

/**
 * Closes a period in one statement: every visible record with a key gets its final rank (the order of
 * the keys), the prizes of the reward tiers are written to the payouts outbox, the period becomes
 * CLOSED with its rank count, and each participant's owner is told its final standing
 * (`leaderboard.period_ended`, built here: test/leaderboards.e2e-spec.ts holds it to its schema).
 */
function closeSql(p: Placeholders<CloseParameters>, iso: (expression: string) => string): string {
  return `
  WITH scored AS (
    SELECT uid, "personaUid", score, subscore, hidden,
           CASE WHEN "rankKey" IS NOT NULL THEN row_number() OVER (PARTITION BY "rankKey" IS NULL ORDER BY "rankKey")::int END AS rank
    FROM leaderboard_records WHERE "periodUid" = ${p.period}
  ), ranked AS (
    SELECT uid, rank FROM scored WHERE rank IS NOT NULL
  ), final AS (
    UPDATE leaderboard_records r SET rank = ranked.rank FROM ranked WHERE r."periodUid" = ${p.period} AND r.uid = ranked.uid
  ), tiers AS (
    SELECT (tier ->> 'rankFrom')::int AS first, (tier ->> 'rankTo')::int AS last, tier -> 'items' AS items
    FROM jsonb_array_elements(${p.rewards}::jsonb) AS tier
  ), participants AS (
    SELECT s."personaUid", s.score, s.subscore, s.rank, tiers.items,
           (row_number() OVER (ORDER BY s.rank NULLS LAST, s."personaUid") - 1)::int AS idx
    FROM scored s LEFT JOIN tiers ON s.rank BETWEEN tiers.first AND tiers.last
    WHERE NOT s.hidden
  ), payouts AS (
    INSERT INTO leaderboard_payouts ("periodUid", "leaderboardUid", "personaUid", rank, items)
    SELECT ${p.period}, ${p.board}, "personaUid", rank, items FROM participants WHERE items IS NOT NULL
    ON CONFLICT ("periodUid", "personaUid") DO NOTHING
  ), closed AS (
    UPDATE leaderboard_periods SET status = 'CLOSED', "closedAt" = now(), "rankCount" = (SELECT count(*) FROM ranked),
      version = version + 1, "dateModified" = now()
    WHERE uid = ${p.period} RETURNING *
  ), events AS (
    SELECT s.idx, 'leaderboard.period_ended' AS type, jsonb_build_object(
        'leaderboardUid', c."leaderboardUid", 'periodUid', c.uid, 'startsAt', ${iso('c."startsAt"')}, 'endsAt', ${iso('c."endsAt"')},
        'personaUid', s."personaUid", 'rank', s.rank,
        'score', CASE WHEN abs(s.score) <= 9007199254740991 THEN to_jsonb(s.score) ELSE to_jsonb(s.score::text) END,
        'subscore', CASE WHEN abs(s.subscore) <= 9007199254740991 THEN to_jsonb(s.subscore) ELSE to_jsonb(s.subscore::text) END,
        'rankCount', c."rankCount", 'rewards', coalesce(s.items, 'null'::jsonb)) AS data
    FROM participants s, closed c
  ), wanted AS (
    SELECT idx, "personaUid" AS uid, true AS persona FROM participants
  )${writingCtes(p)}
  SELECT (SELECT "rankCount" FROM closed) AS "rankCount", (SELECT count(*)::int FROM participants WHERE items IS NOT NULL) AS winners,
         written_events.counts, written_events.wake, written_events.recipients, written_events.notified
  FROM (SELECT 1) AS one LEFT JOIN written_events ON true`;
}

// PostgreSQL estimates a period it has no statistics for yet (a new uid) at a row or so, and then joins
// the statement's CTEs to each other by nested loops: quadratic in the participants (10,000 took over
// 15 s, docs/PERFORMANCE.md). A close joins whole periods, which hash joins do in one pass. It is the
// worker's, not a request's, and writes a row per participant: a large tournament takes longer than a
// request's statement timeout, and would otherwise be cancelled at every round.
const CLOSE_SETTINGS = statement(
  'leaderboard_period_close_settings',
  () => `SELECT set_config('enable_nestloop', 'off', true), set_config('statement_timeout', '300s', true)`,
);

const ENSURE = statement<{ board: string; startsAt: Date; endsAt: Date | null }>(
  'leaderboard_period_ensure',
  (p) => `INSERT INTO leaderboard_periods ("leaderboardUid", "startsAt", "endsAt") VALUES (${p.board}, ${p.startsAt}, ${p.endsAt})
          ON CONFLICT ("leaderboardUid", "startsAt") DO UPDATE SET "startsAt" = EXCLUDED."startsAt"
          RETURNING uid, status`,
);

// A reset ends the period it finds open where a scheduled end would: its stored endsAt. Made here if no
// score made it yet, so that an instance still reading the board from before the reset (a second of
// cache) finds it ended, instead of opening it again.
const END_AT = statement<{ board: string; startsAt: Date; endsAt: Date }, { uid: string }>(
  'leaderboard_period_end_at',
  (p) => `INSERT INTO leaderboard_periods ("leaderboardUid", "startsAt", "endsAt") VALUES (${p.board}, ${p.startsAt}, ${p.endsAt})
          ON CONFLICT ("leaderboardUid", "startsAt") DO UPDATE
            SET "endsAt" = LEAST(coalesce(leaderboard_periods."endsAt", EXCLUDED."endsAt"), EXCLUDED."endsAt"),
                version = leaderboard_periods.version + 1, "dateModified" = now()
            WHERE leaderboard_periods.status = 'OPEN'
          RETURNING uid`,
);

const CLAIM_DUE = statement<{ delayMs: number }, DuePeriod>(
  'leaderboard_period_claim_due',
  (p) => `SELECT period.uid, period."leaderboardUid", period."startsAt", period."endsAt", board.rewards
          FROM leaderboard_periods period JOIN leaderboards board ON board.uid = period."leaderboardUid"
          WHERE period.status = 'OPEN' AND period."endsAt" <= now() - make_interval(secs => ${p.delayMs}::float8 / 1000)
          ORDER BY period."endsAt" LIMIT 1 FOR UPDATE OF period SKIP LOCKED`,
);

const PRUNE_PERIODS = statement<{ limit: number }, { uid: string }>(
  'leaderboard_periods_prune',
  (p) => `DELETE FROM leaderboard_periods WHERE uid IN (
            SELECT uid FROM (
              SELECT period.uid, board."keepPeriods",
                     row_number() OVER (PARTITION BY period."leaderboardUid" ORDER BY period."startsAt" DESC) AS age
              FROM leaderboard_periods period JOIN leaderboards board ON board.uid = period."leaderboardUid"
              WHERE period.status = 'CLOSED'
            ) AS closed
            WHERE age > "keepPeriods"
              AND NOT EXISTS (SELECT 1 FROM leaderboard_payouts WHERE "periodUid" = closed.uid AND status = 'PENDING')
            LIMIT ${p.limit})
          RETURNING uid`,
);

const BEFORE = statement<{ board: string; startsAt: Date }>(
  'leaderboard_period_before',
  (p) => `SELECT uid FROM leaderboard_periods WHERE "leaderboardUid" = ${p.board} AND "startsAt" < ${p.startsAt}
          ORDER BY "startsAt" DESC LIMIT 1`,
);

const LATEST = statement<{ board: string }>(
  'leaderboard_period_latest',
  (p) => `SELECT uid FROM leaderboard_periods WHERE "leaderboardUid" = ${p.board} ORDER BY "startsAt" DESC LIMIT 1`,
);

@Injectable()
export class LeaderboardPeriodsRepository extends RecordRepository<LeaderboardPeriod> {
  private readonly closing: Statement<CloseParameters, WrittenEvents & { rankCount: number; winners: number }>;
  private readonly byStart = statement<{ board: string; startsAt: Date }>(
    'leaderboard_period_by_start',
    (p) => `SELECT ${this.returning} FROM leaderboard_periods WHERE "leaderboardUid" = ${p.board} AND "startsAt" = ${p.startsAt}`,
  );

  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, LeaderboardPeriod, 'leaderboard period');
    this.closing = statement('leaderboard_period_close', (p) => closeSql(p, (expression) => this.iso(expression)));
  }

  private iso(expression: string): string {
    return `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }

  /** The period of `window`, made if it is the first write of it. */
  async ensure(board: string, window: PeriodWindow): Promise<{ uid: string; status: string }> {
    const [row] = await this.run(undefined, ENSURE, { board, startsAt: window.startsAt, endsAt: window.endsAt });
    return row as { uid: string; status: string };
  }

  /** The stored period that began at `startsAt`, if any record or join made it. */
  async findByStart(board: string, startsAt: Date): Promise<LeaderboardPeriod | undefined> {
    return this.recordsOf(await this.run(undefined, this.byStart, { board, startsAt }))[0];
  }

  /** The uid of the stored period before the one that began at `startsAt`. */
  async before(board: string, startsAt: Date): Promise<string | undefined> {
    return (await this.run(undefined, BEFORE, { board, startsAt }))[0]?.uid as string | undefined;
  }

  /** The uid of the board's latest stored period. */
  async latest(board: string): Promise<string | undefined> {
    return (await this.run(undefined, LATEST, { board }))[0]?.uid as string | undefined;
  }

  /**
   * Ends the period that began at `startsAt` at `endsAt` (or keeps its earlier end), made if it does
   * not exist yet; undefined when it had closed already. The worker then closes it as any ended period.
   */
  async endAt(transaction: Transaction, board: string, startsAt: Date, endsAt: Date): Promise<string | undefined> {
    return (await this.run(transaction, END_AT, { board, startsAt, endsAt }))[0]?.uid;
  }

  /** Locks one open period that ended at least `delayMs` ago; another instance closing one skips it. */
  async claimDue(transaction: Transaction, delayMs: number): Promise<DuePeriod | undefined> {
    return (await this.run(transaction, CLAIM_DUE, { delayMs }))[0];
  }

  /** Closes a claimed period: final ranks, prizes to pay, and the participants told. */
  async close(transaction: Transaction, period: DuePeriod): Promise<{ rankCount: number; winners: number }> {
    await this.run(transaction, CLOSE_SETTINGS, {});
    const [row] = await this.run(transaction, this.closing, {
      period: period.uid,
      board: period.leaderboardUid,
      rewards: JSON.stringify(period.rewards),
      ...this.outbox.writingValues(),
    });
    this.outbox.written(transaction, row);
    return { rankCount: Number(row.rankCount), winners: row.winners };
  }

  /** Removes closed periods past their board's `keepPeriods` (with their records), a few at a time. */
  async prune(limit: number): Promise<number> {
    return (await this.run(undefined, PRUNE_PERIODS, { limit })).length;
  }
}
