import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The realtime inbox: one row per event and recipient, written in the same transaction as the change
 * it reports (a transactional outbox). `xid` is the writing transaction's id: events are delivered in
 * (xid, id) order once no older transaction is still running, so that one committing late never slips
 * in behind a cursor a client already holds (src/realtime/notifications.repository.ts). And the
 * single-use tickets with which browsers open a socket.
 */
export class Realtime1764000000000 implements MigrationInterface {
  name = 'Realtime1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "notifications" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
        "userUid" uuid NOT NULL CONSTRAINT "notifications_userUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "type" text NOT NULL,
        "data" jsonb NOT NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX "notifications_userUid_cursor_idx" ON "notifications" ("userUid", "xid", "id")`);
    await queryRunner.query(`CREATE INDEX "notifications_dateCreated_idx" ON "notifications" ("dateCreated")`);
    await queryRunner.query(`
      CREATE TABLE "realtime_tickets" (
        "hash" text PRIMARY KEY,
        "userUid" uuid NOT NULL CONSTRAINT "realtime_tickets_userUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "roles" text[] NOT NULL,
        "tokenExpiresAt" timestamptz(3) NOT NULL,
        "expiresAt" timestamptz(3) NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "realtime_tickets"`);
    await queryRunner.query(`DROP TABLE "notifications"`);
  }
}
