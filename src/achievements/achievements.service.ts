import type { ListQuery } from '../common/list-query.js';
import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { notFound } from '../common/errors.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import { RecordService } from '../database/record.service.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import type { AchievementUnlock } from './achievement-unlock.entity.js';
import type { AchievementDefinition } from './achievement.entity.js';
import { requireMayCreateAchievement } from './achievements.policy.js';
import { AchievementsRepository, AchievementUnlocksRepository } from './achievements.repository.js';
import type { CreateAchievementDto } from './dto/create-achievement.dto.js';
import type { UpdateAchievementDto } from './dto/update-achievement.dto.js';

/** Achievement definitions: catalog data, readable by every signed-in user (counted by anyone), written by admins. */
@Injectable()
export class AchievementsService extends RecordService<AchievementDefinition> {
  constructor(
    private readonly achievements: AchievementsRepository,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    super(achievements);
  }

  create(body: CreateAchievementDto, caller: Caller | undefined): Promise<AchievementDefinition> {
    requireMayCreateAchievement(caller, this.config.anonymousWrites);
    return this.achievements.insert({ ...writableFields(body), ownerUid: caller?.uid ?? null });
  }

  update(uid: string, fields: WritableFields<UpdateAchievementDto>, expectedVersion: number | undefined): Promise<AchievementDefinition> {
    return this.achievements.updateVersioned(uid, fields, expectedVersion);
  }

  /** Deletes the definition; its unlocks go with it (ON DELETE CASCADE). */
  remove(uid: string): Promise<void> {
    return this.achievements.deleteOne(uid);
  }
}

/** Unlocks of achievements: each user's own, recorded once per user and achievement. */
@Injectable()
export class AchievementUnlocksService extends RecordService<AchievementUnlock> {
  constructor(private readonly unlocks: AchievementUnlocksRepository) {
    super(unlocks);
  }

  /** Records that the caller unlocked the achievement, once: a repeat answers the same record. */
  async unlock(achievementUid: string, caller: Caller): Promise<AchievementUnlock> {
    const unlock = await this.unlocks.unlockOnce(achievementUid, caller.uid);
    if (!unlock) throw notFound('achievement', achievementUid);
    return unlock;
  }

  /** A user's unlocks, as they would list them themselves (an admin looking at a player). */
  findAllOf(userUid: string, list: ListQuery): Promise<AchievementUnlock[]> {
    return this.unlocks.findAllOf(userUid, list);
  }
}
