import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/admin.guard.js';
import { type Caller, CurrentCaller, OptionalAuth } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { CountDto } from '../common/record.dto.js';
import { ApiErrors, ApiListQuery, ApiUidParam, IfMatch, ListQueryParam, UidParam } from '../common/route.decorators.js';
import { expectedVersion } from '../common/versions.js';
import { AchievementUnlock } from './achievement-unlock.entity.js';
import { AchievementDefinition } from './achievement.entity.js';
import { AchievementUnlocksService, UNLOCK_FIELDS } from './achievement-unlocks.service.js';
import { ACHIEVEMENT_FIELDS, AchievementsService } from './achievements.service.js';
import { CreateAchievementDto } from './dto/create-achievement.dto.js';
import { UpdateAchievementDto } from './dto/update-achievement.dto.js';

@ApiTags('achievements')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('achievements')
export class AchievementsController {
  constructor(
    private readonly achievements: AchievementsService,
    private readonly unlocks: AchievementUnlocksService,
  ) {}

  @ApiOperation({ summary: 'List achievement definitions' })
  @ApiListQuery(ACHIEVEMENT_FIELDS)
  @ApiOkResponse({ type: [AchievementDefinition] })
  @ApiErrors(400)
  @Get()
  findAll(@ListQueryParam(ACHIEVEMENT_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<AchievementDefinition[]> {
    return this.achievements.findAll(list, caller);
  }

  @ApiOperation({
    summary: 'Create an achievement definition (admins; optional auth)',
    description:
      'Optional auth: without a token the answer is 401 unless the service runs with ANONYMOUS_WRITES=true, ' +
      'which lets anonymous callers create. A signed-in caller must be an admin.',
  })
  @ApiCreatedResponse({ type: AchievementDefinition })
  @ApiErrors(400, [401, 'UNAUTHORIZED: no token (and ANONYMOUS_WRITES is off), or an invalid one.'], 403)
  @OptionalAuth()
  @Post()
  create(@Body() body: CreateAchievementDto, @CurrentCaller() caller: Caller | undefined): Promise<AchievementDefinition> {
    return this.achievements.create(body, caller);
  }

  @ApiOperation({ summary: 'Delete every achievement definition and every unlock (admins)' })
  @ApiOkResponse({ description: 'Deleted; no body.' })
  @ApiErrors(403)
  @AdminOnly()
  @HttpCode(200)
  @Delete()
  async truncate(): Promise<void> {
    await this.achievements.truncate();
  }

  @ApiOperation({
    summary: 'Count achievement definitions (optional auth)',
    description: 'Works without a token. The list parameters are an addition to the interface document.',
  })
  @ApiListQuery(ACHIEVEMENT_FIELDS)
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400)
  @OptionalAuth()
  @Get('count')
  async count(@ListQueryParam(ACHIEVEMENT_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller | undefined): Promise<CountDto> {
    return { count: await this.achievements.count(list, caller) };
  }

  /** An addition to the interface document: what the caller has unlocked, with the list rules. */
  @ApiOperation({ summary: "List the caller's unlocked achievements" })
  @ApiListQuery(UNLOCK_FIELDS)
  @ApiOkResponse({ type: [AchievementUnlock] })
  @ApiErrors(400)
  @Get('unlocked')
  findUnlocked(@ListQueryParam(UNLOCK_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<AchievementUnlock[]> {
    return this.unlocks.findAll(list, caller);
  }

  @ApiOperation({ summary: 'Find an achievement definition by id' })
  @ApiUidParam('id', 'achievement')
  @ApiOkResponse({ type: AchievementDefinition, description: 'The definition, with `ETag: "<version>"`.' })
  @ApiErrors(400, 404)
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<AchievementDefinition> {
    return this.achievements.findOne(id, caller);
  }

  /** Merges the given fields. State the version you read (body or If-Match) to be safe. */
  @ApiOperation({ summary: 'Update an achievement definition (admins)' })
  @ApiUidParam('id', 'achievement')
  @ApiOkResponse({ type: AchievementDefinition })
  @ApiErrors(400, 403, 404, 409)
  @AdminOnly()
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateAchievementDto, @IfMatch() ifMatch?: string): Promise<AchievementDefinition> {
    return this.achievements.update(id, body, expectedVersion(body.version, ifMatch));
  }

  @ApiOperation({ summary: 'Delete an achievement definition and its unlocks (admins)' })
  @ApiUidParam('id', 'achievement')
  @ApiOkResponse({ description: 'Deleted; no body.' })
  @ApiErrors(400, 403, 404)
  @AdminOnly()
  @HttpCode(200)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.achievements.remove(id);
  }

  @ApiOperation({
    summary: 'Unlock an achievement for the caller',
    description:
      'Records { achievementUid, userUid } once per user: a repeated or concurrent unlock answers the same ' +
      'record (200), never a duplicate.',
  })
  @ApiUidParam('id', 'achievement')
  @ApiOkResponse({ type: AchievementUnlock })
  @ApiErrors(400, 404)
  @Get(':id/unlock')
  unlock(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<AchievementUnlock> {
    return this.unlocks.unlock(id, caller);
  }
}
