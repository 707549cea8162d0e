import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts with several ways in (issue 30): a user's identities, one row each (a device, idp1, idp2),
 * instead of the one (provider, subject) of the users table. Every existing user keeps the identity
 * they signed in with: it is copied into user_identities, with its date, so that the next sign-in
 * finds the same user; no row is lost. The users table keeps `provider` and `subject` as the identity
 * the account was created with (no longer unique: an identity unlinked from one account may create
 * another). A player session remembers the identity that opened it (unlinking a device ends its
 * sessions, and the admin role is read from it at refresh); existing sessions get their user's.
 */
export class Identities1764600000000 implements MigrationInterface {
  name = 'Identities1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "user_identities" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "userUid" uuid NOT NULL CONSTRAINT "user_identities_userUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "provider" text NOT NULL CONSTRAINT "user_identities_provider_check" CHECK ("provider" IN ('device', 'idp1', 'idp2')),
        "subject" text NOT NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "user_identities_provider_subject_key" UNIQUE ("provider", "subject")
      )`);
    await queryRunner.query(`CREATE INDEX "user_identities_userUid_idx" ON "user_identities" ("userUid")`);
    // Devices are many per account; each identity provider is one.
    await queryRunner.query(
      `CREATE UNIQUE INDEX "user_identities_user_provider_key" ON "user_identities" ("userUid", "provider") WHERE "provider" <> 'device'`,
    );
    await queryRunner.query(`
      INSERT INTO "user_identities" ("userUid", "provider", "subject", "dateCreated")
      SELECT "uid", "provider", "subject", "dateCreated" FROM "users"`);

    await queryRunner.query(`ALTER TABLE "users" DROP CONSTRAINT "users_provider_subject_key"`);
    await queryRunner.query(`ALTER TABLE "users" ALTER "subject" DROP NOT NULL`);
    await queryRunner.query(`CREATE INDEX "users_provider_subject_idx" ON "users" ("provider", "subject")`);

    await queryRunner.query(
      `ALTER TABLE "auth_sessions" ADD "identityUid" uuid CONSTRAINT "auth_sessions_identityUid_fkey" REFERENCES "user_identities" ("uid") ON DELETE SET NULL`,
    );
    await queryRunner.query(`
      UPDATE "auth_sessions" s SET "identityUid" = i."uid"
      FROM "user_identities" i WHERE i."userUid" = s."userUid" AND i."provider" = s."provider"`);
    await queryRunner.query(`CREATE INDEX "auth_sessions_identityUid_idx" ON "auth_sessions" ("identityUid")`);
  }

  /** Back to one identity per user: only while no account was created by a device (their subject is unknown). */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "auth_sessions" DROP "identityUid"`);
    await queryRunner.query(`DROP INDEX "users_provider_subject_idx"`);
    await queryRunner.query(`ALTER TABLE "users" ALTER "subject" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "users" ADD CONSTRAINT "users_provider_subject_key" UNIQUE ("provider", "subject")`);
    await queryRunner.query(`DROP TABLE "user_identities"`);
  }
}
