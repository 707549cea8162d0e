import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Guest accounts made per client address (issue 47): a device's first sign-in spends one of its
 * address's GUEST_ACCOUNTS_PER_ADDRESS for the current window, counted on the address's row under the
 * row's lock, so that sign-ins racing at the bound make no more than it. One row per address (an IPv6
 * /64) that ever made a guest, rewritten in place when a new window begins: never more rows than the
 * guest accounts they counted, so nothing prunes them.
 */
export class GuestAccounts1765400000048 implements MigrationInterface {
  name = 'GuestAccounts1765400000048';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "guest_accounts_by_address" (
        "address" text PRIMARY KEY,
        "windowStart" timestamptz NOT NULL,
        "created" integer NOT NULL CONSTRAINT "guest_accounts_by_address_created_check" CHECK ("created" >= 0)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "guest_accounts_by_address"`);
  }
}
