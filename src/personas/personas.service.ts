import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { column, RecordService } from '../common/record.service.js';
import { Persona } from './persona.entity.js';

export const PERSONA_FIELDS = { ...COMMON_FIELDS, userUid: 'uuid', name: 'string' } as const satisfies QueryableFields;

@Injectable()
export class PersonasService extends RecordService<Persona> {
  protected readonly recordName = 'persona';

  constructor(@InjectRepository(Persona) repository: Repository<Persona>) {
    super(repository);
  }

  /** A persona is its owner's (and the admins'): everyone else is told it does not exist. */
  protected override scope(query: SelectQueryBuilder<Persona>, caller: Caller | undefined): void {
    if (!caller?.isAdmin) query.andWhere(`${column('userUid')} = :callerUid`, { callerUid: caller?.uid ?? null });
  }

  create(name: string, caller: Caller): Promise<Persona> {
    return this.repository.save(this.repository.create({ name, userUid: caller.uid, version: 0 }));
  }

  /** The persona every user gets at the first sign-in, created in the sign-in's transaction. */
  createDefault(manager: EntityManager, userUid: string, name: string): Promise<Persona> {
    return manager.save(manager.create(Persona, { userUid, name: name.slice(0, 100), version: 0 }));
  }
}
