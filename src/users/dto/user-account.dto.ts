import { ApiProperty } from '@nestjs/swagger';
import { PlayerSessionDto } from '../../auth/dto/player-session.dto.js';

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

  /** The identity provider of the account. */
  @ApiProperty({ enum: ['idp1', 'idp2'], example: 'idp1' })
  provider: string;

  /** The provider's id for the person (its `sub`). */
  @ApiProperty({ example: 'player-42' })
  subject: string;

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
