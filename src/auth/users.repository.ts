import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordRepository, type Transaction } from '../common/record.repository.js';
import type { ProviderIdentity } from './identity.js';
import { User } from './user.entity.js';

@Injectable()
export class UsersRepository extends RecordRepository<User> {
  constructor(dataSource: DataSource) {
    super(dataSource, User, 'user');
  }

  /** The user of a (provider, subject), inserted unless it exists: `created` says which. */
  async insertOrFind(transaction: Transaction, identity: ProviderIdentity): Promise<{ user: User; created: boolean }> {
    const { provider, subject } = identity;
    const inserted = await this.insertUnlessConflict({ provider, subject, name: identity.name, email: identity.email }, transaction);
    if (inserted) return { user: inserted, created: true };
    return { user: await transaction.findOneByOrFail(User, { provider, subject }), created: false };
  }
}
