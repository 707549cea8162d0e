import { ApiProperty } from '@nestjs/swagger';
import { IDENTITY_PROVIDERS } from '../../users/identity.js';

/**
 * A sign-in session: one sign-in on one device, alive until it expires or is revoked. The class keeps
 * its first name because the document's schema is named after it.
 */
export class PlayerSessionDto {
  @ApiProperty({ format: 'uuid', example: '6f1c2b9e-0d3a-4e8f-9b7c-2a5d8e1f4c3b' })
  uid: string;

  /** What signed in: a device, or an identity provider. */
  @ApiProperty({ enum: IDENTITY_PROVIDERS, enumName: 'IdentityProvider', example: 'idp1' })
  provider: string;

  /** The client address at sign-in (as TRUST_PROXY lets the service see it). */
  @ApiProperty({ type: 'string', nullable: true, example: '203.0.113.7' })
  address: string | null;

  /** The User-Agent header at sign-in. */
  @ApiProperty({ type: 'string', nullable: true, example: 'UnityPlayer/6000.0.23f1' })
  userAgent: string | null;

  /** When the player signed in. */
  @ApiProperty({ type: 'string', format: 'date-time' })
  dateCreated: Date;

  /** When the session was last refreshed (null: never). */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  lastRefreshedAt: Date | null;

  /** When it ends unless refreshed before (each refresh pushes it REFRESH_TTL further). */
  @ApiProperty({ type: 'string', format: 'date-time' })
  expiresAt: Date;

  /** Whether this is the session of the token the request was made with. */
  @ApiProperty({ example: true })
  current: boolean;
}
