import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, type Repository, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { notFound } from '../common/errors.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { column, RecordService } from '../common/record.service.js';
import { AchievementUnlock } from './achievement-unlock.entity.js';

export const UNLOCK_FIELDS = {
  ...COMMON_FIELDS,
  achievementUid: 'uuid',
  userUid: 'uuid',
} as const satisfies QueryableFields;

/** Unlocks of achievements: each user's own, recorded once per user and achievement. */
@Injectable()
export class AchievementUnlocksService extends RecordService<AchievementUnlock> {
  protected readonly recordName = 'achievement unlock';

  constructor(@InjectRepository(AchievementUnlock) repository: Repository<AchievementUnlock>) {
    super(repository);
  }

  /** A caller sees their own unlocks only, admins included: the list answers "what have I unlocked". */
  protected override scope(query: SelectQueryBuilder<AchievementUnlock>, caller: Caller | undefined): void {
    query.andWhere(`${column('userUid')} = :callerUid`, { callerUid: caller?.uid ?? null });
  }

  /**
   * Records that the caller unlocked the achievement, once. The unique key (achievementUid, userUid)
   * decides between concurrent unlocks: ON CONFLICT DO NOTHING waits for the other insert, and the
   * SELECT that follows (a new snapshot) finds its row. Every caller gets the one record.
   */
  async unlock(achievementUid: string, caller: Caller): Promise<AchievementUnlock> {
    let inserted: AchievementUnlock[];
    try {
      inserted = (await this.repository.query(
        `INSERT INTO "achievement_unlocks" ("achievementUid", "userUid")
         SELECT "uid", $2 FROM "achievements" WHERE "uid" = $1
         ON CONFLICT ("achievementUid", "userUid") DO NOTHING
         RETURNING *`,
        [achievementUid, caller.uid],
      )) as AchievementUnlock[];
    } catch (error) {
      // The achievement was deleted between the SELECT and the foreign key check.
      if (error instanceof QueryFailedError && (error.driverError as { constraint?: string }).constraint === 'achievement_unlocks_achievementUid_fkey') {
        throw notFound('achievement', achievementUid);
      }
      throw error;
    }
    const record = inserted[0] ?? (await this.repository.findOneBy({ achievementUid, userUid: caller.uid }));
    if (!record) throw notFound('achievement', achievementUid);
    return this.repository.create(record);
  }
}
