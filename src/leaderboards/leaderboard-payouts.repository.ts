import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../database/record.repository.js';
import { runStatement, statement } from '../database/statement.js';
import type { ItemQuantityEntry } from '../economy/transaction.entity.js';

/** A prize to pay: what, to whom, for which period, and in whose name (the board's creator). */
export interface Payout {
  uid: string;
  periodUid: string;
  leaderboardUid: string;
  personaUid: string;
  rank: number;
  items: ItemQuantityEntry[];
  ownerUid: string;
  attempts: number;
}

/** Attempts at one prize before it is left FAILED for an admin to look at. */
export const PAYOUT_ATTEMPTS = 10;

const CLAIM = statement<{ limit: number; leaseSeconds: number }, Payout>(
  'leaderboard_payouts_claim',
  (p) => `UPDATE leaderboard_payouts payout SET "leasedUntil" = now() + make_interval(secs => ${p.leaseSeconds}), attempts = attempts + 1
          FROM leaderboards board
          WHERE board.uid = payout."leaderboardUid" AND payout.uid IN (
            SELECT uid FROM leaderboard_payouts WHERE status = 'PENDING' AND ("leasedUntil" IS NULL OR "leasedUntil" < now())
            ORDER BY "dateCreated", uid LIMIT ${p.limit} FOR UPDATE SKIP LOCKED)
          RETURNING payout.uid, payout."periodUid", payout."leaderboardUid", payout."personaUid", payout.rank, payout.items,
                    board."ownerUid", payout.attempts`,
);

const PAID = statement<{ uid: string; transaction: string }>(
  'leaderboard_payout_paid',
  (p) => `UPDATE leaderboard_payouts SET status = 'PAID', "transactionUid" = ${p.transaction}, "datePaid" = now(), "leasedUntil" = NULL
          WHERE uid = ${p.uid}`,
);

const FAILED = statement<{ uid: string; error: string; final: boolean }>(
  'leaderboard_payout_failed',
  (p) => `UPDATE leaderboard_payouts SET error = ${p.error}, "leasedUntil" = NULL,
            status = CASE WHEN ${p.final} THEN 'FAILED' ELSE status END
          WHERE uid = ${p.uid} AND status = 'PENDING'`,
);

const PENDING = statement<Record<string, never>, { pending: number }>(
  'leaderboard_payouts_pending',
  () => `SELECT count(*)::int AS pending FROM leaderboard_payouts WHERE status = 'PENDING'`,
);

/** A prize of a closed period as admins read it. */
export interface PaidPrize {
  uid: string;
  personaUid: string;
  personaName: string;
  rank: number;
  items: ItemQuantityEntry[];
  status: PayoutStatus;
  transactionUid: string | null;
  attempts: number;
  error: string | null;
  dateCreated: Date;
  datePaid: Date | null;
}

export const PAYOUT_STATUSES = ['PENDING', 'PAID', 'FAILED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

const OF_PERIOD = statement<{ period: string; skip: number; limit: number }, PaidPrize>(
  'leaderboard_payouts_of_period',
  (p) => `SELECT payout.uid, payout."personaUid", persona.name AS "personaName", payout.rank, payout.items, payout.status,
                 payout."transactionUid", payout.attempts, payout.error, payout."dateCreated", payout."datePaid"
          FROM leaderboard_payouts payout JOIN personas persona ON persona.uid = payout."personaUid"
          WHERE payout."periodUid" = ${p.period}
          ORDER BY payout.rank, payout."personaUid" OFFSET ${p.skip} LIMIT ${p.limit}`,
);

/**
 * The prizes of closed periods (the outbox the close writes). Any instance claims a batch for a
 * short lease; each prize is an AWARD whose Idempotency-Key is the prize's own, marked PAID in the
 * transaction of the award. A crash between the two leaves the prize PENDING and its award done: the
 * next claim, after the lease, asks the economy again with the same key and gets the same award back.
 */
@Injectable()
export class LeaderboardPayoutsRepository {
  constructor(private readonly dataSource: DataSource) {}

  claim(limit: number, leaseSeconds: number): Promise<Payout[]> {
    return runStatement(this.dataSource, CLAIM, { limit, leaseSeconds });
  }

  async markPaid(transaction: Transaction, uid: string, transactionUid: string): Promise<void> {
    await runStatement(transaction, PAID, { uid, transaction: transactionUid });
  }

  async markFailed(uid: string, error: string, final: boolean): Promise<void> {
    await runStatement(this.dataSource, FAILED, { uid, error: error.slice(0, 1000), final });
  }

  /** A period's prizes in rank order, a page at a time. */
  ofPeriod(period: string, skip: number, limit: number): Promise<PaidPrize[]> {
    return runStatement(this.dataSource, OF_PERIOD, { period, skip, limit });
  }

  async pending(): Promise<number> {
    return (await runStatement(this.dataSource, PENDING, {}))[0].pending;
  }
}
