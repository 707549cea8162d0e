import { Column, Entity } from 'typeorm';
import { RecordEntity } from '../common/record.entity.js';

/** One of a user's in-game characters; inventories, trades and skill progress belong to personas. */
@Entity('personas')
export class Persona extends RecordEntity {
  /** The user who owns the persona and may act for it. */
  @Column({ type: 'uuid' })
  userUid: string;

  /** The name shown to other players. */
  @Column({ type: 'text' })
  name: string;
}
