import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leaderboards and tournaments (issue 28): boards, their periods, one record per persona and period,
 * the log of rank-key changes every instance's rank structure follows, and the prizes to pay when a
 * period closes (an outbox: rows written with the close, paid through the economy one by one).
 *
 * Scores are 64-bit. A record's `rankKey` is text whose byte order is the board's rank order (COLLATE
 * "C", the order Redis and JavaScript compare in); it is null while the record has no score or is
 * hidden (its user is banned), so the partial index holds exactly the ranked records.
 */
export class Leaderboards1764400000000 implements MigrationInterface {
  name = 'Leaderboards1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "leaderboards" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "description" text,
        "sortOrder" text NOT NULL CONSTRAINT "leaderboards_sortOrder_check" CHECK ("sortOrder" IN ('DESC', 'ASC')),
        "operator" text NOT NULL CONSTRAINT "leaderboards_operator_check" CHECK ("operator" IN ('BEST', 'SET', 'INCREMENT', 'DECREMENT')),
        "subscoreSortOrder" text NOT NULL CONSTRAINT "leaderboards_subscoreSortOrder_check" CHECK ("subscoreSortOrder" IN ('DESC', 'ASC')),
        "subscoreOperator" text NOT NULL
          CONSTRAINT "leaderboards_subscoreOperator_check" CHECK ("subscoreOperator" IN ('BEST', 'SET', 'INCREMENT', 'DECREMENT')),
        "resetSchedule" text,
        "authoritative" boolean NOT NULL DEFAULT false,
        "minScore" bigint,
        "maxScore" bigint,
        "metadata" jsonb,
        "startAt" timestamptz(3),
        "endAt" timestamptz(3),
        "duration" integer,
        "maxSize" integer,
        "maxNumScore" integer,
        "joinRequired" boolean NOT NULL DEFAULT false,
        "rewards" jsonb NOT NULL DEFAULT '[]',
        "rankLostTop" integer NOT NULL DEFAULT 10,
        "keepPeriods" integer NOT NULL DEFAULT 10,
        "ownerUid" uuid NOT NULL CONSTRAINT "leaderboards_ownerUid_fkey" REFERENCES "users" ("uid") ON DELETE RESTRICT,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE INDEX "leaderboards_dateCreated_uid_idx" ON "leaderboards" ("dateCreated", "uid")`);

    await queryRunner.query(`
      CREATE TABLE "leaderboard_periods" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "leaderboardUid" uuid NOT NULL CONSTRAINT "leaderboard_periods_leaderboardUid_fkey" REFERENCES "leaderboards" ("uid") ON DELETE CASCADE,
        "startsAt" timestamptz(3) NOT NULL,
        "endsAt" timestamptz(3),
        "status" text NOT NULL DEFAULT 'OPEN' CONSTRAINT "leaderboard_periods_status_check" CHECK ("status" IN ('OPEN', 'CLOSED')),
        "size" integer NOT NULL DEFAULT 0,
        "rankCount" integer,
        "closedAt" timestamptz(3),
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        CONSTRAINT "leaderboard_periods_board_start_key" UNIQUE ("leaderboardUid", "startsAt")
      )`);
    await queryRunner.query(`CREATE INDEX "leaderboard_periods_dateCreated_uid_idx" ON "leaderboard_periods" ("dateCreated", "uid")`);
    await queryRunner.query(`CREATE INDEX "leaderboard_periods_open_idx" ON "leaderboard_periods" ("endsAt") WHERE "status" = 'OPEN'`);

    await queryRunner.query(`
      CREATE TABLE "leaderboard_records" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "leaderboardUid" uuid NOT NULL,
        "periodUid" uuid NOT NULL CONSTRAINT "leaderboard_records_periodUid_fkey" REFERENCES "leaderboard_periods" ("uid") ON DELETE CASCADE,
        "personaUid" uuid NOT NULL CONSTRAINT "leaderboard_records_personaUid_fkey" REFERENCES "personas" ("uid") ON DELETE CASCADE,
        "userUid" uuid NOT NULL,
        "score" bigint,
        "subscore" bigint,
        "numScore" integer NOT NULL DEFAULT 0,
        "metadata" jsonb,
        "reached" bigint,
        "rankKey" text COLLATE "C",
        "hidden" boolean NOT NULL DEFAULT false,
        "rank" integer,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        CONSTRAINT "leaderboard_records_period_persona_key" UNIQUE ("periodUid", "personaUid")
      )`);
    await queryRunner.query(
      `CREATE INDEX "leaderboard_records_rankKey_idx" ON "leaderboard_records" ("periodUid", "rankKey") WHERE "rankKey" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "leaderboard_records_rank_idx" ON "leaderboard_records" ("periodUid", "rank") WHERE "rank" IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX "leaderboard_records_userUid_idx" ON "leaderboard_records" ("userUid")`);
    await queryRunner.query(`CREATE INDEX "leaderboard_records_personaUid_idx" ON "leaderboard_records" ("personaUid")`);
    await queryRunner.query(`CREATE INDEX "leaderboard_records_hidden_idx" ON "leaderboard_records" ("userUid") WHERE "hidden"`);
    await queryRunner.query(`CREATE SEQUENCE "leaderboard_reached_seq"`);

    // Every change of a record's rank key, in the transaction of the change: what each instance's rank
    // structure (and the shared one in Redis) applies to follow PostgreSQL, and what turns a page
    // cursor back into the ranks of its moment. Kept for LEADERBOARD_LOG_RETENTION seconds.
    await queryRunner.query(`
      CREATE TABLE "leaderboard_rank_changes" (
        "seq" bigint PRIMARY KEY,
        "periodUid" uuid NOT NULL,
        "removed" text COLLATE "C",
        "added" text COLLATE "C",
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE SEQUENCE "leaderboard_rank_changes_seq" OWNED BY "leaderboard_rank_changes"."seq"`);
    await queryRunner.query(`CREATE INDEX "leaderboard_rank_changes_period_idx" ON "leaderboard_rank_changes" ("periodUid", "seq")`);
    await queryRunner.query(`CREATE INDEX "leaderboard_rank_changes_date_idx" ON "leaderboard_rank_changes" USING brin ("dateCreated")`);

    // The prizes of a closed period, written with the close: paid one by one as AWARD transactions
    // whose Idempotency-Key is the payout's, marked PAID in the transaction of the award.
    await queryRunner.query(`
      CREATE TABLE "leaderboard_payouts" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "periodUid" uuid NOT NULL CONSTRAINT "leaderboard_payouts_periodUid_fkey" REFERENCES "leaderboard_periods" ("uid") ON DELETE CASCADE,
        "leaderboardUid" uuid NOT NULL,
        "personaUid" uuid NOT NULL CONSTRAINT "leaderboard_payouts_personaUid_fkey" REFERENCES "personas" ("uid") ON DELETE CASCADE,
        "rank" integer NOT NULL,
        "items" jsonb NOT NULL,
        "status" text NOT NULL DEFAULT 'PENDING' CONSTRAINT "leaderboard_payouts_status_check" CHECK ("status" IN ('PENDING', 'PAID', 'FAILED')),
        "transactionUid" uuid,
        "attempts" integer NOT NULL DEFAULT 0,
        "leasedUntil" timestamptz(3),
        "error" text,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "datePaid" timestamptz(3),
        CONSTRAINT "leaderboard_payouts_period_persona_key" UNIQUE ("periodUid", "personaUid")
      )`);
    await queryRunner.query(
      `CREATE INDEX "leaderboard_payouts_pending_idx" ON "leaderboard_payouts" ("dateCreated") WHERE "status" = 'PENDING'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "leaderboard_payouts"`);
    await queryRunner.query(`DROP TABLE "leaderboard_rank_changes"`);
    await queryRunner.query(`DROP SEQUENCE "leaderboard_reached_seq"`);
    await queryRunner.query(`DROP TABLE "leaderboard_records"`);
    await queryRunner.query(`DROP TABLE "leaderboard_periods"`);
    await queryRunner.query(`DROP TABLE "leaderboards"`);
  }
}
