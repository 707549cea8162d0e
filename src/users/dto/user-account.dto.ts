import { ApiProperty } from '@nestjs/swagger';
import { IdentityDto } from './account.dto.js';
import { PlayerSessionDto } from '../../auth/sign-in-sessions/dto/sign-in-session.dto.js';
import { IDENTITY_PROVIDERS } from '../../auth/users/identity.js';

/** A user account as admins see it: who, since when, whether banned, and where signed in. */
export class UserAccountDto {
  @ApiProperty({ format: 'uuid', readOnly: true })
  uid: string;

  @ApiProperty({ type: 'string', format: 'date-time', readOnly: true })
  dateCreated: Date;

  @ApiProperty({ type: 'string', format: 'date-time', readOnly: true })
  dateModified: Date;

  @ApiProperty({ type: 'integer', readOnly: true })
  version: number;

  /** The provider of the identity the account was created with (kept when that identity is unlinked). */
  @ApiProperty({ enum: IDENTITY_PROVIDERS, enumName: 'IdentityProvider', example: 'idp1' })
  provider: string;

  /** That identity's id at its provider (its `sub`); null for a device, whose id is a secret. */
  @ApiProperty({ type: 'string', nullable: true, example: 'player-42' })
  subject: string | null;

  /** The identities that sign in to the account now, oldest first. */
  @ApiProperty({ type: [IdentityDto] })
  identities: IdentityDto[];

  @ApiProperty({ type: 'string', nullable: true, example: 'Ada' })
  name: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'ada@example.com' })
  email: string | null;

  /** Whether the user is banned now. */
  @ApiProperty({ example: false })
  banned: boolean;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  bannedAt: Date | null;

  /** When the ban ends (null while banned: until an admin lifts it). */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  bannedUntil: Date | null;

  @ApiProperty({ type: 'string', nullable: true })
  banReason: string | null;

  /** The user's active sessions, newest first (`current` is always false here). */
  @ApiProperty({ type: [PlayerSessionDto] })
  sessions: PlayerSessionDto[];
}
