import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An admin's reset of a board (POST /leaderboards/{id}/reset): the time of the last one, from which the
 * board's current period runs; and the prizes of a period read in rank order (GET
 * /leaderboards/{id}/periods/{periodId}/payouts), a page at a time.
 */
export class LeaderboardReset1765300000001 implements MigrationInterface {
  name = 'LeaderboardReset1765300000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "leaderboards" ADD "resetAt" timestamptz(3)`);
    await queryRunner.query(
      `CREATE INDEX "leaderboard_payouts_period_rank_idx" ON "leaderboard_payouts" ("periodUid", "rank", "personaUid")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "leaderboard_payouts_period_rank_idx"`);
    await queryRunner.query(`ALTER TABLE "leaderboards" DROP COLUMN "resetAt"`);
  }
}
