import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The LiveOps console (issue 31): the admin audit, append-only like the ledger (a trigger refuses
 * UPDATE, DELETE and TRUNCATE), with no foreign key to users so that an entry outlives its admin's
 * account; the ledger read by persona, newest first, for a player's page; and the sign-ins of the
 * last minute, for the overview's figures.
 */
export class AdminConsole1764800000000 implements MigrationInterface {
  name = 'AdminConsole1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "admin_audit" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "actorUid" uuid NOT NULL,
        "actor" text NOT NULL,
        "action" text NOT NULL,
        "path" text NOT NULL,
        "targetUid" uuid,
        "status" integer NOT NULL,
        "requestId" text NOT NULL,
        "address" text NOT NULL,
        "reason" text,
        "request" jsonb,
        "before" jsonb,
        "after" jsonb
      )`);
    await queryRunner.query(`CREATE INDEX "admin_audit_actorUid_idx" ON "admin_audit" ("actorUid", "id")`);
    await queryRunner.query(`CREATE INDEX "admin_audit_targetUid_idx" ON "admin_audit" ("targetUid", "id")`);
    // The refusal is the same as the ledger's, naming the table it guards (TG_TABLE_NAME).
    await queryRunner.query(`
      CREATE FUNCTION "admin_audit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation'; END $$`);
    for (const [trigger, when] of [
      ['admin_audit_no_change', 'UPDATE OR DELETE ON "admin_audit" FOR EACH ROW'],
      ['admin_audit_no_truncate', 'TRUNCATE ON "admin_audit" FOR EACH STATEMENT'],
    ]) {
      await queryRunner.query(`CREATE TRIGGER "${trigger}" BEFORE ${when} EXECUTE FUNCTION "admin_audit_append_only"()`);
    }

    await queryRunner.query(`CREATE INDEX "inventory_ledger_personaUid_idx" ON "inventory_ledger" ("personaUid", "sequence")`);
    await queryRunner.query(`CREATE INDEX "auth_audit_sign_ins_idx" ON "auth_audit" ("dateCreated") WHERE "event" = 'sign-in'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "auth_audit_sign_ins_idx"`);
    await queryRunner.query(`DROP INDEX "inventory_ledger_personaUid_idx"`);
    await queryRunner.query(`DROP TABLE "admin_audit"`);
    await queryRunner.query(`DROP FUNCTION "admin_audit_append_only"()`);
  }
}
