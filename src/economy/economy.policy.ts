import type { Caller } from '../common/auth.decorators.js';
import { forbidden } from '../common/errors.js';
import type { TransactionType } from './inventory-plan.js';

/** AWARD and REMOVAL create and destroy items: admins only. Players trade. */
export function requireMayMake(caller: Caller, type: TransactionType): void {
  if (type !== 'TRADE' && !caller.isAdmin) throw forbidden(`only admins may make an ${type}`);
}

/** A player's trade starts from one of their own personas (admins may act for anyone). */
export function requireMayOfferFrom(caller: Caller, personaOneOwner: string | undefined): void {
  if (!caller.isAdmin && personaOneOwner !== caller.uid) throw forbidden('a trade starts from one of your own personas (personaOneUid)');
}

/** A PENDING trade is accepted or declined by persona two's owner, canceled by persona one's (or an admin). */
export function requireMayAnswer(
  caller: Caller,
  personaUid: string,
  owner: string | undefined,
  action: 'accept' | 'decline' | 'cancel',
): void {
  if (!caller.isAdmin && owner !== caller.uid) throw forbidden(`only the owner of persona ${personaUid} may ${action} this trade`);
}

/** Processed at once: a gift (persona two gives nothing) and any admin's transaction. Other trades wait for persona two. */
export function isProcessedAtOnce(caller: Caller, type: TransactionType, personaTwoGives: number): boolean {
  return caller.isAdmin || type !== 'TRADE' || personaTwoGives === 0;
}
