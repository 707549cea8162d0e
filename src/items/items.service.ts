import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, type EntityManager, QueryFailedError, type Repository } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest, conflict, ErrorCode } from '../common/errors.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { writableFields } from '../common/record.dto.js';
import { RecordService } from '../common/record.service.js';
import type { CreateItemDto } from './dto/create-item.dto.js';
import type { UpdateItemDto } from './dto/update-item.dto.js';
import { Item } from './item.entity.js';

export const ITEM_FIELDS = {
  ...COMMON_FIELDS,
  name: 'string',
  description: 'string',
  cost: 'number',
  assetId: 'string',
  iconAssetId: 'uuid',
  parentUID: 'uuid',
} as const satisfies QueryableFields;

// Serialises changes of parent links, so that two concurrent updates (A under B, B under A) cannot each
// pass the cycle check and together make a loop. Item creation needs no lock: a new item has no children.
const ITEM_TREE_LOCK = 0x17e45;

/** The item catalog: readable by every signed-in user, written by admins (the controller checks). */
@Injectable()
export class ItemsService extends RecordService<Item> {
  protected readonly recordName = 'item';

  constructor(
    @InjectRepository(Item) repository: Repository<Item>,
    private readonly dataSource: DataSource,
  ) {
    super(repository);
  }

  async create(body: CreateItemDto, caller: Caller): Promise<Item> {
    const fields = writableFields(body);
    if (fields.parentUID) await this.assertParentExists(this.repository.manager, fields.parentUID);
    const [row] = (
      await this.repository
        .createQueryBuilder()
        .insert()
        .values({ ...fields, ownerUid: caller.uid })
        .returning('*')
        .execute()
    ).raw as Item[];
    return this.repository.create(row);
  }

  async update(uid: string, body: UpdateItemDto, expectedVersion: number | undefined): Promise<Item> {
    if (body.uid !== undefined && body.uid !== uid) {
      throw badRequest(`uid ${body.uid} in the body does not match the path`, [{ field: 'uid', message: 'does not match the path' }]);
    }
    const patch = writableFields(body);
    return this.dataSource.transaction(async (manager) => {
      if (patch.parentUID) {
        await manager.query('SELECT pg_advisory_xact_lock($1)', [ITEM_TREE_LOCK]);
        await this.assertParentExists(manager, patch.parentUID);
        await this.assertNoCycle(manager, uid, patch.parentUID);
      }
      return this.updateVersioned(uid, patch, expectedVersion, manager);
    });
  }

  async remove(uid: string): Promise<void> {
    try {
      await this.deleteOne(uid);
    } catch (error) {
      // 23001: ON DELETE RESTRICT of a child's parentUID; 23503: any other reference (inventories).
      const sqlState = error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
      if (sqlState === '23001' || sqlState === '23503') {
        throw conflict(ErrorCode.CONFLICT, `item ${uid} is still in use (the parent of other items, or held by players)`);
      }
      throw error;
    }
  }

  private async assertParentExists(manager: EntityManager, parentUID: string): Promise<void> {
    if (!(await manager.existsBy(Item, { uid: parentUID }))) {
      throw badRequest(`parentUID ${parentUID} does not name an existing item`, [{ field: 'parentUID', message: 'no such item' }]);
    }
  }

  /** Refuses a parent that is the item itself or one of its descendants. */
  private async assertNoCycle(manager: EntityManager, uid: string, parentUID: string): Promise<void> {
    const [loop] = (await manager.query(
      `WITH RECURSIVE ancestors(uid, "parentUID") AS (
         SELECT uid, "parentUID" FROM items WHERE uid = $1
         UNION
         SELECT item.uid, item."parentUID" FROM items item JOIN ancestors ON item.uid = ancestors."parentUID"
       )
       SELECT 1 FROM ancestors WHERE uid = $2 LIMIT 1`,
      [parentUID, uid],
    )) as unknown[];
    if (loop) {
      throw badRequest(`item ${parentUID} cannot be the parent of ${uid}: that would make a loop`, [
        { field: 'parentUID', message: 'would make a cycle' },
      ]);
    }
  }
}
