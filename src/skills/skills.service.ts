import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { notFound } from '../common/errors.js';
import { COMMON_FIELDS, type ListQuery, type QueryableFields } from '../common/list-query.js';
import { RecordService } from '../common/record.service.js';
import { appConfig } from '../config/configuration.js';
import { PersonasService } from '../personas/personas.service.js';
import { type ProgressValue, SkillProgress } from './skill-progress.entity.js';

export const SKILL_FIELDS = {
  ...COMMON_FIELDS,
  archetypeUid: 'string',
  skillUid: 'string',
  enabled: 'boolean',
} as const satisfies QueryableFields;

export interface SkillPath {
  personaUid: string;
  archetypeUid?: string;
}

/**
 * Skill progress per persona and archetype. Reads are public, like a player profile; writes are the
 * persona owner's or an admin's (anonymous ones only with ANONYMOUS_WRITES=true).
 */
@Injectable()
export class SkillsService extends RecordService<SkillProgress> {
  protected readonly recordName = 'skill progress';

  constructor(
    @InjectRepository(SkillProgress) repository: Repository<SkillProgress>,
    private readonly personas: PersonasService,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {
    super(repository);
  }

  /** The progress of a persona (in one archetype, when given), with the list rules. */
  async listAt(path: SkillPath, list: ListQuery): Promise<SkillProgress[]> {
    await this.assertPersonaExists(path.personaUid);
    return this.findAll(withinPath(list, path), undefined);
  }

  async countAt(path: SkillPath, list: ListQuery): Promise<number> {
    await this.assertPersonaExists(path.personaUid);
    return this.count(withinPath(list, path), undefined);
  }

  async findSkill(personaUid: string, archetypeUid: string, skillUid: string): Promise<SkillProgress> {
    const progress = await this.repository.findOneBy({ personaUid, archetypeUid, skillUid });
    if (!progress) throw notFound('skill progress', `${personaUid}/${archetypeUid}/${skillUid}`);
    return progress;
  }

  /**
   * One statement, so that concurrent calls never lose an increment: a number adds to a numeric
   * progress (a new record starts from 0), any other value replaces it.
   */
  async addProgress(personaUid: string, archetypeUid: string, skillUid: string, value: ProgressValue, caller: Caller | undefined): Promise<void> {
    await this.personas.assertCanActFor(personaUid, caller, this.app.anonymousWrites);
    await this.repository.query(
      `INSERT INTO skill_progress ("personaUid", "archetypeUid", "skillUid", progress) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT ("personaUid", "archetypeUid", "skillUid") DO UPDATE SET
         progress = CASE
           WHEN jsonb_typeof(skill_progress.progress) = 'number' AND jsonb_typeof(EXCLUDED.progress) = 'number'
             THEN to_jsonb(skill_progress.progress::numeric + EXCLUDED.progress::numeric)
           ELSE EXCLUDED.progress
         END,
         version = skill_progress.version + 1,
         "dateModified" = now()`,
      [personaUid, archetypeUid, skillUid, JSON.stringify(value)],
    );
  }

  /** Resets the persona's progress in every skill of the archetype. */
  async resetArchetype(personaUid: string, archetypeUid: string, caller: Caller): Promise<void> {
    await this.personas.assertCanActFor(personaUid, caller);
    await this.repository.delete({ personaUid, archetypeUid });
  }

  async remove(personaUid: string, archetypeUid: string, skillUid: string, caller: Caller): Promise<void> {
    await this.personas.assertCanActFor(personaUid, caller);
    const result = await this.repository.delete({ personaUid, archetypeUid, skillUid });
    if (!result.affected) throw notFound('skill progress', `${personaUid}/${archetypeUid}/${skillUid}`);
  }

  private async assertPersonaExists(personaUid: string): Promise<void> {
    if ((await this.personas.owners([personaUid])).size === 0) throw notFound('persona', personaUid);
  }
}

/** The path's persona and archetype, as equality filters next to the client's own. */
function withinPath(list: ListQuery, path: SkillPath): ListQuery {
  const filters = [...list.filters, { field: 'personaUid', operator: 'eq' as const, values: [path.personaUid] }];
  if (path.archetypeUid !== undefined) filters.push({ field: 'archetypeUid', operator: 'eq', values: [path.archetypeUid] });
  return { ...list, filters };
}
