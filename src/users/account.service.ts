import { HttpStatus, Injectable } from '@nestjs/common';
import { AuditEvent, AuthAuditRepository } from '../auth/auth-audit.repository.js';
import { DeviceIds } from '../auth/users/device-ids.js';
import { IdentitiesRepository, type IdentityRow } from '../auth/users/identities.repository.js';
import type { IdentityProvider, VerifiedIdentity } from '../auth/users/identity.js';
import type { ClientInfo } from '../auth/sign-in-sessions/sign-in-sessions.repository.js';
import { SignInSessionsRepository } from '../auth/sign-in-sessions/sign-in-sessions.repository.js';
import { RevocationList } from '../auth/sign-in-sessions/revocation-list.js';
import { UsersRepository } from '../auth/users/users.repository.js';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, badRequest, conflict, ErrorCode, notFound } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
import type { AccountDto, IdentityDto } from './dto/account.dto.js';
import { linkVerdict, unlinkPlan } from './identity.rules.js';

/** What an unlink names: a provider, and for a device which one (an admin may leave it out: every device). */
export interface UnlinkTarget {
  provider: IdentityProvider;
  deviceId?: string;
}

/**
 * An account's identities: a guest's device, and the identity providers linked to it so that the
 * player keeps the account on a new device. Link and unlink take turns per user (a lock on the user),
 * so the rules of identity.rules.ts hold however requests race; each is audited, and an unlink ends
 * the player sessions the identity opened, on every instance within a second.
 */
@Injectable()
export class AccountService {
  constructor(
    private readonly identities: IdentitiesRepository,
    private readonly users: UsersRepository,
    private readonly sessions: SignInSessionsRepository,
    private readonly audit: AuthAuditRepository,
    private readonly revocations: RevocationList,
    private readonly deviceIds: DeviceIds,
  ) {}

  async account(userUid: string): Promise<AccountDto> {
    const [user, identities] = await Promise.all([this.users.findOne(userUid, undefined), this.identities.identitiesOf([userUid])]);
    return { uid: user.uid, name: user.name, dateCreated: user.dateCreated, identities: identities.map(identityView) };
  }

  /** The device identity of an id, to link (403 where device ids are turned off). */
  device(deviceId: string): VerifiedIdentity {
    return this.deviceIds.identityOf(deviceId);
  }

  /**
   * Adds a verified identity to the caller's account. Another user's identity is 409 IDENTITY_IN_USE,
   * and that user is not named: the answer must not tell a stranger whose a device id or an idp1
   * account is. Linking an identity the account has already changes nothing.
   */
  async link(caller: Caller, identity: VerifiedIdentity, client: ClientInfo): Promise<AccountDto> {
    await this.identities.transaction(async (transaction) => {
      const held = await this.identities.lockIdentities(transaction, caller.uid);
      if (!held) throw notFound('user', caller.uid);
      const owner = await this.identities.ownerOf(identity, transaction);
      if (owner !== undefined && owner !== caller.uid) throw identityInUse(identity.provider);
      switch (linkVerdict(held, identity, LIMITS.devicesPerUser)) {
        case 'already-linked':
          return;
        case 'provider-taken':
          throw conflict(ErrorCode.CONFLICT, `your account has another ${identity.provider} identity: unlink it first`);
        case 'too-many-devices':
          throw conflict(ErrorCode.CONFLICT, `your account has ${LIMITS.devicesPerUser} devices, the most it may: unlink one first`);
      }
      // Taken meanwhile by a sign-in or a link of someone else: the unique key decided, nothing was written.
      if (!(await this.identities.link(transaction, caller.uid, identity))) throw identityInUse(identity.provider);
      await this.audit.record(
        {
          userUid: caller.uid,
          event: AuditEvent.IDENTITY_LINKED,
          outcome: 'success',
          sessionUid: caller.sessionUid,
          ...client,
          detail: describe(identity),
        },
        transaction,
      );
    });
    return this.account(caller.uid);
  }

  /**
   * Removes identities from a user's account and ends the sessions they opened. 404 when the account
   * has no such identity; 409 LAST_IDENTITY when it would leave no way to sign in. The caller is the
   * player, or an admin on another's account (a support case: a device left out means all of them).
   */
  async unlink(caller: Caller, userUid: string, target: UnlinkTarget, client: ClientInfo): Promise<AccountDto> {
    const by = caller.uid === userUid ? undefined : caller;
    if (target.provider !== 'device' && target.deviceId !== undefined) {
      throw badRequest(`deviceId names a device: ${target.provider} has none`, [
        { field: 'deviceId', message: `is only for unlinking a device` },
      ]);
    }
    if (target.provider === 'device' && target.deviceId === undefined && !by) {
      throw badRequest('say which device to unlink: send its deviceId', [{ field: 'deviceId', message: 'is required to unlink a device' }]);
    }
    const subject = target.deviceId === undefined ? undefined : this.deviceIds.subjectOf(target.deviceId);
    await this.revocations.transaction(async (transaction) => {
      const held = await this.identities.lockIdentities(transaction, userUid);
      if (!held) throw notFound('user', userUid);
      const plan = unlinkPlan(held, target.provider, subject);
      if (plan === 'none') throw notFound(`${target.provider} identity of user`, userUid);
      if (plan === 'last') {
        throw new ApiException(
          HttpStatus.CONFLICT,
          ErrorCode.LAST_IDENTITY,
          'this would leave the account without a way to sign in: link another identity first',
        );
      }
      const identityUids = plan.remove.map(({ uid }) => uid);
      // Revoked first: the sessions name their identity until it is gone.
      const sessionUids = await this.sessions.revokeOpenedBy(transaction, identityUids, 'identity-unlinked');
      await this.identities.unlink(transaction, userUid, identityUids);
      await this.audit.record(
        {
          userUid,
          event: AuditEvent.IDENTITY_UNLINKED,
          outcome: 'success',
          sessionUid: by ? null : caller.sessionUid,
          ...client,
          detail: {
            ...describe({ provider: target.provider, subject: plan.remove[0].subject }),
            ...(plan.remove.length > 1 ? { identities: plan.remove.length } : {}),
            sessions: sessionUids.length,
            ...(by ? { by: by.uid } : {}),
          },
        },
        transaction,
      );
      return { revocation: sessionUids.length > 0 ? { userUid, sessionUids, reason: 'identity-unlinked' as const } : undefined };
    });
    return this.account(userUid);
  }

  /** The identities of these users, each user's oldest first, as clients see them. */
  async identitiesOf(userUids: string[]): Promise<Map<string, IdentityDto[]>> {
    const byUser = new Map<string, IdentityDto[]>();
    for (const row of await this.identities.identitiesOf(userUids))
      byUser.set(row.userUid, [...(byUser.get(row.userUid) ?? []), identityView(row)]);
    return byUser;
  }
}

/** A device's subject is the hash of a secret: never shown. */
function identityView(row: IdentityRow): IdentityDto {
  return { provider: row.provider, subject: row.provider === 'device' ? null : row.subject, dateCreated: row.dateCreated };
}

/** The audit's detail of an identity: the provider, and the subject unless it is a device's hash. */
function describe(identity: { provider: string; subject: string }): Record<string, string> {
  return identity.provider === 'device' ? { provider: identity.provider } : { provider: identity.provider, subject: identity.subject };
}

const identityInUse = (provider: string) =>
  new ApiException(
    HttpStatus.CONFLICT,
    ErrorCode.IDENTITY_IN_USE,
    provider === 'device'
      ? 'this device is linked to another account: sign in with it, or unlink it there first'
      : `this ${provider} identity belongs to another account: sign in with it, or unlink it there first`,
  );
