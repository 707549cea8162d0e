/**
 * The rules of cloud save as pure functions: what a name, a value and a version may be, and how a batch
 * of writes or deletes is decided against the objects it touches and the owners' usage. The service
 * runs them on rows it has locked (StorageRepository), so that what they decide still holds when the
 * batch is written.
 */
import { isJsonObject, storableJsonProblem } from '../common/json-values.js';

/** A collection or key: 1 to 128 of A-Z a-z 0-9 _ . - */
export const STORAGE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
export const STORAGE_NAME_RULE = '1 to 128 of A-Z a-z 0-9 _ . -';
/**
 * Names no write gives a collection: POST /storage/read holds the path where GET /storage/{collection}
 * would list one so named. (Objects written under it before it was reserved are still read and deleted
 * by the batch routes and GET /storage/read/{key}.) The document says so with `not: { enum }` rather
 * than a lookahead in the pattern, which most JSON Schema tools do not read.
 */
export const RESERVED_COLLECTIONS: readonly string[] = ['read'];
export const STORAGE_COLLECTION_RULE = `${STORAGE_NAME_RULE}, and not ${RESERVED_COLLECTIONS.map((name) => `"${name}"`).join(' or ')}`;

/** A version: the first 128 bits of the SHA-256 of the stored value (jsonb's text), in hex. */
export const STORAGE_VERSION = /^[0-9a-f]{32}$/;
/** The version a write states to create an object only if it does not exist yet. */
export const ONLY_IF_ABSENT = '*';
export const WRITE_VERSION_PATTERN = '^(\\*|[0-9a-f]{32})$';

export const READ_PERMISSIONS = ['NONE', 'OWNER', 'PUBLIC'] as const;
export const WRITE_PERMISSIONS = ['NONE', 'OWNER'] as const;
export type ReadPermission = (typeof READ_PERMISSIONS)[number];
export type WritePermission = (typeof WRITE_PERMISSIONS)[number];

/** An object's place: whose, which collection, which key. */
export interface StorageRef {
  ownerUid: string;
  collection: string;
  key: string;
}

export const refKey = ({ ownerUid, collection, key }: StorageRef) => `${ownerUid}/${collection}/${key}`;

/**
 * Why `value` cannot be stored, or undefined when it can: a JSON object (not an array, not null) that
 * jsonb and JSON can hold as sent (storableJsonProblem). Its size is checked apart, against the setting
 * (valueBytes).
 */
export function storageValueProblem(value: unknown): string | undefined {
  return isJsonObject(value) ? storableJsonProblem(value) : 'must be a JSON object';
}

/** Whether a write or delete that states `expected` may go ahead on an object whose version is `current` (undefined: none). */
export function versionHolds(expected: string | undefined, current: string | undefined): boolean {
  if (expected === undefined) return true;
  if (expected === ONLY_IF_ABSENT) return current === undefined;
  return expected === current;
}

/** An object as stored, as far as the rules need it. */
export interface StoredState {
  version: string;
  size: number;
  permissionRead: ReadPermission;
  permissionWrite: WritePermission;
}

/** One owner's usage: objects, and bytes of values. */
export interface Usage {
  objects: number;
  bytes: number;
}

/** What an owner may hold at most: none for an admin's batch (admins write past the quotas). */
export interface Quota {
  objects: number;
  bytes: number;
  /** The smaller quota of a guest (an account that has linked no identity provider yet). */
  guest?: boolean;
}

export interface StorageWrite extends StorageRef {
  /** The value's compact JSON, and its size in bytes. */
  json: string;
  size: number;
  version?: string;
  permissionRead?: ReadPermission;
  permissionWrite?: WritePermission;
}

export interface StorageDelete extends StorageRef {
  version?: string;
}

/** Why a batch is refused, in the order the service answers them: a protected object (403), a version (409), a quota (409). */
export type BatchRefusal =
  | { kind: 'protected'; index: number; ref: StorageRef }
  | { kind: 'conflict'; conflicts: Array<{ index: number; ref: StorageRef; currentVersion: string | null }> }
  | { kind: 'quota'; ownerUid: string; left: Usage; guest: boolean };

/** A write as it will be stored: permissions resolved (what it states, else what the object has, else OWNER). */
export type PlannedWrite = StorageWrite & { permissionRead: ReadPermission; permissionWrite: WritePermission };

export interface WritePlan {
  writes: PlannedWrite[];
  /** How each owner's usage changes. */
  usage: Map<string, Usage>;
}

export interface DeletePlan {
  /** The objects that exist, to be deleted (a delete of one that does not exist, without a version, is a no-op). */
  deletes: StorageRef[];
  usage: Map<string, Usage>;
}

/**
 * Decides a batch of writes against the objects it touches (`current`, by refKey) and the owners'
 * usage: all of it, or a refusal. A player may not change an object whose permissionWrite is NONE
 * (`byAdmin` may); every stated version must hold; and, unless `quotaOf` is undefined, no owner may end
 * past their quota. A player's write that shrinks usage is never refused for a quota that an admin's
 * writes had already passed (or that shrank when the account became a guest again).
 */
export function planWrites(
  writes: readonly StorageWrite[],
  current: ReadonlyMap<string, StoredState>,
  usage: ReadonlyMap<string, Usage>,
  byAdmin: boolean,
  quotaOf: ((ownerUid: string) => Quota) | undefined,
): WritePlan | BatchRefusal {
  const locked = firstProtected(writes, current, byAdmin);
  if (locked) return locked;
  const conflicts = writes.flatMap((write, index) => {
    const stored = current.get(refKey(write));
    return versionHolds(write.version, stored?.version) ? [] : [{ index, ref: refOf(write), currentVersion: stored?.version ?? null }];
  });
  if (conflicts.length > 0) return { kind: 'conflict', conflicts };

  const deltas = new Map<string, Usage>();
  const planned = writes.map((write): PlannedWrite => {
    const stored = current.get(refKey(write));
    const delta = deltas.get(write.ownerUid) ?? { objects: 0, bytes: 0 };
    delta.objects += stored ? 0 : 1;
    delta.bytes += write.size - (stored?.size ?? 0);
    deltas.set(write.ownerUid, delta);
    return {
      ...write,
      permissionRead: write.permissionRead ?? stored?.permissionRead ?? 'OWNER',
      permissionWrite: write.permissionWrite ?? stored?.permissionWrite ?? 'OWNER',
    };
  });
  if (quotaOf) {
    for (const [ownerUid, delta] of deltas) {
      const quota = quotaOf(ownerUid);
      const before = usage.get(ownerUid) ?? { objects: 0, bytes: 0 };
      const growsPast = (field: keyof Usage) => delta[field] > 0 && before[field] + delta[field] > quota[field];
      if (growsPast('objects') || growsPast('bytes')) {
        return {
          kind: 'quota',
          ownerUid,
          left: { objects: Math.max(0, quota.objects - before.objects), bytes: Math.max(0, quota.bytes - before.bytes) },
          guest: quota.guest === true,
        };
      }
    }
  }
  return { writes: planned, usage: deltas };
}

/** Decides a batch of deletes: protected objects (for a player) and stated versions as for writes. */
export function planDeletes(
  deletes: readonly StorageDelete[],
  current: ReadonlyMap<string, StoredState>,
  byAdmin: boolean,
): DeletePlan | BatchRefusal {
  const locked = firstProtected(deletes, current, byAdmin);
  if (locked) return locked;
  // A stated version says "this object, as I read it": an object gone since is a conflict too.
  const conflicts = deletes.flatMap((entry, index) => {
    const stored = current.get(refKey(entry));
    const holds = entry.version === undefined || stored?.version === entry.version;
    return holds ? [] : [{ index, ref: refOf(entry), currentVersion: stored?.version ?? null }];
  });
  if (conflicts.length > 0) return { kind: 'conflict', conflicts };
  const usage = new Map<string, Usage>();
  const existing = deletes.filter((entry) => current.has(refKey(entry)));
  for (const entry of existing) {
    const delta = usage.get(entry.ownerUid) ?? { objects: 0, bytes: 0 };
    delta.objects -= 1;
    delta.bytes -= current.get(refKey(entry))!.size;
    usage.set(entry.ownerUid, delta);
  }
  return { deletes: existing.map(refOf), usage };
}

/** For a player's batch, the first object it names whose permissionWrite is NONE. */
function firstProtected(
  refs: readonly StorageRef[],
  current: ReadonlyMap<string, StoredState>,
  byAdmin: boolean,
): BatchRefusal | undefined {
  if (byAdmin) return undefined;
  const index = refs.findIndex((ref) => current.get(refKey(ref))?.permissionWrite === 'NONE');
  return index < 0 ? undefined : { kind: 'protected', index, ref: refOf(refs[index]) };
}

/** Whether a plan function refused the batch. */
export function isRefusal<T extends object>(outcome: T | BatchRefusal): outcome is BatchRefusal {
  return 'kind' in outcome;
}

/** The first place a batch names twice (same owner, collection and key), if any. */
export function firstRepeat(refs: readonly StorageRef[]): number | undefined {
  const seen = new Set<string>();
  for (const [index, ref] of refs.entries()) {
    const key = refKey(ref);
    if (seen.has(key)) return index;
    seen.add(key);
  }
  return undefined;
}

const refOf = ({ ownerUid, collection, key }: StorageRef): StorageRef => ({ ownerUid, collection, key });
