import type { Caller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import type { RecordEntity } from '../common/record.entity.js';
import type { RecordRepository } from './record.repository.js';

/**
 * The reads every resource serves alike, answered by its repository (which restricts them to what the
 * caller may see). A resource's service extends it with its own rules: create, update, join, unlock.
 */
export abstract class RecordService<T extends RecordEntity> {
  protected constructor(protected readonly records: RecordRepository<T>) {}

  findAll(list: ListQuery, caller: Caller | undefined): Promise<T[]> {
    return this.records.findAll(list, caller);
  }

  count(list: ListQuery, caller: Caller | undefined): Promise<number> {
    return this.records.count(list, caller);
  }

  findOne(uid: string, caller: Caller | undefined): Promise<T> {
    return this.records.findOne(uid, caller);
  }

  /** Removes every record (admins; the controller checks). */
  truncate(): Promise<void> {
    return this.records.deleteAll();
  }
}
