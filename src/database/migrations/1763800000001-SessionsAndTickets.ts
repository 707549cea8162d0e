import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Game sessions and matchmaking tickets. */
export class SessionsAndTickets1763800000001 implements MigrationInterface {
  name = 'SessionsAndTickets1763800000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "sessions" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "status" text NOT NULL DEFAULT 'WAITING_FOR_PLAYERS'
          CONSTRAINT "sessions_status_check" CHECK ("status" IN ('WAITING_FOR_PLAYERS', 'IDLE', 'IN_PROGRESS', 'ENDED')),
        "visibility" text NOT NULL DEFAULT 'PUBLIC'
          CONSTRAINT "sessions_visibility_check" CHECK ("visibility" IN ('PUBLIC', 'INVITE_ONLY', 'LOCKED')),
        "numTeams" integer NOT NULL CONSTRAINT "sessions_numTeams_check" CHECK ("numTeams" >= 1),
        "teamSize" integer NOT NULL CONSTRAINT "sessions_teamSize_check" CHECK ("teamSize" >= 1),
        "teams" jsonb NOT NULL DEFAULT '[]',
        "users" uuid[] NOT NULL DEFAULT '{}',
        "invited" uuid[] NOT NULL DEFAULT '{}',
        "passwordHash" text,
        "hostUid" uuid NOT NULL CONSTRAINT "sessions_hostUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "serverUid" uuid,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        -- The last line of defence against an overfilled session, whatever the code above it does.
        CONSTRAINT "sessions_capacity_check" CHECK (cardinality("users") <= "numTeams" * "teamSize")
      )`);
    await queryRunner.query(`CREATE INDEX "sessions_dateCreated_uid_idx" ON "sessions" ("dateCreated", "uid")`);
    // Visibility checks ask "is the caller among users / invited?" (users @> ARRAY[caller]).
    await queryRunner.query(`CREATE INDEX "sessions_users_idx" ON "sessions" USING gin ("users")`);
    await queryRunner.query(`CREATE INDEX "sessions_invited_idx" ON "sessions" USING gin ("invited")`);
    await queryRunner.query(`CREATE INDEX "sessions_hostUid_idx" ON "sessions" ("hostUid")`);

    await queryRunner.query(`
      CREATE TABLE "tickets" (
        "uid" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "status" text NOT NULL DEFAULT 'SEARCHING'
          CONSTRAINT "tickets_status_check" CHECK ("status" IN ('INITIALIZING', 'SEARCHING', 'MATCH_FOUND', 'INVALID')),
        "criteria" jsonb NOT NULL DEFAULT '[]',
        "statistics" jsonb NOT NULL DEFAULT '[]',
        "numTeams" integer NOT NULL CONSTRAINT "tickets_numTeams_check" CHECK ("numTeams" >= 1),
        "teamSize" integer NOT NULL DEFAULT 1 CONSTRAINT "tickets_teamSize_check" CHECK ("teamSize" >= 1),
        "numUsers" integer NOT NULL,
        "users" uuid[] NOT NULL DEFAULT '{}',
        "hostUid" uuid NOT NULL CONSTRAINT "tickets_hostUid_fkey" REFERENCES "users" ("uid") ON DELETE CASCADE,
        "sessionUid" uuid CONSTRAINT "tickets_sessionUid_fkey" REFERENCES "sessions" ("uid") ON DELETE SET NULL,
        "dateCreated" timestamptz(3) NOT NULL DEFAULT now(),
        "dateModified" timestamptz(3) NOT NULL DEFAULT now(),
        "version" integer NOT NULL DEFAULT 0,
        CONSTRAINT "tickets_party_check" CHECK ("numUsers" = cardinality("users") AND "numUsers" <= "teamSize")
      )`);
    await queryRunner.query(`CREATE INDEX "tickets_dateCreated_uid_idx" ON "tickets" ("dateCreated", "uid")`);
    await queryRunner.query(`CREATE INDEX "tickets_users_idx" ON "tickets" USING gin ("users")`);
    await queryRunner.query(`CREATE INDEX "tickets_hostUid_idx" ON "tickets" ("hostUid")`);
    // The matchmaker's queue: waiting tickets, oldest first.
    await queryRunner.query(`CREATE INDEX "tickets_searching_idx" ON "tickets" ("dateCreated", "uid") WHERE "status" = 'SEARCHING'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "tickets"`);
    await queryRunner.query(`DROP TABLE "sessions"`);
  }
}
