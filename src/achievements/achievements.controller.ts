import { Body, Controller, Get, HttpCode } from '@nestjs/common';
import { Delete, Post, Put, Writes } from '../audit/audited-routes.js';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller, OptionalAuth } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { AdminOnly } from '../common/policy.js';
import type { CountDto } from '../common/record.dto.js';
import { CatalogDeleteDocs, CatalogUpdateDocs, CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { ApiErrors, ApiUidParam, IfMatch, ListQueryParam, NEXT_SKIP_HEADER, RecordResponse, UidParam } from '../common/route.decorators.js';
import { recordUpdate } from '../common/versions.js';
import { AchievementUnlock } from './achievement-unlock.entity.js';
import { AchievementDefinition } from './achievement.entity.js';
import { AchievementsService, AchievementUnlocksService } from './achievements.service.js';
import { CreateAchievementDto } from './dto/create-achievement.dto.js';
import { UpdateAchievementDto } from './dto/update-achievement.dto.js';

@ApiTags('achievements')
@ApiSecurity('jwt')
@ApiErrors(401)
@AuditedRecord(AchievementsService)
@Controller('achievements')
export class AchievementsController {
  constructor(
    private readonly achievements: AchievementsService,
    private readonly unlocks: AchievementUnlocksService,
  ) {}

  @ListDocs(AchievementDefinition, 'List achievement definitions')
  @Get()
  findAll(@ListQueryParam(AchievementDefinition) list: ListQuery, @CurrentCaller() caller: Caller): Promise<AchievementDefinition[]> {
    return this.achievements.findAll(list, caller);
  }

  @FindDocs(AchievementDefinition, 'achievement definition')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<AchievementDefinition> {
    return this.achievements.findOne(id, caller);
  }

  @CountDocs(
    'Count achievement definitions (optional auth)',
    'Works without a token. The list parameters are an addition to the interface document.',
  )
  @OptionalAuth()
  @Get('count')
  async count(@ListQueryParam(AchievementDefinition) list: ListQuery, @CurrentCaller() caller: Caller | undefined): Promise<CountDto> {
    return { count: await this.achievements.count(list, caller) };
  }

  @CatalogUpdateDocs(AchievementDefinition, 'achievement definition')
  @AdminOnly()
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateAchievementDto, @IfMatch() ifMatch?: string): Promise<AchievementDefinition> {
    const { fields, expectedVersion } = recordUpdate(id, body, ifMatch);
    return this.achievements.update(id, fields, expectedVersion);
  }

  @CatalogDeleteDocs('achievement definition', 200, { summary: 'Delete an achievement definition and its unlocks (admins)' })
  @AdminOnly()
  @HttpCode(200)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.achievements.remove(id);
  }

  @ApiOperation({
    summary: 'Create an achievement definition (admins; optional auth)',
    description:
      'Optional auth: without a token the answer is 401 unless the service runs with ANONYMOUS_WRITES=true, ' +
      'which lets anonymous callers create. A signed-in caller must be an admin.',
  })
  @RecordResponse(AchievementDefinition, { status: 201 })
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

  /** An addition to the interface document: what the caller has unlocked, with the list rules. */
  @ApiOperation({ summary: "List the caller's unlocked achievements" })
  @ApiOkResponse({ type: [AchievementUnlock], headers: NEXT_SKIP_HEADER })
  @ApiErrors(400)
  @Get('unlocked')
  findUnlocked(@ListQueryParam(AchievementUnlock) list: ListQuery, @CurrentCaller() caller: Caller): Promise<AchievementUnlock[]> {
    return this.unlocks.findAll(list, caller);
  }

  @ApiOperation({
    summary: 'Unlock an achievement for the caller',
    description:
      'Records { achievementUid, userUid } once per user: a repeated or concurrent unlock answers the same ' +
      'record (200), never a duplicate.',
  })
  @ApiUidParam('id', 'achievement')
  @RecordResponse(AchievementUnlock)
  @ApiErrors(400, 404)
  @Writes()
  @Get(':id/unlock')
  unlock(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<AchievementUnlock> {
    return this.unlocks.unlock(id, caller);
  }
}
