import { ApiHideProperty } from '@nestjs/swagger';
import { Column, Entity, Unique } from 'typeorm';
import { Filterable } from '../common/fields.js';
import { RecordEntity } from '../common/record.entity.js';

/** A player's account: one per (identity provider, subject), created at the first sign-in. */
@Entity('users')
@Unique('users_provider_subject_key', ['provider', 'subject'])
export class User extends RecordEntity {
  /** `idp1` or `idp2`. */
  @ApiHideProperty()
  @Column({ type: 'text' })
  @Filterable({ enum: ['idp1', 'idp2'] })
  provider: string;

  /** The provider's id for the person (the `sub` claim). */
  @ApiHideProperty()
  @Column({ type: 'text' })
  @Filterable()
  subject: string;

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
