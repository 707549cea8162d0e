import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { column, RecordRepository, type Transaction } from '../database/record.repository.js';
import { statement } from '../database/statement.js';
import { Persona } from './persona.entity.js';

// NO KEY UPDATE: two creations for one user take turns; sign-ins (FOR SHARE) wait the few ms one takes,
// and foreign key checks (FOR KEY SHARE) not at all.
const LOCK_USER = statement<{ user: string }>('personas_lock_user', (p) => `SELECT 1 FROM users WHERE uid = ${p.user} FOR NO KEY UPDATE`);

const COUNT_OF_USER = statement<{ user: string }, { count: number }>(
  'personas_count_of_user',
  (p) => `SELECT count(*)::int AS count FROM personas WHERE "userUid" = ${p.user}`,
);

@Injectable()
export class PersonasRepository extends RecordRepository<Persona> {
  constructor(dataSource: DataSource) {
    super(dataSource, Persona, 'persona');
  }

  /** A persona is its owner's (and the admins'): everyone else is told it does not exist. */
  protected override scope(query: SelectQueryBuilder<Persona>, caller: Caller | undefined): void {
    if (!caller?.isAdmin) query.andWhere(`${column('userUid')} = :callerUid`, { callerUid: caller?.uid ?? null });
  }

  /**
   * Locks the user's row until the transaction ends, then counts their personas: of two creations for
   * one user, the second waits for the first and counts its persona. The count is a statement of its
   * own because a statement's snapshot predates the lock waits it makes.
   */
  async lockUserAndCount(transaction: Transaction, user: string): Promise<number> {
    await this.run(transaction, LOCK_USER, { user });
    return (await this.run(transaction, COUNT_OF_USER, { user }))[0].count;
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
