import { ApiHideProperty } from '@nestjs/swagger';
import { Column, Entity, Unique } from 'typeorm';
import { RecordEntity } from '../common/record.entity.js';

/** A player's account: one per (identity provider, subject), created at the first sign-in. */
@Entity('users')
@Unique('users_provider_subject_key', ['provider', 'subject'])
export class User extends RecordEntity {
  /** `idp1` or `idp2`. */
  @ApiHideProperty()
  @Column({ type: 'text' })
  provider: string;

  /** The provider's id for the person (the `sub` claim). */
  @ApiHideProperty()
  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  @ApiHideProperty()
  @Column({ type: 'text', nullable: true })
  email: string | null;
}
