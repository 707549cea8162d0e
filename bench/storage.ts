/**
 * Cloud save in the benchmark (issue 29): the objects the storage scenarios read and write, and the
 * owners that grow the table to the size a read must not slow down at. Rows are written with SQL, as
 * the rest of the seed is; versions and sizes as the service computes them (a hash of the stored
 * jsonb; the value's compact JSON in bytes), so that the service takes the seeded versions as its own.
 */
import type pg from 'pg';

/** The save every player reads: about 4 KB of compact JSON, as a save with an inventory might be. */
export function saveValue(owner: number): Record<string, unknown> {
  return {
    level: 12 + (owner % 40),
    checkpoint: `act-2/ruins-${owner % 7}`,
    inventory: Array.from({ length: 40 }, (_, slot) => ({ item: `item-${(owner + slot) % 500}`, count: 1 + (slot % 9), durability: 0.75 })),
    flags: Object.fromEntries(Array.from({ length: 30 }, (_, flag) => [`quest-${flag}`, flag % 3 === 0])),
  };
}

/**
 * A ghost replay (issue 47): 2,800 frames of three numbers, about 62 KB of compact JSON and 11,000
 * values. What a read of it costs grows with its values when the JSON is parsed and written again, and
 * only with its bytes when its stored text is answered as it is.
 */
export const GHOST_VALUE = { frames: Array.from({ length: 2800 }, (_, t) => ({ t, x: (t * 7) % 1000, y: (t * 13) % 1000 })) };

/** The settings object the conditional writes write again and again, each time on its own (unchanged) version. */
export const SETTINGS_VALUE = { music: 0.5, effects: 0.8, invertY: false, language: 'en' };

/** A small object of the nineteen that keep each owner's save company (loadouts, replays' headers). */
const FILLER = `jsonb_build_object('slot', k, 'loadout', jsonb_build_array('sword', 'shield', 'potion'), 'score', k * 100)`;

// The service's version of a value: the first 128 bits of the SHA-256 of the jsonb's text.
const VERSION = (value: string) => `left(encode(sha256(convert_to(${value}::text, 'UTF8')), 'hex'), 32)`;

/**
 * Each player's `saves/slot-1` (about 4 KB), `saves/ghost` (62 KB), `settings/audio` and 18 small objects, and their usage
 * rows; answers the version of each player's settings (the conditional writes state it).
 */
export async function seedStorage(database: pg.Pool, ownerUids: string[]): Promise<Map<string, string>> {
  await database.query(
    `INSERT INTO storage_objects ("ownerUid", collection, key, value, version, size)
     SELECT o.owner, 'saves', 'slot-1', o.value::jsonb, ${VERSION('o.value::jsonb')}, octet_length(o.value)
     FROM unnest($1::uuid[], $2::text[]) AS o(owner, value)`,
    [ownerUids, ownerUids.map((_, index) => JSON.stringify(saveValue(index)))],
  );
  const ghost = JSON.stringify(GHOST_VALUE);
  await database.query(
    `INSERT INTO storage_objects ("ownerUid", collection, key, value, version, size)
     SELECT owner, 'saves', 'ghost', $2::jsonb, ${VERSION('$2::jsonb')}, octet_length($2::text) FROM unnest($1::uuid[]) AS owner`,
    [ownerUids, ghost],
  );
  const settings = JSON.stringify(SETTINGS_VALUE);
  await database.query(
    `INSERT INTO storage_objects ("ownerUid", collection, key, value, version, size)
     SELECT owner, 'settings', 'audio', $2::jsonb, ${VERSION('$2::jsonb')}, octet_length($2::text) FROM unnest($1::uuid[]) AS owner`,
    [ownerUids, settings],
  );
  await addFillers(database, `unnest($1::uuid[]) AS owner`, [ownerUids]);
  await recountUsage(database);
  const { rows } = await database.query<{ ownerUid: string; version: string }>(
    `SELECT "ownerUid", version FROM storage_objects WHERE "ownerUid" = ANY($1::uuid[]) AND collection = 'settings' AND key = 'audio'`,
    [ownerUids],
  );
  return new Map(rows.map((row) => [row.ownerUid, row.version]));
}

/** Adds `owners` users with 20 objects each (about 100 bytes a value), in slices so that no statement runs for minutes. */
export async function growStorageOwners(database: pg.Pool, owners: number, log: (message: string) => void): Promise<void> {
  const slice = 10_000;
  for (let start = 0; start < owners; start += slice) {
    const count = Math.min(slice, owners - start);
    await database.query(
      `WITH added AS (
         INSERT INTO users (uid, provider, subject, name)
         SELECT gen_random_uuid(), 'idp1', format('saver-%s', n), format('saver-%s', n) FROM generate_series($1::int, $2::int) AS n
         RETURNING uid
       )
       INSERT INTO storage_objects ("ownerUid", collection, key, value, version, size)
       SELECT uid, 'saves', 'slot-' || k, v, ${VERSION('v')}, octet_length(v::text)
       FROM added, generate_series(1, 20) AS k, LATERAL (SELECT ${FILLER} AS v) AS value`,
      [start + 1, start + count],
    );
    log(`  storage: ${start + count} of ${owners} owners × 20 objects`);
  }
  await recountUsage(database);
  await database.query('VACUUM ANALYZE storage_objects');
  await database.query('VACUUM ANALYZE storage_usage');
}

async function addFillers(database: pg.Pool, owners: string, values: unknown[]): Promise<void> {
  await database.query(
    `INSERT INTO storage_objects ("ownerUid", collection, key, value, version, size)
     SELECT owner, 'loadouts', 'loadout-' || k, v, ${VERSION('v')}, octet_length(v::text)
     FROM ${owners}, generate_series(1, 18) AS k, LATERAL (SELECT ${FILLER} AS v) AS value`,
    values,
  );
}

/** The usage rows the quotas are checked against, as the objects add up. */
async function recountUsage(database: pg.Pool): Promise<void> {
  await database.query(
    `INSERT INTO storage_usage ("ownerUid", objects, bytes)
     SELECT "ownerUid", count(*), sum(size) FROM storage_objects GROUP BY "ownerUid"
     ON CONFLICT ("ownerUid") DO UPDATE SET objects = EXCLUDED.objects, bytes = EXCLUDED.bytes`,
  );
}

/** How many storage objects and owners the database holds. */
export async function countStorage(database: pg.Pool): Promise<{ objects: number; owners: number }> {
  const { rows } = await database.query<{ objects: number; owners: number }>(
    `SELECT (SELECT count(*)::int FROM storage_objects) AS objects, (SELECT count(*)::int FROM storage_usage) AS owners`,
  );
  return rows[0];
}
