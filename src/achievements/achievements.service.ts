import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { appConfig } from '../config/configuration.js';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest, forbidden, unauthorized } from '../common/errors.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { writableFields } from '../common/record.dto.js';
import { RecordService } from '../common/record.service.js';
import { AchievementDefinition } from './achievement.entity.js';
import type { CreateAchievementDto } from './dto/create-achievement.dto.js';
import type { UpdateAchievementDto } from './dto/update-achievement.dto.js';

export const ACHIEVEMENT_FIELDS = {
  ...COMMON_FIELDS,
  name: 'string',
  description: 'string',
  badge: 'string',
} as const satisfies QueryableFields;

/** Achievement definitions: catalog data, readable by every signed-in user (counted by anyone), written by admins. */
@Injectable()
export class AchievementsService extends RecordService<AchievementDefinition> {
  protected readonly recordName = 'achievement';

  constructor(
    @InjectRepository(AchievementDefinition) repository: Repository<AchievementDefinition>,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {
    super(repository);
  }

  /**
   * Create is an optional-auth route (interface document): an anonymous caller may create only when
   * ANONYMOUS_WRITES=true (a trusted set-up such as a game server's own network); a signed-in caller
   * must be an admin, as for every catalog write.
   */
  async create(body: CreateAchievementDto, caller: Caller | undefined): Promise<AchievementDefinition> {
    if (!caller && !this.app.anonymousWrites) {
      throw unauthorized('creating an achievement needs a token: send "Authorization: jwt <token>"');
    }
    if (caller && !caller.isAdmin) throw forbidden('only admins may do this');
    const [row] = (
      await this.repository
        .createQueryBuilder()
        .insert()
        .values({ ...writableFields(body), ownerUid: caller?.uid ?? null })
        .returning('*')
        .execute()
    ).raw as AchievementDefinition[];
    return this.repository.create(row);
  }

  update(uid: string, body: UpdateAchievementDto, expectedVersion: number | undefined): Promise<AchievementDefinition> {
    if (body.uid !== undefined && body.uid !== uid) {
      throw badRequest(`uid ${body.uid} in the body does not match the path`, [{ field: 'uid', message: 'does not match the path' }]);
    }
    return this.updateVersioned(uid, writableFields(body), expectedVersion);
  }

  /** Deletes the definition; its unlocks go with it (ON DELETE CASCADE). */
  remove(uid: string): Promise<void> {
    return this.deleteOne(uid);
  }
}
