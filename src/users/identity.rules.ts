/**
 * What an account's identities may become: pure rules over the identities a user holds (read under a
 * lock on the user), unit-tested beside this file.
 */

export interface HeldIdentity {
  uid: string;
  provider: string;
  subject: string;
}

/**
 * Whether an identity (not another user's: that is IDENTITY_IN_USE, decided first) may join the
 * account: already there (nothing to do); the account holds another identity of that provider (one
 * idp1 and one idp2 per account); it holds `devicesPerUser` devices already; or it may.
 */
export type LinkVerdict = 'already-linked' | 'provider-taken' | 'too-many-devices' | 'link';

export function linkVerdict(held: HeldIdentity[], candidate: Omit<HeldIdentity, 'uid'>, devicesPerUser: number): LinkVerdict {
  const sameProvider = held.filter((identity) => identity.provider === candidate.provider);
  if (sameProvider.some((identity) => identity.subject === candidate.subject)) return 'already-linked';
  if (candidate.provider !== 'device') return sameProvider.length > 0 ? 'provider-taken' : 'link';
  return sameProvider.length >= devicesPerUser ? 'too-many-devices' : 'link';
}

/**
 * Which identities an unlink removes: one device (`subject` given), every device (`subject` left out:
 * an admin's support case), or the account's one identity of a provider. `none`: the account has no
 * such identity. `last`: removing them would leave no way to sign in.
 */
export type UnlinkPlan = { remove: HeldIdentity[] } | 'none' | 'last';

export function unlinkPlan(held: HeldIdentity[], provider: string, subject?: string): UnlinkPlan {
  const remove = held.filter((identity) => identity.provider === provider && (subject === undefined || identity.subject === subject));
  if (remove.length === 0) return 'none';
  if (remove.length === held.length) return 'last';
  return { remove };
}
