import { HttpStatus, Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, badRequest, ErrorCode, notFound, unknownUsers } from '../common/errors.js';
import type { Transaction } from '../database/record.repository.js';
import { withRetry } from '../common/retry.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { StorageDeleteDto } from './dto/read-storage.dto.js';
import type { StorageRefDto } from './dto/storage-ref.dto.js';
import type { StorageAck } from './dto/storage-answers.dto.js';
import type { StorageWriteDto } from './dto/write-storage.dto.js';
import type { StorageObject } from './storage-object.entity.js';
import { requireMayChangeStorageOf, requireMaySetPermissions } from './storage.policy.js';
import { StorageRepository } from './storage.repository.js';
import {
  type BatchRefusal,
  firstRepeat,
  isRefusal,
  planDeletes,
  planWrites,
  type Quota,
  refKey,
  type StorageDelete,
  type StorageRef,
  type StorageWrite,
} from './storage-rules.js';

/** A batch of writes checked against the request alone, ready to be applied in a database transaction. */
export interface StorageBatch {
  writes: StorageWrite[];
  byAdmin: boolean;
  /** Where the batch sits in its body (`objects`, or a transaction's `storageWrites`), for the errors' fields. */
  field: string;
}

/**
 * Cloud save: players' objects, written and deleted in batches that commit whole or not at all, read
 * as their permissions allow. A batch is checked first against the request (owners, permissions,
 * sizes), then, in its database transaction, against what it touches, with its owners locked: versions,
 * protected objects and quotas.
 */
@Injectable()
export class StorageService {
  constructor(
    private readonly storage: StorageRepository,
    private readonly metrics: MetricsService,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    metrics.readStoredTotalsFrom('storage', () => storage.totals());
  }

  async write(caller: Caller, items: StorageWriteDto[]): Promise<StorageAck[]> {
    const batch = this.prepareWrites(caller, items, 'objects');
    return this.retrying((db) => this.applyWrites(db, batch));
  }

  /** A batch's checks that need no database: whose objects, which permissions, no object twice, each value within its size. */
  prepareWrites(caller: Caller, items: StorageWriteDto[], field: string): StorageBatch {
    const writes = items.map((item, index): StorageWrite => {
      const ownerUid = item.ownerUid?.toLowerCase() ?? caller.uid;
      requireMayChangeStorageOf(caller, ownerUid, `${field}.${index}.ownerUid`);
      requireMaySetPermissions(caller, item, `${field}.${index}`);
      // Measured as compact JSON in UTF-8, what a client can compute the same way.
      const json = JSON.stringify(item.value);
      const { collection, key, version, permissionRead, permissionWrite } = item;
      return { ownerUid, collection, key, json, size: Buffer.byteLength(json), version, permissionRead, permissionWrite };
    });
    requireEachOnce(writes, field);
    const limit = this.config.storage.valueMaxBytes;
    const large = writes.findIndex((write) => write.size > limit);
    if (large >= 0) {
      const message = `is ${writes[large].size} bytes of JSON, more than the ${limit} a value may take`;
      throw new ApiException(
        HttpStatus.PAYLOAD_TOO_LARGE,
        ErrorCode.PAYLOAD_TOO_LARGE,
        `${field}.${large}.value ${message}: nothing was written`,
        {
          errors: [{ field: `${field}.${large}.value`, message }],
        },
      );
    }
    return { writes, byAdmin: caller.isAdmin, field };
  }

  /**
   * Applies a prepared batch in `db` (also an economy transaction's): locks its owners, then writes all
   * of it or throws (403 for a protected object, 409 for a version or a quota) before writing anything.
   */
  async applyWrites(db: Transaction, batch: StorageBatch): Promise<StorageAck[]> {
    const owners = ownersOf(batch.writes);
    const users = await this.storage.lockOwners(db, owners);
    const unknown = owners.filter((owner) => !users.has(owner));
    if (unknown.length > 0) throw unknownUsers(unknown, `${batch.field}.ownerUid`);
    const { usage, current } = await this.storage.lockedState(db, owners, batch.writes);
    const { objectsPerOwner, bytesPerOwner, guestObjectsPerOwner, guestBytesPerOwner } = this.config.storage;
    const quotaOf = (owner: string): Quota =>
      users.get(owner)?.guest
        ? { objects: guestObjectsPerOwner, bytes: guestBytesPerOwner, guest: true }
        : { objects: objectsPerOwner, bytes: bytesPerOwner };
    const plan = planWrites(batch.writes, current, usage, batch.byAdmin, batch.byAdmin ? undefined : quotaOf);
    if (isRefusal(plan)) throw refusalError(plan, batch.field, 'write');
    return this.storage.write(db, plan);
  }

  async remove(caller: Caller, items: StorageDeleteDto[]): Promise<void> {
    const deletes = items.map((item, index): StorageDelete => {
      const ownerUid = item.ownerUid?.toLowerCase() ?? caller.uid;
      requireMayChangeStorageOf(caller, ownerUid, `objects.${index}.ownerUid`);
      return { ownerUid, collection: item.collection, key: item.key, version: item.version };
    });
    requireEachOnce(deletes, 'objects');
    await this.retrying(async (db) => {
      const owners = ownersOf(deletes);
      await this.storage.lockOwners(db, owners);
      const { current } = await this.storage.lockedState(db, owners, deletes);
      const plan = planDeletes(deletes, current, caller.isAdmin);
      if (isRefusal(plan)) throw refusalError(plan, 'objects', 'delete');
      await this.storage.delete(db, plan);
    });
  }

  /** The objects the caller may read, in the order asked (each once); the others are simply absent. */
  read(caller: Caller, items: StorageRefDto[]): Promise<StorageObject[]> {
    const refs = new Map<string, StorageRef>();
    for (const { collection, key, ownerUid } of items) {
      const ref = { ownerUid: ownerUid?.toLowerCase() ?? caller.uid, collection, key };
      if (!refs.has(refKey(ref))) refs.set(refKey(ref), ref);
    }
    return this.storage.read([...refs.values()], caller);
  }

  async findOne(caller: Caller, ref: StorageRef): Promise<StorageObject> {
    const found = await this.storage.findOne(ref, caller);
    if (!found) throw notFound('storage object', `${ref.collection}/${ref.key} of ${ref.ownerUid}`);
    return found;
  }

  /** A page of an owner's objects in a collection that the caller may read, in key order, after `after` (a key). */
  page(caller: Caller, collection: string, ownerUid: string, after: string | undefined, limit: number) {
    return this.storage.page(ownerUid, collection, after ?? '', limit, this.config.listMaxBytes, caller);
  }

  /** An owner's collections in name order, after `after` (a collection name). */
  collectionsOf(ownerUid: string, after: string | undefined, limit: number) {
    return this.storage.collectionsOf(ownerUid, after ?? '', limit);
  }

  count(collection: string, ownerUid: string | undefined): Promise<number> {
    return this.storage.count(collection, ownerUid);
  }

  /** One database transaction, run again on serialization failures and deadlocks (counted in /metrics). */
  private retrying<R>(work: (db: Transaction) => Promise<R>): Promise<R> {
    return withRetry(
      () => this.storage.transaction(work),
      () => this.metrics.countRetry('storage_batch'),
    );
  }
}

const ownersOf = (refs: readonly StorageRef[]) => [...new Set(refs.map((ref) => ref.ownerUid))].sort();

function requireEachOnce(refs: readonly StorageRef[], field: string): void {
  const repeat = firstRepeat(refs);
  if (repeat === undefined) return;
  const { collection, key } = refs[repeat];
  throw badRequest(`${field}.${repeat} names ${collection}/${key} a second time: a batch names each object once`, [
    { field: `${field}.${repeat}`, message: 'names an object the batch names already' },
  ]);
}

const describe = ({ collection, key, ownerUid }: StorageRef) => `storage object ${collection}/${key} of ${ownerUid}`;

/** The answer to a refused batch: the first object at fault named, and every conflict listed. */
function refusalError(refusal: BatchRefusal, field: string, action: 'write' | 'delete'): ApiException {
  switch (refusal.kind) {
    case 'protected':
      return new ApiException(
        HttpStatus.FORBIDDEN,
        ErrorCode.FORBIDDEN,
        `${describe(refusal.ref)} is protected (permissionWrite NONE): only admins ${action} it; nothing was changed`,
        { storageObject: refusal.ref, errors: [{ field: `${field}.${refusal.index}`, message: 'is protected (permissionWrite NONE)' }] },
      );
    case 'conflict': {
      const [first] = refusal.conflicts;
      const now = first.currentVersion === null ? 'does not exist' : `is at version ${first.currentVersion}`;
      return new ApiException(
        HttpStatus.CONFLICT,
        ErrorCode.VERSION_CONFLICT,
        `${describe(first.ref)} ${now}, not the version stated: read it again and retry; nothing was changed`,
        {
          storageObject: { ...first.ref, currentVersion: first.currentVersion },
          errors: refusal.conflicts.map(({ index, currentVersion }) => ({
            field: `${field}.${index}.version`,
            message: currentVersion === null ? 'the object does not exist' : `the object is at version ${currentVersion}`,
          })),
        },
      );
    }
    case 'quota': {
      const whose = refusal.guest ? "a guest's quota (link an identity provider, POST /account/link/idp1, for a player's)" : 'its quota';
      return new ApiException(
        HttpStatus.CONFLICT,
        ErrorCode.QUOTA_EXCEEDED,
        `the storage of ${refusal.ownerUid} would pass ${whose}: ${refusal.left.objects} objects and ${refusal.left.bytes} bytes ` +
          'of values are left; nothing was written',
        { left: refusal.left },
      );
    }
  }
}
