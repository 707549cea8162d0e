import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Matchmaking for launch day: tickets expire (`expiresAt`), say why they ended (`reason`) and record
 * which of their users agreed to the party (`accepted`); sessions may ask to be backfilled; and the
 * presence of each session member (`session_presence`), kept in step with the roster by a trigger so
 * that no write path (join, update, the matchmaker's bulk inserts) can forget it.
 */
export class Matchmaking1764200000000 implements MigrationInterface {
  name = 'Matchmaking1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Tickets already waiting get the default lifetime from now; parties queued before consent existed
    // count as agreed.
    await queryRunner.query(`
      ALTER TABLE "tickets"
        ADD "expiresAt" timestamptz(3) NOT NULL DEFAULT now() + interval '300 seconds',
        ADD "reason" text CONSTRAINT "tickets_reason_check" CHECK ("reason" IN ('DECLINED', 'EXPIRED', 'CANCELED', 'MATCHED_ELSEWHERE')),
        ADD "accepted" uuid[] NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`UPDATE "tickets" SET "accepted" = "users"`);
    await queryRunner.query(`ALTER TABLE "tickets" ALTER "expiresAt" DROP DEFAULT`);
    await queryRunner.query(`ALTER TABLE "tickets" ADD CONSTRAINT "tickets_accepted_check" CHECK ("accepted" <@ "users")`);
    // The expiry sweep's queue, and the recently matched tickets the queue statistics read.
    await queryRunner.query(
      `CREATE INDEX "tickets_expiresAt_idx" ON "tickets" ("expiresAt") WHERE "status" IN ('SEARCHING', 'INITIALIZING')`,
    );
    await queryRunner.query(`CREATE INDEX "tickets_matched_idx" ON "tickets" ("dateModified") WHERE "status" = 'MATCH_FOUND'`);

    await queryRunner.query(`ALTER TABLE "sessions" ADD "backfill" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`CREATE INDEX "sessions_backfill_idx" ON "sessions" ("dateCreated", "uid") WHERE "backfill"`);

    await queryRunner.query(`
      CREATE TABLE "session_presence" (
        "sessionUid" uuid NOT NULL CONSTRAINT "session_presence_sessionUid_fkey" REFERENCES "sessions" ("uid") ON DELETE CASCADE,
        "userUid" uuid NOT NULL,
        "seenAt" timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY ("sessionUid", "userUid")
      )`);
    await queryRunner.query(`CREATE INDEX "session_presence_userUid_idx" ON "session_presence" ("userUid")`);
    await queryRunner.query(`CREATE INDEX "session_presence_seenAt_idx" ON "session_presence" ("seenAt")`);
    // A member is present from the moment they are seated; an ended session has nobody to watch.
    await queryRunner.query(`
      CREATE FUNCTION "session_presence_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW."status" = 'ENDED' THEN
          DELETE FROM "session_presence" WHERE "sessionUid" = NEW."uid";
          RETURN NULL;
        END IF;
        IF TG_OP = 'UPDATE' THEN
          DELETE FROM "session_presence" WHERE "sessionUid" = NEW."uid" AND NOT ("userUid" = ANY (NEW."users"));
        END IF;
        INSERT INTO "session_presence" ("sessionUid", "userUid")
          SELECT NEW."uid", member FROM unnest(NEW."users") AS member
          ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "sessions_presence_insert" AFTER INSERT ON "sessions" FOR EACH ROW EXECUTE FUNCTION "session_presence_sync"()`,
    );
    await queryRunner.query(`
      CREATE TRIGGER "sessions_presence_update" AFTER UPDATE OF "users", "status" ON "sessions" FOR EACH ROW
        WHEN (OLD."users" IS DISTINCT FROM NEW."users" OR OLD."status" IS DISTINCT FROM NEW."status")
        EXECUTE FUNCTION "session_presence_sync"()`);
    await queryRunner.query(`
      INSERT INTO "session_presence" ("sessionUid", "userUid")
        SELECT "uid", unnest("users") FROM "sessions" WHERE "status" <> 'ENDED'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "sessions_presence_update" ON "sessions"`);
    await queryRunner.query(`DROP TRIGGER "sessions_presence_insert" ON "sessions"`);
    await queryRunner.query(`DROP FUNCTION "session_presence_sync"()`);
    await queryRunner.query(`DROP TABLE "session_presence"`);
    await queryRunner.query(`DROP INDEX "sessions_backfill_idx"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "backfill"`);
    await queryRunner.query(`DROP INDEX "tickets_matched_idx"`);
    await queryRunner.query(`DROP INDEX "tickets_expiresAt_idx"`);
    await queryRunner.query(`ALTER TABLE "tickets" DROP CONSTRAINT "tickets_accepted_check"`);
    await queryRunner.query(`ALTER TABLE "tickets" DROP COLUMN "accepted", DROP COLUMN "reason", DROP COLUMN "expiresAt"`);
  }
}
