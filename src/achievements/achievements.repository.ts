import { Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository } from '../common/record.repository.js';
import { AchievementUnlock } from './achievement-unlock.entity.js';
import { AchievementDefinition } from './achievement.entity.js';

@Injectable()
export class AchievementsRepository extends RecordRepository<AchievementDefinition> {
  constructor(dataSource: DataSource) {
    super(dataSource, AchievementDefinition, 'achievement');
  }
}

@Injectable()
export class AchievementUnlocksRepository extends RecordRepository<AchievementUnlock> {
  constructor(dataSource: DataSource) {
    super(dataSource, AchievementUnlock, 'achievement unlock');
  }

  /** A caller sees their own unlocks only, admins included: the list answers "what have I unlocked". */
  protected override scope(query: SelectQueryBuilder<AchievementUnlock>, caller: Caller | undefined): void {
    query.andWhere(`${column('userUid')} = :callerUid`, { callerUid: caller?.uid ?? null });
  }

  /**
   * Records the unlock once and answers it; undefined when the achievement does not exist. The unique
   * key (achievementUid, userUid) decides between concurrent unlocks: ON CONFLICT DO NOTHING waits for
   * the other insert, and the SELECT that follows (a new snapshot) finds its row.
   */
  async unlockOnce(achievementUid: string, userUid: string): Promise<AchievementUnlock | undefined> {
    let inserted: AchievementUnlock[];
    try {
      inserted = await this.dataSource.query<AchievementUnlock[]>(
        `INSERT INTO "achievement_unlocks" ("achievementUid", "userUid")
         SELECT "uid", $2 FROM "achievements" WHERE "uid" = $1
         ON CONFLICT ("achievementUid", "userUid") DO NOTHING
         RETURNING *`,
        [achievementUid, userUid],
      );
    } catch (error) {
      // The achievement was deleted between the SELECT and the foreign key check.
      const constraint = error instanceof QueryFailedError ? (error.driverError as { constraint?: string }).constraint : undefined;
      if (constraint === 'achievement_unlocks_achievementUid_fkey') return undefined;
      throw error;
    }
    const record = inserted[0] ?? (await this.dataSource.manager.findOneBy(AchievementUnlock, { achievementUid, userUid }));
    return record ? this.dataSource.manager.create(AchievementUnlock, record) : undefined;
  }
}
