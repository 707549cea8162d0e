import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import { ApiException, badRequest, ErrorCode } from '../common/errors.js';
import { RecordRepository, type Transaction } from '../database/record.repository.js';
import { type Placeholders, type Statement, statement } from '../database/statement.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import type { Operator, SortOrder } from './rules/operators.js';
import { rankKeySql } from './rules/operators.js';
import { LeaderboardRecord } from './leaderboard-record.entity.js';
import type { PeriodStatus } from './leaderboard-period.entity.js';
import { int64Json } from './rules/scores.js';

/** A submission as the statement takes it: the board's rules and the numbers sent. */
export interface Submission {
  board: string;
  period: string;
  persona: string;
  user: string;
  score: bigint;
  subscore: bigint;
  metadata: Record<string, unknown> | null;
  operator: Operator;
  sortOrder: SortOrder;
  subscoreOperator: Operator;
  subscoreSortOrder: SortOrder;
  maxNumScore: number | null;
  /** The record is its user's one entry in the period (a board whose entrant is USER). */
  perUser: boolean;
}

/** What a submission did: the record as it now is, its rank key before, and the log number of its change (if its key changed). */
export interface Submitted {
  record: LeaderboardRecord & { personaName: string };
  oldKey: string | null;
  changeSeq: number | null;
}

/** Where a record stands among the others, as this instance's rank structure sees them at the write. */
export interface Standing {
  rank: number | null;
  rankCount: number;
  /** A persona the write pushed out of the board's first `rankLostTop` places, and its rank now. */
  pushedOut?: { personaUid: string; rank: number };
}

interface SubmitParameters {
  board: string;
  period: string;
  persona: string;
  user: string;
  score: string;
  subscore: string;
  metadata: string | null;
  operator: Operator;
  desc: boolean;
  subscoreOperator: Operator;
  subDesc: boolean;
  maxNumScore: number | null;
  perUser: boolean;
}

/** The other ranked records of a period around a key, as a write sees them (ranks/rank-index.ts: standingBeforeWrite). */
export interface Others {
  size: number;
  /** How many rank before the new key, and before the old one. */
  before: number;
  beforeOld: number;
  /** The first `top` keys, in rank order. */
  first: string[];
}

// Counted by the index on ("periodUid", "rankKey"): a scan of the period, taken only while no rank structure can answer.
const OTHERS = statement<{ period: string; persona: string; key: string | null; oldKey: string | null; top: number }, Others>(
  'leaderboard_others',
  (p) => `SELECT count(*)::int AS size,
            count(*) FILTER (WHERE "rankKey" < ${p.key}::text COLLATE "C")::int AS before,
            count(*) FILTER (WHERE "rankKey" < ${p.oldKey}::text COLLATE "C")::int AS "beforeOld",
            (SELECT coalesce(array_agg(k ORDER BY k), '{}') FROM (
              SELECT "rankKey" AS k FROM leaderboard_records
              WHERE "periodUid" = ${p.period} AND "rankKey" IS NOT NULL AND "personaUid" <> ${p.persona}
              ORDER BY "rankKey" LIMIT ${p.top}) AS firsts) AS first
          FROM leaderboard_records WHERE "periodUid" = ${p.period} AND "rankKey" IS NOT NULL AND "personaUid" <> ${p.persona}`,
);

type SubmitRow = Record<string, unknown> & { oldKey: string | null; changeSeq: string | null; personaName: string };

/**
 * The SQL of a submission's arithmetic (operators.ts says the same in TypeScript, and the e2e tests
 * hold the two together): the new score and subscore from the stored row `r`, whether they changed,
 * when they were reached (`reached`: a fresh sequence number when they changed), and the rank key.
 * Written as expressions, not steps, because the update must compute them from the row it has locked:
 * a value read before the lock would lose concurrent increments.
 */
function submissionSql(p: Placeholders<SubmitParameters>, reached: string) {
  const S = `${p.score}::bigint`;
  const SS = `${p.subscore}::bigint`;
  const better = (a: string, b: string, desc: string) => `(CASE WHEN ${desc} THEN ${a} > ${b} ELSE ${a} < ${b} END)`;
  const applyOne = (operator: string, desc: string, old: string, value: string) =>
    `(CASE ${operator} WHEN 'BEST' THEN (CASE WHEN ${better(value, old, desc)} THEN ${value} ELSE ${old} END)
       WHEN 'SET' THEN ${value} WHEN 'INCREMENT' THEN ${old} + ${value} ELSE ${old} - ${value} END)`;
  const first = (operator: string, value: string) => `(CASE WHEN ${operator} = 'DECREMENT' THEN -${value} ELSE ${value} END)`;
  const pairBest = `(${p.operator} = 'BEST' AND ${p.subscoreOperator} = 'BEST')`;
  const improves = `(${better(S, 'r.score', p.desc)} OR (${S} = r.score AND ${better(SS, 'r.subscore', p.subDesc)}))`;
  const score = `(CASE WHEN r.score IS NULL THEN ${first(p.operator, S)}
      WHEN ${pairBest} THEN (CASE WHEN ${improves} THEN ${S} ELSE r.score END)
      ELSE ${applyOne(p.operator, p.desc, 'r.score', S)} END)`;
  const subscore = `(CASE WHEN r.score IS NULL THEN ${first(p.subscoreOperator, SS)}
      WHEN ${pairBest} THEN (CASE WHEN ${improves} THEN ${SS} ELSE r.subscore END)
      ELSE ${applyOne(p.subscoreOperator, p.subDesc, 'r.subscore', SS)} END)`;
  const changed = `((${score}, ${subscore}) IS DISTINCT FROM (r.score, r.subscore))`;
  const newReached = `(CASE WHEN ${changed} THEN ${reached} ELSE r.reached END)`;
  const key = `(CASE WHEN r.hidden THEN NULL ELSE ${rankKeySql({ score, subscore, reached: newReached, persona: 'r."personaUid"', desc: p.desc, subDesc: p.subDesc })} END)`;
  return `score = ${score}, subscore = ${subscore}, reached = ${newReached}, "rankKey" = ${key},
      metadata = (CASE WHEN ${changed} AND ${p.metadata}::jsonb IS NOT NULL THEN ${p.metadata}::jsonb ELSE r.metadata END),
      "numScore" = r."numScore" + 1, version = r.version + 1, "dateModified" = now()`;
}

/** The period takes scores now (the worker may have closed it since the service looked). */
const periodOpen = (p: Placeholders<{ period: string }>) =>
  `EXISTS (SELECT 1 FROM leaderboard_periods WHERE uid = ${p.period} AND status = 'OPEN' AND ("endsAt" IS NULL OR statement_timestamp() < "endsAt"))`;

const bannedNow = (user: string) =>
  `EXISTS (SELECT 1 FROM users WHERE uid = ${user} AND "bannedAt" IS NOT NULL AND ("bannedUntil" IS NULL OR "bannedUntil" > now()))`;

/** The log row of a key change, and the answer: the record, its key before, the log number, the persona's name. */
const logged = (written: string) => `, logged AS (
    INSERT INTO leaderboard_rank_changes (seq, "periodUid", removed, added)
    SELECT nextval('leaderboard_rank_changes_seq'), "periodUid", "oldKey", "rankKey" FROM ${written} WHERE "oldKey" IS DISTINCT FROM "rankKey"
    RETURNING seq
  )
  SELECT w.*, (SELECT seq FROM logged) AS "changeSeq", persona.name AS "personaName"
  FROM ${written} w JOIN personas persona ON persona.uid = w."personaUid"`;

/** A persona's record with its board's name and what its period is. */
export type PersonaRecord = LeaderboardRecord & {
  personaName: string;
  leaderboardName: string;
  periodStartsAt: Date;
  periodStatus: PeriodStatus;
  periodRankCount: number | null;
};

@Injectable()
export class LeaderboardRecordsRepository extends RecordRepository<LeaderboardRecord> {
  /** A submission that may create the record (boards anyone may score on). */
  private readonly upserting: Statement<SubmitParameters, SubmitRow>;
  /** A submission to a record that must exist (joined: boards with joinRequired or maxSize). */
  private readonly updating: Statement<SubmitParameters, SubmitRow>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, LeaderboardRecord, 'leaderboard record');
    const returned = (row: string) => `${this.returning.replace(/"(\w+)" AS "(\w+)"/g, `${row}."$1" AS "$2"`)}, old."rankKey" AS "oldKey"`;
    this.upserting = statement('leaderboard_submit', (p) => {
      const insertKey = rankKeySql({
        score: `first.score`,
        subscore: `first.subscore`,
        reached: 'n.reached',
        persona: `${p.persona}::uuid`,
        desc: p.desc,
        subDesc: p.subDesc,
      });
      return `WITH written AS (
        INSERT INTO leaderboard_records AS r ("leaderboardUid", "periodUid", "personaUid", "userUid", score, subscore, "numScore", metadata, reached, "rankKey", hidden, "perUser")
        SELECT ${p.board}, ${p.period}, ${p.persona}, ${p.user}, first.score, first.subscore, 1, ${p.metadata}::jsonb, n.reached,
               CASE WHEN b.banned THEN NULL ELSE ${insertKey} END, b.banned, ${p.perUser}
        FROM (SELECT nextval('leaderboard_reached_seq') AS reached) n,
             (SELECT ${bannedNow(p.user)} AS banned) b,
             (SELECT CASE WHEN ${p.operator} = 'DECREMENT' THEN -${p.score}::bigint ELSE ${p.score}::bigint END AS score,
                     CASE WHEN ${p.subscoreOperator} = 'DECREMENT' THEN -${p.subscore}::bigint ELSE ${p.subscore}::bigint END AS subscore) first
        WHERE ${periodOpen(p)}
        ON CONFLICT ("periodUid", "personaUid") DO UPDATE SET ${submissionSql(p, 'EXCLUDED.reached')}
        WHERE ${p.maxNumScore}::int IS NULL OR r."numScore" < ${p.maxNumScore}::int
        RETURNING ${returned('new')}
      )${logged('written')}`;
    });
    this.updating = statement(
      'leaderboard_submit_joined',
      (p) => `WITH written AS (
        UPDATE leaderboard_records AS r SET ${submissionSql(p, 'n.reached')}
        FROM (SELECT nextval('leaderboard_reached_seq') AS reached) n
        WHERE r."periodUid" = ${p.period} AND r."personaUid" = ${p.persona} AND ${periodOpen(p)}
          AND (${p.maxNumScore}::int IS NULL OR r."numScore" < ${p.maxNumScore}::int)
        RETURNING ${returned('new')}
      )${logged('written')}`,
    );
  }

  /**
   * Applies a submission in one statement: the operators on the locked record (or a new one), its
   * rank key, and the key's change in the log that every rank structure follows. Then, in the same
   * transaction, the owner is told (`leaderboard.record_updated`) and so is anyone the write pushed out
   * of the board's first places (`leaderboard.rank_lost`), as `standing` finds them. Undefined when
   * the record must exist and does not, or has no attempt left, or the period has closed.
   */
  async submit(
    transaction: Transaction,
    submission: Submission,
    mustExist: boolean,
    standing: (written: Submitted, transaction: Transaction) => Promise<Standing>,
  ): Promise<{ submitted: Submitted; standing: Standing } | undefined> {
    let rows: SubmitRow[];
    try {
      rows = await this.run(transaction, mustExist ? this.updating : this.upserting, {
        board: submission.board,
        period: submission.period,
        persona: submission.persona,
        user: submission.user,
        score: submission.score.toString(),
        subscore: submission.subscore.toString(),
        metadata: submission.metadata === null ? null : JSON.stringify(submission.metadata),
        operator: submission.operator,
        desc: submission.sortOrder === 'DESC',
        subscoreOperator: submission.subscoreOperator,
        subDesc: submission.subscoreSortOrder === 'DESC',
        maxNumScore: submission.maxNumScore,
        perUser: submission.perUser,
      });
    } catch (error) {
      // numeric_value_out_of_range: an INCREMENT or DECREMENT would leave 64 bits.
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '22003') {
        throw badRequest('the score or subscore would pass the 64-bit range (-2^63 to 2^63 - 1): nothing was changed', [
          { field: 'score', message: 'the result would leave the 64-bit range' },
        ]);
      }
      throw enteredByAnother(error, submission.board);
    }
    const [row] = rows;
    if (!row) return undefined;
    const [record] = this.recordsOf([row]);
    const submitted: Submitted = {
      record: Object.assign(record, { personaName: row.personaName }),
      oldKey: row.oldKey,
      changeSeq: row.changeSeq === null ? null : Number(row.changeSeq),
    };
    const found = await standing(submitted, transaction);
    await this.outbox.record(
      transaction,
      'leaderboard.record_updated',
      {
        leaderboardUid: record.leaderboardUid,
        periodUid: record.periodUid,
        personaUid: record.personaUid,
        score: int64Json(record.score!),
        subscore: int64Json(record.subscore!),
        numScore: record.numScore,
        rank: found.rank,
        rankCount: found.rankCount,
      },
      { ownersOf: [record.personaUid] },
    );
    if (found.pushedOut) {
      await this.outbox.record(
        transaction,
        'leaderboard.rank_lost',
        {
          leaderboardUid: record.leaderboardUid,
          periodUid: record.periodUid,
          personaUid: found.pushedOut.personaUid,
          rank: found.pushedOut.rank,
          byPersonaUid: record.personaUid,
        },
        { ownersOf: [found.pushedOut.personaUid] },
      );
    }
    return { submitted, standing: found };
  }

  /**
   * Seats a persona in a period (a join, or the first score on a board with maxSize): a record
   * without a score. The period's `size` counts seats under its row lock, so that of two personas
   * racing for the last seat one gets it. 'present' when the persona had a record already; 409
   * ALREADY_ENTERED when `perUser` and another persona of its user has a record of the period (the
   * unique key of entries per user decides between two racing).
   */
  async join(
    transaction: Transaction,
    seat: { board: string; period: string; persona: string; user: string; maxSize: number | null; perUser: boolean },
  ): Promise<'joined' | 'present' | 'full'> {
    const [row] = await this.run(transaction, JOIN, seat).catch((error: unknown) => {
      throw enteredByAnother(error, seat.board);
    });
    if (row.present) return 'present';
    if (row.joined) return 'joined';
    if (!row.seated) return 'full';
    // The persona's own concurrent join inserted it first: give the seat back.
    await this.run(transaction, UNSEAT, { period: seat.period });
    return 'present';
  }

  /** How many submissions the persona has made in the period; undefined without a record. */
  async numScoreOf(period: string, persona: string): Promise<number | undefined> {
    const [row] = await this.run(undefined, NUM_SCORE, { period, persona });
    return row?.numScore;
  }

  /** The period's other ranked records around a persona's keys, counted in the write's transaction. */
  async others(transaction: Transaction, period: string, persona: string, key: string | null, oldKey: string | null, top: number) {
    const [others] = await this.run(transaction, OTHERS, { period, persona, key, oldKey, top });
    return others;
  }

  /** The visible records of these personas in the period, with their names. */
  async ofPersonas(period: string, personas: string[]): Promise<Array<LeaderboardRecord & { personaName: string }>> {
    if (personas.length === 0) return [];
    return this.named(await this.run(undefined, this.ofPersonasStatement, { period, personas }));
  }

  /** The visible records of the user's personas in the period. */
  async ofUser(period: string, user: string): Promise<Array<LeaderboardRecord & { personaName: string }>> {
    return this.named(await this.run(undefined, this.ofUserStatement, { period, user }));
  }

  /**
   * A persona's visible record in the latest period of each board it has one there, boards by name,
   * with what the service needs to tell whether that period is the board's current one.
   */
  async latestOfPersona(persona: string, skip: number, limit: number): Promise<PersonaRecord[]> {
    const rows = await this.run(undefined, this.latestOfPersonaStatement, { persona, skip, limit });
    return this.named(rows).map((record, index) =>
      Object.assign(record, {
        leaderboardName: rows[index].leaderboardName as string,
        periodStartsAt: new Date(rows[index].periodStartsAt as string),
        periodStatus: rows[index].periodStatus as PeriodStatus,
        periodRankCount: rows[index].periodRankCount as number | null,
      }),
    );
  }

  /** A closed period's visible records ranked after `afterRank`, in rank order (their ranks are final). */
  async rankedAfter(period: string, afterRank: number, limit: number): Promise<Array<LeaderboardRecord & { personaName: string }>> {
    return this.named(await this.run(undefined, this.rankedAfterStatement, { period, afterRank, limit }));
  }

  /** A closed period's visible records ranked from `from` to `to`. */
  async rankedBetween(period: string, from: number, to: number): Promise<Array<LeaderboardRecord & { personaName: string }>> {
    return this.named(await this.run(undefined, this.rankedBetweenStatement, { period, from, to }));
  }

  /**
   * Deletes records (an admin's moderation): of one persona in one period, or in every period when
   * `period` is null. Ranked ones leave the rank structures through the log, in the same statement.
   */
  async remove(transaction: Transaction, persona: string, period: string | null): Promise<LeaderboardRecord[]> {
    return this.recordsOf(await this.run(transaction, this.removing, { persona, period }));
  }

  /**
   * Hides a banned user's records from ranks and reads, or shows them again once the ban is over:
   * their keys leave (or rejoin) the rank structures through the log. Answers how many changed.
   */
  async setHidden(transaction: Transaction | undefined, user: string, hidden: boolean): Promise<number> {
    const [row] = await this.run(transaction, hidden ? this.hiding : this.showing, { user });
    return row?.changed ?? 0;
  }

  /** Users whose records are hidden though their ban is over (it ended by itself, or was lifted). */
  async unbannedButHidden(limit: number): Promise<string[]> {
    return (await this.run(undefined, UNBANNED_BUT_HIDDEN, { limit })).map((row) => row.userUid);
  }

  private named(rows: Array<Record<string, unknown>>): Array<LeaderboardRecord & { personaName: string }> {
    return this.recordsOf(rows).map((record, index) => Object.assign(record, { personaName: rows[index].personaName as string }));
  }

  private get selected(): string {
    return this.returning.replace(/"(\w+)" AS "(\w+)"/g, 'r."$1" AS "$2"') + ', persona.name AS "personaName"';
  }

  private readonly ofPersonasStatement = statement<{ period: string; personas: string[] }>(
    'leaderboard_records_of_personas',
    (p) => `SELECT ${this.selected} FROM leaderboard_records r JOIN personas persona ON persona.uid = r."personaUid"
            WHERE r."periodUid" = ${p.period} AND r."personaUid" = ANY(${p.personas}::uuid[]) AND NOT r.hidden`,
  );

  // A persona plays on a few boards, each with up to keepPeriods closed periods: its records are read by
  // persona (leaderboard_records_personaUid_idx), and each board's latest period by the board's unique key.
  private readonly latestOfPersonaStatement = statement<{ persona: string; skip: number; limit: number }>(
    'leaderboard_records_latest_of_persona',
    (p) => `SELECT ${this.selected}, board.name AS "leaderboardName", period."startsAt" AS "periodStartsAt",
                   period.status AS "periodStatus", period."rankCount" AS "periodRankCount"
            FROM leaderboard_records r
            JOIN personas persona ON persona.uid = r."personaUid"
            JOIN leaderboards board ON board.uid = r."leaderboardUid"
            JOIN LATERAL (SELECT uid, "startsAt", status, "rankCount" FROM leaderboard_periods
                          WHERE "leaderboardUid" = r."leaderboardUid" ORDER BY "startsAt" DESC LIMIT 1) period ON period.uid = r."periodUid"
            WHERE r."personaUid" = ${p.persona} AND NOT r.hidden
            ORDER BY board.name, board.uid OFFSET ${p.skip} LIMIT ${p.limit}`,
  );

  private readonly ofUserStatement = statement<{ period: string; user: string }>(
    'leaderboard_records_of_user',
    (
      p,
    ) => `SELECT ${this.selected} FROM personas persona JOIN leaderboard_records r ON r."periodUid" = ${p.period} AND r."personaUid" = persona.uid
            WHERE persona."userUid" = ${p.user} AND NOT r.hidden ORDER BY persona."dateCreated", persona.uid`,
  );

  private readonly rankedAfterStatement = statement<{ period: string; afterRank: number; limit: number }>(
    'leaderboard_records_ranked_after',
    (p) => `SELECT ${this.selected} FROM leaderboard_records r JOIN personas persona ON persona.uid = r."personaUid"
            WHERE r."periodUid" = ${p.period} AND r.rank > ${p.afterRank} AND NOT r.hidden ORDER BY r.rank LIMIT ${p.limit}`,
  );

  private readonly rankedBetweenStatement = statement<{ period: string; from: number; to: number }>(
    'leaderboard_records_ranked_between',
    (p) => `SELECT ${this.selected} FROM leaderboard_records r JOIN personas persona ON persona.uid = r."personaUid"
            WHERE r."periodUid" = ${p.period} AND r.rank BETWEEN ${p.from} AND ${p.to} AND NOT r.hidden ORDER BY r.rank`,
  );

  private readonly removing = statement<{ persona: string; period: string | null }>(
    'leaderboard_records_remove',
    (p) => `WITH removed AS (
              DELETE FROM leaderboard_records WHERE "personaUid" = ${p.persona} AND (${p.period}::uuid IS NULL OR "periodUid" = ${p.period}::uuid)
              RETURNING *
            ), logged AS (
              INSERT INTO leaderboard_rank_changes (seq, "periodUid", removed)
              SELECT nextval('leaderboard_rank_changes_seq'), "periodUid", "rankKey" FROM removed WHERE "rankKey" IS NOT NULL
            )
            SELECT ${this.returning} FROM removed`,
  );

  private readonly hiding = statement<{ user: string }, { changed: number }>(
    'leaderboard_records_hide',
    (p) => `WITH hidden AS (
              UPDATE leaderboard_records r SET hidden = true, "rankKey" = NULL WHERE r."userUid" = ${p.user} AND NOT r.hidden
              RETURNING r."periodUid", old."rankKey" AS removed
            ), logged AS (
              INSERT INTO leaderboard_rank_changes (seq, "periodUid", removed)
              SELECT nextval('leaderboard_rank_changes_seq'), "periodUid", removed FROM hidden WHERE removed IS NOT NULL
            )
            SELECT count(*)::int AS changed FROM hidden`,
  );

  private readonly showing = statement<{ user: string }, { changed: number }>(
    'leaderboard_records_show',
    (p) => `WITH shown AS (
              UPDATE leaderboard_records r SET hidden = false,
                "rankKey" = CASE WHEN r.score IS NULL THEN NULL ELSE ${rankKeySql({
                  score: 'r.score',
                  subscore: 'r.subscore',
                  reached: 'r.reached',
                  persona: 'r."personaUid"',
                  desc: `board."sortOrder" = 'DESC'`,
                  subDesc: `board."subscoreSortOrder" = 'DESC'`,
                })} END
              FROM leaderboards board WHERE board.uid = r."leaderboardUid" AND r."userUid" = ${p.user} AND r.hidden
                AND NOT ${bannedNow(p.user)}
              RETURNING r."periodUid", r."rankKey" AS added
            ), logged AS (
              INSERT INTO leaderboard_rank_changes (seq, "periodUid", added)
              SELECT nextval('leaderboard_rank_changes_seq'), "periodUid", added FROM shown WHERE added IS NOT NULL
            )
            SELECT count(*)::int AS changed FROM shown`,
  );
}

const JOIN = statement<
  { board: string; period: string; persona: string; user: string; maxSize: number | null; perUser: boolean },
  { present: boolean; seated: boolean; joined: boolean }
>(
  'leaderboard_join',
  (p) => `WITH seat AS (
            UPDATE leaderboard_periods SET size = size + 1, version = version + 1, "dateModified" = now()
            WHERE uid = ${p.period} AND status = 'OPEN' AND (${p.maxSize}::int IS NULL OR size < ${p.maxSize}::int)
              AND NOT EXISTS (SELECT 1 FROM leaderboard_records WHERE "periodUid" = ${p.period} AND "personaUid" = ${p.persona})
            RETURNING uid
          ), joined AS (
            INSERT INTO leaderboard_records ("leaderboardUid", "periodUid", "personaUid", "userUid", hidden, "perUser")
            SELECT ${p.board}, ${p.period}, ${p.persona}, ${p.user}, ${bannedNow(p.user)}, ${p.perUser} FROM seat
            ON CONFLICT ("periodUid", "personaUid") DO NOTHING
            RETURNING uid
          )
          SELECT EXISTS (SELECT 1 FROM leaderboard_records WHERE "periodUid" = ${p.period} AND "personaUid" = ${p.persona}) AS present,
                 EXISTS (SELECT 1 FROM seat) AS seated, EXISTS (SELECT 1 FROM joined) AS joined`,
);

const UNSEAT = statement<{ period: string }>(
  'leaderboard_unseat',
  (p) => `UPDATE leaderboard_periods SET size = size - 1 WHERE uid = ${p.period}`,
);

const NUM_SCORE = statement<{ period: string; persona: string }, { numScore: number }>(
  'leaderboard_num_score',
  (p) => `SELECT "numScore" FROM leaderboard_records WHERE "periodUid" = ${p.period} AND "personaUid" = ${p.persona}`,
);

const UNBANNED_BUT_HIDDEN = statement<{ limit: number }, { userUid: string }>(
  'leaderboard_unbanned_but_hidden',
  (p) => `SELECT DISTINCT r."userUid" FROM leaderboard_records r JOIN users u ON u.uid = r."userUid"
          WHERE r.hidden AND (u."bannedAt" IS NULL OR u."bannedUntil" <= now()) LIMIT ${p.limit}`,
);

/**
 * A write that would give a user a second entry in a period of a board whose entrant is USER breaks the
 * unique key of entries per user: 409 ALREADY_ENTERED. Any other error is given back as it is.
 */
function enteredByAnother(error: unknown, board: string): unknown {
  const { code, constraint } = (error instanceof QueryFailedError ? error.driverError : {}) as { code?: string; constraint?: string };
  if (code !== '23505' || constraint !== 'leaderboard_records_period_user_key') return error;
  return new ApiException(
    HttpStatus.CONFLICT,
    ErrorCode.ALREADY_ENTERED,
    `another of your personas entered this period of leaderboard ${board}: on this board a user plays one persona a period ` +
      `(GET /leaderboards/${board}/records/me says which)`,
  );
}

export const noAttemptsLeft = (maxNumScore: number) =>
  new ApiException(HttpStatus.CONFLICT, ErrorCode.NO_ATTEMPTS_LEFT, `this persona has used its ${maxNumScore} submissions in this period`);
