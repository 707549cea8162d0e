import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Inventories, transactions between personas with their append-only ledger, and skill progress. */
export class Economy1763800000003 implements MigrationInterface {
  name = 'Economy1763800000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "inventory_items" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "personaUid" uuid NOT NULL CONSTRAINT "inventory_items_personaUid_fkey" REFERENCES "personas" ("uid") ON DELETE CASCADE,
        "itemUid" uuid NOT NULL CONSTRAINT "inventory_items_itemUid_fkey" REFERENCES "items" ("uid") ON DELETE RESTRICT,
        "quantity" integer NOT NULL CONSTRAINT "inventory_items_quantity_check" CHECK ("quantity" >= 0),
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        CONSTRAINT "inventory_items_persona_item_key" UNIQUE ("personaUid", "itemUid")
      )`);
    await queryRunner.query(`CREATE INDEX "inventory_items_dateCreated_uid_idx" ON "inventory_items" ("dateCreated", "uid")`);
    await queryRunner.query(`CREATE INDEX "inventory_items_itemUid_idx" ON "inventory_items" ("itemUid")`);

    await queryRunner.query(`
      CREATE TABLE "transactions" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "type" text NOT NULL CONSTRAINT "transactions_type_check" CHECK ("type" IN ('TRADE', 'AWARD', 'REMOVAL')),
        "status" text NOT NULL
          CONSTRAINT "transactions_status_check" CHECK ("status" IN ('PENDING', 'COMPLETED', 'FAILED', 'CANCELED', 'DECLINED')),
        "personaOneUid" uuid NOT NULL CONSTRAINT "transactions_personaOneUid_fkey" REFERENCES "personas" ("uid") ON DELETE RESTRICT,
        "personaTwoUid" uuid CONSTRAINT "transactions_personaTwoUid_fkey" REFERENCES "personas" ("uid") ON DELETE RESTRICT,
        "personaOneInventoryItems" jsonb NOT NULL DEFAULT '[]',
        "personaTwoInventoryItems" jsonb NOT NULL DEFAULT '[]',
        "personaOneInventoryItemsBefore" jsonb NOT NULL DEFAULT '[]',
        "personaOneInventoryItemsAfter" jsonb NOT NULL DEFAULT '[]',
        "personaTwoInventoryItemsBefore" jsonb NOT NULL DEFAULT '[]',
        "personaTwoInventoryItemsAfter" jsonb NOT NULL DEFAULT '[]',
        "reason" text,
        "createdByUid" uuid NOT NULL CONSTRAINT "transactions_createdByUid_fkey" REFERENCES "users" ("uid") ON DELETE RESTRICT,
        "idempotencyKey" text,
        "requestHash" text,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        CONSTRAINT "transactions_idempotency_key" UNIQUE ("createdByUid", "idempotencyKey")
      )`);
    await queryRunner.query(`CREATE INDEX "transactions_dateCreated_uid_idx" ON "transactions" ("dateCreated", "uid")`);
    await queryRunner.query(`CREATE INDEX "transactions_personaOneUid_idx" ON "transactions" ("personaOneUid")`);
    await queryRunner.query(`CREATE INDEX "transactions_personaTwoUid_idx" ON "transactions" ("personaTwoUid")`);

    // Every moved quantity, for audit: per item, the sum of all quantities equals the sum of the AWARD
    // and REMOVAL deltas (trades net to zero). Rows are only ever added.
    await queryRunner.query(`
      CREATE TABLE "inventory_ledger" (
        "sequence" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "transactionUid" uuid NOT NULL CONSTRAINT "inventory_ledger_transactionUid_fkey" REFERENCES "transactions" ("uid") ON DELETE RESTRICT,
        "personaUid" uuid NOT NULL CONSTRAINT "inventory_ledger_personaUid_fkey" REFERENCES "personas" ("uid") ON DELETE RESTRICT,
        "itemUid" uuid NOT NULL CONSTRAINT "inventory_ledger_itemUid_fkey" REFERENCES "items" ("uid") ON DELETE RESTRICT,
        "delta" integer NOT NULL CONSTRAINT "inventory_ledger_delta_check" CHECK ("delta" <> 0),
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX "inventory_ledger_itemUid_idx" ON "inventory_ledger" ("itemUid")`);
    await queryRunner.query(`CREATE INDEX "inventory_ledger_transactionUid_idx" ON "inventory_ledger" ("transactionUid")`);
    await queryRunner.query(`
      CREATE FUNCTION "inventory_ledger_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'inventory_ledger is append-only' USING ERRCODE = 'restrict_violation';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "inventory_ledger_no_change" BEFORE UPDATE OR DELETE ON "inventory_ledger"
      FOR EACH ROW EXECUTE FUNCTION "inventory_ledger_append_only"()`);
    await queryRunner.query(`
      CREATE TRIGGER "inventory_ledger_no_truncate" BEFORE TRUNCATE ON "inventory_ledger"
      FOR EACH STATEMENT EXECUTE FUNCTION "inventory_ledger_append_only"()`);

    await queryRunner.query(`
      CREATE TABLE "skill_progress" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "personaUid" uuid NOT NULL CONSTRAINT "skill_progress_personaUid_fkey" REFERENCES "personas" ("uid") ON DELETE CASCADE,
        "archetypeUid" text NOT NULL,
        "skillUid" text NOT NULL,
        "progress" jsonb NOT NULL,
        "enabled" boolean NOT NULL DEFAULT true,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        CONSTRAINT "skill_progress_skill_key" UNIQUE ("personaUid", "archetypeUid", "skillUid")
      )`);
    await queryRunner.query(`CREATE INDEX "skill_progress_persona_idx" ON "skill_progress" ("personaUid", "dateCreated", "uid")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "skill_progress"`);
    await queryRunner.query(`DROP TABLE "inventory_ledger"`);
    await queryRunner.query(`DROP FUNCTION "inventory_ledger_append_only"()`);
    await queryRunner.query(`DROP TABLE "transactions"`);
    await queryRunner.query(`DROP TABLE "inventory_items"`);
  }
}
