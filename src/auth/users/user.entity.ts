import { ApiHideProperty } from '@nestjs/swagger';
import { Column, Entity, Index } from 'typeorm';
import { Filterable } from '../../common/fields.js';
import { RecordEntity } from '../../common/record.entity.js';
import { IDENTITY_PROVIDERS } from './identity.js';

/**
 * A player's account, created at the first sign-in of an identity (a device, idp1, idp2); the
 * identities that sign in to it now are its UserIdentity rows.
 */
@Entity('users')
@Index('users_provider_subject_idx', ['provider', 'subject'])
export class User extends RecordEntity {
  /** The provider of the identity the account was created with (kept when that identity is unlinked). */
  @ApiHideProperty()
  @Column({ type: 'text' })
  @Filterable({ enum: IDENTITY_PROVIDERS })
  provider: string;

  /** That identity's subject at its provider (the `sub` claim); null for a device, whose id is a secret. */
  @ApiHideProperty()
  @Column({ type: 'text', nullable: true })
  @Filterable()
  subject: string | null;

  @Column({ type: 'text', nullable: true })
  @Filterable()
  name: string | null;

  @ApiHideProperty()
  @Column({ type: 'text', nullable: true })
  email: string | null;

  /** When an admin banned the user (null: not banned). */
  @ApiHideProperty()
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  @Filterable()
  bannedAt: Date | null;

  /** When the ban ends by itself (null with bannedAt: until an admin lifts it). */
  @ApiHideProperty()
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  bannedUntil: Date | null;

  @ApiHideProperty()
  @Column({ type: 'text', nullable: true })
  banReason: string | null;

  /** Tokens issued before this time no longer count (a ban, or signing out everywhere). */
  @ApiHideProperty()
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  notBefore: Date | null;
}
