import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository, type Transaction } from '../common/record.repository.js';
import { Persona } from './persona.entity.js';

@Injectable()
export class PersonasRepository extends RecordRepository<Persona> {
  constructor(dataSource: DataSource) {
    super(dataSource, Persona, 'persona');
  }

  /** A persona is its owner's (and the admins'): everyone else is told it does not exist. */
  protected override scope(query: SelectQueryBuilder<Persona>, caller: Caller | undefined): void {
    if (!caller?.isAdmin) query.andWhere(`${column('userUid')} = :callerUid`, { callerUid: caller?.uid ?? null });
  }

  /** The owners of the given personas, by persona uid; unknown personas are absent. */
  async owners(personaUids: string[], transaction: Transaction = this.dataSource.manager): Promise<Map<string, string>> {
    const rows = await transaction
      .createQueryBuilder(Persona, 'persona')
      .select(['persona.uid', 'persona.userUid'])
      .where('persona.uid IN (:...personaUids)', { personaUids })
      .getMany();
    return new Map(rows.map((persona) => [persona.uid, persona.userUid]));
  }

  /** The user's first persona (the one made at their first sign-in): who acts when a request names none. */
  async firstOf(userUid: string): Promise<string | undefined> {
    const persona = await this.dataSource
      .createQueryBuilder(Persona, 'persona')
      .select(['persona.uid'])
      .where('persona.userUid = :userUid', { userUid })
      .orderBy('persona.dateCreated', 'ASC')
      .addOrderBy('persona.uid', 'ASC')
      .limit(1)
      .getOne();
    return persona?.uid;
  }

  /** The owner of one persona; undefined when there is no such persona. */
  async ownerOf(personaUid: string): Promise<string | undefined> {
    return (await this.owners([personaUid])).get(personaUid);
  }
}
