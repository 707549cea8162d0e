import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who enters a leaderboard's periods (issue 47): a board's `entrant`, USER (one persona per user, so
 * that one player's personas cannot take several seats, attempts budgets or prizes) or PERSONA. A
 * record entered for its user is marked `perUser`, and one such record per period and user is a
 * unique key: of two personas of one user entering at once, one does. Boards that already pay prizes
 * or count seats become USER boards, as new ones are by default; the records their open periods hold
 * stay as they were (not `perUser`).
 */
export class LeaderboardEntrants1765400000047 implements MigrationInterface {
  name = 'LeaderboardEntrants1765400000047';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "leaderboards" ADD "entrant" text NOT NULL DEFAULT 'PERSONA' CONSTRAINT "leaderboards_entrant_check" CHECK ("entrant" IN ('USER', 'PERSONA'))`,
    );
    await queryRunner.query(`UPDATE "leaderboards" SET "entrant" = 'USER' WHERE "rewards" <> '[]'::jsonb OR "maxSize" IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "leaderboard_records" ADD "perUser" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "leaderboard_records_period_user_key" ON "leaderboard_records" ("periodUid", "userUid") WHERE "perUser"`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "leaderboard_records_period_user_key"`);
    await queryRunner.query(`ALTER TABLE "leaderboard_records" DROP COLUMN "perUser"`);
    await queryRunner.query(`ALTER TABLE "leaderboards" DROP COLUMN "entrant"`);
  }
}
