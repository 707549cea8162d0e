import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { column, RecordService } from '../common/record.service.js';
import { forbidden, notFound, unauthorized } from '../common/errors.js';
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

  /** The owners of the given personas, by persona uid; unknown personas are absent. */
  async owners(personaUids: string[], manager: EntityManager = this.repository.manager): Promise<Map<string, string>> {
    const rows = await manager
      .createQueryBuilder(Persona, 'persona')
      .select(['persona.uid', 'persona.userUid'])
      .where('persona.uid IN (:...personaUids)', { personaUids })
      .getMany();
    return new Map(rows.map((persona) => [persona.uid, persona.userUid]));
  }

  /**
   * The caller may act for the persona: its owner or an admin. An unknown persona is 404; another
   * player's is 403 (acting for a persona names it on purpose, unlike browsing).
   */
  async assertCanActFor(personaUid: string, caller: Caller | undefined, anonymousAllowed = false): Promise<void> {
    if (caller === undefined && !anonymousAllowed) {
      throw unauthorized('this needs a token: send "Authorization: jwt <token>"');
    }
    const owner = (await this.owners([personaUid])).get(personaUid);
    if (owner === undefined) throw notFound('persona', personaUid);
    if (caller === undefined || caller.isAdmin || caller.uid === owner) return;
    throw forbidden(`only the owner of persona ${personaUid} or an admin may do this`);
  }

  /** The persona every user gets at the first sign-in, created in the sign-in's transaction. */
  createDefault(manager: EntityManager, userUid: string, name: string): Promise<Persona> {
    return manager.save(manager.create(Persona, { userUid, name: name.slice(0, 100), version: 0 }));
  }
}
