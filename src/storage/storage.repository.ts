import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { StoredJson } from '../common/stored-json.js';
import type { Transaction } from '../database/record.repository.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { transact } from '../database/after-commit.js';
import { runStatement, type Statement, statement } from '../database/statement.js';
import { EventOutbox, type WritingParameters, writingCtes, type WrittenEvents } from '../realtime/event-outbox.js';
import type { StorageAck, StorageCollectionDto } from './dto/storage-answers.dto.js';
import { StorageObject } from './storage-object.entity.js';
import { type DeletePlan, refKey, type StorageRef, type StoredState, type Usage, type WritePlan } from './storage-rules.js';

/** The fields of an object as clients read it (its size stays inside); its value as jsonb's text, answered as it is (StoredJson). */
const OBJECT_FIELDS = `o."ownerUid", o.collection, o.key, o.value::text AS value, o.version, o."permissionRead", o."permissionWrite", o."dateCreated", o."dateModified"`;

/** SQL: the caller ($viewer, $admin) may read object `o`: admins everything; players PUBLIC ones, and their own OWNER ones. */
const readableBy = (viewer: string, admin: string) =>
  `(${admin}::boolean OR o."permissionRead" = 'PUBLIC' OR (o."permissionRead" = 'OWNER' AND o."ownerUid" = ${viewer}::uuid))`;

/** The version of a stored value: the first 128 bits of the SHA-256 of its jsonb text (canonical: keys sorted, duplicates gone). */
const versionOf = (jsonb: string) => `left(encode(sha256(convert_to(${jsonb}::text, 'UTF8')), 'hex'), 32)`;

interface Refs {
  owners: string[];
  collections: string[];
  keys: string[];
}

interface Viewer {
  viewer: string;
  admin: boolean;
}

/**
 * The SQL of cloud save. Every batch that changes storage runs in one database transaction, in three
 * statements: lockOwners (the owners' usage rows, in uid order: batches of one owner take turns),
 * lockedState (what the batch touches, read after the lock: a statement's snapshot predates the lock
 * waits it makes), and write (the objects, the usage and the `storage.updated` events to each owner,
 * in one statement) or delete (the objects and the usage; its events through the outbox). The statements every write runs and the read of one object
 * are prepared where statements are (DATABASE_PREPARED_STATEMENTS).
 */
@Injectable()
export class StorageRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: EventOutbox,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Runs `work` in one database transaction (events are written just before it commits). */
  transaction<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> {
    return transact(this.dataSource, work);
  }

  /**
   * Locks the usage rows of `owners` until the transaction ends, in uid order, creating those of owners
   * who have none yet; answers the owners that are users (the others have no row to lock), each with
   * whether it is a guest: an account that has linked no identity provider, only devices.
   */
  async lockOwners(transaction: Transaction, owners: string[]): Promise<Map<string, { guest: boolean }>> {
    const rows = await this.run(transaction, LOCK_OWNERS, { owners });
    return new Map(rows.map((row) => [row.ownerUid, { guest: row.guest }]));
  }

  /** The owners' usage and the objects of `refs` that exist, as they are now (after lockOwners). */
  async lockedState(
    transaction: Transaction,
    owners: string[],
    refs: StorageRef[],
  ): Promise<{ usage: Map<string, Usage>; current: Map<string, StoredState> }> {
    const [row] = await this.run(transaction, LOCKED_STATE, { ...refsOf(refs), usageOwners: owners });
    return {
      usage: new Map(row.usage.map(({ ownerUid, objects, bytes }) => [ownerUid, { objects, bytes }])),
      current: new Map(row.current.map((state) => [refKey(state), state])),
    };
  }

  /** Writes a planned batch (owners locked), with each owner's usage and events; answers the acks in the batch's order. */
  async write(transaction: Transaction, plan: WritePlan): Promise<StorageAck[]> {
    const { writes } = plan;
    const rows = await this.run(transaction, WRITE_OBJECTS, {
      ...refsOf(writes),
      values: writes.map((write) => write.json),
      sizes: writes.map((write) => write.size),
      reads: writes.map((write) => write.permissionRead),
      writes: writes.map((write) => write.permissionWrite),
      ...usageOf(plan.usage),
      ...this.outbox.writingValues(),
    });
    // The owners are locked and every write is an upsert: each comes back, in the batch's order.
    if (rows.length !== writes.length || rows.some((row, index) => row.n !== index)) {
      throw new Error(`wrote ${rows.length} storage objects of ${writes.length} planned`);
    }
    this.outbox.written(transaction, rows[0]);
    return rows.map(({ collection, key, ownerUid, version }) => ({ collection, key, ownerUid, version }));
  }

  /** Deletes a planned batch (owners locked), with each owner's usage and events. */
  async delete(transaction: Transaction, plan: DeletePlan): Promise<void> {
    if (plan.deletes.length === 0) return;
    const [{ deleted }] = await this.run(transaction, DELETE_OBJECTS, { ...refsOf(plan.deletes), ...usageOf(plan.usage) });
    // The owners are locked: every object the plan found is still there.
    if (deleted !== plan.deletes.length) throw new Error(`deleted ${deleted} storage objects of ${plan.deletes.length} planned`);
    await this.announce(
      transaction,
      plan.deletes.map((ref) => ({ ...ref, version: null })),
    );
  }

  /** The objects of `refs` the caller may read, in the order of `refs`. */
  async read(refs: StorageRef[], caller: Caller): Promise<StorageObject[]> {
    return objectsOf(await this.run(undefined, READ_OBJECTS, { ...refsOf(refs), ...viewerOf(caller) }));
  }

  /** One object, if it exists and the caller may read it. */
  async findOne(ref: StorageRef, caller: Caller): Promise<StorageObject | undefined> {
    const rows = await this.run(undefined, READ_OBJECT, { ...ref, ...viewerOf(caller) });
    return objectsOf(rows)[0];
  }

  /**
   * A page of an owner's objects in a collection that the caller may read, in key order after `after`:
   * at most `limit`, and no more than `budget` bytes of values but always one; `more` says whether
   * others follow.
   */
  async page(
    owner: StorageRef['ownerUid'],
    collection: string,
    after: string,
    limit: number,
    budget: number,
    caller: Caller,
  ): Promise<{ objects: StorageObject[]; more: boolean }> {
    const rows = await this.run(undefined, PAGE_OBJECTS, { owner, collection, after, limit: limit + 1, budget, ...viewerOf(caller) });
    let kept = 0;
    while (kept < Math.min(rows.length, limit) && (kept === 0 || Number(rows[kept].running) <= budget)) kept++;
    return { objects: objectsOf(rows.slice(0, kept)), more: rows.length > kept };
  }

  /**
   * What cloud save holds in all, as the quotas count it: a sum over the usage rows (one per owner, a
   * few dozen bytes each), which the writes keep equal to the objects, rather than a pass over the objects.
   */
  async totals(): Promise<{ objects: number; bytes: number }> {
    const [row] = await this.run(undefined, TOTALS, {});
    return { objects: Number(row.objects), bytes: Number(row.bytes) };
  }

  /** How many objects a collection holds (of one owner, when given). */
  count(collection: string, ownerUid: string | undefined): Promise<number> {
    const query = this.dataSource.createQueryBuilder(StorageObject, 'o').where('o.collection = :collection', { collection });
    if (ownerUid !== undefined) query.andWhere('o."ownerUid" = :ownerUid', { ownerUid });
    return query.getCount();
  }

  /**
   * An owner's collections in name order after `after`, with how many objects and bytes each holds: at
   * most `limit` (one more is asked, to tell whether others follow). The primary key leads with the
   * owner and the collection, and the owner's quota bounds what is grouped.
   */
  async collectionsOf(ownerUid: string, after: string, limit: number): Promise<{ collections: StorageCollectionDto[]; more: boolean }> {
    const rows = await this.dataSource
      .createQueryBuilder(StorageObject, 'o')
      .select('o.collection', 'collection')
      .addSelect('count(*)::integer', 'objects')
      .addSelect('sum(o.size)::bigint', 'bytes')
      .where('o."ownerUid" = :ownerUid', { ownerUid })
      .andWhere('o.collection > :after', { after })
      .groupBy('o.collection')
      .orderBy('o.collection')
      .limit(limit + 1)
      .getRawMany<{ collection: string; objects: number; bytes: string }>();
    const collections = rows.slice(0, limit).map((row) => ({ collection: row.collection, objects: row.objects, bytes: Number(row.bytes) }));
    return { collections, more: rows.length > limit };
  }

  private async announce(transaction: Transaction, changes: Array<StorageRef & { version: string | null }>): Promise<void> {
    await this.outbox.recordMany(
      transaction,
      'storage.updated',
      changes.map(({ collection, key, ownerUid, version }) => ({ data: { collection, key, ownerUid, version }, users: [ownerUid] })),
    );
  }

  private run<P extends object, R>(transaction: Transaction | undefined, named: Statement<P, R>, values: P): Promise<R[]> {
    return runStatement(transaction ?? this.dataSource, named, values, this.config.preparedStatements);
  }
}

const refsOf = (refs: readonly StorageRef[]): Refs => ({
  owners: refs.map((ref) => ref.ownerUid),
  collections: refs.map((ref) => ref.collection),
  keys: refs.map((ref) => ref.key),
});

const viewerOf = (caller: Caller): Viewer => ({ viewer: caller.uid, admin: caller.isAdmin });

function usageOf(deltas: Map<string, Usage>) {
  const entries = [...deltas].filter(([, delta]) => delta.objects !== 0 || delta.bytes !== 0);
  return {
    usageOwners: entries.map(([owner]) => owner),
    usageObjects: entries.map(([, delta]) => delta.objects),
    usageBytes: entries.map(([, delta]) => delta.bytes),
  };
}

function objectsOf(rows: ReadonlyArray<Record<string, unknown>>): StorageObject[] {
  return rows.map((row) => {
    const object = new StorageObject();
    object.ownerUid = row.ownerUid as string;
    object.collection = row.collection as string;
    object.key = row.key as string;
    object.value = new StoredJson(row.value as string);
    object.version = row.version as string;
    object.permissionRead = row.permissionRead as StorageObject['permissionRead'];
    object.permissionWrite = row.permissionWrite as StorageObject['permissionWrite'];
    object.dateCreated = row.dateCreated as Date;
    object.dateModified = row.dateModified as Date;
    return object;
  });
}

type UsageDeltas = ReturnType<typeof usageOf>;

// ON CONFLICT DO UPDATE ... WHERE false locks the existing rows without writing them; a SELECT ... FOR
// UPDATE would miss a row another batch inserts and commits while this one waits (its snapshot is older).
const TOTALS = statement<Record<string, never>, { objects: string; bytes: string }>(
  'storage_totals',
  () => `SELECT coalesce(sum(objects), 0)::bigint AS objects, coalesce(sum(bytes), 0)::bigint AS bytes FROM storage_usage`,
);

// A guest has no identity but devices: read from the partial unique key of provider identities.
const LOCK_OWNERS = statement<{ owners: string[] }, { ownerUid: string; guest: boolean }>(
  'storage_lock_owners',
  (p) => `WITH wanted AS (SELECT uid FROM users WHERE uid = ANY(${p.owners}::uuid[])),
       created AS (
         INSERT INTO storage_usage ("ownerUid") SELECT uid FROM wanted ORDER BY uid
         ON CONFLICT ("ownerUid") DO UPDATE SET objects = storage_usage.objects WHERE false
       )
       SELECT uid AS "ownerUid",
              NOT EXISTS (SELECT 1 FROM user_identities i WHERE i."userUid" = wanted.uid AND i.provider <> 'device') AS guest
       FROM wanted`,
);

const LOCKED_STATE = statement<
  Refs & { usageOwners: string[] },
  { usage: Array<Usage & { ownerUid: string }>; current: Array<StorageRef & StoredState> }
>(
  'storage_locked_state',
  (p) => `SELECT
       (SELECT coalesce(json_agg(json_build_object('ownerUid', "ownerUid", 'objects', objects, 'bytes', bytes)), '[]')
          FROM storage_usage WHERE "ownerUid" = ANY(${p.usageOwners}::uuid[])) AS usage,
       (SELECT coalesce(json_agg(json_build_object('ownerUid', o."ownerUid", 'collection', o.collection, 'key', o.key, 'version', o.version,
                 'size', o.size, 'permissionRead', o."permissionRead", 'permissionWrite', o."permissionWrite")), '[]')
          FROM unnest(${p.owners}::uuid[], ${p.collections}::text[], ${p.keys}::text[]) AS r(owner, collection, key)
          JOIN storage_objects o ON o."ownerUid" = r.owner AND o.collection = r.collection AND o.key = r.key) AS current`,
);

/** The usage deltas of a batch, applied to its owners' (locked) rows. */
const applyUsage = (p: { usageOwners: string; usageObjects: string; usageBytes: string }) => `usage AS (
         UPDATE storage_usage u SET objects = u.objects + d.objects, bytes = u.bytes + d.bytes
         FROM unnest(${p.usageOwners}::uuid[], ${p.usageObjects}::int[], ${p.usageBytes}::bigint[]) AS d(owner, objects, bytes)
         WHERE u."ownerUid" = d.owner
       )`;

/**
 * The objects, their owners' usage and a `storage.updated` event per object (no value) to its owner, in
 * one statement: written apart through the outbox, the events were a statement and a round trip more
 * per batch (docs/PERFORMANCE.md). The events' payload is built here: test/storage.e2e-spec.ts
 * checks it against StorageUpdatedEvent's schema.
 */
const WRITE_OBJECTS = statement<
  Refs & { values: string[]; sizes: number[]; reads: string[]; writes: string[] } & UsageDeltas & WritingParameters,
  StorageAck & { n: number } & Partial<WrittenEvents>
>(
  'storage_write',
  (p) => `WITH w AS (
         SELECT *, value::jsonb AS parsed
         FROM unnest(${p.owners}::uuid[], ${p.collections}::text[], ${p.keys}::text[], ${p.values}::text[], ${p.sizes}::int[],
                     ${p.reads}::text[], ${p.writes}::text[]) WITH ORDINALITY AS w(owner, collection, key, value, size, read, write, n)
       ), ${applyUsage(p)}, stored AS (
         INSERT INTO storage_objects ("ownerUid", collection, key, value, version, size, "permissionRead", "permissionWrite")
         SELECT owner, collection, key, parsed, ${versionOf('parsed')}, size, read, write FROM w ORDER BY n
         ON CONFLICT ("ownerUid", collection, key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version, size = EXCLUDED.size,
           "permissionRead" = EXCLUDED."permissionRead", "permissionWrite" = EXCLUDED."permissionWrite", "dateModified" = now()
         RETURNING "ownerUid", collection, key, version
       ), acks AS (
         SELECT o.collection, o.key, o."ownerUid", o.version, (w.n - 1)::int AS n
         FROM stored o JOIN w ON w.owner = o."ownerUid" AND w.collection = o.collection AND w.key = o.key
       ), events AS (
         SELECT n AS idx, 'storage.updated' AS type,
                jsonb_build_object('collection', collection, 'key', key, 'ownerUid', "ownerUid", 'version', version) AS data
         FROM acks
       ), wanted AS (
         SELECT n AS idx, "ownerUid" AS uid, false AS persona FROM acks
       )${writingCtes(p)}
       SELECT acks.collection, acks.key, acks."ownerUid", acks.version, acks.n,
              written_events.counts, written_events.wake, written_events.recipients, written_events.notified
       FROM acks LEFT JOIN written_events ON true
       ORDER BY acks.n`,
);

const DELETE_OBJECTS = statement<Refs & UsageDeltas, { deleted: number }>(
  'storage_delete',
  (p) => `WITH ${applyUsage(p)}, deleted AS (
         DELETE FROM storage_objects o USING unnest(${p.owners}::uuid[], ${p.collections}::text[], ${p.keys}::text[]) AS d(owner, collection, key)
         WHERE o."ownerUid" = d.owner AND o.collection = d.collection AND o.key = d.key
         RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM deleted`,
);

const READ_OBJECTS = statement<Refs & Viewer>(
  'storage_read',
  (p) => `SELECT ${OBJECT_FIELDS}
       FROM unnest(${p.owners}::uuid[], ${p.collections}::text[], ${p.keys}::text[]) WITH ORDINALITY AS r(owner, collection, key, n)
       JOIN storage_objects o ON o."ownerUid" = r.owner AND o.collection = r.collection AND o.key = r.key
       WHERE ${readableBy(p.viewer, p.admin)}
       ORDER BY r.n`,
);

const READ_OBJECT = statement<StorageRef & Viewer>(
  'storage_read_one',
  (p) => `SELECT ${OBJECT_FIELDS} FROM storage_objects o
       WHERE o."ownerUid" = ${p.ownerUid}::uuid AND o.collection = ${p.collection} AND o.key = ${p.key} AND ${readableBy(p.viewer, p.admin)}`,
);

/**
 * A page in key order, measured by the values' sizes: the rows up to the first that ends past the
 * budget (which `page` drops unless it is the first), so that no more than that is read out.
 */
const PAGE_OBJECTS = statement<
  { owner: string; collection: string; after: string; limit: number; budget: number } & Viewer,
  Record<string, unknown> & { running: string }
>(
  'storage_page',
  (p) => `SELECT * FROM (
         SELECT page.*, sum(page.size) OVER (ORDER BY page.key ROWS UNBOUNDED PRECEDING) AS running FROM (
           SELECT ${OBJECT_FIELDS}, o.size FROM storage_objects o
           WHERE o."ownerUid" = ${p.owner}::uuid AND o.collection = ${p.collection} AND o.key > ${p.after} AND ${readableBy(p.viewer, p.admin)}
           ORDER BY o.key LIMIT ${p.limit}
         ) AS page
       ) AS sized
       WHERE running - size < ${p.budget}
       ORDER BY key`,
);
