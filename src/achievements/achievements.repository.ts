import type { ListQuery } from '../common/list-query.js';
import { Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository, type Transaction } from '../database/record.repository.js';
import { EventOutbox } from '../realtime/event-outbox.js';
import { AchievementUnlock } from './achievement-unlock.entity.js';
import { AchievementDefinition } from './achievement.entity.js';
import { Replicas } from '../database/replicas.js';
import { type Statement, statement } from '../database/statement.js';

@Injectable()
export class AchievementsRepository extends RecordRepository<AchievementDefinition> {
  constructor(dataSource: DataSource, replicas: Replicas) {
    super(dataSource, AchievementDefinition, 'achievement', replicas);
  }
}

@Injectable()
export class AchievementUnlocksRepository extends RecordRepository<AchievementUnlock> {
  /** The unlock, unless it exists, of an achievement that exists. */
  private readonly insertingUnlock: Statement<{ achievementUid: string; userUid: string }>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: EventOutbox,
  ) {
    super(dataSource, AchievementUnlock, 'achievement unlock');
    this.insertingUnlock = statement(
      'insert_unlock',
      (p) => `INSERT INTO "achievement_unlocks" ("achievementUid", "userUid")
         SELECT "uid", ${p.userUid} FROM "achievements" WHERE "uid" = ${p.achievementUid}
         ON CONFLICT ("achievementUid", "userUid") DO NOTHING
         RETURNING ${this.returning}`,
    );
  }

  /** A user's unlocks, through the same scope as their own list. */
  findAllOf(userUid: string, list: ListQuery): Promise<AchievementUnlock[]> {
    // The scope reads only the caller's uid: the user's own view, for an admin who looks at it.
    return this.findAll(list, { uid: userUid } as Caller);
  }

  /** A caller sees their own unlocks only, admins included: the list answers "what have I unlocked". */
  protected override scope(query: SelectQueryBuilder<AchievementUnlock>, caller: Caller | undefined): void {
    query.andWhere(`${column('userUid')} = :callerUid`, { callerUid: caller?.uid ?? null });
  }

  /**
   * Records the unlock once and answers it; undefined when the achievement does not exist. The unique
   * key (achievementUid, userUid) decides between concurrent unlocks: ON CONFLICT DO NOTHING waits for
   * the other insert, and the SELECT that follows (a new snapshot) finds its row. The first unlock is
   * pushed to the user (`achievement.unlocked`), in its transaction.
   */
  async unlockOnce(achievementUid: string, userUid: string): Promise<AchievementUnlock | undefined> {
    const created = await this.transaction(async (transaction) => {
      const row = await this.insertUnlock(transaction, achievementUid, userUid);
      const unlock = row;
      if (unlock) await this.outbox.record(transaction, 'achievement.unlocked', unlock, { users: [userUid] });
      return unlock;
    });
    if (created) return created;
    const found = await this.dataSource.manager.findOneBy(AchievementUnlock, { achievementUid, userUid });
    return found ?? undefined;
  }

  /** The new unlock's row; undefined when it existed already, or the achievement does not. */
  private async insertUnlock(transaction: Transaction, achievementUid: string, userUid: string): Promise<AchievementUnlock | undefined> {
    try {
      const [row] = this.recordsOf(await this.run(transaction, this.insertingUnlock, { achievementUid, userUid }));
      return row;
    } catch (error) {
      // The achievement was deleted between the SELECT and the foreign key check.
      const constraint = error instanceof QueryFailedError ? (error.driverError as { constraint?: string }).constraint : undefined;
      if (constraint === 'achievement_unlocks_achievementUid_fkey') return undefined;
      throw error;
    }
  }
}
