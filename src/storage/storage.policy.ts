import type { Caller } from '../common/auth.decorators.js';
import { forbidden } from '../common/errors.js';
import type { ReadPermission, WritePermission } from './storage-rules.js';

/** A player writes and deletes their own storage; admins (a game server) anyone's. */
export function requireMayChangeStorageOf(caller: Caller, ownerUid: string, field: string): void {
  if (!caller.isAdmin && ownerUid !== caller.uid) throw forbidden(`${field}: only admins change another player's storage`);
}

/**
 * NONE is the protected class, what only admins and the game's server read or write: a player who could
 * create an object so could forge what the server would find there.
 */
export function requireMaySetPermissions(
  caller: Caller,
  permissions: { permissionRead?: ReadPermission; permissionWrite?: WritePermission },
  field: string,
): void {
  if (caller.isAdmin) return;
  if (permissions.permissionRead === 'NONE') throw forbidden(`${field}.permissionRead: only admins set NONE`);
  if (permissions.permissionWrite === 'NONE') throw forbidden(`${field}.permissionWrite: only admins set NONE`);
}
