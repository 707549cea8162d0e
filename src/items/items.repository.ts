import { Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import { conflict, ErrorCode } from '../common/errors.js';
import { RecordRepository, type Transaction } from '../database/record.repository.js';
import { Item } from './item.entity.js';
import { Replicas } from '../database/replicas.js';
import { runStatement, statement } from '../database/statement.js';

// Serialises changes of parent links, so that two concurrent updates (A under B, B under A) cannot each
// pass the cycle check and together make a loop. Item creation needs no lock: a new item has no children.
const ITEM_TREE_LOCK = 0x17e45;

const LOCK_TREE = statement<{ lock: number }>('lock_item_tree', (p) => `SELECT pg_advisory_xact_lock(${p.lock})`);

const ANCESTOR_OR_SELF = statement<{ parent: string; uid: string }>(
  'item_ancestor_or_self',
  (p) => `WITH RECURSIVE ancestors(uid, "parentUID") AS (
         SELECT uid, "parentUID" FROM items WHERE uid = ${p.parent}
         UNION
         SELECT item.uid, item."parentUID" FROM items item JOIN ancestors ON item.uid = ancestors."parentUID"
       )
       SELECT 1 FROM ancestors WHERE uid = ${p.uid} LIMIT 1`,
);

@Injectable()
export class ItemsRepository extends RecordRepository<Item> {
  constructor(dataSource: DataSource, replicas: Replicas) {
    super(dataSource, Item, 'item', replicas);
  }

  /** Holds the item tree still for the rest of the transaction (parent links change one at a time). */
  async lockTree(transaction: Transaction): Promise<void> {
    await runStatement(transaction, LOCK_TREE, { lock: ITEM_TREE_LOCK });
  }

  async exists(uid: string, transaction: Transaction = this.dataSource.manager): Promise<boolean> {
    return transaction.existsBy(Item, { uid });
  }

  /** The uids among `uids` that name no item. */
  async missing(uids: string[]): Promise<string[]> {
    const found = await this.dataSource
      .createQueryBuilder(Item, 'item')
      .select('item.uid', 'uid')
      .where('item.uid IN (:...uids)', { uids })
      .getRawMany<{ uid: string }>();
    return uids.filter((uid) => !found.some((row) => row.uid === uid));
  }

  /** Whether `uid` is `parentUID` itself or one of its ancestors: making it the parent would loop. */
  async isAncestorOrSelf(transaction: Transaction, uid: string, parentUID: string): Promise<boolean> {
    const [loop] = await runStatement(transaction, ANCESTOR_OR_SELF, { parent: parentUID, uid });
    return loop !== undefined;
  }

  /** Deletes the item; one still referred to (a parent of others, or held by players) is a 409. */
  override async deleteOne(uid: string): Promise<void> {
    try {
      await super.deleteOne(uid);
    } catch (error) {
      // 23001: ON DELETE RESTRICT of a child's parentUID; 23503: any other reference (inventories).
      const sqlState = error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
      if (sqlState === '23001' || sqlState === '23503') {
        throw conflict(ErrorCode.CONFLICT, `item ${uid} is still in use (the parent of other items, or held by players)`);
      }
      throw error;
    }
  }
}
