import { ApiProperty } from '@nestjs/swagger';
import { IDENTITY_PROVIDERS } from '../../auth/users/identity.js';

/** One way into an account. A device's id is a secret: it is never shown, not even hashed. */
export class IdentityDto {
  @ApiProperty({ enum: IDENTITY_PROVIDERS, enumName: 'IdentityProvider', example: 'idp1' })
  provider: string;

  /** The person's id at the identity provider (its `sub`); null for a device. */
  @ApiProperty({ type: 'string', nullable: true, example: 'player-42' })
  subject: string | null;

  /** When it was linked (or created the account). */
  @ApiProperty({ type: 'string', format: 'date-time' })
  dateCreated: Date;
}

/** The signed-in player's account: who they are here, and every way they can sign in to it. */
export class AccountDto {
  /** The user's uid (our token's `sub`): the same whichever identity signs in. */
  @ApiProperty({ format: 'uuid' })
  uid: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Ada' })
  name: string | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  dateCreated: Date;

  /** Oldest first. */
  @ApiProperty({ type: [IdentityDto] })
  identities: IdentityDto[];
}
