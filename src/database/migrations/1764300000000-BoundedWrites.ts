import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bounded work per request (issue 25): sessions that ended are removed after SESSION_RETENTION (the
 * purge reads them by this index), and the events of sessions and tickets carry them in brief. Events
 * written before this carried whole records (a session of 10,000 members was 800 KB an event): they are
 * rewritten in the brief form clients now read, so that no event is lost and none is oversized. A
 * rewritten `session.updated` cannot know what its write changed: it names every field.
 */
export class BoundedWrites1764300000000 implements MigrationInterface {
  name = 'BoundedWrites1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "sessions_ended_idx" ON "sessions" ("dateModified") WHERE "status" = 'ENDED'`);
    await queryRunner.query(`
      UPDATE "notifications" SET "data" = jsonb_build_object(
        'uid', "data" -> 'uid', 'version', "data" -> 'version', 'status', "data" -> 'status',
        'visibility', "data" -> 'visibility', 'hostUid', "data" -> 'hostUid',
        'changed', '["status","visibility","numTeams","teamSize","teams","users","invited","backfill","hostUid","serverUid"]'::jsonb,
        'joined', '[]'::jsonb, 'left', '[]'::jsonb)
      WHERE "type" = 'session.updated' AND "data" ? 'users'`);
    await queryRunner.query(`
      UPDATE "notifications" SET "data" = jsonb_build_object('uid', "data" -> 'uid', 'version', "data" -> 'version')
      WHERE "type" = 'session.deleted' AND "data" ? 'users'`);
    await queryRunner.query(`
      UPDATE "notifications" SET "data" = jsonb_build_object(
        'uid', "data" -> 'uid', 'version', "data" -> 'version', 'status', "data" -> 'status',
        'reason', coalesce("data" -> 'reason', 'null'::jsonb), 'sessionUid', coalesce("data" -> 'sessionUid', 'null'::jsonb),
        'hostUid', "data" -> 'hostUid')
      WHERE "type" = 'ticket.updated' AND "data" ? 'users'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "sessions_ended_idx"`);
  }
}
