import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Player sessions: one per sign-in, renewed by single-use refresh tokens (stored as hashes) and
 * revocable; bans on users (with the time before which their tokens no longer count); and the audit of
 * sign-ins, refreshes, replays, sign-outs and bans.
 */
export class PlayerSessions1764100000000 implements MigrationInterface {
  name = 'PlayerSessions1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "users" ADD "bannedAt" timestamptz(3), ADD "bannedUntil" timestamptz(3), ADD "banReason" text, ADD "notBefore" timestamptz(3)`,
    );
    await queryRunner.query(`
      CREATE TABLE "auth_sessions" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "userUid" uuid NOT NULL CONSTRAINT "auth_sessions_userUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "provider" text NOT NULL,
        "address" text,
        "userAgent" text,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "lastRefreshedAt" timestamptz(3),
        "expiresAt" timestamptz(3) NOT NULL,
        "revokedAt" timestamptz(3),
        "revokedReason" text
      )`);
    await queryRunner.query(`CREATE INDEX "auth_sessions_userUid_idx" ON "auth_sessions" ("userUid", "dateCreated")`);
    await queryRunner.query(`CREATE INDEX "auth_sessions_revokedAt_idx" ON "auth_sessions" ("revokedAt") WHERE "revokedAt" IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE "auth_refresh_tokens" (
        "hash" text PRIMARY KEY,
        "sessionUid" uuid NOT NULL CONSTRAINT "auth_refresh_tokens_sessionUid_fkey" REFERENCES "auth_sessions" ("uid") ON DELETE CASCADE,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "spentAt" timestamptz(3)
      )`);
    await queryRunner.query(`CREATE INDEX "auth_refresh_tokens_sessionUid_idx" ON "auth_refresh_tokens" ("sessionUid")`);
    await queryRunner.query(`
      CREATE TABLE "auth_audit" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "userUid" uuid CONSTRAINT "auth_audit_userUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "event" text NOT NULL,
        "outcome" text NOT NULL,
        "sessionUid" uuid,
        "address" text,
        "userAgent" text,
        "detail" jsonb,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX "auth_audit_userUid_idx" ON "auth_audit" ("userUid", "id")`);
    // A socket opened with a ticket belongs to the session of the token the ticket was made from.
    await queryRunner.query(`DELETE FROM "realtime_tickets"`);
    await queryRunner.query(`ALTER TABLE "realtime_tickets" ADD "sessionUid" uuid NOT NULL, ADD "tokenIssuedAt" timestamptz(3) NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "realtime_tickets" DROP "sessionUid", DROP "tokenIssuedAt"`);
    await queryRunner.query(`DROP TABLE "auth_audit"`);
    await queryRunner.query(`DROP TABLE "auth_refresh_tokens"`);
    await queryRunner.query(`DROP TABLE "auth_sessions"`);
    await queryRunner.query(`ALTER TABLE "users" DROP "bannedAt", DROP "bannedUntil", DROP "banReason", DROP "notBefore"`);
  }
}
