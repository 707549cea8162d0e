import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cloud save (issue 29): players' storage objects, keyed by owner, collection and key (the primary key
 * serves an owner's reads, lists and counts), and each owner's usage, the row a batch locks first and
 * the quotas are checked against.
 */
export class CloudSave1764500000000 implements MigrationInterface {
  name = 'CloudSave1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "storage_objects" (
        "ownerUid" uuid NOT NULL CONSTRAINT "storage_objects_ownerUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "collection" text COLLATE "C" NOT NULL CONSTRAINT "storage_objects_collection_check" CHECK ("collection" ~ '^[A-Za-z0-9_.-]{1,128}$'),
        "key" text COLLATE "C" NOT NULL CONSTRAINT "storage_objects_key_check" CHECK ("key" ~ '^[A-Za-z0-9_.-]{1,128}$'),
        "value" jsonb NOT NULL CONSTRAINT "storage_objects_value_check" CHECK (jsonb_typeof("value") = 'object'),
        "version" text NOT NULL,
        "permissionRead" text NOT NULL DEFAULT 'OWNER'
          CONSTRAINT "storage_objects_permissionRead_check" CHECK ("permissionRead" IN ('NONE', 'OWNER', 'PUBLIC')),
        "permissionWrite" text NOT NULL DEFAULT 'OWNER'
          CONSTRAINT "storage_objects_permissionWrite_check" CHECK ("permissionWrite" IN ('NONE', 'OWNER')),
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "size" integer NOT NULL CONSTRAINT "storage_objects_size_check" CHECK ("size" >= 0),
        CONSTRAINT "storage_objects_pkey" PRIMARY KEY ("ownerUid", "collection", "key")
      )`);
    await queryRunner.query(`
      CREATE TABLE "storage_usage" (
        "ownerUid" uuid NOT NULL CONSTRAINT "storage_usage_ownerUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "objects" integer NOT NULL DEFAULT 0 CONSTRAINT "storage_usage_objects_check" CHECK ("objects" >= 0),
        "bytes" bigint NOT NULL DEFAULT 0 CONSTRAINT "storage_usage_bytes_check" CHECK ("bytes" >= 0),
        CONSTRAINT "storage_usage_pkey" PRIMARY KEY ("ownerUid")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "storage_usage"`);
    await queryRunner.query(`DROP TABLE "storage_objects"`);
  }
}
