import { Body, Controller, Get, HttpCode, Param, type PipeTransform } from '@nestjs/common';
import { Delete, Post } from '../audit/audited-routes.js';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller, OptionalAuth } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import type { ListQuery } from '../common/list-query.js';
import { CountDto } from '../common/record.dto.js';
import { ApiErrors, BodyNodes, ListQueryParam, NEXT_SKIP_HEADER, RecordResponse, UidParam } from '../common/route.decorators.js';
import { AddProgressDto } from './dto/add-progress.dto.js';
import { SkillProgress } from './skill-progress.entity.js';
import { SkillsService } from './skills.service.js';

const SKILL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Ids a skill may not have: GET /personas/{personaUid}/archetypes/{archetypeUid}/skills/count holds the path of one so named. */
const RESERVED = { archetypeUid: [], skillUid: ['count'] } as const satisfies Record<string, readonly string[]>;

/** Archetype and skill ids are the game's own opaque strings: 1..128 of A-Za-z0-9_.:- (a skill's not `count`). */
class SkillIdPipe implements PipeTransform<string, string> {
  constructor(private readonly name: keyof typeof RESERVED) {}
  transform(value: string): string {
    const reserved: readonly string[] = RESERVED[this.name];
    if (!SKILL_ID.test(value) || reserved.includes(value)) {
      const not = reserved.map((id) => `, and not "${id}"`).join('');
      throw badRequest(`${this.name} must be 1 to 128 of A-Z a-z 0-9 _ . : -${not}`, [{ field: this.name, message: 'malformed' }]);
    }
    return value;
  }
}

const ArchetypeParam = () => Param('archetypeUid', new SkillIdPipe('archetypeUid'));
const SkillParam = () => Param('skillUid', new SkillIdPipe('skillUid'));
const ApiPath =
  (...names: Array<'archetypeUid' | 'skillUid'>) =>
  (target: object, key: string | symbol, descriptor: PropertyDescriptor) => {
    ApiParam({ name: 'personaUid', format: 'uuid', type: 'string', description: "The persona's uid." })(target, key, descriptor);
    for (const name of names) {
      const reserved: readonly string[] = RESERVED[name];
      ApiParam({
        name,
        schema: { type: 'string', pattern: SKILL_ID.source, ...(reserved.length > 0 && { not: { enum: [...reserved] } }) },
        description: `The game's ${name.replace('Uid', '')} id.`,
      })(target, key, descriptor);
    }
  };

/**
 * Skill progress, under /personas/{personaUid}/... Reads are public (optional auth), like a player's
 * profile; writes are the persona owner's or an admin's.
 */
@ApiTags('skills')
@ApiSecurity('jwt')
@Controller('personas/:personaUid')
export class SkillsController {
  constructor(private readonly skills: SkillsService) {}

  @ApiOperation({ summary: "List a persona's progress in an archetype's skills" })
  @ApiPath('archetypeUid')
  @ApiOkResponse({ type: [SkillProgress], headers: NEXT_SKIP_HEADER })
  @ApiErrors(400, 401, 404)
  @OptionalAuth()
  @Get('archetypes/:archetypeUid/skills')
  findAllByArchetype(
    @UidParam('personaUid') personaUid: string,
    @ArchetypeParam() archetypeUid: string,
    @ListQueryParam(SkillProgress) list: ListQuery,
  ): Promise<SkillProgress[]> {
    return this.skills.listAt({ personaUid, archetypeUid }, list);
  }

  @ApiOperation({ summary: "Reset a persona's progress in an archetype (owner or admin)" })
  @ApiPath('archetypeUid')
  @ApiOkResponse({ description: 'Reset; no body.' })
  @ApiErrors(400, 401, 403, 404)
  @HttpCode(200)
  @Delete('archetypes/:archetypeUid/skills')
  async truncateByArchetype(
    @UidParam('personaUid') personaUid: string,
    @ArchetypeParam() archetypeUid: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await this.skills.resetArchetype(personaUid, archetypeUid, caller);
  }

  @ApiOperation({ summary: "Count a persona's skills in an archetype" })
  @ApiPath('archetypeUid')
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400, 401, 404)
  @OptionalAuth()
  @Get('archetypes/:archetypeUid/skills/count')
  async countByArchetype(
    @UidParam('personaUid') personaUid: string,
    @ArchetypeParam() archetypeUid: string,
    @ListQueryParam(SkillProgress) list: ListQuery,
  ): Promise<CountDto> {
    return { count: await this.skills.countAt({ personaUid, archetypeUid }, list) };
  }

  /** 404 for a skill the persona never started. (`count` is not a usable skill id: it names the route above.) */
  @ApiOperation({ summary: "A persona's progress in one skill" })
  @ApiPath('archetypeUid', 'skillUid')
  @RecordResponse(SkillProgress)
  @ApiErrors(400, 401, 404)
  @OptionalAuth()
  @Get('archetypes/:archetypeUid/skills/:skillUid')
  findById(
    @UidParam('personaUid') personaUid: string,
    @ArchetypeParam() archetypeUid: string,
    @SkillParam() skillUid: string,
  ): Promise<SkillProgress> {
    return this.skills.findSkill({ personaUid, archetypeUid, skillUid });
  }

  @ApiOperation({ summary: "Delete a persona's progress in one skill (owner or admin)" })
  @ApiPath('archetypeUid', 'skillUid')
  @ApiOkResponse({ description: 'Deleted; no body.' })
  @ApiErrors(400, 401, 403, 404)
  @HttpCode(200)
  @Delete('archetypes/:archetypeUid/skills/:skillUid')
  async remove(
    @UidParam('personaUid') personaUid: string,
    @ArchetypeParam() archetypeUid: string,
    @SkillParam() skillUid: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await this.skills.remove({ personaUid, archetypeUid, skillUid }, caller);
  }

  /**
   * Adds progress: a number adds to a numeric progress (starting from 0), any other value replaces
   * it; the record is created on first progress. Owner or admin; anonymous only with ANONYMOUS_WRITES.
   */
  @ApiOperation({ summary: 'Add progress to a skill' })
  @ApiPath('archetypeUid', 'skillUid')
  @ApiNoContentResponse({ description: 'Progress recorded.' })
  @ApiErrors(400, [401, 'UNAUTHORIZED: anonymous (unless ANONYMOUS_WRITES=true) or a bad token.'], 403, 404)
  @OptionalAuth()
  @HttpCode(204)
  @BodyNodes('large')
  @Post('archetypes/:archetypeUid/skills/:skillUid/progress')
  async addProgress(
    @UidParam('personaUid') personaUid: string,
    @ArchetypeParam() archetypeUid: string,
    @SkillParam() skillUid: string,
    @Body() body: AddProgressDto,
    @CurrentCaller() caller: Caller | undefined,
  ): Promise<void> {
    await this.skills.addProgress({ personaUid, archetypeUid, skillUid }, body.value, caller);
  }

  @ApiOperation({ summary: "List a persona's progress in every skill" })
  @ApiPath()
  @ApiOkResponse({ type: [SkillProgress], headers: NEXT_SKIP_HEADER })
  @ApiErrors(400, 401, 404)
  @OptionalAuth()
  @Get('skills')
  findAll(@UidParam('personaUid') personaUid: string, @ListQueryParam(SkillProgress) list: ListQuery): Promise<SkillProgress[]> {
    return this.skills.listAt({ personaUid }, list);
  }

  @ApiOperation({ summary: "Count a persona's skills" })
  @ApiPath()
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400, 401, 404)
  @OptionalAuth()
  @Get('skills/count')
  async count(@UidParam('personaUid') personaUid: string, @ListQueryParam(SkillProgress) list: ListQuery): Promise<CountDto> {
    return { count: await this.skills.countAt({ personaUid }, list) };
  }
}
