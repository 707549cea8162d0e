import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ALIAS, column, RecordRepository } from '../database/record.repository.js';
import { type ProgressValue, SkillProgress } from './skill-progress.entity.js';
import { Replicas } from '../database/replicas.js';
import { statement } from '../database/statement.js';

/** One skill of one archetype of one persona: the natural key of a progress record. */
export interface SkillKey {
  personaUid: string;
  archetypeUid: string;
  skillUid: string;
}

const ADD_PROGRESS = statement<SkillKey & { value: string; limit: string }>(
  'add_skill_progress',
  (
    p,
  ) => `INSERT INTO skill_progress ("personaUid", "archetypeUid", "skillUid", progress) VALUES (${p.personaUid}, ${p.archetypeUid}, ${p.skillUid}, ${p.value}::jsonb)
       ON CONFLICT ("personaUid", "archetypeUid", "skillUid") DO UPDATE SET
         progress = CASE
           WHEN jsonb_typeof(skill_progress.progress) = 'number' AND jsonb_typeof(EXCLUDED.progress) = 'number'
             THEN to_jsonb(skill_progress.progress::numeric + EXCLUDED.progress::numeric)
           ELSE EXCLUDED.progress
         END,
         version = skill_progress.version + 1,
         "dateModified" = now()
       WHERE jsonb_typeof(skill_progress.progress) <> 'number' OR jsonb_typeof(EXCLUDED.progress) <> 'number'
         OR abs(skill_progress.progress::numeric + EXCLUDED.progress::numeric) <= ${p.limit}::numeric
       RETURNING 1`,
);

@Injectable()
export class SkillsRepository extends RecordRepository<SkillProgress> {
  constructor(dataSource: DataSource, replicas: Replicas) {
    super(dataSource, SkillProgress, 'skill progress', replicas);
  }

  async findByKey({ personaUid, archetypeUid, skillUid }: SkillKey): Promise<SkillProgress | null> {
    const query = this.dataSource
      .createQueryBuilder(SkillProgress, ALIAS)
      .where(`${column('personaUid')} = :personaUid AND ${column('archetypeUid')} = :archetypeUid AND ${column('skillUid')} = :skillUid`, {
        personaUid,
        archetypeUid,
        skillUid,
      });
    const [progress] = await this.readRecords(query);
    return progress ?? null;
  }

  /**
   * One statement, so that concurrent calls never lose an increment: a number adds to a numeric
   * progress (a new record starts from 0), any other value replaces it. The sum is exact (numeric), and
   * jsonb would store it however large; a sum beyond ±`limit` instead changes nothing, and the answer is
   * false. The upsert tests it on the row it has locked, so concurrent adds cannot pass it together.
   */
  async addProgress({ personaUid, archetypeUid, skillUid }: SkillKey, value: ProgressValue, limit: number): Promise<boolean> {
    const rows = await this.run(undefined, ADD_PROGRESS, {
      personaUid,
      archetypeUid,
      skillUid,
      value: JSON.stringify(value),
      limit: String(limit),
    });
    if (rows.length === 0) return false;
    this.changed();
    return true;
  }

  /** Deletes the progress of the persona in the archetype's skills (`skillUid`: in that one only); answers how many. */
  async deleteProgress(key: Omit<SkillKey, 'skillUid'> & { skillUid?: string }): Promise<number> {
    const query = this.dataSource
      .createQueryBuilder()
      .delete()
      .from(SkillProgress)
      .where('"personaUid" = :personaUid AND "archetypeUid" = :archetypeUid', key);
    if (key.skillUid !== undefined) query.andWhere('"skillUid" = :skillUid', { skillUid: key.skillUid });
    const deleted = (await query.execute()).affected ?? 0;
    this.changed();
    return deleted;
  }
}
