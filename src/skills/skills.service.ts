import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest, notFound } from '../common/errors.js';
import type { ListQuery } from '../common/list-query.js';
import { RecordService } from '../database/record.service.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { PersonasService } from '../personas/personas.service.js';
import { PROGRESS_LIMIT, PROGRESS_SUM_OUT_OF_RANGE } from './progress-value.js';
import type { ProgressValue, SkillProgress } from './skill-progress.entity.js';
import { type SkillKey, SkillsRepository } from './skills.repository.js';

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
  constructor(
    private readonly skills: SkillsRepository,
    private readonly personas: PersonasService,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    super(skills);
  }

  /** The progress of a persona (in one archetype, when given), with the list rules. */
  async listAt(path: SkillPath, list: ListQuery): Promise<SkillProgress[]> {
    await this.personas.requireExists(path.personaUid);
    return this.findAll(withinPath(list, path), undefined);
  }

  async countAt(path: SkillPath, list: ListQuery): Promise<number> {
    await this.personas.requireExists(path.personaUid);
    return this.count(withinPath(list, path), undefined);
  }

  async findSkill(key: SkillKey): Promise<SkillProgress> {
    const progress = await this.skills.findByKey(key);
    if (!progress) throw notFound('skill progress', `${key.personaUid}/${key.archetypeUid}/${key.skillUid}`);
    return progress;
  }

  /**
   * A number adds to a numeric progress (a new record starts from 0); any other value replaces it. A
   * sum beyond the largest finite number would be read back as null: it is the client's bad input.
   */
  async addProgress(key: SkillKey, value: ProgressValue, caller: Caller | undefined): Promise<void> {
    await this.personas.requireMayActFor(key.personaUid, caller, this.config.anonymousWrites);
    if (!(await this.skills.addProgress(key, value, PROGRESS_LIMIT))) {
      throw badRequest(`value ${PROGRESS_SUM_OUT_OF_RANGE}`, [{ field: 'value', message: PROGRESS_SUM_OUT_OF_RANGE }]);
    }
  }

  /** Resets the persona's progress in every skill of the archetype. */
  async resetArchetype(personaUid: string, archetypeUid: string, caller: Caller): Promise<void> {
    await this.personas.requireMayActFor(personaUid, caller);
    await this.skills.deleteProgress({ personaUid, archetypeUid });
  }

  async remove(key: SkillKey, caller: Caller): Promise<void> {
    await this.personas.requireMayActFor(key.personaUid, caller);
    if ((await this.skills.deleteProgress(key)) === 0) {
      throw notFound('skill progress', `${key.personaUid}/${key.archetypeUid}/${key.skillUid}`);
    }
  }
}

/** The path's persona and archetype, as equality filters next to the client's own. */
function withinPath(list: ListQuery, path: SkillPath): ListQuery {
  const filters = [...list.filters, { field: 'personaUid', operator: 'eq' as const, values: [path.personaUid] }];
  if (path.archetypeUid !== undefined) filters.push({ field: 'archetypeUid', operator: 'eq', values: [path.archetypeUid] });
  return { ...list, filters };
}
