import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { User } from './user.entity.js';

/**
 * One way into an account: a device (its id's keyed hash), or a subject at idp1 or idp2. An identity
 * belongs to one user; a user has any number of devices and at most one identity of each provider.
 */
@Entity('user_identities')
@Unique('user_identities_provider_subject_key', ['provider', 'subject'])
@Index('user_identities_userUid_idx', ['userUid'])
@Index('user_identities_user_provider_key', ['userUid', 'provider'], { unique: true, where: `"provider" <> 'device'` })
@Check('user_identities_provider_check', `"provider" IN ('device', 'idp1', 'idp2')`)
export class UserIdentity {
  @PrimaryGeneratedColumn('uuid')
  uid: string;

  @Column({ type: 'uuid' })
  @ForeignKey(() => User, { name: 'user_identities_userUid_fkey', onDelete: 'CASCADE' })
  userUid: string;

  @Column({ type: 'text' })
  provider: string;

  /** The provider's subject; for a device, the keyed hash of its id (never the id itself). */
  @Column({ type: 'text' })
  subject: string;

  /** When it was linked (or created the account). */
  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  dateCreated: Date;
}
