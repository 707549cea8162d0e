import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/users/user.entity.js';
import { Filterable } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';

/** One of a user's in-game characters; inventories, trades and skill progress belong to personas. */
@Entity('personas')
@Index('personas_userUid_idx', ['userUid', 'dateCreated', 'uid'])
export class Persona extends RecordEntity {
  /** The user who owns the persona and may act for it. */
  @Column({ type: 'uuid' })
  @ForeignKey(() => User, { name: 'personas_userUid_fkey', onDelete: 'CASCADE' })
  @Filterable()
  userUid: string;

  /** The name shown to other players. */
  @Column({ type: 'text' })
  @Filterable()
  name: string;
}
