import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Media and text assets, achievement definitions and the users' unlocks of them. */
export class AssetsAndAchievements1763800000002 implements MigrationInterface {
  name = 'AssetsAndAchievements1763800000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "media_assets" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "description" text,
        -- Variant key -> file object; the service checks each file, the database that "default" is one.
        "files" jsonb NOT NULL
          CONSTRAINT "media_assets_files_check" CHECK (COALESCE(jsonb_typeof("files" -> 'default'), '') = 'object'),
        "ownerUid" uuid CONSTRAINT "media_assets_ownerUid_fkey" REFERENCES "users" ("uid") ON DELETE SET NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE INDEX "media_assets_dateCreated_uid_idx" ON "media_assets" ("dateCreated", "uid")`);

    await queryRunner.query(`
      CREATE TABLE "text_assets" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "description" text,
        -- Language key -> string; "default" is always there, for readers whose language is missing.
        "text" jsonb NOT NULL
          CONSTRAINT "text_assets_text_check" CHECK (COALESCE(jsonb_typeof("text" -> 'default'), '') = 'string'),
        "ownerUid" uuid CONSTRAINT "text_assets_ownerUid_fkey" REFERENCES "users" ("uid") ON DELETE SET NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE INDEX "text_assets_dateCreated_uid_idx" ON "text_assets" ("dateCreated", "uid")`);

    await queryRunner.query(`
      CREATE TABLE "achievements" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "description" text,
        "badge" text,
        "ownerUid" uuid CONSTRAINT "achievements_ownerUid_fkey" REFERENCES "users" ("uid") ON DELETE SET NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE INDEX "achievements_dateCreated_uid_idx" ON "achievements" ("dateCreated", "uid")`);

    await queryRunner.query(`
      CREATE TABLE "achievement_unlocks" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "achievementUid" uuid NOT NULL
          CONSTRAINT "achievement_unlocks_achievementUid_fkey" REFERENCES "achievements" ("uid") ON DELETE CASCADE,
        "userUid" uuid NOT NULL CONSTRAINT "achievement_unlocks_userUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        -- "Once per user": concurrent unlocks cannot both insert (the service relies on ON CONFLICT).
        CONSTRAINT "achievement_unlocks_achievementUid_userUid_key" UNIQUE ("achievementUid", "userUid")
      )`);
    // The caller's unlocks, in list order.
    await queryRunner.query(`CREATE INDEX "achievement_unlocks_userUid_idx" ON "achievement_unlocks" ("userUid", "dateCreated", "uid")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "achievement_unlocks"`);
    await queryRunner.query(`DROP TABLE "achievements"`);
    await queryRunner.query(`DROP TABLE "text_assets"`);
    await queryRunner.query(`DROP TABLE "media_assets"`);
  }
}
