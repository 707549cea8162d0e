import { ApiProperty } from '@nestjs/swagger';
import { Column, Entity, ForeignKey, Index, Unique } from 'typeorm';
import { Filterable } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';
import { Persona } from '../personas/persona.entity.js';

export type ProgressValue = number | string | boolean | Record<string, unknown>;

/** A persona's progress in one skill of one archetype (class, role, hero: the game decides). */
@Entity('skill_progress')
@Unique('skill_progress_skill_key', ['personaUid', 'archetypeUid', 'skillUid'])
@Index('skill_progress_persona_idx', ['personaUid', 'dateCreated', 'uid'])
export class SkillProgress extends RecordEntity {
  @ApiProperty({ format: 'uuid' })
  @Column({ type: 'uuid' })
  @ForeignKey(() => Persona, { name: 'skill_progress_personaUid_fkey', onDelete: 'CASCADE' })
  personaUid: string;

  @ApiProperty({ example: 'warrior' })
  @Column({ type: 'text' })
  @Filterable()
  archetypeUid: string;

  @ApiProperty({ example: 'swordplay' })
  @Column({ type: 'text' })
  @Filterable()
  skillUid: string;

  /** A number (AddProgress adds to it), or a string, boolean or object (AddProgress replaces it). */
  @ApiProperty({ oneOf: [{ type: 'number' }, { type: 'string' }, { type: 'boolean' }, { type: 'object' }], example: 42 })
  @Column({ type: 'jsonb' })
  progress: ProgressValue;

  @ApiProperty({ example: true })
  @Column({ type: 'boolean', default: true })
  @Filterable()
  enabled: boolean;
}
