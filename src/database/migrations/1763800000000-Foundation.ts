import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, their personas, and the item catalog. */
export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "users" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "provider" text NOT NULL,
        "subject" text NOT NULL,
        "name" text,
        "email" text,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        CONSTRAINT "users_provider_subject_key" UNIQUE ("provider", "subject")
      )`);
    await queryRunner.query(`
      CREATE TABLE "personas" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "userUid" uuid NOT NULL CONSTRAINT "personas_userUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "name" text NOT NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE INDEX "personas_userUid_idx" ON "personas" ("userUid", "dateCreated", "uid")`);
    await queryRunner.query(`
      CREATE TABLE "items" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "description" text,
        "cost" double precision NOT NULL DEFAULT 0 CONSTRAINT "items_cost_check" CHECK ("cost" >= 0),
        "stats" jsonb NOT NULL DEFAULT '[]',
        "assetId" text,
        "iconAssetId" uuid,
        -- RESTRICT: deleting a parent must not silently rewrite its children (their versions would lie).
        "parentUID" uuid CONSTRAINT "items_parentUID_fkey" REFERENCES "items" ("uid") ON DELETE RESTRICT,
        "ownerUid" uuid CONSTRAINT "items_ownerUid_fkey" REFERENCES "users" ("uid") ON DELETE SET NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE INDEX "items_dateCreated_uid_idx" ON "items" ("dateCreated", "uid")`);
    await queryRunner.query(`CREATE INDEX "items_parentUID_idx" ON "items" ("parentUID")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "items"`);
    await queryRunner.query(`DROP TABLE "personas"`);
    await queryRunner.query(`DROP TABLE "users"`);
  }
}
