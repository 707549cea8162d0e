import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Media files stored by the service (issue 33): the blobs the store keeps, once per digest; which
 * variant of which asset refers to which blob (a foreign key keeps a referred blob from being
 * deleted); and direct uploads in progress. Variants written before have no `size`: they name files
 * stored elsewhere, and get `"size": null`, as an external file has.
 */
export class MediaStorage1764700000033 implements MigrationInterface {
  name = 'MediaStorage1764700000033';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "media_blobs" (
        "sha256" text PRIMARY KEY CONSTRAINT "media_blobs_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
        "size" bigint NOT NULL CONSTRAINT "media_blobs_size_check" CHECK ("size" >= 0),
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE "media_blob_references" (
        "assetUid" uuid NOT NULL CONSTRAINT "media_blob_references_assetUid_fkey" REFERENCES "media_assets" ("uid") ON DELETE CASCADE,
        "variant" text NOT NULL,
        "sha256" text NOT NULL CONSTRAINT "media_blob_references_sha256_fkey" REFERENCES "media_blobs" ("sha256"),
        PRIMARY KEY ("assetUid", "variant")
      )`);
    await queryRunner.query(`CREATE INDEX "media_blob_references_sha256_idx" ON "media_blob_references" ("sha256")`);
    await queryRunner.query(`
      CREATE TABLE "media_uploads" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "assetUid" uuid NOT NULL CONSTRAINT "media_uploads_assetUid_fkey" REFERENCES "media_assets" ("uid") ON DELETE CASCADE,
        "variant" text NOT NULL,
        "mimetype" text NOT NULL,
        "name" text NOT NULL,
        "sha256" text NOT NULL CONSTRAINT "media_uploads_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
        "size" bigint NOT NULL,
        "expiresAt" timestamptz(3) NOT NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX "media_uploads_expiresAt_idx" ON "media_uploads" ("expiresAt")`);
    await queryRunner.query(`
      UPDATE "media_assets" SET "files" = (
        SELECT jsonb_object_agg("key", "value" || '{"size": null}') FROM jsonb_each("files")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "media_uploads"`);
    await queryRunner.query(`DROP TABLE "media_blob_references"`);
    await queryRunner.query(`DROP TABLE "media_blobs"`);
    await queryRunner.query(`
      UPDATE "media_assets" SET "files" = (SELECT jsonb_object_agg("key", "value" - 'size') FROM jsonb_each("files"))`);
  }
}
