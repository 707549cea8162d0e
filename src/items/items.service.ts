import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import { RecordService } from '../database/record.service.js';
import type { CreateItemDto } from './dto/create-item.dto.js';
import type { UpdateItemDto } from './dto/update-item.dto.js';
import type { Item } from './item.entity.js';
import { ItemsRepository } from './items.repository.js';

/** The item catalog: readable by every signed-in user, written by admins (the controller checks). */
@Injectable()
export class ItemsService extends RecordService<Item> {
  constructor(private readonly items: ItemsRepository) {
    super(items);
  }

  async create(body: CreateItemDto, caller: Caller): Promise<Item> {
    const fields = writableFields(body);
    if (fields.parentUID && !(await this.items.exists(fields.parentUID))) throw unknownParent(fields.parentUID);
    return this.items.insert({ ...fields, ownerUid: caller.uid });
  }

  /** A new parent must exist and may not be the item or one of its descendants. */
  update(uid: string, fields: WritableFields<UpdateItemDto>, expectedVersion: number | undefined): Promise<Item> {
    return this.items.transaction(async (transaction) => {
      const { parentUID } = fields;
      if (parentUID) {
        await this.items.lockTree(transaction);
        if (!(await this.items.exists(parentUID, transaction))) throw unknownParent(parentUID);
        if (await this.items.isAncestorOrSelf(transaction, uid, parentUID)) {
          throw badRequest(`item ${parentUID} cannot be the parent of ${uid}: that would make a loop`, [
            { field: 'parentUID', message: 'would make a cycle' },
          ]);
        }
      }
      return this.items.updateVersioned(uid, fields, expectedVersion, transaction);
    });
  }

  remove(uid: string): Promise<void> {
    return this.items.deleteOne(uid);
  }
}

const unknownParent = (parentUID: string) =>
  badRequest(`parentUID ${parentUID} does not name an existing item`, [{ field: 'parentUID', message: 'no such item' }]);
